// "Compaction Lens: Where Did This Go?" in a real extension host: run on a selection in another editor while the
// incident's timeline is open, it answers that the fact of turn N−12 is claimed by S1 but absent from its summary
// (raw log line 409, flagged), lists it in a quick pick, and choosing it reveals the turn's raw record; run on a
// selection in the transcript itself, a covered fact routes to the summary; on a real Claude Code session
// (.jsonl.gz, read in place from the shared corpus) a dropped turn is flagged and opens in the decompressed
// view; the real timeline panel answers its search box's findFact request; a refused pattern and no match are
// said so.
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import type { WhereDidThisGoResult } from '../../src/extension/whereDidThisGo';
import { skipOrFailInCi } from '../sharedFolder';
import { closeAllEditors, copySample, extensionApi, extensionPath, recordPosts, waitFor } from './helpers';
import { tempFolder } from './tempFolders';

const COMMAND = 'compactionLens.whereDidThisGo';

async function selectIn(editor: vscode.TextEditor, text: string): Promise<void> {
  const offset = editor.document.getText().indexOf(text);
  assert.ok(offset >= 0, `${text} is not in the document`);
  const start = editor.document.positionAt(offset);
  editor.selection = new vscode.Selection(start, editor.document.positionAt(offset + text.length));
}

