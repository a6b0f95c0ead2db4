// The rest of the editor integration in a real extension host: the Compaction Checkpoints tree, the
// CodeLens on the checkpoint, the hover on turn records, the status bar item, Go to Next Claimed-Missing
// Turn, and Analyze Workspace Transcripts.
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointTreeNode } from '../../src/extension/checkpointTree';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, waitFor } from './helpers';
import { skipOrFailInCi } from '../sharedFolder';

function labelOf(item: vscode.TreeItem): string {
  const label = item.label;
  return typeof label === 'string' ? label : (label?.label ?? '');
}

describe('tree, CodeLens, hover, status bar and navigation', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('the Compaction Checkpoints tree lists the file, its checkpoint and the claimed-missing range', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const files = api.tree.getChildren();
    const file = files.find((node) => node.uri.toString() === uri.toString());
    assert.ok(file, 'the analysed file is not in the tree');
    const checkpoints = api.tree.getChildren(file);
    assert.equal(checkpoints.length, 1);
    const checkpoint = api.tree.getTreeItem(checkpoints[0]);
    assert.equal(labelOf(checkpoint), 'S1');
    assert.match(String(checkpoint.description), /380 covered · 40 claimed-missing/);
    assert.match(String(checkpoint.description), /fail-closed/);
    assert.equal((checkpoint.iconPath as vscode.ThemeIcon).id, 'error');
    const ranges: CheckpointTreeNode[] = api.tree.getChildren(checkpoints[0]);
    assert.equal(ranges.length, 1);
    const range = api.tree.getTreeItem(ranges[0]);
    assert.equal(labelOf(range), 'turns 380–419');
    assert.ok(range.command, 'selecting a range reveals it');
    await vscode.commands.executeCommand(range.command.command, ...(range.command.arguments ?? []));
    // The timeline is open, so the range is selected there rather than in an editor.
    assert.ok(api.panels.get(uri));
    // Nodes asked for after the file lost their checkpoint or range (VS Code may ask before it refreshes).
    for (const stale of [
      { kind: 'checkpoint', uri, checkpointIndex: 5 },
      { kind: 'range', uri, checkpointIndex: 0, rangeIndex: 7 },
      { kind: 'range', uri, checkpointIndex: 3, rangeIndex: 0 },
    ] as const) {
      assert.equal(labelOf(api.tree.getTreeItem(stale)), '(no longer in the transcript)', JSON.stringify(stale.kind));
    }
  });

  it('shows a CodeLens on the checkpoint record and a hover with the turn status and evidence', async () => {
    const uri = copySample();
    const editor = await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const lens = lenses.find((candidate) => candidate.command?.title.startsWith('S1:'));
    assert.ok(lens, 'no S1 CodeLens');
    assert.equal(lens.range.start.line, 420);
    assert.match(lens.command!.title, /^S1: 380 covered · 40 claimed-missing · .*fail-closed — open timeline$/);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      editor.document.uri,
      new vscode.Position(390, 5),
    );
    const text = hovers
      .flatMap((hover) => hover.contents)
      .map((content) => (typeof content === 'string' ? content : 'value' in content ? content.value : ''))
      .join('\n')
      .replace(/&nbsp;/g, ' ')
      .replace(/\\(.)/g, '$1');
    assert.match(text, /turn 390/);
    assert.match(text, /S1: claimed but missing — /);
    assert.match(text, /Evidence \(score 0\.0 of 1\.0 needed\):/);
    assert.match(text, /not found: “[A-Z]+_\d+” \(explicit anchor, weight 1\.0\)/);
  });

  it('the status bar shows the worst verdict and the claimed-missing count of the active transcript', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await vscode.window.showTextDocument(uri);
    const text = await waitFor(() => api.statusBar.text || undefined, 'the status bar item');
    assert.match(text, /fail-closed · 40 claimed-missing/);
  });

  it('Go to Next Claimed-Missing Turn moves the cursor to turn 380 and on', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const editor = await vscode.window.showTextDocument(uri);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('compactionLens.nextClaimedMissing');
    assert.equal(vscode.window.activeTextEditor?.selection.start.line, 380);
    await vscode.commands.executeCommand('compactionLens.nextClaimedMissing');
    assert.equal(vscode.window.activeTextEditor?.selection.start.line, 381);
  });

  it('Analyze Workspace Transcripts finds transcripts by the globs and lists them', async function () {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') {
      skipOrFailInCi(this, 'the test window has no workspace folder on disk');
    }
    const target = path.join(folder.uri.fsPath, `analyze-${Date.now()}`);
    mkdirSync(target, { recursive: true });
    const uri = copySample('incident.jsonl', target);
    await vscode.commands.executeCommand('compactionLens.analyzeWorkspace');
    assert.ok(api.store.get(uri), 'the transcript in the workspace was not analysed');
    assert.ok(api.tree.getChildren().some((node) => node.uri.toString() === uri.toString()));
  });
});
