// "Compaction Lens: Reveal Turn…" in a real extension host, its quick pick accepted by VS Code's own command: on
// the incident (420 turns, listed whole), the turn a typed text names is revealed in the editor; on a transcript of
// 1,500 turns, more than it lists at once (1,000), it lists the turns around the cursor's (that one active), the
// turns that hold a typed text (one, or the first 1,000 of all) and reveals the one accepted.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RevealTurnResult } from '../../src/extension/commands';
import { closeAllEditors, copySample, waitFor, writeTranscript } from './helpers';

/** Runs Reveal Turn… with `query` typed and accepts its active item once it is listed; what the command did. */
async function revealAccepting(query?: string): Promise<RevealTurnResult> {
  let result: RevealTurnResult | undefined;
  let ended = false;
  void vscode.commands
    .executeCommand<RevealTurnResult | undefined>('compactionLens.revealTurn', query === undefined ? undefined : { query })
    .then((value) => {
      result = value;
      ended = true;
    });
  // The list is filled in time slices after the pick shows: accepting before then accepts nothing, and the pick stays.
  const deadline = Date.now() + 15000;
  while (!ended) {
    if (Date.now() > deadline) throw new Error('Reveal Turn… was not accepted');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  assert.ok(result, 'the command says what it did');
  return result;
}

async function selectedLine(uri: vscode.Uri, line: number): Promise<void> {
  await waitFor(() => {
    const editor = vscode.window.activeTextEditor;
    return editor?.document.uri.toString() === uri.toString() && editor.selection.start.line === line - 1;
  }, `line ${line} selected`);
}

describe('Reveal Turn…', function () {
  this.timeout(60000);
  afterEach(closeAllEditors);

  it('on the incident: every turn listed; the one that holds the typed text is revealed', async () => {
    const uri = copySample();
    await vscode.window.showTextDocument(uri);
    const result = await revealAccepting('settlement_3660');
    assert.equal(result.listed, 422);
    assert.equal(result.more, false);
    assert.equal(result.chosen, 380);
    await selectedLine(uri, 381);
  });

  it('on 1,500 turns: 1,000 listed at a time, around the cursor or holding the typed text', async () => {
    const records: unknown[] = [];
    for (let i = 0; i < 1500; i++) {
      records.push({
        type: 'turn',
        id: `t${i}`,
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: `Step ${i} of the long task: code E${i}X.`,
      });
    }
    records.push({
      type: 'checkpoint',
      summary_id: 'S1',
      summary: 'Steps done.',
      summary_budget: 8000,
      covered: { from: 't0', to: 't1499' },
    });
    const uri = writeTranscript('long.jsonl', records);
    const editor = await vscode.window.showTextDocument(uri);
    editor.selection = new vscode.Selection(699, 0, 699, 0);

    const around = await revealAccepting();
    assert.deepEqual(around, { listed: 1000, more: true, chosen: 699 }, "the cursor's turn listed and active");
    await selectedLine(uri, 700);

    const one = await revealAccepting('e1234x');
    assert.deepEqual(one, { listed: 1, more: false, chosen: 1234 }, 'found ignoring case, outside the turns listed first');
    await selectedLine(uri, 1235);

    const many = await revealAccepting('of the long task');
    assert.deepEqual(many, { listed: 1000, more: true, chosen: 0 }, 'the first 1,000 that hold it, in log order');
    await selectedLine(uri, 1);
  });
});
