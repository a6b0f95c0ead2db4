// Tests of the pi coding-agent session reader: the real session of the shared corpus (read in place), hand-written
// sessions of both compaction shapes (version 1 firstKeptEntryIndex, version 3 firstKeptEntryId with a branch),
// tool-result linking, bad and half-written lines, and a fuzz test.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ReaderContext, Transcript } from '../../../src/core/model';
import { PiReader } from '../../../src/formats/pi';
import { assertReadAsPushed, corpusBytes, feed, feedAppending, requireCorpus } from './feedLines';
import { fuzzReader } from './fuzz';
import { piCall, piHeader, piMessage, piReply, piResult, piUser, type Rec } from './piRecords';

const jsonl = (records: readonly unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const read = (text: string): Transcript => feed(new PiReader({ fileName: 'session.jsonl', defaultBudget: 13107 }), text);
/** A reader as `read` makes it, with these context fields and read-ahead (assertReadAsPushed). */
const readerWith = (extra: Partial<ReaderContext>, readAhead: number): PiReader =>
  new PiReader({ fileName: 'session.jsonl', defaultBudget: 13107, ...extra }, readAhead);

// Short names for the shared record builders (piRecords.ts).
const [header, message, user, call, result, reply] = [piHeader, piMessage, piUser, piCall, piResult, piReply];
const SUMMARY = '# Context Checkpoint: ledger\n\n## Goal\nFix ERR_4107 in src/ledger.ts (retryPost).';

/** Version 1 (no ids). Entry indexes (header = 0) are the line numbers minus one. */
const V1 = [
  header(), // 0, line 1
  message(user('Fix ERR_4107 in src/ledger.ts')), // 1
  message(call('t1', 'read', { path: 'src/ledger.ts' }, 'Reading it.')), // 2
  message(result('t1', 'read', 'export function post() { throw new LedgerError("ERR_4107") }')), // 3
  { type: 'model_change', timestamp: 't', provider: 'anthropic', modelId: 'claude-sonnet-4-5' }, // 4
  message(call('t2', 'edit', { path: 'src/ledger.ts', oldText: 'throw', newText: 'return retryPost(entry)' })), // 5
  message(result('t2', 'edit', 'Could not find the exact text', true)), // 6
  message(reply('Fixed ERR_4107 with retryPost.')), // 7
  message(user('now run the tests')), // 8: first kept by the first compaction
  message(call('t3', 'bash', { command: 'npm test' })), // 9
  message(result('t3', 'bash', '49 passing')), // 10
  { type: 'compaction', timestamp: 't', summary: SUMMARY, firstKeptEntryIndex: 8, tokensBefore: 1200 }, // 11, line 12
  message(user('ok, commit it')), // 12: first kept by the second
  { type: 'thinking_level_change', timestamp: 't', thinkingLevel: 'high' }, // 13
  message({
    role: 'bashExecution',
    command: 'git status',
    output: 'modified: src/ledger.ts',
    exitCode: 0,
    cancelled: false,
    truncated: false,
  }), // 14
  message({
    role: 'bashExecution',
    command: 'ls',
    output: 'secret',
    exitCode: 0,
    cancelled: false,
    truncated: false,
    excludeFromContext: true,
  }), // 15
  { type: 'compaction', timestamp: 't', summary: `${SUMMARY}\n- tests pass`, firstKeptEntryIndex: 12, tokensBefore: 1500 }, // 16, line 17
];

describe('formats/pi: the real session of the corpus (pi/before-compaction.jsonl.gz)', function () {
  this.timeout(20000);
  before(function () {
    requireCorpus(this);
  });

  /*
   * Expected values counted from the file, not by this reader, with:
   *   zcat before-compaction.jsonl.gz > pi.jsonl; node -e 'const L=fs.readFileSync("pi.jsonl","utf8").split("\n");
   *   for each line: if type=="message" count it; at a compaction, count the message lines among L[0..firstKeptEntryIndex-1]'
   * → 990 message lines (55 user, 484 assistant, 448 toolResult, 3 bashExecution); compaction line 360:
   * firstKeptEntryIndex 293, tokensBefore 175004, 288 messages before entry 293, 354 before the line; compaction
   * line 629: 551, 185014, 545 and 622. Every one of the 448 toolResults names (toolCallId) a toolCall id of an
   * earlier assistant message. Entry 293 (header = entry 0) is line 294, the user's "i reviwed what we have, it's
   * good. continue"; entry 551 is line 552, "can leave it".
   */
  const real = (): Transcript =>
    feed(new PiReader({ fileName: 'before-compaction.jsonl', defaultBudget: 13107 }), corpusBytes('pi/before-compaction.jsonl.gz'));

  it('990 turns, two checkpoints claiming 288 and 545 turns, with tokensBefore and untruncated summaries', () => {
    const t = real();
    assert.equal(t.format, 'pi');
    assert.equal(t.lineCount, 1003);
    assert.equal(t.turns.length, 990);
    assert.deepEqual(
      ['user', 'assistant', 'tool'].map((role) => t.turns.filter((turn) => turn.role === role).length),
      [55, 484, 448 + 3],
    );
    assert.deepEqual(t.problems, []);
    assert.deepEqual(
      t.checkpoints.map((c) => [c.span.startLine, c.turnsBefore, c.claimedIds.length, c.recordedPrefixTokens]),
      [
        [360, 354, 288, 175004],
        [629, 622, 545, 185014],
      ],
    );
    for (const cp of t.checkpoints) {
      assert.ok(cp.summary.startsWith('# Context Checkpoint: Coding Agent Refactoring'), cp.summary.slice(0, 60));
      assert.equal(cp.summaryBudget, 13107);
      assert.equal(cp.budgetAssumed, true);
    }
  });

  it('the same transcript however it is fed: a batch at a time, read once, turns handed over, finished halfway', () => {
    const bytes = corpusBytes('pi/before-compaction.jsonl.gz');
    assertReadAsPushed('before-compaction.jsonl', bytes, real(), (extra, readAhead) =>
      readerWith({ fileName: 'before-compaction.jsonl', ...extra }, readAhead),
    );
  });

  it('turn ids are entry indexes (header = 0): the first kept turns are 293 and 551, user messages', () => {
    const t = real();
    const [c1, c2] = t.checkpoints;
    const first = t.turns.find((turn) => turn.id === 293)!;
    assert.equal(first.span.startLine, 294);
    assert.equal(first.role, 'user');
    assert.equal(first.text, "i reviwed what we have, it's good. continue");
    assert.equal(c1.claimedIds[c1.claimedIds.length - 1], 292);
    assert.ok(!c1.claimedIds.includes(293));
    assert.equal(t.turns.find((turn) => turn.id === 551)!.text, 'can leave it');
    assert.equal(c2.claimedIds[c2.claimedIds.length - 1], 550);
    assert.deepEqual(c2.claimedIds.slice(0, c1.claimedIds.length), c1.claimedIds, "the second compaction claims the first one's turns too");
  });

  it('every tool result answers the assistant turn whose toolCall it names; thinking is left out of the text', () => {
    const t = real();
    const results = t.turns.filter((turn) => turn.label?.endsWith(' result'));
    assert.equal(results.length, 448);
    const byId = new Map(t.turns.map((turn) => [turn.id, turn]));
    for (const r of results) {
      assert.ok(r.answers, `result ${r.id} answers nothing`);
      const made = byId.get(r.answers.turnId)!;
      assert.equal(made.role, 'assistant');
      assert.ok(made.text.includes(r.answers.callText), `turn ${made.id} does not hold ${r.answers.callText.slice(0, 60)}`);
      assert.ok(r.answers.callText.startsWith('[tool call '));
    }
    assert.ok(t.turns.every((turn) => !turn.text.includes('"thinkingSignature"')));
  });
});

describe('formats/pi: version 1 sessions (firstKeptEntryIndex)', () => {
  it('turns per message, ids = entry indexes, tool calls as text, thinking left out', () => {
    const t = read(jsonl(V1));
    assert.equal(t.format, 'pi');
    assert.deepEqual(t.problems, []);
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role, x.span.startLine]),
      [
        [1, 'user', 2],
        [2, 'assistant', 3],
        [3, 'tool', 4],
        [5, 'assistant', 6],
        [6, 'tool', 7],
        [7, 'assistant', 8],
        [8, 'user', 9],
        [9, 'assistant', 10],
        [10, 'tool', 11],
        [12, 'user', 13],
        [14, 'tool', 15],
      ],
    );
    const turn = (id: number) => t.turns.find((x) => x.id === id)!;
    assert.equal(turn(2).text, 'Reading it.\n[tool call read] {"path":"src/ledger.ts"}');
    assert.ok(!turn(2).text.includes('SECRET_PLAN'));
    assert.equal(turn(2).reasoning, 'SECRET_PLAN', 'kept apart as its reasoning, never counted');
    assert.equal(turn(2).label, 'read');
    assert.equal(turn(14).text, '[tool call bash] {"command":"git status"}\nmodified: src/ledger.ts');
    // byte offsets of a turn are its line's
    const text = jsonl(V1);
    const lineStart = Buffer.byteLength(text.split('\n').slice(0, 1).join('\n') + '\n');
    assert.deepEqual(turn(1).span, {
      startLine: 2,
      endLine: 2,
      startOffset: lineStart,
      endOffset: lineStart + Buffer.byteLength(JSON.stringify(V1[1])),
    });
  });

  it('a tool result answers its call by toolCallId; isError marks it', () => {
    const t = read(jsonl(V1));
    const turn = (id: number) => t.turns.find((x) => x.id === id)!;
    assert.deepEqual(turn(3).answers, { turnId: 2, callText: '[tool call read] {"path":"src/ledger.ts"}' });
    assert.deepEqual(turn(6).answers, {
      turnId: 5,
      callText: '[tool call edit] {"path":"src/ledger.ts","oldText":"throw","newText":"return retryPost(entry)"}',
    });
    assert.equal(turn(6).error, true);
    assert.equal(turn(3).error, undefined);
    assert.equal(turn(3).label, 'read result');
  });

  it('a compaction claims every turn before entry firstKeptEntryIndex (header = entry 0), tokensBefore recorded', () => {
    const t = read(jsonl(V1));
    assert.deepEqual(
      t.checkpoints.map((c) => [c.summaryId, c.span.startLine, c.turnsBefore, c.claimedIds, c.recordedPrefixTokens]),
      [
        ['C1', 12, 9, [1, 2, 3, 5, 6, 7], 1200],
        ['C2', 17, 11, [1, 2, 3, 5, 6, 7, 8, 9, 10], 1500],
      ],
    );
    assert.equal(t.checkpoints[0].summary, SUMMARY);
    assert.equal(t.checkpoints[0].summaryBudget, 13107);
    assert.equal(t.checkpoints[0].budgetAssumed, true);
    assert.ok(t.checkpoints[0].notes?.some((n) => n.includes('firstKeptEntryIndex 8 is line 9')));
  });

  it('the same transcript when the file grows (read in two parts)', () => {
    const text = jsonl(V1);
    const whole = read(text);
    for (const cut of [3, 11, 12, 14]) {
      const grown = feedAppending(new PiReader({ fileName: 'session.jsonl', defaultBudget: 13107 }), text, cut);
      assert.deepEqual(grown, whole, `cut after line ${cut}`);
    }
  });

  it('the same transcript however it is fed: a batch at a time, read once, turns handed over, finished halfway', () => {
    assertReadAsPushed('v1.jsonl', jsonl(V1), read(jsonl(V1)), readerWith);
  });

  it('a first kept index that is not before the compaction: everything before it is claimed, said so', () => {
    const records = [
      header(),
      message(user('a')),
      message(reply('b')),
      { type: 'compaction', summary: 'a b', firstKeptEntryIndex: 9, tokensBefore: 10 },
    ];
    const t = read(jsonl(records));
    assert.deepEqual(t.checkpoints[0].claimedIds, [1, 2]);
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].line, 4);
    assert.match(t.problems[0].message, /firstKeptEntryIndex 9 is not an entry before it.*inference/);
    const none = read(jsonl([header(), message(user('a')), { type: 'compaction', summary: 'a', tokensBefore: 10 }]));
    assert.deepEqual(none.checkpoints[0].claimedIds, [1]);
    assert.match(none.problems[0].message, /no firstKeptEntryId or firstKeptEntryIndex/);
  });
});

