// A gzip-compressed transcript (.jsonl.gz) in a real extension host: Open Timeline with only its tab active
// (VS Code shows a .gz in its binary placeholder, not a text editor) uses that tab's file; a turn opens in the
// read-only decompressed view at the turn's line; diagnostics, CodeLens and hover are on that view, none on
// the .gz; the .gz is never written. Analyze Workspace finds .jsonl.gz files, and opening one's tab analyses it.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, ourDiagnostics, waitFor } from './helpers';
import { tempFolder } from './tempFolders';
import { skipOrFailInCi } from '../sharedFolder';

const DECOMPRESSED_SCHEME = 'compaction-lens-raw';

/** incident.jsonl compressed into <folder, or a new temporary one>/incident.jsonl.gz (no .jsonl is left there). */
function compressedSample(folder = tempFolder('compaction-lens-gz-')): vscode.Uri {
  const plain = copySample('incident.jsonl', folder);
  const file = `${plain.fsPath}.gz`;
  writeFileSync(file, gzipSync(readFileSync(plain.fsPath)));
  rmSync(plain.fsPath);
  return vscode.Uri.file(file);
}

function activeTabUri(): vscode.Uri | undefined {
  const input: unknown = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input && typeof input === 'object' && 'uri' in input && input.uri instanceof vscode.Uri ? input.uri : undefined;
}

describe('a .jsonl.gz transcript in the editor', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('with analyzeOnOpen (the default), opening a .jsonl.gz tab analyses it, as opening a .jsonl does', async () => {
    const uri = compressedSample();
    assert.equal(api.store.get(uri), undefined);
    await vscode.commands.executeCommand('vscode.open', uri);
    await waitFor(() => activeTabUri()?.toString() === uri.toString(), 'the .gz tab to be active');
    const entry = await waitFor(() => api.store.get(uri), 'the .gz to be analysed on open');
    assert.equal(entry.analysis.checkpoints.length, 1);
  });

  it('Open Timeline uses the active .gz tab; a turn opens in the decompressed view at its line, where the diagnostics are', async () => {
    const uri = compressedSample();
    const bytes = readFileSync(uri.fsPath);
    await vscode.commands.executeCommand('vscode.open', uri);
    await waitFor(() => activeTabUri()?.toString() === uri.toString(), 'the .gz tab to be active');
    assert.equal(vscode.window.activeTextEditor, undefined, 'VS Code shows a .gz in a text editor');

    // No argument: the command must take the active tab's file, not ask for one.
    await vscode.commands.executeCommand('compactionLens.openTimeline');
    const timeline = await waitFor(() => api.panels.get(uri), 'the timeline of the .gz');
    const entry = api.store.get(uri);
    assert.ok(entry, 'the .gz was not analysed');
    assert.equal(entry.documentUri.scheme, DECOMPRESSED_SCHEME);

    assert.equal(await timeline.receive({ type: 'openTurn', turnIndex: 385 }), 'handled');
    // The record opens beside the timeline, which keeps the focus (preserveFocus).
    const editor = vscode.window.visibleTextEditors.find((candidate) => candidate.document.uri.scheme === DECOMPRESSED_SCHEME);
    assert.ok(editor, 'no editor shows the decompressed view after openTurn');
    const document = editor.document;
    assert.equal(document.uri.scheme, DECOMPRESSED_SCHEME);
    assert.equal(document.uri.toString(), entry.documentUri.toString());
    assert.equal(editor.selection.start.line, 385, 'turn 385 sits on line 386 (0-based 385), as in the .jsonl');
    assert.equal(editor.selection.end.line, 385);
    assert.match(document.getText(editor.selection), /"id":385/);
    const plain = gunzipSync(bytes).toString('utf8');
    assert.equal(document.getText(), plain, 'the view shows the decompressed file, line for line');

    // Diagnostics: on the view (checkpoint line 421), none on the .gz that VS Code cannot show.
    const truncated = await waitFor(
      () => ourDiagnostics(document.uri).find((diagnostic) => diagnostic.code === 'truncated-summary'),
      'a truncated-summary diagnostic on the decompressed view',
    );
    assert.equal(truncated.range.start.line, 420);
    assert.deepEqual(ourDiagnostics(uri), [], 'diagnostics were attached to the .gz');
    const missing = ourDiagnostics(document.uri).find((diagnostic) => diagnostic.code === 'claimed-missing');
    assert.ok(missing, 'no claimed-missing diagnostic on the view');
    const related = missing.relatedInformation ?? [];
    assert.equal(related.length, 40);
    assert.ok(
      related.every((info) => info.location.uri.toString() === document.uri.toString()),
      'related turns point into the view',
    );
    assert.equal(related[0].location.range.start.line, 380);

    // CodeLens on the checkpoint record and the hover on a turn, in the view.
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri);
    const lens = lenses.find((candidate) => candidate.command?.title.startsWith('S1:'));
    assert.ok(lens, 'no S1 CodeLens on the view');
    assert.equal(lens.range.start.line, 420);
    assert.equal(String(lens.command?.arguments?.[0]), uri.toString(), 'the CodeLens opens the timeline of the .gz');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      new vscode.Position(390, 5),
    );
    const hoverText = hovers
      .flatMap((hover) => hover.contents)
      .map((content) => (typeof content === 'string' ? content : 'value' in content ? content.value : ''))
      .join('\n')
      .replace(/&nbsp;/g, ' ');
    assert.match(hoverText, /turn 390/);
    assert.match(hoverText, /S1: claimed but missing/);

    // The view has no file behind it to save to (the editor shows it read-only): the .gz is never written.
    assert.equal(document.isUntitled, false);
    assert.equal(document.isDirty, false);
    assert.deepEqual(readFileSync(uri.fsPath), bytes, 'the .gz was written');
  });

  it('Go to Next Claimed-Missing Turn and Open Timeline work from the decompressed view', async () => {
    const uri = compressedSample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const entry = await waitFor(() => api.store.get(uri), 'the .gz to be analysed');
    const editor = await vscode.window.showTextDocument(entry.documentUri);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('compactionLens.nextClaimedMissing');
    const active = vscode.window.activeTextEditor;
    assert.equal(active?.document.uri.toString(), entry.documentUri.toString());
    assert.equal(active?.selection.start.line, 380);
    // The editor title passes the view's own URI: it stands for the .gz.
    await vscode.commands.executeCommand('compactionLens.openTimeline', entry.documentUri);
    assert.ok(api.panels.get(uri));
    assert.equal(api.store.get(entry.documentUri), undefined, 'the view was analysed as a transcript of its own');
  });

  it('Analyze Workspace Transcripts finds .jsonl.gz files by the default globs', async function () {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') {
      skipOrFailInCi(this, 'the test window has no workspace folder on disk');
    }
    const target = path.join(folder.uri.fsPath, `analyze-gz-${Date.now()}`);
    mkdirSync(target, { recursive: true });
    const uri = compressedSample(target);
    await vscode.commands.executeCommand('compactionLens.analyzeWorkspace');
    assert.ok(api.store.get(uri), 'the .jsonl.gz in the workspace was not analysed');
    assert.ok(api.tree.getChildren().some((node) => node.uri.toString() === uri.toString()));
    assert.deepEqual(ourDiagnostics(uri), []);
    assert.ok(ourDiagnostics(api.store.get(uri)!.documentUri).length > 0, 'no diagnostics on the decompressed view');
  });
});
