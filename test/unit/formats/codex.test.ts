// Tests of the Codex rollout reader: the real rollouts of the shared corpus, local and remote compaction fixtures,
// and a fuzz test.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import type { Transcript } from '../../../src/core/model';
import { CodexReader, OPAQUE_NOTE } from '../../../src/formats/codex';
import { assertReadAsPushed, corpusBytes, feed, feedAppending, requireCorpus } from './feedLines';
import { fuzzReader } from './fuzz';

const BIG = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const SMALL = 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';

function readCorpus(name: string): Transcript {
  return feed(new CodexReader({ fileName: name, defaultBudget: 20000 }), corpusBytes(join('codex', name)));
}

describe('formats/codex: real rollouts of the corpus', function () {
  this.timeout(20000);
  before(function () {
    requireCorpus(this);
  });

  /*
   * Expected values from a one-off Python script over the file (not this reader): 1302 response_item lines
   * (346 messages, 316 function_call + 316 outputs, 49 + 49 custom tool calls, 219 reasoning, 7 web searches);
   * 888 of them precede the `compacted` line 1788; 38 of the 39 message items of replacement_history equal (role and
   * text) a distinct earlier item, matched latest first, so 888 - 38 = 850 are claimed; the last token_count before it
   * with input_tokens > 0 is line 1785, last_token_usage.total_tokens 212134.
   */
  it(`${BIG}: one opaque checkpoint at line 1788`, () => {
    const t = readCorpus(BIG);
    assert.equal(t.format, 'codex');
    assert.equal(t.turns.length, 1302);
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.span.startLine, 1788);
    assert.equal(cp.opaque, true);
    assert.equal(cp.notes?.[0], OPAQUE_NOTE);
    assert.equal(cp.turnsBefore, 888);
    assert.equal(cp.claimedIds.length, 850);
    assert.equal(cp.recordedPrefixTokens, 212134);
    assert.ok(cp.notes?.some((n) => n.includes('token_count at line 1785') && n.includes('model_context_window 258,400')));
    assert.equal(cp.summaryBudget, 20000);
    assert.equal(cp.budgetAssumed, true);
    // the kept user request (first user message, line 9) is not claimed; the first assistant reply is
    const first = t.turns.find((turn) => turn.span.startLine === 9)!;
    assert.equal(first.role, 'user');
    assert.ok(!cp.claimedIds.includes(first.id));
    // event_msg user_message / agent_message repeat response items and are not turns
    assert.equal(t.turns.filter((turn) => turn.role === 'user').length, 46);
    assert.ok(t.problems.every((p) => p.severity === 'info'));
  });

  it(`${BIG}: every output answers the call with its call_id`, () => {
    // 316 function_call_output + 49 custom_tool_call_output items (see above), each after its call
    const t = readCorpus(BIG);
    const outputs = t.turns.filter((turn) => turn.role === 'tool');
    assert.equal(outputs.length, 316 + 49);
    for (const output of outputs) {
      assert.ok(output.answers, `item ${output.id} answers nothing`);
      const call = t.turns[output.answers.turnId as number];
      assert.ok((output.answers.turnId as number) < (output.id as number));
      assert.equal(output.answers.callText, call.text);
    }
  });

  it(`${SMALL}: 29 turns, no checkpoint`, () => {
    // 29 response_item lines (grep -c '"type":"response_item"')
    const t = readCorpus(SMALL);
    assert.equal(t.turns.length, 29);
    assert.equal(t.checkpoints.length, 0);
    assert.deepEqual(t.problems, []);
  });
});

// ---------------------------------------------------------------------------------------------------------------

const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', type, payload });
const msg = (role: string, text: string) => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
});
const tokens = (input: number, total: number) =>
  line('event_msg', {
    type: 'token_count',
    info: { last_token_usage: { input_tokens: input, output_tokens: total - input, total_tokens: total }, model_context_window: 200000 },
  });

