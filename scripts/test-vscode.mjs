// `npm run test:vscode`: the tests that need a real VS Code, run against VS Code's server (from code-server,
// installed into .tools/ by ensure-tools.mjs) and Debian's Chromium driven by playwright-core.
//  1. Extension-host tests: the workbench opens with the extension-development payload; VS Code runs the test
//     index out/test/extension/index.js in the extension host and reports back through codeAutomationLog /
//     codeAutomationExit, which we expose on the page.
//  2. Workbench tests: mocha in Node on out/test/workbench/**/*.test.js; they drive the workbench page
//     themselves (test/workbench/workbench.ts starts their server and browser).
// Needs `npm run build && npm run compile` first (npm test does both). Exit code: 0 when everything passed.
// Env: VSCODE_TEST_TIMEOUT_MS (extension-host run, default 600000), COMPACTION_LENS_TEST_GREP (mocha grep),
// KEEP_TEST_RUNS=1 (keep .test-runs/<run> even on success), VERBOSE_WORKBENCH_LOG=1 (print the workbench's own log).
// Usage: node scripts/test-vscode.mjs [--extension-only | --workbench-only]

import { spawn } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { ROOT, ensureTools } from './ensure-tools.mjs';
import { launchBrowser } from './browser.mjs';
import { remoteUri, startServer, workbenchUrl } from './vscodeServer.mjs';

const TEST_INDEX = path.join(ROOT, 'out', 'test', 'extension', 'index.js');
const WORKBENCH_TESTS = path.join(ROOT, 'out', 'test', 'workbench');
const FIXTURE_WORKSPACE = path.join(ROOT, 'test', 'fixtures', 'workspace');
const RUNS_DIR = path.join(ROOT, '.test-runs');
const TIMEOUT_MS = Number(process.env.VSCODE_TEST_TIMEOUT_MS ?? 600_000);
const VERBOSE = Boolean(process.env.VERBOSE_WORKBENCH_LOG);

// The workbench forwards its own logging too (agent host, chat, sockets, the unreachable marketplace). Every
// line goes to <run>/workbench.log; the terminal shows the rest (the tests' output) unless VERBOSE_WORKBENCH_LOG=1.
const WORKBENCH_NOISE = [
  /^\[(AgentHost|AgentHost:remote|ChatModelSelection|AccountPolicyGate|reconnection-grace-time|Service Worker)\]/,
  /^(Creating a socket|Resolving connection token|Resolved connection token|Updating additional builtin extensions cache)/,
  /^Creation of workbench contribution/,
  /getaddrinfo (ENOTFOUND|EAI_AGAIN)/,
  /^Timed out waiting for authentication provider/,
];

