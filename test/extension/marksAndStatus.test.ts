// The end-of-line marks on claimed-missing turns and the status bar item, in a real extension host. Marks are
// off by default; when on they decorate the visible editors only (what the decoration was given is observable
// through the API's `marks.marked()`: decorations themselves cannot be read back), and follow the editors.
// The status bar names the checkpoint it reports, the worst of the file, and stays while the timeline has focus.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, waitFor, writeTranscript } from './helpers';

const config = () => vscode.workspace.getConfiguration('compactionLens');

async function setInlineMarks(value: boolean | undefined): Promise<void> {
  await config().update('inlineMarks', value, vscode.ConfigurationTarget.Global);
  await waitFor(() => config().inspect('inlineMarks')?.globalValue === value, `inlineMarks = ${value}`);
}

const visibleUris = () => new Set(vscode.window.visibleTextEditors.map((editor) => editor.document.uri.toString()));
const INCIDENT_MARKS = Array.from({ length: 40 }, (_, index) => 380 + index);

describe('end-of-line marks on claimed-missing turns', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  after(() => setInlineMarks(undefined));

  it('are off by default', async () => {
    assert.equal(config().inspect('inlineMarks')?.defaultValue, false);
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await vscode.window.showTextDocument(uri);
    await waitFor(() => api.store.get(uri), 'the transcript to be analysed');
    api.marks.refresh();
    assert.equal(api.marks.marked().size, 0, `marked: ${[...api.marks.marked().keys()].join(', ')}`);
  });

  it('when on, mark each claimed-missing turn’s first line in visible editors only, and follow them', async () => {
    const first = copySample();
    const second = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', first);
    await api.store.load(second); // analysed, but in no editor
    await vscode.window.showTextDocument(first, { viewColumn: vscode.ViewColumn.One });
    await setInlineMarks(true);
    const lines = await waitFor(() => api.marks.marked().get(first.toString()), 'marks on the visible transcript');
    assert.deepEqual([...lines], INCIDENT_MARKS, 'turn n sits on line n+1; one mark per claimed-missing turn');
    assert.equal(api.marks.marked().get(second.toString()), undefined, 'an analysed transcript in no editor is not decorated');

    // The second replaces the first in the same group: the marks follow what is visible.
    await vscode.window.showTextDocument(second, { viewColumn: vscode.ViewColumn.One });
    await waitFor(
      () => api.marks.marked().has(second.toString()) && !visibleUris().has(first.toString()) && !api.marks.marked().has(first.toString()),
      'the marks to move to the second transcript',
    );
    for (const key of api.marks.marked().keys()) assert.ok(visibleUris().has(key), `${key} is decorated but not visible`);

    await setInlineMarks(false);
    await waitFor(() => api.marks.marked().size === 0, 'no marks once the setting is off');
  });
});

describe('status bar', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('names the checkpoint it reports, and stays while the timeline has focus', async () => {
    const uri = copySample();
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await vscode.window.showTextDocument(uri);
    const text = await waitFor(() => api.statusBar.text || undefined, 'the status bar item');
    assert.match(text, /^\$\(error\) S1: fail-closed · 40 claimed-missing$/);
    assert.match(api.statusBar.tooltip, /only checkpoint: S1 \(line 421\)/);

    // Focus the timeline: no text editor is active, the status bar keeps the transcript's result.
    const timeline = api.panels.get(uri);
    assert.ok(timeline, 'no timeline panel');
    timeline.panel.reveal(undefined, false);
    await waitFor(
      () =>
        vscode.window.activeTextEditor === undefined &&
        vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputWebview,
      'the timeline webview to be the active tab',
    );
    assert.equal(api.statusBar.text, text, 'the status bar item disappeared or changed while the timeline had focus');

    // Nothing open at all: it hides.
    await closeAllEditors();
    await waitFor(() => api.statusBar.text === '', 'the status bar item to hide with no editor open');
  });

  it('reports the worst of several checkpoints and says which', async () => {
    const turn = (id: number) => ({
      type: 'turn',
      id,
      role: id % 2 ? 'assistant' : 'user',
      content: `step ${id}: touched src/module${id}.ts`,
      tokens: 20,
      anchor: `ANCHOR_${id}`,
    });
    const uri = writeTranscript('two-checkpoints.jsonl', [
      turn(0),
      turn(1),
      turn(2),
      {
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'Done: ANCHOR_0, ANCHOR_1 and ANCHOR_2.',
        summary_budget: 4096,
        covered: { from: 0, to: 2 },
      },
      turn(3),
      turn(4),
      turn(5),
      { type: 'checkpoint', summary_id: 'S2', summary: 'Some more work happened.', summary_budget: 4096, covered: { from: 3, to: 5 } },
    ]);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await vscode.window.showTextDocument(uri);
    const entry = await waitFor(() => api.store.get(uri), 'the transcript to be analysed');
    assert.deepEqual(
      entry.analysis.checkpoints.map((checkpoint) => checkpoint.verdict === 'reversible'),
      [true, false],
      'S1 reversible, S2 not',
    );
    const text = await waitFor(() => (/S2/.test(api.statusBar.text) ? api.statusBar.text : undefined), 'the status bar to report S2');
    assert.match(text, /^\$\((warning|error)\) S2 \(2 of 2\): (conditional|fail-closed) · 3 claimed-missing$/);
    assert.match(api.statusBar.tooltip, /worst of this file's 2 checkpoints: S2, checkpoint 2 of 2 \(line 8\)/);
  });
});