function rollout(compacted: unknown): string {
  return (
    [
      line('session_meta', { id: 's' }),
      line('response_item', msg('developer', 'You are Codex.')),
      line('response_item', msg('user', 'Fix ERR_4107 in ledger.rs')),
      line('event_msg', { type: 'user_message', message: 'Fix ERR_4107 in ledger.rs' }),
      line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Look at ledger.rs' }], encrypted_content: 'xx' }),
      line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["cat","ledger.rs"]}', call_id: 'c1' }),
      line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'fn post() { ERR_4107 }' }),
      tokens(1200, 1300),
      line('response_item', msg('assistant', 'Fixed ledger.rs')),
      line('event_msg', { type: 'agent_message', message: 'Fixed ledger.rs' }),
      tokens(0, 99999),
      line('compacted', compacted),
      line('event_msg', { type: 'context_compacted' }),
      line('response_item', msg('user', 'now run tests')),
    ].join('\n') + '\n'
  );
}

describe('formats/codex: compaction shapes', () => {
  it('local compaction: the summary is the message; kept items are not claimed', () => {
    const summary = 'Another language model started to solve this problem and produced a summary: ledger.rs fixed (ERR_4107).';
    const t = feed(
      new CodexReader({ fileName: 'rollout-x.jsonl' }),
      rollout({ message: summary, replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), msg('user', summary)] }),
    );
    assert.deepEqual(
      t.turns.map((x) => x.role),
      ['system', 'user', 'assistant', 'assistant', 'tool', 'assistant', 'user'],
    );
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.summary, summary);
    assert.equal(cp.opaque, undefined);
    assert.equal(cp.span.startLine, 12);
    assert.equal(cp.turnsBefore, 6);
    assert.deepEqual(cp.claimedIds, [0, 2, 3, 4, 5]); // turn 1 (the user request) is kept verbatim
    assert.equal(cp.recordedPrefixTokens, 1300); // the zero-input token_count on line 11 is passed over
    assert.ok(
      cp.notes?.includes(
        '1 of the 6 items since the start are kept verbatim in replacement_history (matched by content) and are not claimed',
      ),
    );
    assert.match(t.turns[3].text, /^\[tool call shell\] \{"command":\["cat","ledger.rs"\]\}$/);
    assert.deepEqual(t.problems, []);
  });

  it('oldest shape: a message only claims everything since the start', () => {
    const t = feed(new CodexReader({ fileName: 'rollout-x.jsonl' }), rollout({ message: 'summary text' }));
    assert.deepEqual(t.checkpoints[0].claimedIds, [0, 1, 2, 3, 4, 5]);
    assert.ok(t.checkpoints[0].notes?.[0].startsWith('no replacement_history recorded'));
  });

  it('remote compaction: encrypted summary, opaque, said so', () => {
    const t = feed(
      new CodexReader({ fileName: 'rollout-x.jsonl', defaultBudget: 9000 }),
      rollout({
        message: '',
        replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), { type: 'compaction', encrypted_content: 'gAAAA…' }],
      }),
    );
    const cp = t.checkpoints[0];
    assert.equal(cp.opaque, true);
    assert.equal(cp.notes?.[0], 'summary is encrypted (remote compaction): coverage cannot be verified');
    assert.deepEqual(cp.claimedIds, [0, 2, 3, 4, 5]);
    assert.equal(cp.summaryBudget, 9000);
    assert.equal(cp.budgetAssumed, true);
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].severity, 'info');
  });

  it('a second compaction claims only the items after the first', () => {
    const text =
      rollout({ message: 'first' }) +
      [line('response_item', msg('assistant', 'tests pass')), line('compacted', { message: 'second' })].join('\n') +
      '\n';
    const t = feed(new CodexReader({ fileName: 'rollout-x.jsonl' }), text);
    assert.equal(t.checkpoints.length, 2);
    assert.deepEqual(t.checkpoints[1].claimedIds, [6, 7]);
    assert.equal(t.checkpoints[1].recordedPrefixTokens, undefined);
  });

  it('older rollouts with bare items are read', () => {
    const text = [
      JSON.stringify({ id: 's', timestamp: 't', instructions: 'x' }),
      JSON.stringify(msg('user', 'hi')),
      JSON.stringify({ record_type: 'state' }),
      JSON.stringify(msg('assistant', 'hello')),
    ].join('\n');
    const t = feed(new CodexReader({ fileName: 'rollout-x.jsonl' }), text);
    assert.equal(t.turns.length, 2);
    assert.deepEqual(t.problems, []);
  });

  it('an output answers the call item with its call_id, across a compaction and as the file grows', () => {
    const text =
      rollout({ message: 'first' }) +
      [
        line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'c2' }),
        line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'again' }),
        line('response_item', { type: 'custom_tool_call_output', call_id: 'c2', output: 'Done!' }),
        line('response_item', { type: 'function_call_output', call_id: 'gone', output: '?' }),
      ].join('\n') +
      '\n';
    const t = feed(new CodexReader({ fileName: 'rollout-x.jsonl' }), text);
    const call = '[tool call shell] {"command":["cat","ledger.rs"]}';
    assert.deepEqual(t.turns[4].answers, { turnId: 3, callText: call });
    assert.deepEqual(t.turns[8].answers, { turnId: 3, callText: call }); // after the compaction, the call is still in the file
    assert.deepEqual(t.turns[9].answers, { turnId: 7, callText: '[tool call apply_patch] *** Begin Patch' });
    assert.equal(t.turns[10].answers, undefined);
    assert.deepEqual(
      t.turns.filter((turn) => turn.answers !== undefined).map((turn) => turn.id),
      [4, 8, 9],
    );
    for (const cut of [6, 15, 16]) {
      assert.deepEqual(
        feedAppending(new CodexReader({ fileName: 'rollout-x.jsonl' }), text, cut).turns.map((turn) => turn.answers),
        t.turns.map((turn) => turn.answers),
        `cut after line ${cut}`,
      );
    }
  });

  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    fuzzReader(
      () => new CodexReader({ fileName: 'rollout-x.jsonl' }),
      rollout({
        message: '',
        replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), { type: 'compaction', encrypted_content: 'e' }],
      }).trimEnd(),
    );
    fuzzReader(() => new CodexReader({ fileName: 'rollout-x.jsonl' }), windowedRollout().trimEnd());
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Newer shapes (field shapes from jazzyalex/agent-sessions' stage0 codex fixture, content written here): window ids,
// encrypted summaries with an empty message, agent_message and ghost_snapshot items, context_compacted events.

const at = (timestamp: string, type: string, payload: unknown) => JSON.stringify({ timestamp, type, payload });
const agentMsg = (text: string) => ({
  type: 'agent_message',
  id: 'am-1',
  author: 'planner',
  recipient: 'worker',
  content: [
    { type: 'input_text', text },
    { type: 'encrypted_content', encrypted_content: 'gAAA' },
  ],
});
const ghost = {
  type: 'ghost_snapshot',
  ghost_commit: { id: 'g1', parent: 'p1', preexisting_untracked_files: [], preexisting_untracked_dirs: [] },
};
const sealed = {
  type: 'compaction',
  id: 'cmp-1',
  encrypted_content: 'gAAAAB…',
  internal_chat_message_metadata_passthrough: { turn_id: 't1' },
};

/** Two windowed remote compactions; the first one's context_compacted event is written before it (same timestamp). */
function windowedRollout(): string {
  return (
    [
      at('T0', 'session_meta', { id: 's' }),
      at('T1', 'response_item', msg('user', 'Fix ERR_4107 in ledger.rs')), // turn 0
      at('T2', 'response_item', agentMsg('planner says: start with ledger.rs')), // turn 1
      at('T3', 'response_item', ghost), // not a turn
      at('T4', 'response_item', msg('assistant', 'Fixed ledger.rs')), // turn 2
      at('T5', 'event_msg', { type: 'context_compacted' }), // line 6: belongs to the compaction at line 7
      at('T5', 'compacted', {
        message: '',
        window_id: 'w-2',
        window_number: 2,
        previous_window_id: 'w-1',
        first_window_id: 'w-1',
        replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), agentMsg('planner says: start with ledger.rs'), ghost, sealed],
      }),
      at('T6', 'response_item', msg('user', 'now run tests')), // turn 3
      at('T7', 'response_item', msg('assistant', 'tests pass')), // turn 4
      at('T8', 'compacted', {
        message: '',
        window_id: 'w-3',
        window_number: 3,
        previous_window_id: 'w-2',
        first_window_id: 'w-1',
        replacement_history: [msg('user', 'now run tests'), sealed],
      }), // line 10
      at('T9', 'event_msg', { type: 'context_compacted' }), // line 11: belongs to the compaction just before it
    ].join('\n') + '\n'
  );
}