describe('formats/pi: version 3 sessions (ids, parentId tree, firstKeptEntryId)', () => {
  let parent: string | null = null;
  const entry = (id: string, record: Rec, from: string | null = parent): Rec => {
    parent = id;
    return { ...record, id, parentId: from };
  };
  const V3 = [
    header({ version: 3 }),
    entry('a1', message(user('Fix ERR_4107 in src/ledger.ts'))),
    entry('a2', message(reply('Try a retry loop?'))), // abandoned branch
    entry('b2', message(reply('Use retryPost in src/ledger.ts.')), 'a1'),
    entry('b3', message(call('t1', 'edit', { path: 'src/ledger.ts', oldText: 'throw', newText: 'return retryPost(entry)' }))),
    entry('b4', message(result('t1', 'edit', 'Successfully replaced text in src/ledger.ts.'))),
    entry('b5', message(user('run the tests'))),
    entry('b6', message(call('t2', 'bash', { command: 'npm test' }))),
    entry('b7', message(result('t2', 'bash', 'ERR_4107: 1 failing', true))),
    entry('c1', { type: 'compaction', timestamp: 't', summary: SUMMARY, firstKeptEntryId: 'b5', tokensBefore: 900 }),
    entry('b8', message(reply('One test still fails.'))),
  ];

  it('turn ids are entry ids; a result answers its call across the file', () => {
    const t = read(jsonl(V3));
    assert.deepEqual(t.problems, []);
    assert.deepEqual(
      t.turns.map((x) => x.id),
      ['a1', 'a2', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8'],
    );
    assert.deepEqual(t.turns.find((x) => x.id === 'b7')!.answers, { turnId: 'b6', callText: '[tool call bash] {"command":"npm test"}' });
  });

  it("claims the turns before firstKeptEntryId on the compaction's own branch only", () => {
    const t = read(jsonl(V3));
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'c1');
    assert.deepEqual(cp.claimedIds, ['a1', 'b2', 'b3', 'b4']);
    assert.equal(cp.turnsBefore, 8);
    assert.equal(cp.recordedPrefixTokens, 900);
  });

  it('a broken parent chain falls back to file order; an unknown firstKeptEntryId claims everything before, said so', () => {
    const broken = V3.map((r) => (r.id === 'b2' ? { ...r, parentId: 'gone' } : r));
    const t = read(jsonl(broken));
    assert.deepEqual(t.checkpoints[0].claimedIds, ['a1', 'a2', 'b2', 'b3', 'b4']);
    assert.ok(t.checkpoints[0].notes?.some((n) => n.includes('chain of parentIds breaks at gone')));
    const unknown = V3.map((r) => (r.id === 'c1' ? { ...r, firstKeptEntryId: 'zz' } : r));
    const u = read(jsonl(unknown));
    assert.deepEqual(u.checkpoints[0].claimedIds, ['a1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7']);
    assert.equal(u.problems.length, 1);
    assert.match(u.problems[0].message, /line 10: compaction c1: its firstKeptEntryId zz is not an entry before it/);
  });

  it('the same transcript however it is fed: a batch at a time, read once, turns handed over, finished halfway', () => {
    const broken = V3.map((r) => (r.id === 'b2' ? { ...r, parentId: 'gone' } : r));
    for (const records of [V3, broken, [...V3, { ...V3[1], parentId: 'b8' }]]) {
      assertReadAsPushed('v3.jsonl', jsonl(records), read(jsonl(records)), readerWith);
    }
  });

  it('a repeated entry id: the later turn is renamed, with a problem', () => {
    const t = read(jsonl([...V3, { ...V3[1], parentId: 'b8' }]));
    assert.equal(t.turns[t.turns.length - 1].id, 'line 12');
    assert.match(t.problems[0].message, /line 12: entry id a1 is used by an earlier entry/);
  });
});

