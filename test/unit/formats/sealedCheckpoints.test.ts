// Tests that the readers whose checkpoints never change once made seal them (core/sealedRecord.ts: deep-frozen and
// known as such), so the checkpoint memo keeps each as it is instead of copies of its claims (an OpenHands file of
// 78 condensations, each claiming every event before it, kept every claim three times), and that a reader read as a
// file grows hands back the same checkpoint objects. Canonical and Claude Code checkpoints are checked on real files
// in test/unit/node/checkpointMemo.files.test.ts.
import assert from 'node:assert/strict';
import type { Checkpoint, TranscriptReader } from '../../../src/core/model';
import { isSealed } from '../../../src/core/sealedRecord';
import { LangChainReader } from '../../../src/formats/langchain';
import { MessageArrayReader } from '../../../src/formats/messageArray';
import { OpenHandsReader } from '../../../src/formats/openHands';
import { PiReader } from '../../../src/formats/pi';
import { feed, splitLines } from './feedLines';
import { piHeader, piMessage, piReply, piUser } from './piRecords';

const jsonl = (records: readonly unknown[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** Asserts that each checkpoint is sealed, frozen through its claims, span and notes. */
function assertSealed(checkpoints: readonly Checkpoint[], what: string): void {
  assert.ok(checkpoints.length > 0, `${what} has checkpoints`);
  for (const cp of checkpoints) {
    assert.ok(isSealed(cp), `${what}: ${cp.summaryId} is sealed`);
    assert.ok(Object.isFrozen(cp.claimedIds) && Object.isFrozen(cp.span), `${what}: ${cp.summaryId}'s claims and span are frozen`);
    if (cp.notes !== undefined) assert.ok(Object.isFrozen(cp.notes), `${what}: ${cp.summaryId}'s notes are frozen`);
  }
}

/** Reads `text` up to line `cut`, then the rest: both snapshots' checkpoints, sealed, the first ones the same objects. */
function assertSealedAsItGrows(reader: TranscriptReader, text: string, cut: number, what: string): void {
  const lines = splitLines(Buffer.from(text, 'utf8'));
  for (const line of lines.slice(0, cut)) reader.push(line);
  const first = reader.finish();
  for (const line of lines.slice(cut)) reader.push(line);
  const second = reader.finish();
  assertSealed(first.checkpoints, `${what}, first part`);
  assertSealed(second.checkpoints, what);
  assert.ok(second.checkpoints.length > first.checkpoints.length, `${what}: a checkpoint in the second part`);
  first.checkpoints.forEach((cp, i) => assert.equal(second.checkpoints[i], cp, `${what}: ${cp.summaryId} is the same object`));
}

describe('formats: sealed checkpoints', () => {
  it('OpenHands condensations, the later one folding in the earlier one', () => {
    const ev = (id: number, extra: Record<string, unknown>) => ({ id, timestamp: 't', source: 'agent', message: '', ...extra });
    const events = [
      ev(0, { source: 'user', action: 'message', args: { content: 'Fix ERR_4107 in ledger.py' } }),
      ev(2, { action: 'run', args: { command: 'cat ledger.py' } }),
      ev(3, { observation: 'run', cause: 2, content: 'def post(): raise ERR_4107' }),
      ev(8, { action: 'condensation', args: { summary: 'Fixed ERR_4107', forgotten_event_ids: [2, 3] } }),
      ev(10, { action: 'run', args: { command: 'pytest' } }),
      ev(11, { action: 'condensation', args: { forgotten_event_ids: [10], summary: 'All fixed' } }),
    ];
    const reader = new OpenHandsReader({ fileName: 'e.jsonl' });
    assertSealedAsItGrows(reader, jsonl(events), 5, 'OpenHands');
    assert.deepEqual(reader.finish().checkpoints[1].claimedIds, [2, 3, 10]);
  });

  it('pi compactions', () => {
    const records = [
      piHeader(),
      piMessage(piUser('Fix ERR_4107 in src/ledger.ts')),
      piMessage(piReply('Fixed ERR_4107 with retryPost.')),
      piMessage(piUser('now run the tests')),
      { type: 'compaction', timestamp: 't', summary: 'Fixed ERR_4107.', firstKeptEntryIndex: 3, tokensBefore: 1200 },
      piMessage(piUser('ok, commit it')),
      { type: 'compaction', timestamp: 't', summary: 'Fixed and tested.', firstKeptEntryIndex: 5, tokensBefore: 1500 },
    ];
    assertSealedAsItGrows(new PiReader({ fileName: 'session.jsonl', defaultBudget: 13107 }), jsonl(records), 6, 'pi');
  });

  it('message-array summaries', () => {
    const chat = [
      { role: 'user', content: 'Fix ERR_4107 in ledger.py' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Here is a summary of the conversation to date:\n\nledger.py fixed.' },
      { role: 'assistant', content: 'What next?' },
    ];
    assertSealed(
      feed(new MessageArrayReader({ fileName: 'chat.json', defaultBudget: 8192 }), JSON.stringify(chat, null, 2)).checkpoints,
      'message array',
    );
  });

  it('LangChain summaries: a summary message in JSON Lines, and a running summary in a state', () => {
    const human = (id: string, content: string) => ({ type: 'human', id, content });
    const ai = (id: string, content: string) => ({ type: 'ai', id, content, tool_calls: [] });
    const lines = [
      human('m0', 'Our ledger service throws ERR_4107 on post()'),
      ai('m1', 'Looking at ledger.py line 12'),
      { type: 'system', id: 's1', content: 'Summary of the conversation so far: ledger.py fixed.' },
      human('m2', 'thanks'),
      { type: 'system', id: 's2', content: 'Summary of the conversation so far: thanked.' },
    ];
    assertSealedAsItGrows(new LangChainReader({ fileName: 'chat.jsonl', defaultBudget: 256 }), jsonl(lines), 4, 'LangChain JSON Lines');
    const state = {
      values: {
        messages: [human('m0', 'Our ledger service throws ERR_4107'), ai('m1', 'Renamed Ledger to Journal.')],
        context: { running_summary: { summary: 'Renamed Ledger to Journal.', summarized_message_ids: ['m0', 'm1'] } },
      },
    };
    assertSealed(feed(new LangChainReader({ fileName: 'state.json' }), JSON.stringify(state, null, 2)).checkpoints, 'LangChain state');
  });
});