describe('formats/codex: newer shapes (window ids, encrypted summaries, agent_message, ghost_snapshot)', () => {
  it('an encrypted compaction item with an empty message is opaque; ids are the window ids, in order', () => {
    const t = feed(new CodexReader({ fileName: 'rollout-w.jsonl', defaultBudget: 20000 }), windowedRollout());
    assert.deepEqual(
      t.turns.map((x) => [x.role, x.label]),
      [
        ['user', 'user message'],
        ['user', 'agent message from planner'],
        ['assistant', 'assistant message'],
        ['user', 'user message'],
        ['assistant', 'assistant message'],
      ],
    );
    assert.equal(t.turns[1].text, 'planner says: start with ledger.rs');
    assert.deepEqual(
      t.checkpoints.map((c) => [c.summaryId, c.span.startLine, c.opaque, c.turnsBefore]),
      [
        ['w-2', 7, true, 3],
        ['w-3', 10, true, 5],
      ],
    );
    // kept: the user request and the agent message; the ghost snapshot and the compaction item are no items of the log
    assert.deepEqual(t.checkpoints[0].claimedIds, [2]);
    assert.deepEqual(t.checkpoints[1].claimedIds, [4]);
    assert.ok(
      t.checkpoints[0].notes?.includes("previous window w-1 is the thread's first window: items since the start are this compaction's"),
    );
    assert.ok(
      t.checkpoints[0].notes?.includes(
        '2 of the 3 items since the start are kept verbatim in replacement_history (matched by content) and are not claimed',
      ),
    );
    assert.ok(!t.checkpoints[0].notes?.some((n) => n.includes('match no earlier item') || n.includes('matches no earlier item')));
    assert.ok(t.checkpoints[0].notes?.includes('its context_compacted event is at line 6 (written before it, same timestamp)'));
    assert.ok(
      t.checkpoints[1].notes?.includes("previous window w-2: opened by the compaction at line 7; items since then are this compaction's"),
    );
    assert.ok(t.checkpoints[1].notes?.includes('its context_compacted event is at line 11'));
    // only the two "summary is encrypted" infos: no word about agent_message, ghost_snapshot or the events
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [7, 'info'],
        [10, 'info'],
      ],
    );
  });

  it('analyze: the claimed turns of an encrypted compaction are unverifiable, never claimed-missing against ""', () => {
    const a = analyze(feed(new CodexReader({ fileName: 'rollout-w.jsonl', defaultBudget: 20000 }), windowedRollout()), {
      countTokens: (s) => s.length,
    });
    for (const cp of a.checkpoints) {
      assert.equal(cp.verdict, 'fail-closed');
      assert.equal(cp.truncation.truncated, false);
      assert.equal(cp.counts['claimed-missing'], 0);
      assert.ok(cp.turns.filter((r) => r.claimed).every((r) => r.status === 'unverifiable'));
    }
    assert.deepEqual(
      a.checkpoints[0].turns.map((r) => r.status),
      ['uncovered', 'uncovered', 'unverifiable'],
    );
  });

  it('an empty message whose only encrypted payload is on a kept item is opaque too', () => {
    const kept = { ...msg('user', 'Fix ERR_4107 in ledger.rs'), id: 'msg-0', encrypted_content: 'gAAA' };
    const t = feed(
      new CodexReader({ fileName: 'rollout-x.jsonl' }),
      rollout({ message: '', window_id: 'w-2', replacement_history: [kept] }),
    );
    const cp = t.checkpoints[0];
    assert.equal(cp.opaque, true);
    assert.ok(
      cp.notes?.includes(
        'payload.message is empty and replacement_history item 1 (message) carries encrypted_content: the summary is presumably in it',
      ),
    );
    assert.deepEqual(cp.claimedIds, [0, 2, 3, 4, 5]);
  });

  it('an empty message with nothing encrypted is an empty summary (fail closed, said plainly), not opaque', () => {
    const t = feed(
      new CodexReader({ fileName: 'rollout-x.jsonl', defaultBudget: 20000 }),
      rollout({ message: '', replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs')] }),
    );
    const cp = t.checkpoints[0];
    assert.equal(cp.opaque, undefined);
    assert.equal(cp.summary, '');
    assert.ok(
      cp.notes?.includes('payload.message is empty and replacement_history holds no encrypted item: this compaction recorded no summary'),
    );
    const a = analyze(t, { countTokens: (s) => s.length }).checkpoints[0];
    assert.equal(a.verdict, 'fail-closed');
    assert.ok(a.reasons[0].startsWith('the summary is empty'));
  });

  it('an empty message with the local summary kept in replacement_history reads that summary', () => {
    const summary = 'Another language model started to solve this problem and produced a summary: ledger.rs fixed (ERR_4107).';
    const t = feed(
      new CodexReader({ fileName: 'rollout-x.jsonl' }),
      rollout({ message: '', replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), msg('user', summary)] }),
    );
    const cp = t.checkpoints[0];
    assert.equal(cp.summary, summary);
    assert.equal(cp.opaque, undefined);
    assert.deepEqual(cp.claimedIds, [0, 2, 3, 4, 5]);
    assert.ok(!cp.notes?.some((n) => n.includes('match no earlier item') || n.includes('matches no earlier item')));
  });

  it('previous_window_id decides where a claim starts; one naming no earlier compaction is a warning, not a crash', () => {
    const text =
      [
        at('T1', 'response_item', msg('user', 'one')), // turn 0
        at('T2', 'compacted', {
          message: 'first summary: one',
          window_id: 'w-2',
          previous_window_id: 'w-1',
          first_window_id: 'w-1',
          window_number: 2,
        }), // line 2
        at('T3', 'response_item', msg('user', 'two')), // turn 1
        at('T4', 'compacted', {
          message: 'rolled back',
          window_id: 'w-9',
          previous_window_id: 'w-8',
          first_window_id: 'w-1',
          window_number: 9,
        }), // line 4
        at('T5', 'response_item', msg('user', 'three')), // turn 2
        // names w-2 (line 2), not w-9 just before it: turns 1 and 2 are its window's
        at('T6', 'compacted', {
          message: 'after rollback',
          window_id: 'w-3',
          previous_window_id: 'w-2',
          first_window_id: 'w-1',
          window_number: 3,
        }), // line 6
        at('T7', 'compacted', { message: 'again', window_id: 'w-3', previous_window_id: 'w-3', first_window_id: 'w-1', window_number: 5 }), // line 7: repeated id
        at('T8', 'event_msg', { type: 'context_compacted' }), // line 8: belongs to line 7
        at('T9', 'event_msg', { type: 'context_compacted' }), // line 9: belongs to none
      ].join('\n') + '\n';
    const t = feed(new CodexReader({ fileName: 'rollout-w.jsonl' }), text);
    assert.deepEqual(
      t.checkpoints.map((c) => [c.summaryId, c.claimedIds]),
      [
        ['w-2', [0]],
        ['w-9', [1]],
        ['w-3', [1, 2]],
        ['w-3@7', []],
      ],
    );
    assert.ok(
      t.checkpoints[1].notes?.includes(
        'previous_window_id w-8 names no earlier compaction in this file: claimed items counted from the compaction before it in the file (line 2)',
      ),
    );
    assert.ok(t.checkpoints[3].notes?.includes("window_number 5 does not follow its previous window's 3"));
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [4, 'warning'],
        [7, 'info'],
        [9, 'info'],
      ],
    );
    assert.match(t.problems[2].message, /context_compacted event that belongs to no compaction/);
    // stable as the file grows
    for (const cut of [2, 4, 5, 7, 8]) {
      assert.deepEqual(
        feedAppending(new CodexReader({ fileName: 'rollout-w.jsonl' }), text, cut).checkpoints.map((c) => [c.summaryId, c.claimedIds]),
        t.checkpoints.map((c) => [c.summaryId, c.claimedIds]),
        `cut after line ${cut}`,
      );
    }
  });
});