describe('formats/pi: bad input', () => {
  it('every bad line is a problem with its line number; the rest is read; never throws', () => {
    const lines = jsonl(V1).split('\n');
    lines.splice(3, 0, '{"type":"message","message":{"role":"user"'); // line 4: not JSON
    lines.splice(5, 0, '[1,2]'); // line 6: not an object
    lines.splice(6, 0, '{"type":"message","message":"hi"}'); // line 7: no message object
    lines.splice(7, 0, '{"type":"message","message":{"role":"wizard","content":"x"}}'); // line 8: unknown role
    lines.splice(8, 0, '{"type":"mystery"}'); // line 9: unknown entry type
    const t = read(lines.join('\n'));
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [4, 'error'],
        [6, 'error'],
        [7, 'warning'],
        [8, 'warning'],
        [9, 'info'],
      ],
    );
    assert.equal(t.turns.length, 11);
    // Every non-blank line is an entry, bad ones included (pi wrote each as one): entry 8 is now line 9 (the
    // unknown entry), so the first compaction claims the turns on lines 2, 3 and 5 — entries 1, 2 and 4.
    assert.equal(t.checkpoints.length, 2);
    assert.deepEqual(t.checkpoints[0].claimedIds, [1, 2, 4]);
  });

  it('a half-written last line is a warning, read once it is complete', () => {
    const text = jsonl(V1);
    const cut = text.slice(0, text.length - 30); // the last compaction line cut short, no newline
    const t = read(cut);
    assert.equal(t.checkpoints.length, 1);
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].line, 17);
    assert.equal(t.problems[0].severity, 'warning');
    assert.match(t.problems[0].message, /incomplete/);
  });

  it('no silent empties: turns and summaries without text are problems with their line', () => {
    const records = [
      header(),
      message({ role: 'user', content: [] }),
      message({ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }),
      { type: 'compaction', summary: '', firstKeptEntryIndex: 2, tokensBefore: 5 },
    ];
    const t = read(jsonl(records));
    assert.equal(t.turns.length, 2);
    assert.deepEqual(
      t.problems.map((p) => p.line),
      [2, 4],
    );
    assert.match(t.problems[0].message, /no text could be read from any of its 2 turns: the pi reader/);
    assert.match(t.problems[1].message, /line 4: the summary of checkpoint C1 has no readable text/);
  });

  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    fuzzReader(() => new PiReader({ fileName: 'session.jsonl' }), jsonl(V1).trimEnd());
  });
});

