// Startup hook for `npm start` (scripts/start.mjs) on the VS Code server: VS Code loads it in the extension
// host as the `extensionTestsPath` of the development payload, which is the only way a URL can make the
// workbench run something once the extension host is up. It opens the timeline of the sample transcript
// (COMPACTION_LENS_START_FILE, or incident.jsonl in the first workspace folder) through the extension's own
// command, then never settles: settling would tell VS Code a "test run" ended.
const path = require('node:path');
const vscode = require('vscode');

exports.run = async function run() {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const file = process.env.COMPACTION_LENS_START_FILE
    ? vscode.Uri.file(path.resolve(process.env.COMPACTION_LENS_START_FILE))
    : folder && vscode.Uri.joinPath(folder.uri, 'incident.jsonl');
  if (file) {
    try {
      await vscode.commands.executeCommand('compactionLens.openTimeline', file);
    } catch (error) {
      void vscode.window.showErrorMessage(`Compaction Lens: could not open the timeline of ${file.fsPath}: ${error}`);
    }
  }
  return new Promise(() => undefined);
};