describe('formats/codex: the shape fixture of the corpus (shapes only, trimmed content)', function () {
  before(function () {
    requireCorpus(this);
  });

  it('shape-fixtures/agent-sessions-small.jsonl: every encrypted compaction is opaque, none claimed-missing', () => {
    const t = feed(
      new CodexReader({ fileName: 'agent-sessions-small.jsonl', defaultBudget: 20000 }),
      corpusBytes(join('codex', 'shape-fixtures', 'agent-sessions-small.jsonl')),
    );
    assert.deepEqual(
      t.checkpoints.map((c) => [c.summaryId, c.span.startLine, c.opaque]),
      [
        ['w-2', 26, true],
        ['[trimmed for fixture]', 47, true],
        ['C3', 69, true],
        ['C4', 81, true],
        ['[trimmed for fixture]@89', 89, true],
        ['[trimmed for fixture]@111', 111, true],
      ],
    );
    assert.ok(t.checkpoints[0].notes?.includes('its context_compacted event is at line 19 (written before it, same timestamp)'));
    assert.ok(!t.problems.some((p) => /agent_message|ghost_snapshot|context_compacted/.test(p.message)));
    assert.ok(t.problems.every((p) => p.severity === 'info'));
    const a = analyze(t, { countTokens: (s) => s.length });
    for (const cp of a.checkpoints) {
      assert.equal(cp.counts['claimed-missing'], 0, cp.summaryId);
      assert.equal(cp.truncation.truncated, false, cp.summaryId);
    }
    assert.equal(a.checkpoints[0].counts.unverifiable, 10);
  });
});

