// `npm start` (after `npm run build`): opens VS Code with this extension and the bundled incident sample
// (samples/incident.jsonl) showing its compaction timeline.
// - A desktop `code` on PATH: opens samples/ in an Extension Development Host window with the sample file.
// - Otherwise: installs the tools into .tools/ if needed (ensure-tools.mjs), starts VS Code's server on
//   127.0.0.1 (port 8123, or PORT, or a free one when taken) with the extension loaded as the extension under
//   development, and prints the URL to open. The URL's payload also opens the sample and runs
//   scripts/openTimelineOnStart.cjs, which opens the timeline. Runs until Ctrl-C, then stops the server's
//   whole process group.
// Env: PORT, COMPACTION_LENS_FORCE_SERVER=1 (use the server even when `code` is on PATH).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, ensureTools } from './ensure-tools.mjs';
import { freePort, portIsFree, remoteUri, startServer, workbenchUrl } from './vscodeServer.mjs';

const SAMPLES = path.join(ROOT, 'samples');
const SAMPLE = path.join(SAMPLES, 'incident.jsonl');
const START_HOOK = path.join(ROOT, 'scripts', 'openTimelineOnStart.cjs');
const DEFAULT_PORT = 8123;

function log(message) {
  console.log(`[start] ${message}`);
}

function desktopCode() {
  if (process.env.COMPACTION_LENS_FORCE_SERVER) {
    return undefined;
  }
  const found = spawnSync('sh', ['-c', 'command -v code'], { encoding: 'utf8' });
  const codePath = found.status === 0 ? found.stdout.trim() : '';
  // VS Code's own server puts a `code` shim on PATH in its terminals; that one cannot open a desktop window.
  return codePath && !codePath.includes('/remote-cli/') ? codePath : undefined;
}

function openDesktop(code) {
  log(`opening the desktop VS Code (${code}) with the extension under development`);
  const result = spawnSync(code, ['--new-window', `--extensionDevelopmentPath=${ROOT}`, SAMPLES, SAMPLE], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw new Error(`${code} exited with ${result.status ?? result.signal}`);
  }
  log('In the new window run "Compaction Lens: Open Timeline" (Ctrl+Shift+P) on incident.jsonl, or use its CodeLens.');
}

async function choosePort() {
  const wanted = Number(process.env.PORT ?? DEFAULT_PORT);
  if (await portIsFree(wanted)) {
    return wanted;
  }
  const port = await freePort();
  log(`port ${wanted} is taken; using ${port}`);
  return port;
}

async function serveInBrowser() {
  ensureTools();
  const runDir = path.join(ROOT, '.test-runs', `start-${process.pid}`);
  mkdirSync(runDir, { recursive: true });
  const server = await startServer(runDir, { port: await choosePort() });
  const payload = [
    ['extensionDevelopmentPath', remoteUri(server.port, ROOT)],
    ['extensionTestsPath', remoteUri(server.port, START_HOOK)],
    ['openFile', remoteUri(server.port, SAMPLE)],
    ['skipWelcome', 'true'],
  ];
  const url = workbenchUrl(server, SAMPLES, payload);
  console.log('');
  log(`VS Code ${server.version} is serving ${path.relative(ROOT, SAMPLES)}/ with Compaction Lens loaded.`);
  log('Open this URL in a browser (the timeline of incident.jsonl opens by itself):');
  console.log(`\n  ${url}\n`);
  log(`Server log: ${path.relative(ROOT, server.logFile)}. Press Ctrl-C to stop.`);

  let stopping = false;
  const shutdown = async (signal) => {
    if (stopping) {
      return;
    }
    stopping = true;
    log(`${signal}: stopping the VS Code server`);
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Keep the event loop alive until a signal arrives.
  setInterval(() => undefined, 1 << 30);
}

async function main() {
  if (!existsSync(path.join(ROOT, 'dist', 'extension.js'))) {
    throw new Error('dist/extension.js is missing: run `npm start` (it builds first) or `npm run build`');
  }
  if (!existsSync(SAMPLE)) {
    throw new Error(`${path.relative(ROOT, SAMPLE)} is missing`);
  }
  const code = desktopCode();
  if (code) {
    openDesktop(code);
  } else {
    await serveInBrowser();
  }
}

main().catch((error) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