describe('Where Did This Go?', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await closeAllEditors();
  });

  it("on a selection in another editor: the incident's N−12 fact is claimed by S1 but absent from its summary; raw log line 409", async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    // A file of notes (saved, so closing it asks nothing) holds the selection.
    const notes = path.join(tempFolder(), 'notes.md');
    writeFileSync(notes, 'Why does the nightly job fail? ERR_LEDGER_4107 was the code.\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(notes), { viewColumn: vscode.ViewColumn.Beside });
    await selectIn(editor, 'ERR_LEDGER_4107');

    const result = await vscode.commands.executeCommand<WhereDidThisGoResult>(COMMAND);
    assert.equal(result.kind, 'answer');
    if (result.kind !== 'answer') return;
    assert.equal(result.uri, uri.toString());
    assert.equal(result.answer.query, 'ERR_LEDGER_4107');
    assert.equal(result.answer.matches.length, 1);
    assert.equal(result.answer.flagged, 1);
    const [match] = result.answer.matches;
    assert.equal(match.turnId, 408);
    const [route] = match.routes;
    assert.equal(`${route.why}; ${route.says}`, 'claimed by S1 but absent from its summary; raw log line 409');
    assert.equal(route.flagged, true);
    assert.equal(result.items[0].label, '$(warning) turn 408 — raw log line 409');
    assert.equal(result.items[0].description, 'user · line 409');
    assert.match(
      result.items[0].detail ?? '',
      /^claimed by S1 but absent from its summary; raw log line 409 \(flagged: the pointer set alone would have said it never existed\) — “Found it: the nightly reconcile fails with ERR_LEDGER_4107/,
    );

    // The quick pick is showing the answer: choosing the turn reveals its raw record.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const revealed = await waitFor(() => {
      const active = vscode.window.activeTextEditor;
      return active?.document.uri.toString() === uri.toString() && active.selection.start.line === 408 ? active : undefined;
    }, 'the turn revealed at line 409');
    assert.equal(revealed.selection.end.line, 408);
    // The open timeline selects the turn too: at once when it is showing, else when it is shown again (a hidden
    // webview is torn down, and the selection waits for it), so show it.
    api.panels.get(uri)?.reveal();
    await waitFor(() => api.panels.get(uri)?.currentViewState?.selectedTurn === 408, 'the turn selected in the timeline');
  });

  it('on a selection in the transcript itself: a covered fact routes to its summary', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const editor = await vscode.window.showTextDocument(uri);
    await waitFor(() => vscode.window.activeTextEditor === editor, 'the transcript editor active');
    const line = editor.document.lineAt(2).text;
    assert.match(line, /PAYOUT_1014/);
    const start = line.indexOf('PAYOUT_1014');
    editor.selection = new vscode.Selection(2, start, 2, start + 'PAYOUT_1014'.length);

    const result = await vscode.commands.executeCommand<WhereDidThisGoResult>(COMMAND);
    assert.equal(result.kind, 'answer');
    if (result.kind !== 'answer') return;
    assert.equal(result.uri, uri.toString());
    assert.deepEqual(
      result.answer.matches.map((m) => m.turnId),
      [2],
    );
    const [route] = result.answer.matches[0].routes;
    assert.equal(route.route, 'summary');
    assert.equal(route.says, 'from summary S1');
    assert.equal(result.answer.flagged, 0);
    assert.equal(result.items[0].label, '$(pass) turn 2 — from summary S1');
    assert.ok(
      result.items.some((item) => item.label === '$(note) summary S1'),
      'the summary that holds the text is listed',
    );
  });

  it('a real Claude Code session (.jsonl.gz): the plan file written in a dropped turn is flagged, and opens in the decompressed view', async function () {
    const session = '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz';
    const corpus = path.resolve(process.env.COMPACTION_LENS_REPO_ROOT ?? path.resolve(extensionPath(), '..'), '..', 'shared', 'corpus');
    const file = path.join(existsSync(corpus) ? corpus : path.resolve(extensionPath(), '..', 'shared', 'corpus'), 'claude-code', session);
    if (!existsSync(file)) skipOrFailInCi(this, `${file} is not in the corpus`);
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const result = await vscode.commands.executeCommand<WhereDidThisGoResult>(COMMAND, 'drifting-tumbling-whisper');
    assert.equal(result.kind, 'answer');
    if (result.kind !== 'answer') return;
    assert.equal(result.uri, uri.toString());
    assert.ok(result.answer.flagged >= 1);
    const flagged = result.answer.matches.findIndex((match) => match.routes.some((route) => route.flagged));
    const match = result.answer.matches[flagged];
    assert.equal(match.routes[0].says, `raw log line ${match.line}`);
    assert.match(result.items[flagged].label, /^\$\(warning\) turn .* — raw log line \d+$/);

    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < flagged; i++) await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor(() => {
      const active = vscode.window.activeTextEditor;
      return active?.document.uri.scheme === 'compaction-lens-raw' && active.selection.start.line === match.line - 1 ? active : undefined;
    }, `the flagged turn revealed at line ${match.line} of the decompressed view`);
  });

  it("the timeline panel answers its search box: the incident's N−12 fact, flagged, raw log line 409", async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline);
    const posted = recordPosts(timeline);
    assert.equal(await timeline.receive({ type: 'ready' }), 'handled');
    await timeline.receive({ type: 'findFact', requestId: 901, checkpointIndex: 0, query: 'ERR_LEDGER_4107' });
    const reply = await waitFor(() => posted.find((message) => message.type === 'factFound'), 'the factFound reply');
    assert.ok(reply.type === 'factFound');
    assert.equal(reply.requestId, 901);
    assert.deepEqual(
      reply.turns.map((turn) => [turn.id, turn.line, turn.flagged, `${turn.why}; ${turn.says}`]),
      [[408, 409, true, 'claimed by S1 but absent from its summary; raw log line 409']],
    );
  });

  it('a refused pattern and a fact nowhere are said so', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const refused = await vscode.commands.executeCommand<WhereDidThisGoResult>(COMMAND, '/(a+)+$/');
    assert.equal(refused.kind, 'refused');
    if (refused.kind === 'refused') assert.match(refused.message, /is refused: .*Search for plain text instead/);
    const none = await vscode.commands.executeCommand<WhereDidThisGoResult>(COMMAND, 'no such fact anywhere');
    assert.equal(none.kind, 'answer');
    if (none.kind === 'answer') {
      assert.equal(none.answer.matches.length, 0);
      assert.deepEqual(none.items, []);
    }
  });
});