describe('formats/codex: records read as they are parsed, only what build reads kept (codexFields)', function () {
  this.timeout(60_000);

  const sha256 = (text: string): string => createHash('sha256').update(text, 'utf16le').digest('base64');
  /** Read as parsed and kept whole, each with and without a digest of the keys: the same transcript all four ways. */
  const bothWays = (name: string, input: string | Buffer): void => {
    const whole = feed(new CodexReader({ fileName: name, defaultBudget: 20000 }, true), input);
    for (const digest of [undefined, sha256]) {
      const lean = feed(new CodexReader({ fileName: name, defaultBudget: 20000, digest }), input);
      assert.deepEqual(lean, whole, `${name}, ${digest ? 'keys digested' : 'keys kept'}`);
      assert.deepEqual(feed(new CodexReader({ fileName: name, defaultBudget: 20000, digest }, true), input), whole, name);
    }
    assertReadAsPushed(
      name,
      input,
      whole,
      (extra, readAhead) => new CodexReader({ fileName: name, defaultBudget: 20000, ...extra }, false, readAhead),
    );
  };

  it('reads the corpus rollouts, the shape fixture and the fixtures here as when every field is kept', function () {
    bothWays(
      'rollout.jsonl',
      rollout({ message: 'Summary: fixed ERR_4107.', replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs')] }),
    );
    bothWays('rollout-w.jsonl', windowedRollout());
    requireCorpus(this);
    for (const name of [BIG, SMALL, join('shape-fixtures', 'agent-sessions-small.jsonl')]) bothWays(name, corpusBytes(join('codex', name)));
  });

  it('reads records of odd shapes in any order as when every field is kept (property, seeded)', () => {
    // Every shape build tells apart: wrappers with and without object payloads, token counts complete, partial or
    // odd, events of each kind, bare items, older rollouts' headers and state records, types that are no string.
    const pool: unknown[] = [
      { type: 'session_meta', payload: { id: 's', instructions: 'x'.repeat(50) } },
      { type: 'session_meta', payload: 'not an object' },
      { type: 'turn_context', payload: { cwd: '/w', model: 'gpt' } },
      { type: 'turn_context' },
      { type: 'event_msg', payload: [1, 2] },
      { type: 'event_msg', timestamp: 'T5', payload: { type: 'context_compacted' } },
      { type: 'event_msg', timestamp: 'T9', payload: { type: 'context_compacted', extra: true } },
      { type: 'event_msg', payload: { type: 'agent_message', message: 'done' } },
      { type: 'event_msg', payload: { type: 'token_count', info: null } },
      { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: 'n/a', model_context_window: 'big' } } },
      { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 0, total_tokens: 5 } } } },
      {
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: { last_token_usage: { input_tokens: 900, output_tokens: 10, total_tokens: 910 }, model_context_window: 1000, total: {} },
        },
      },
      { type: 'response_item', payload: msg('user', 'Fix ERR_4107') },
      { type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c1' } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: 'ok' } },
      { type: 'response_item', payload: 7 },
      msg('assistant', 'a bare item of an older rollout'),
      msg('user', 'Fix ERR_4107'), // bare, and kept by the first compaction below
      { id: 'old', timestamp: 'T0', instructions: 'You are Codex.' },
      { id: 'old', timestamp: 'T0', instructions: null, type: 3 },
      { record_type: 'state' },
      { record_type: 'state', type: 'strange' },
      { type: 'strange', payload: {} },
      { type: 42 },
      'a string record',
      {
        type: 'compacted',
        timestamp: 'T5',
        payload: { message: 'Summary: ERR_4107 fixed.', replacement_history: [msg('user', 'Fix ERR_4107')] },
      },
      { type: 'compacted', payload: { message: '', window_id: 'w-2', previous_window_id: 'w-9', replacement_history: [sealed] } },
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(pool.length - 1), { minLength: 1, maxLength: 40 }), (picks) => {
        bothWays('x.jsonl', picks.map((k) => JSON.stringify(pool[k])).join('\n') + '\n');
      }),
      { seed: 21, numRuns: 300 },
    );
  });
});

describe('formats/codex: a value whose "toString" is not a function', () => {
  it('is read as its JSON in labels and matching keys, never thrown (String() of such an object throws)', () => {
    const evil = { toString: 'x' };
    const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', type, payload });
    const text = [
      line('session_meta', { id: 's' }),
      line('response_item', { type: 'message', role: evil, content: [{ type: 'input_text', text: 'Fix ERR_4107' }] }),
      line('response_item', { type: 'agent_message', author: evil, recipient: evil, content: 'on it' }),
      line('compacted', {
        message: 'Fixed ERR_4107.',
        replacement_history: [{ type: 'message', role: evil, content: [] }, { type: evil }],
      }),
    ].join('\n');
    const t = feed(new CodexReader({ fileName: 'rollout.jsonl' }), text);
    assert.deepEqual(
      t.turns.map((turn) => turn.label),
      ['{"toString":"x"} message', 'agent message'],
    );
    assert.equal(t.checkpoints.length, 1);
  });
});
