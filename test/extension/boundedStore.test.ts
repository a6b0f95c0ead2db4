// The transcript store's bound (issue 13) in a real extension host: Analyze Workspace over more files than
// RECENT_FULL_ENTRIES keeps only that many full entries; the tree still lists every file with its verdict,
// counts and claimed-missing range (from the digests); diagnostics stay; a demoted file's tree item and Open
// Timeline load it again and work; a file open in an editor or a timeline is never demoted; a document another
// extension opens without a tab does not load a demoted file again.
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointTreeNode } from '../../src/extension/checkpointTree';
import type { CompactionLensApi } from '../../src/extension/extension';
import { RECENT_FULL_ENTRIES } from '../../src/extension/transcriptStore';
import { closeAllEditors, copySample, extensionApi, ourDiagnostics, waitFor } from './helpers';
import { skipOrFailInCi } from '../sharedFolder';

/** More files than the bound, so that some are demoted. */
const FILES = RECENT_FULL_ENTRIES + 4;

function labelOf(item: vscode.TreeItem): string {
  const label = item.label;
  return typeof label === 'string' ? label : (label?.label ?? '');
}

describe('the transcript store keeps full entries only while something holds them', function () {
  this.timeout(240_000);
  let api: CompactionLensApi;
  let folder: string | undefined;
  let uris: vscode.Uri[] = [];

  before(async function () {
    api = await extensionApi();
    const workspace = vscode.workspace.workspaceFolders?.[0];
    if (!workspace || workspace.uri.scheme !== 'file') {
      skipOrFailInCi(this, 'the test window has no workspace folder on disk');
    }
    await closeAllEditors();
    folder = path.join(workspace.uri.fsPath, `bounded-${Date.now()}`);
    // Copies of one sample, each in its own folder (f00 … f11, analysed in that order).
    uris = Array.from({ length: FILES }, (_, index) => {
      const target = path.join(folder!, `f${String(index).padStart(2, '0')}`);
      mkdirSync(target, { recursive: true });
      return copySample('incident.jsonl', target);
    });
    await vscode.commands.executeCommand('compactionLens.analyzeWorkspace');
  });

  after(async () => {
    await closeAllEditors();
    for (const uri of uris) api.store.remove(uri);
    // Later tests' Analyze Workspace must not find these.
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('Analyze Workspace keeps the bound’s worth of full entries; the tree lists every file with its verdict and counts', () => {
    const full = uris.filter((uri) => api.store.get(uri));
    assert.deepEqual(
      full.map((uri) => uri.fsPath),
      uris.slice(-RECENT_FULL_ENTRIES).map((uri) => uri.fsPath),
      'the most recently analysed files are kept in full, the others demoted',
    );
    assert.equal(api.store.fullEntryCount, RECENT_FULL_ENTRIES);
    const listed = new Set(api.tree.getChildren().map((node) => node.uri.toString()));
    for (const uri of uris) {
      const name = path.relative(folder!, uri.fsPath);
      assert.ok(listed.has(uri.toString()), `${name} is not in the tree`);
      const file = api.tree.getTreeItem({ kind: 'file', uri });
      assert.match(String(file.description), /^1 checkpoint · 4\d\d turns$/, `${name}: ${String(file.description)}`);
      const checkpoints = api.tree.getChildren({ kind: 'file', uri });
      assert.equal(checkpoints.length, 1, name);
      const checkpoint = api.tree.getTreeItem(checkpoints[0]);
      assert.equal(labelOf(checkpoint), 'S1');
      assert.match(String(checkpoint.description), /^380 covered · 40 claimed-missing · .*fail-closed$/, name);
      assert.equal((checkpoint.iconPath as vscode.ThemeIcon).id, 'error', name);
      const ranges: CheckpointTreeNode[] = api.tree.getChildren(checkpoints[0]);
      assert.equal(ranges.length, 1, name);
      const range = api.tree.getTreeItem(ranges[0]);
      assert.equal(labelOf(range), 'turns 380–419', name);
      assert.match(String(range.tooltip), /lines 381–420/, name);
      // Published when analysed, kept when demoted.
      assert.ok(ourDiagnostics(uri).length > 0, `${name} lost its diagnostics`);
    }
  });

  it('a demoted file’s tree item loads it again and reveals its range', async () => {
    const [demoted] = uris;
    assert.equal(api.store.get(demoted), undefined, 'the first file analysed was not demoted');
    const [checkpoint] = api.tree.getChildren({ kind: 'file', uri: demoted });
    const [range] = api.tree.getChildren(checkpoint);
    const item = api.tree.getTreeItem(range);
    assert.ok(item.command, 'selecting a range reveals it');
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    assert.ok(api.store.get(demoted), 'the demoted file was not loaded again');
    const editor = await waitFor(
      () => vscode.window.visibleTextEditors.find((candidate) => candidate.document.uri.toString() === demoted.toString()),
      'the range to be revealed in an editor',
    );
    assert.equal(editor.selection.start.line, 380);
  });

  it('Open Timeline on a demoted file loads it again and its timeline works', async () => {
    const demoted = uris[1];
    assert.equal(api.store.get(demoted), undefined, 'the second file analysed was not demoted');
    await vscode.commands.executeCommand('compactionLens.openTimeline', demoted);
    const timeline = api.panels.get(demoted);
    assert.ok(timeline, 'no timeline panel');
    assert.ok(api.store.get(demoted), 'the demoted file was not loaded again');
    assert.equal(await timeline.receive({ type: 'ready' }), 'handled', 'the timeline has no transcript to show');
  });

  it('never demotes a file open in an editor or a timeline, and demotes it once closed', async () => {
    // uris[1] is open in a timeline (the test above). uris[0] was revealed in a preview editor, which a later
    // preview may have replaced: pin it in an editor of its own here. Then load every other file again.
    const [inEditor, inTimeline] = uris;
    await vscode.window.showTextDocument(inEditor, { preview: false, preserveFocus: true });
    await api.store.load(inEditor); // loaded again if it was let go meanwhile
    for (const uri of uris.slice(2)) await api.store.load(uri);
    for (const uri of uris.slice(2).reverse()) await api.store.load(uri);
    assert.ok(api.store.get(inEditor), 'the file open in an editor was demoted');
    assert.ok(api.store.get(inTimeline), 'the file open in a timeline was demoted');
    assert.equal(api.store.fullEntryCount, RECENT_FULL_ENTRIES + 2);
    // An editor on a demoted file loads it again, also with analyzeOnOpen off (it was analysed before).
    const reopened = uris[uris.length - 1];
    assert.equal(api.store.get(reopened), undefined, 'the least recently loaded file was not demoted');
    const config = () => vscode.workspace.getConfiguration('compactionLens');
    await config().update('analyzeOnOpen', false, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(() => config().get('analyzeOnOpen') === false, 'analyzeOnOpen to be off');
      await vscode.window.showTextDocument(reopened);
      await waitFor(() => api.store.get(reopened), 'the file opened in an editor to be loaded again');
    } finally {
      await config().update('analyzeOnOpen', undefined, vscode.ConfigurationTarget.Global);
    }
    // Closed, the files are let go again once more recently loaded ones take their place.
    await closeAllEditors();
    await waitFor(
      () => api.store.get(inEditor) === undefined && api.store.get(inTimeline) === undefined,
      `the closed files to be demoted (in editor: ${api.store.get(inEditor) ? 'full' : 'demoted'}, in a timeline: ${api.store.get(inTimeline) ? 'full' : 'demoted'}, documents: ${vscode.workspace.textDocuments.map((d) => d.uri.toString()).join(' ')}, tabs: ${vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label)).join(' ')})`,
    );
    assert.ok(api.store.digest(inEditor), 'a demoted file keeps its digest');
  });

  it('a demoted file another extension opens as a document without a tab stays demoted; one opened in a tab is loaded', async () => {
    // Demoted files with no document open yet (a document still open would not be opened again).
    const open = new Set(vscode.workspace.textDocuments.map((document) => document.uri.toString()));
    const demoted = uris.filter((uri) => api.store.isDemoted(uri) && !open.has(uri.toString()));
    assert.ok(demoted.length >= 2, `${demoted.length} demoted files with no document open`);
    const [inDocument, inTab] = demoted;
    await vscode.workspace.openTextDocument(inDocument); // as the git extension does for a diff: no editor, no tab
    await vscode.window.showTextDocument(inTab, { preview: false });
    await waitFor(() => api.store.get(inTab), 'the file opened in a tab to be loaded again');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(api.store.get(inDocument), undefined, 'a document with no tab loaded the demoted file again');
    assert.ok(api.store.isDemoted(inDocument));
    await closeAllEditors();
  });

  it('re-renders the flags of demoted files when the problems severities change', async () => {
    const config = () => vscode.workspace.getConfiguration('compactionLens');
    const demoted = uris.filter((uri) => api.store.isDemoted(uri));
    assert.ok(demoted.length > 0, 'no demoted file to check');
    const runSeverity = (uri: vscode.Uri) => ourDiagnostics(uri).find((diagnostic) => diagnostic.code === 'claimed-missing')?.severity;
    for (const uri of demoted) assert.equal(runSeverity(uri), vscode.DiagnosticSeverity.Warning, 'the default severity');
    try {
      await config().update('problems.conversationSeverity', 'error', vscode.ConfigurationTarget.Global);
      await waitFor(
        () => demoted.every((uri) => runSeverity(uri) === vscode.DiagnosticSeverity.Error),
        'the demoted files’ runs to become errors',
        60000,
      );
    } finally {
      await config().update('problems.conversationSeverity', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(
      () => uris.every((uri) => runSeverity(uri) === vscode.DiagnosticSeverity.Warning),
      'every file’s runs to be warnings again',
      60000,
    );
    assert.ok(api.store.fullEntryCount <= RECENT_FULL_ENTRIES + 2, `${api.store.fullEntryCount} full entries: the bound holds`);
  });
});