describe('formats/pi: read as pushed', () => {
  it('records of every shape in any order read the same however they are fed (property, seeded)', () => {
    // Entries with and without ids and parents (some repeated, some missing), compactions by id and by index, turns
    // of each role, quiet and unknown types, lines that are no object or no JSON.
    const pool: string[] = [
      JSON.stringify(header({ version: 3 })),
      JSON.stringify({ ...message(user('Fix ERR_4107')), id: 'a1', parentId: null }),
      JSON.stringify({ ...message(call('t1', 'read', { path: 'src/ledger.ts' })), id: 'a2', parentId: 'a1' }),
      JSON.stringify({ ...message(result('t1', 'read', 'ERR_4107 at line 3')), id: 'a3', parentId: 'a2' }),
      JSON.stringify({ ...message(reply('Fixed.')), id: 'a4', parentId: 'a3' }),
      JSON.stringify({ ...message(reply('Another branch.')), id: 'b1', parentId: 'a1' }),
      JSON.stringify({ ...message(reply('Parent gone.')), id: 'b2', parentId: 'gone' }),
      JSON.stringify(message(user('no id'))),
      JSON.stringify(message({ role: 'bashExecution', command: 'ls', output: 'a b' })),
      JSON.stringify(message({ role: 'robot' })),
      JSON.stringify({ type: 'message' }),
      JSON.stringify({ type: 'custom_message', content: 'note', customType: 'hook' }),
      JSON.stringify({ type: 'branch_summary', summary: 'left a branch', id: 'bs', parentId: 'a1' }),
      JSON.stringify({ type: 'compaction', id: 'c1', parentId: 'a4', summary: SUMMARY, firstKeptEntryId: 'a3', tokensBefore: 900 }),
      JSON.stringify({ type: 'compaction', summary: SUMMARY, firstKeptEntryIndex: 3, tokensBefore: 500 }),
      JSON.stringify({ type: 'compaction', summary: '', firstKeptEntryIndex: 99 }),
      JSON.stringify({ type: 'compaction', summary: SUMMARY }),
      JSON.stringify({ type: 'model_change', id: 'm1' }),
      JSON.stringify({ type: 'strange' }),
      '[1, 2]',
      '{"type": "message", ',
      '',
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(pool.length - 1), { minLength: 1, maxLength: 30 }), (picks) => {
        const text = picks.map((k) => pool[k]).join('\n') + '\n';
        assertReadAsPushed('x.jsonl', text, read(text), readerWith);
      }),
      { seed: 29, numRuns: 200 },
    );
  });
});
