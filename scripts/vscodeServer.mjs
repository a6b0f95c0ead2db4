// Starts and stops VS Code's server (from code-server in .tools/) on 127.0.0.1, for the real-VS-Code tests and
// `npm start`. Each start gets fresh data folders, so nothing is written to the home folder and runs never
// share state. The server is started in its own session/process group (setsid) and stopped by killing that
// group: it leaves child processes (file watcher, extension host, agent host) behind otherwise.

import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { serverMain, toolNode } from './ensure-tools.mjs';

export const HOST = '127.0.0.1';

/** Asks the OS for a free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** True when `port` on 127.0.0.1 can be listened on right now. */
export function portIsFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.on('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

async function waitForVersion(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`VS Code server exited early (${child.exitCode ?? child.signalCode})`);
    }
    try {
      const response = await fetch(`${url}/version`);
      if (response.ok) {
        return (await response.text()).trim();
      }
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`VS Code server did not answer ${url}/version within ${timeoutMs} ms (${lastError})`);
}

/** Kills the whole process group `pgid` (SIGTERM, then SIGKILL after `graceMs`). Safe to call twice. */
async function killGroup(pgid, child, graceMs) {
  const signalGroup = (signal) => {
    try {
      process.kill(-pgid, signal);
      return true;
    } catch {
      return false; // the group is already gone
    }
  };
  if (!signalGroup('SIGTERM')) {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (!signalGroup(0)) {
      return;
    }
  }
  signalGroup('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) {
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/**
 * Starts the server. `runDir` receives the data folders and server.log.
 * Options: port (default: a free one), echo (also print the server output), extraArgs, env, startTimeoutMs.
 * Returns { url, port, pid, version, logFile, stop() }.
 */
export async function startServer(runDir, options = {}) {
  const port = options.port ?? (await freePort());
  const url = `http://${HOST}:${port}`;
  mkdirSync(runDir, { recursive: true });
  const args = [
    serverMain(),
    '--host',
    HOST,
    '--port',
    String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--disable-telemetry',
    '--disable-workspace-trust',
    '--server-data-dir',
    path.join(runDir, 'sd'),
    '--user-data-dir',
    path.join(runDir, 'ud'),
    '--extensions-dir',
    path.join(runDir, 'ext'),
    ...(options.extraArgs ?? []),
  ];
  const logFile = path.join(runDir, 'server.log');
  const logStream = createWriteStream(logFile);
  // detached: true makes the child call setsid(), so it leads a new session and process group (pgid = pid).
  const child = spawn(toolNode(), args, {
    cwd: runDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(options.env ?? {}) },
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(logStream, { end: false });
    if (options.echo) {
      stream.on('data', (chunk) => process.stdout.write(chunk));
    }
  }
  const pgid = child.pid;
  // Last resort if the caller dies without calling stop(): the exit handler can only do synchronous work.
  const killOnExit = () => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) {
      return;
    }
    stopped = true;
    await killGroup(pgid, child, 5000);
    process.off('exit', killOnExit);
    logStream.end();
  };

  try {
    const version = await waitForVersion(url, child, options.startTimeoutMs ?? 60_000);
    return { url, port, pid: pgid, version, logFile, stop };
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}; see ${logFile}`, { cause: error });
  }
}

/** The `vscode-remote://` URI of an absolute path on the server's machine (for payload entries). */
export function remoteUri(port, absolutePath) {
  return `vscode-remote://${HOST}:${port}${absolutePath.split(path.sep).map(encodeURIComponent).join('/')}`;
}

/**
 * The workbench URL opening `folder`, with an optional test payload: a list of [key, value] pairs such as
 * extensionDevelopmentPath / extensionTestsPath, honoured because of --enable-smoke-test-driver.
 */
export function workbenchUrl(server, folder, payload) {
  const query = [`folder=${encodeURIComponent(folder)}`];
  if (payload && payload.length > 0) {
    query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  }
  return `${server.url}/?${query.join('&')}`;
}