function log(message) {
  console.log(`[test-vscode] ${message}`);
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Removes run folders (kept after failures) older than a day; recent ones may belong to a run in progress. */
function pruneOldRuns() {
  if (!existsSync(RUNS_DIR)) {
    return;
  }
  const cutoff = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(RUNS_DIR)) {
    const dir = path.join(RUNS_DIR, name);
    if (statSync(dir).mtimeMs < cutoff) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function newRunDir(kind) {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const dir = path.join(RUNS_DIR, `${stamp}-${process.pid}-${kind}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function requireBuilt() {
  const needed = [path.join(ROOT, 'dist', 'extension.js'), TEST_INDEX];
  const missing = needed.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`missing ${missing.map((f) => path.relative(ROOT, f)).join(', ')}: run \`npm run build && npm run compile\` first`);
  }
}

/** Runs the extension-host tests; resolves to the exit code the test index reported. */
async function runExtensionHostTests() {
  const started = Date.now();
  const runDir = newRunDir('exthost');
  const workspace = path.join(runDir, 'workspace');
  if (existsSync(FIXTURE_WORKSPACE)) {
    cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  } else {
    mkdirSync(workspace, { recursive: true });
  }
  log(`extension-host tests: run folder ${path.relative(ROOT, runDir)}`);
  // The test index writes its counts here when mocha is done (test/extension/index.ts).
  const resultFile = path.join(runDir, 'result.json');
  const server = await startServer(path.join(runDir, 'server'), {
    env: {
      COMPACTION_LENS_REPO_ROOT: ROOT,
      COMPACTION_LENS_TEST_RESULT: resultFile,
      ...(process.env.COMPACTION_LENS_TEST_GREP ? { COMPACTION_LENS_TEST_GREP: process.env.COMPACTION_LENS_TEST_GREP } : {}),
    },
  });
  log(`VS Code server ${server.version} on ${server.url} (started in ${seconds(started)})`);
  let browser;
  try {
    browser = await launchBrowser(runDir);
    const { page } = browser;
    let settle;
    const exited = new Promise((resolve) => {
      settle = resolve;
    });
    const workbenchLog = createWriteStream(path.join(runDir, 'workbench.log'));
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = format(...(Array.isArray(args) ? args : [args]));
      workbenchLog.write(`[${type}] ${text}\n`);
      if (VERBOSE || !WORKBENCH_NOISE.some((pattern) => pattern.test(text))) {
        (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
      }
    });
    await page.exposeFunction('codeAutomationExit', (code) => {
      settle({ code: Number(code) });
    });
    page.on('pageerror', (error) => console.error(`[workbench page error] ${error.message}`));
    page.on('crash', () => {
      console.error('[test-vscode] the workbench page crashed');
      settle({ code: 1 });
    });
    const payload = [
      ['extensionDevelopmentPath', remoteUri(server.port, ROOT)],
      ['extensionTestsPath', remoteUri(server.port, TEST_INDEX)],
      ['skipWelcome', 'true'],
    ];
    await page.goto(workbenchUrl(server, workspace, payload));
    const timer = setTimeout(() => settle({ timedOut: true }), TIMEOUT_MS);
    const result = await exited;
    clearTimeout(timer);
    if (result.timedOut) {
      console.error(
        `[test-vscode] extension-host tests did not finish within ${TIMEOUT_MS / 1000} s ` +
          `(VSCODE_TEST_TIMEOUT_MS); server log: ${path.relative(ROOT, server.logFile)}`,
      );
      await page.screenshot({ path: path.join(runDir, 'timeout.png') }).catch(() => undefined);
      return { code: 1, runDir };
    }
    log(`extension-host tests exited with ${result.code} after ${seconds(started)}`);
    if (result.code === 0 && !existsSync(resultFile)) {
      // A success with no counts: the extension host died or hung before mocha finished.
      console.error("[test-vscode] the extension host ended without reporting its tests' result (it may have crashed or hung)");
      return { code: 1, runDir };
    }
    return { code: result.code, runDir };
  } finally {
    await browser?.close();
    await server.stop();
  }
}

function findWorkbenchTests() {
  if (!existsSync(WORKBENCH_TESTS)) {
    return [];
  }
  return readdirSync(WORKBENCH_TESTS, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.js'))
    .map((name) => path.join(WORKBENCH_TESTS, name))
    .sort();
}

/** Runs mocha on the workbench tests in a child Node; resolves to its exit code. */
function runWorkbenchTests(files) {
  const started = Date.now();
  log(`workbench tests: ${files.map((f) => path.relative(ROOT, f)).join(', ')}`);
  const args = [path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--timeout', '180000', '--forbid-only'];
  if (process.env.COMPACTION_LENS_TEST_GREP) {
    args.push('--grep', process.env.COMPACTION_LENS_TEST_GREP);
  }
  args.push(...files);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      log(`workbench tests exited with ${code ?? signal} after ${seconds(started)}`);
      resolve(code ?? 1);
    });
  });
}

async function main() {
  const started = Date.now();
  const only = process.argv[2];
  ensureTools();
  requireBuilt();
  pruneOldRuns();
  let failed = false;
  if (only !== '--workbench-only') {
    const { code, runDir } = await runExtensionHostTests();
    if (code !== 0) {
      failed = true;
      log(`kept ${path.relative(ROOT, runDir)} for inspection (server.log, chromium profile)`);
    } else if (!process.env.KEEP_TEST_RUNS) {
      rmSync(runDir, { recursive: true, force: true });
    }
  }
  if (only !== '--extension-only') {
    const files = findWorkbenchTests();
    if (files.length === 0) {
      log('no workbench tests (out/test/workbench/**/*.test.js) found');
    } else if ((await runWorkbenchTests(files)) !== 0) {
      failed = true;
    }
  }
  log(`${failed ? 'FAILED' : 'passed'} in ${seconds(started)}`);
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(`[test-vscode] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
