// `npm run test:electron`: runs the same extension-host test index (test/extension/index.ts) in a desktop
// VS Code through @vscode/test-electron. It needs either a desktop VS Code on this machine (set
// VSCODE_EXECUTABLE to its binary, e.g. /usr/share/code/code) or internet access (test-electron then downloads
// VS Code into .vscode-test/). Offline machines use `npm run test:vscode` (VS Code's server) instead.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runTests } from '@vscode/test-electron';

const ROOT = path.resolve(__dirname, '..', '..', '..');

async function main(): Promise<void> {
  const executable = process.env.VSCODE_EXECUTABLE;
  if (executable && !fs.existsSync(executable)) {
    throw new Error(`VSCODE_EXECUTABLE=${executable} does not exist`);
  }
  console.log(
    executable
      ? `[test:electron] using the desktop VS Code at ${executable}`
      : '[test:electron] VSCODE_EXECUTABLE is not set: downloading VS Code (needs internet; offline, use `npm run test:vscode`)',
  );
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'compaction-lens-electron-'));
  const fixtures = path.join(ROOT, 'test', 'fixtures', 'workspace');
  if (fs.existsSync(fixtures)) {
    fs.cpSync(fixtures, workspace, { recursive: true });
  }
  try {
    await runTests({
      ...(executable ? { vscodeExecutablePath: executable } : {}),
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: path.join(ROOT, 'out', 'test', 'extension', 'index.js'),
      extensionTestsEnv: { COMPACTION_LENS_REPO_ROOT: ROOT },
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome'],
    });
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`[test:electron] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
