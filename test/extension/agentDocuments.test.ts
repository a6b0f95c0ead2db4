// A Letta agent file and a chat request body (JSON objects whose `messages` lists are read a message at a time:
// src/formats/letta.ts and messageArray.ts over objectLists.ts) in a real extension host: each is analysed, each
// turn's place is its own message in the file (where a click on the timeline goes), a request body's `system` turn
// comes first though it is written last, and when the file is written again with more messages the re-read finds
// the new summary.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { assertTurnsOnOwnMessages, closeAllEditors, extensionApi } from './helpers';
import { tempFolder } from './tempFolders';

/** A Letta message in the shape its export writes. */
const lettaMessage = (id: string, role: string, text: string) => ({ type: 'message', role, content: [{ type: 'text', text }], id });

/** A Letta agent file of one agent: `copies` exchanges, a system_alert summary after each second one. */
function lettaFile(copies: number): string {
  const messages: unknown[] = [];
  for (let k = 0; k < copies; k++) {
    messages.push(lettaMessage(`message-${3 * k}`, 'user', `Rename LEDGER_${k} — ünïcode`));
    messages.push(lettaMessage(`message-${3 * k + 1}`, 'assistant', `Renamed LEDGER_${k}.`));
    const alert = JSON.stringify({ type: 'system_alert', message: `Summary: LEDGER_${k} renamed.` }, null, 2);
    messages.push(lettaMessage(`message-${3 * k + 2}`, k % 2 === 1 ? 'user' : 'assistant', k % 2 === 1 ? alert : 'Next?'));
  }
  const ids = messages.map((m) => (m as { id: string }).id);
  const agent = { name: 'builder', id: 'agent-1', in_context_message_ids: ids, messages };
  return `${JSON.stringify({ agents: [agent], groups: [], blocks: [] }, null, 2)}\n`;
}

/** A chat request body, `copies` exchanges and a summary message after each third, its `system` after its messages. */
function requestBody(copies: number): string {
  const messages: unknown[] = [];
  for (let k = 0; k < copies; k++) {
    messages.push({ role: 'user', content: `Rename LEDGER_${k} in src/ledger/batch_${k}.ts` });
    messages.push({ role: 'assistant', content: `Renamed LEDGER_${k}.` });
    if (k % 3 === 2) messages.push({ role: 'user', content: `Here is a summary of the conversation to date:\n\nLEDGER_${k} renamed.` });
  }
  return `${JSON.stringify({ model: 'm', messages, system: 'You are a coding agent.' }, null, 2)}\n`;
}

describe('agent documents read a message at a time', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('a Letta agent file: each turn on its message, its alerts unverifiable checkpoints, read again when written again', async () => {
    const file = path.join(tempFolder(), 'agent.af');
    writeFileSync(file, lettaFile(4));
    const uri = vscode.Uri.file(file);
    const entry = await api.store.load(uri);
    assert.equal(entry.transcript.format, 'letta');
    assert.equal(entry.transcript.turns.length, 10);
    assert.deepEqual(
      entry.analysis.checkpoints.map((cp) => [cp.summaryId, cp.verdict]),
      [
        ['message-5', 'fail-closed'],
        ['message-11', 'fail-closed'],
      ],
    );
    assertTurnsOnOwnMessages(file, entry.transcript.turns, (turn) => JSON.stringify(turn.text));

    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    assert.ok(api.panels.get(uri), 'no timeline panel');

    writeFileSync(file, lettaFile(6));
    await api.store.refresh(uri);
    assert.equal(entry.transcript.turns.length, 15);
    assert.deepEqual(
      entry.analysis.checkpoints.map((cp) => cp.summaryId),
      ['message-5', 'message-11', 'message-17'],
    );
  });

  it('a request body: its system turn first though written last, each message turn on its message, read again when written again', async () => {
    const file = path.join(tempFolder(), 'request.json');
    writeFileSync(file, requestBody(6));
    const uri = vscode.Uri.file(file);
    const entry = await api.store.load(uri);
    assert.equal(entry.transcript.format, 'message-array');
    const [system, ...rest] = entry.transcript.turns;
    assert.equal(system.id, 'system');
    assert.equal(system.text, 'You are a coding agent.');
    assert.equal(rest.length, 12);
    assert.deepEqual(entry.transcript.checkpoints[0].claimedIds.slice(0, 3), ['system', 0, 1]);
    assertTurnsOnOwnMessages(file, rest, (turn) => JSON.stringify(turn.text));

    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    assert.ok(api.panels.get(uri), 'no timeline panel');

    writeFileSync(file, requestBody(9));
    await api.store.refresh(uri);
    assert.equal(entry.transcript.turns.length, 1 + 18);
    assert.deepEqual(
      entry.analysis.checkpoints.map((cp) => cp.summaryId),
      ['message 6', 'message 13', 'message 20'],
    );
  });
});
