// The timeline panel in a real extension host: the command opens it (and its webview completes the ready
// handshake), the host ignores invalid messages from the webview, and valid ones open the transcript at the
// turn (beside the panel, as a preview, the panel keeping the focus) and copy the safe pointer set; one panel per
// transcript, or a single one following the active transcript (timeline.reuse).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, extensionPath, waitFor } from './helpers';

describe('timeline panel', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('Open Timeline opens the panel for a transcript and its webview says ready', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline, 'no timeline panel for the transcript');
    assert.equal(timeline.panel.viewType, 'compactionLens.timeline');
    assert.equal(timeline.panel.title, 'Timeline: incident.jsonl');
    assert.equal(timeline.panel.webview.options.enableScripts, true);
    const roots = timeline.panel.webview.options.localResourceRoots ?? [];
    assert.deepEqual(
      roots.map((root) => root.fsPath),
      [vscode.Uri.joinPath(vscode.Uri.file(extensionPath()), 'dist').fsPath],
    );
    const html = timeline.panel.webview.html.replace(/&#39;/g, "'").replace(/&quot;/g, '"');
    assert.match(html, /default-src 'none'/);
    const nonce = /script-src 'nonce-([0-9a-f]+)'/.exec(html)?.[1];
    assert.ok(nonce && nonce.length >= 32, 'the CSP has no fresh nonce');
    // The tab model reaches the extension host asynchronously.
    const tab = await waitFor(
      () =>
        vscode.window.tabGroups.all
          .flatMap((group) => group.tabs)
          .find(
            (candidate) =>
              candidate.input instanceof vscode.TabInputWebview && candidate.input.viewType.endsWith('compactionLens.timeline'),
          ),
      'the panel to appear among the open tabs',
    );
    assert.equal(tab.label, 'Timeline: incident.jsonl');
    assert.equal(tab.isActive, true);
    await waitFor(() => timeline.isReady, 'the webview to send ready', 30000);
  });

  it('opening the same transcript again reuses its panel', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const first = api.panels.get(uri);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    assert.equal(api.panels.get(uri), first);
  });

  it('ignores invalid messages from the webview', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline);
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    const invalid: unknown[] = [
      null,
      'ready',
      42,
      [],
      {},
      { type: 'nope' },
      { type: 'constructor' },
      { type: 'openTurn' },
      { type: 'openTurn', turnIndex: 422 },
      { type: 'openTurn', turnIndex: -1 },
      { type: 'openTurn', turnIndex: 1.5 },
      { type: 'openTurn', turnIndex: '3' },
      { type: 'openTurn', turnIndex: Number.NaN },
      { type: 'getRows', requestId: 1, checkpointIndex: 1, start: 0, count: 10 },
      { type: 'getRows', requestId: 1, checkpointIndex: 0, start: 0, count: 1_000_000 },
      { type: 'getRows', requestId: 1, checkpointIndex: 0, start: 423, count: 10 },
      { type: 'getRows', requestId: '1', checkpointIndex: 0, start: 0, count: 10 },
      { type: 'getTurnDetails', requestId: 2, checkpointIndex: 0, turnIndex: 5000 },
      { type: 'getSummary', requestId: -1, checkpointIndex: 0 },
      { type: 'getSummary', requestId: 3, checkpointIndex: 7 },
      { type: 'openCheckpoint', checkpointIndex: 3 },
      { type: 'copySafePointerSet', checkpointIndex: 1 },
      { type: 'copySafePointerSet', checkpointIndex: '0' },
      { type: 'viewState', state: { version: 2, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 0, scrollTop: 0 } },
      { type: 'viewState', state: { version: 1, file: '/etc/passwd', checkpointIndex: 0, selectedTurn: 0, scrollTop: 0 } },
    ];
    for (const message of invalid) {
      assert.equal(await timeline.receive(message), 'ignored', `accepted ${JSON.stringify(message)}`);
    }
    assert.equal(await vscode.env.clipboard.readText(), sentinel, 'an invalid message changed the clipboard');
    const opened = vscode.window.visibleTextEditors.some((editor) => editor.document.uri.toString() === uri.toString());
    assert.equal(opened, false, 'an invalid message opened the transcript');
    assert.equal(timeline.currentViewState, undefined, 'an invalid view state was remembered');
  });

  it('openTurn opens the transcript beside the panel as a preview, with the turn selected, and the panel keeps the focus', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline);
    await waitFor(() => timeline.panel.active, 'the panel to be active');
    const panelColumn = timeline.panel.viewColumn;
    assert.equal(await timeline.receive({ type: 'openTurn', turnIndex: 385 }), 'handled');
    const editor = vscode.window.visibleTextEditors.find((candidate) => candidate.document.uri.toString() === uri.toString());
    assert.ok(editor, 'no editor shows the transcript after openTurn');
    assert.notEqual(editor.viewColumn, panelColumn, 'the transcript did not open beside the panel');
    assert.equal(editor.selection.start.line, 385, 'turn 385 sits on line 386 (0-based 385)');
    assert.equal(editor.selection.end.line, 385);
    assert.match(editor.document.getText(editor.selection), /"id":385/);
    assert.equal(timeline.panel.active, true, 'the timeline stays the active editor (preserveFocus)');
    const tab = await waitFor(
      () =>
        vscode.window.tabGroups.all
          .flatMap((group) => group.tabs)
          .find((candidate) => candidate.input instanceof vscode.TabInputText && candidate.input.uri.toString() === uri.toString()),
      "the transcript's tab",
    );
    assert.equal(tab.isPreview, true, 'the record opens in a preview editor');

    // A second turn goes to the same editor beside, not to a third group.
    assert.equal(await timeline.receive({ type: 'openTurn', turnIndex: 12 }), 'handled');
    const editors = vscode.window.visibleTextEditors.filter((candidate) => candidate.document.uri.toString() === uri.toString());
    assert.equal(editors.length, 1, 'one editor shows the transcript');
    assert.equal(editors[0].viewColumn, editor.viewColumn);
    assert.equal(editors[0].selection.start.line, 12);
    assert.equal(vscode.window.tabGroups.all.length, 2, 'two editor groups: the timeline and the record beside it');
  });

  it('with timeline.reuse "single", one panel shows the transcript opened last and follows the active transcript', async () => {
    const config = vscode.workspace.getConfiguration('compactionLens');
    await config.update('timeline.reuse', 'single', vscode.ConfigurationTarget.Global);
    try {
      const first = copySample();
      const second = copySample();
      await vscode.commands.executeCommand('compactionLens.openTimeline', first);
      const timeline = api.panels.get(first);
      assert.ok(timeline);
      await vscode.commands.executeCommand('compactionLens.openTimeline', second);
      assert.equal(api.panels.all.length, 1, 'a second panel was opened');
      assert.equal(api.panels.get(second), timeline, 'the panel now shows the second transcript');
      assert.equal(api.panels.get(first), undefined);
      assert.equal(timeline.panel.title, 'Timeline: incident.jsonl');
      await waitFor(() => timeline.isReady, 'the retargeted webview to send ready', 30000);
      // The active editor's transcript becomes the panel's.
      await vscode.window.showTextDocument(first, { viewColumn: vscode.ViewColumn.Beside });
      await waitFor(() => api.panels.get(first) === timeline, 'the panel to follow the active transcript');
      assert.equal(api.panels.all.length, 1);
    } finally {
      await config.update('timeline.reuse', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('with timeline.reuse "perTranscript" (the default), each transcript has its own panel', async () => {
    const first = copySample();
    const second = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', first);
    await vscode.commands.executeCommand('compactionLens.openTimeline', second);
    await vscode.commands.executeCommand('compactionLens.openTimeline', first);
    assert.ok(api.panels.get(first) && api.panels.get(second));
    assert.notEqual(api.panels.get(first), api.panels.get(second));
    assert.equal(api.panels.all.length, 2);
  });

  it('copySafePointerSet copies the safe pointer set as JSON; viewState is remembered', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline);
    assert.equal(await timeline.receive({ type: 'copySafePointerSet', checkpointIndex: 0 }), 'handled');
    const copied = JSON.parse(await vscode.env.clipboard.readText()) as { summary_id: string; covered: number[]; uncovered: number[] };
    assert.equal(copied.summary_id, 'S1');
    assert.equal(copied.covered.length + copied.uncovered.length, 420);
    assert.deepEqual(
      copied.covered,
      Array.from({ length: 380 }, (_, index) => index),
      'safe set = turns 0..379',
    );
    const state = { version: 1, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 12, scrollTop: 340 };
    assert.equal(await timeline.receive({ type: 'viewState', state }), 'handled');
    assert.deepEqual(timeline.currentViewState, state);
  });

  it('a turn selected as its tab is being hidden is selected when the timeline shows again', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline);
    await waitFor(() => timeline.isReady, 'the webview to send ready', 30000);
    assert.notEqual(timeline.currentViewState?.selectedTurn, 408);
    // An editor opens in the panel's group (as revealing a turn does), and the selection is asked for at once:
    // the webview is torn down before it can act on it.
    const opening = vscode.window.showTextDocument(uri, { viewColumn: timeline.panel.viewColumn, preview: true });
    timeline.selectTurn(0, 408);
    // A view state the webview sent before the selection reached it (its delayed save) arrives now: it does
    // not settle the selection, which only a view state showing turn 408 does.
    const stale = { version: 1, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 12, scrollTop: 0 };
    assert.equal(await timeline.receive({ type: 'viewState', state: stale }), 'handled');
    await opening;
    await waitFor(() => !timeline.panel.visible, 'the timeline hidden');
    timeline.reveal();
    await waitFor(() => timeline.currentViewState?.selectedTurn === 408, 'the turn selected in the timeline', 30000);
  });
});
