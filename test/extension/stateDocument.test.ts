// A LangGraph state document (one JSON object holding the messages, its lists read a message at a time by
// src/formats/objectLists.ts) in a real extension host: it is analysed, each turn's place is the line of its own
// message in the file (where a click on the timeline goes), and when the agent writes the state again with more
// messages, the re-read finds the new summary.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { assertTurnsOnOwnMessages, closeAllEditors, extensionApi } from './helpers';
import { tempFolder } from './tempFolders';

/** `copies` exchanges of four messages, with a summarisation message after every third. */
function messages(copies: number): unknown[] {
  const out: unknown[] = [];
  for (let k = 0; k < copies; k++) {
    out.push({ type: 'human', id: `h${k}`, content: `Rename LEDGER_${k} in src/ledger/batch_${k}.ts — ünïcode` });
    out.push({
      type: 'ai',
      id: `a${k}`,
      content: '',
      tool_calls: [{ id: `call_${k}`, name: 'edit', args: { path: `src/ledger/batch_${k}.ts` } }],
    });
    out.push({ type: 'tool', id: `t${k}`, tool_call_id: `call_${k}`, content: `renamed LEDGER_${k}` });
    out.push({ type: 'ai', id: `r${k}`, content: `Renamed LEDGER_${k}.` });
    if (k % 3 === 2) {
      out.push({
        type: 'human',
        id: `summary-${k}`,
        content: `Here is a summary of the conversation to date:\n\nRenamed LEDGER_${k - 2} and LEDGER_${k}.`,
        additional_kwargs: { lc_source: 'summarization' },
      });
    }
  }
  return out;
}

const state = (copies: number): string =>
  `${JSON.stringify({ values: { messages: messages(copies) }, next: [], config: { configurable: { thread_id: 't' } } }, null, 2)}\n`;

describe('a LangGraph state document', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('is analysed with each turn on its own line, and read again when the agent writes it again', async () => {
    const file = path.join(tempFolder(), 'state.json');
    writeFileSync(file, state(6));
    const uri = vscode.Uri.file(file);
    const entry = await api.store.load(uri);
    assert.equal(entry.transcript.format, 'langchain');
    assert.equal(entry.transcript.turns.length, 24);
    assert.equal(entry.analysis.checkpoints.length, 2);
    // A message's span starts at its `{`; its id is on one of the lines after it.
    assertTurnsOnOwnMessages(file, entry.transcript.turns, (turn) => `"id": "${String(turn.id)}"`);

    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    assert.ok(api.panels.get(uri), 'no timeline panel');

    writeFileSync(file, state(9));
    await api.store.refresh(uri);
    assert.equal(entry.transcript.turns.length, 36);
    assert.deepEqual(
      entry.analysis.checkpoints.map((cp) => cp.summaryId),
      ['summary-2', 'summary-5', 'summary-8'],
    );
  });
});
