// Tests of the Claude Code reader read as a file an agent appends to: lines pushed in batches with finish()
// between them give, at every finish, exactly what a fresh reader gives on the same lines (problems included),
// whatever the records (generated ones, the fuzz seeds, the corpus sessions); a turn or checkpoint that did not
// change is the same object as before, and an object a finish returned is never changed afterwards; on the corpus
// sessions, a checkpoint the reader says is settled as a line is pushed is already as the whole file reads it.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { RawLine, ReaderContext, SideFile, Transcript } from '../../../src/core/model';
import { ClaudeCodeReader } from '../../../src/formats/claudeCode';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { fixtureSeeds } from '../fuzz/seeds';
import { assertSettledAsWhole, CORPUS, corpusBytes, requireCorpus, splitLines } from './feedLines';

/** What a fresh reader reads from `lines`. */
/** The records the reader's line buffer keeps (a private field, read for tests only). */
function recordsKept(reader: ClaudeCodeReader): number {
  return (reader as unknown as { lines: { records: unknown[] } }).lines.records.length;
}

function freshRead(context: ReaderContext, lines: readonly RawLine[]): Transcript {
  const reader = new ClaudeCodeReader(context);
  for (const line of lines) reader.push(line);
  return reader.finish();
}

/**
 * One step of a read: push the file's lines [from, to), the last one cut short when `cut` and the ones read before
 * with other lines' texts when `replace`, then finish().
 */
type Step = { from: number; to: number; cut?: boolean; replace?: boolean };

/** The first half of a line, as an agent still writing it leaves it (no newline yet). */
function cutShort(line: RawLine): RawLine {
  const text = line.text.slice(0, Math.floor(line.text.length / 2));
  return { ...line, text, terminated: false, endOffset: line.offset + Buffer.byteLength(text) };
}

/**
 * Reads `lines` in `steps` with finish() after each, and checks each result against a fresh read of the lines
 * the reader holds (a line pushed again replaces it and the lines after it), that the previous result was not
 * changed since it was returned, and that its turns and checkpoints that are unchanged are the same objects. A
 * step that starts before the end of the last one pushes lines again (a rewind): objects are not compared across it.
 */
function checkSteps(context: ReaderContext, lines: readonly RawLine[], steps: readonly Step[]): void {
  const reader = new ClaudeCodeReader(context);
  const held: RawLine[] = [];
  let previous: { transcript: Transcript; copy: Transcript } | undefined;
  for (const { from, to, cut, replace } of steps) {
    const rewound = from < held.length;
    const readBefore = held.length;
    for (let i = from; i < to; i++) {
      // A line read before is pushed again with another line's text: what was read from there on is read again.
      const other = replace === true && i < readBefore ? { ...lines[i], text: lines[(i * 7 + 3) % lines.length].text } : lines[i];
      const line = cut === true && i === to - 1 ? cutShort(other) : other;
      reader.push(line);
      held.length = line.line - 1;
      held.push(line);
    }
    const transcript = reader.finish();
    assert.deepStrictEqual(
      transcript,
      // Read by a reader that keeps every record (when this one, its lines pushed once each, lets them go).
      freshRead({ ...context, linesOnce: false }, held),
      `after lines ${from + 1}–${to}${cut === true ? ' (the last cut short)' : ''}`,
    );
    if (context.linesOnce === true) assert.equal(recordsKept(reader), 0, `after lines ${from + 1}–${to}: no record kept once read`);
    if (previous !== undefined) {
      assert.deepStrictEqual(previous.transcript, previous.copy, `a result was changed after it was returned (step to ${to})`);
      if (!rewound) assertSameWhereUnchanged(previous.transcript, transcript);
    }
    previous = { transcript, copy: structuredClone(transcript) };
  }
}

/** Every turn and checkpoint of `next` deep-equal to the one at its place in `before` is that object. */
function assertSameWhereUnchanged(before: Transcript, next: Transcript): void {
  for (let i = 0; i < Math.min(before.turns.length, next.turns.length); i++) {
    if (isDeepStrictEqual(before.turns[i], next.turns[i])) assert.ok(before.turns[i] === next.turns[i], `turn ${i} is a new object`);
  }
  for (let k = 0; k < Math.min(before.checkpoints.length, next.checkpoints.length); k++) {
    if (isDeepStrictEqual(before.checkpoints[k], next.checkpoints[k]))
      assert.ok(before.checkpoints[k] === next.checkpoints[k], `checkpoint ${k} is a new object`);
  }
}

/**
 * Steps that push `count` lines in batches ending at `cuts`; the batches numbered in `partial` end with their last
 * line cut short (the next batch pushes it again whole), and those in `rewinds` ([batch, to]) start again earlier.
 */
function stepsOf(
  count: number,
  cuts: readonly number[],
  partial: readonly number[] = [],
  rewinds: readonly [number, number][] = [],
): Step[] {
  const ends = [...new Set([...cuts.map((c) => c % (count + 1)), count])].filter((end) => end > 0).sort((a, b) => a - b);
  const steps: Step[] = [];
  let from = 0;
  ends.forEach((to, k) => {
    const rewind = rewinds.find(([at]) => at === k);
    const start = rewind !== undefined && from > 0 ? rewind[1] % from : from;
    const cut = partial.includes(k);
    steps.push({ from: start, to, cut, replace: start < from });
    from = cut ? to - 1 : to;
  });
  if (from < count) steps.push({ from, to: count });
  return steps;
}

const toLines = (texts: readonly string[]): RawLine[] => splitLines(Buffer.from(texts.map((t) => `${t}\n`).join(''), 'utf8'));

// ---------------------------------------------------------------------------------------------------------------
// Generated records: few uuids, message ids and tool ids, so that records continue a message, answer an earlier
// call, repeat a uuid, and point at boundaries and summaries that come before or after them.

const S = 'sess-main';
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const uuid = pick(['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8', 'u9']);
const parent = fc.option(uuid, { nil: null });
const messageId = pick(['msg_a', 'msg_b', 'msg_c', 'msg_d']);
const toolId = pick(['tu1', 'tu2', 'tu3']);
const session = pick([S, S, S, 'sess-parent']);
const words = pick(['fix ERR_4107 in ledger.ts', 'npm test', '49 passing', '', 'Looking.', 'src/a.ts']);

const assistantRecord = fc.record({
  type: fc.constant('assistant'),
  uuid,
  parentUuid: parent,
  sessionId: session,
  isSidechain: fc.boolean(),
  message: fc.record({
    id: messageId,
    role: fc.constant('assistant'),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text: words }),
        fc.record({ type: fc.constant('thinking'), thinking: words }),
        fc.record({ type: fc.constant('tool_use'), id: toolId, name: pick(['Read', 'Bash']), input: fc.record({ command: words }) }),
      ),
      { maxLength: 3 },
    ),
    usage: fc.record({ output_tokens: fc.nat(50) }),
  }),
});

const userRecord = fc.record({
  type: fc.constant('user'),
  uuid,
  parentUuid: parent,
  sessionId: session,
  isMeta: fc.boolean(),
  message: fc.record({
    role: fc.constant('user'),
    content: fc.oneof(
      words,
      fc.array(fc.record({ type: fc.constant('tool_result'), tool_use_id: toolId, content: words, is_error: fc.boolean() }), {
        minLength: 1,
        maxLength: 2,
      }),
    ),
  }),
});

const boundaryRecord = fc.record({
  type: fc.constant('system'),
  subtype: fc.constant('compact_boundary'),
  uuid: pick(['b1', 'b2', 'b3']),
  parentUuid: fc.constant(null),
  logicalParentUuid: fc.option(pick(['u0', 'u3', 'u6', 'u9', 'gone']), { nil: undefined }),
  sessionId: session,
  compactMetadata: fc.record(
    {
      trigger: pick(['auto', 'manual']),
      preTokens: fc.nat(5000),
      postTokens: fc.nat(300),
      preservedSegment: fc.record({ headUuid: uuid, anchorUuid: pick(['s1', 's2']), tailUuid: uuid }),
      preservedMessages: fc.oneof(fc.array(uuid, { maxLength: 3 }), fc.nat(4)),
    },
    { requiredKeys: ['trigger'] },
  ),
});

const summaryRecord = fc.record({
  type: fc.constant('user'),
  uuid: pick(['s1', 's2', 's3']),
  parentUuid: fc.option(pick(['b1', 'b2', 'b3', 'u2']), { nil: null }),
  sessionId: session,
  isCompactSummary: fc.constant(true),
  isVisibleInTranscriptOnly: fc.constant(true),
  isSidechain: fc.boolean(),
  message: fc.record({
    role: fc.constant('user'),
    content: pick([
      'This session is being continued.\n1. Primary Request and Intent: fix ERR_4107 in ledger.ts\nPlease continue the conversation',
      '',
      'Summary: npm test, 49 passing',
    ]),
  }),
});

const otherRecord = fc.oneof(
  fc.record({ type: pick(['progress', 'file-history-snapshot', 'weird', 'other-kind']), uuid, parentUuid: parent, sessionId: session }),
  fc.record({ type: pick(['user', 'assistant']), uuid, parentUuid: parent, sessionId: session }), // no message
  fc.record({ type: fc.constant('system'), subtype: fc.constant('turn_duration'), uuid, parentUuid: parent, sessionId: session }),
);

/** A line: a record, or something that is not one. */
const recordLine = fc.oneof(
  { weight: 5, arbitrary: assistantRecord.map((r) => JSON.stringify(r)) },
  { weight: 5, arbitrary: userRecord.map((r) => JSON.stringify(r)) },
  { weight: 2, arbitrary: boundaryRecord.map((r) => JSON.stringify(r)) },
  { weight: 2, arbitrary: summaryRecord.map((r) => JSON.stringify(r)) },
  { weight: 2, arbitrary: otherRecord.map((r) => JSON.stringify(r)) },
  { weight: 1, arbitrary: pick(['{"type":"user","uuid":', '[1,2]', '42', '', '   ', 'not json']) },
);

/** Lines with earlier ones repeated (a record written twice). */
const generatedLines = fc
  .tuple(fc.array(recordLine, { minLength: 1, maxLength: 40 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 }))
  .map(([texts, repeats]) => {
    const out = texts.slice();
    for (const [at, of] of repeats) out.splice(at % (out.length + 1), 0, out[of % out.length]);
    return out;
  });

const cuts = fc.array(fc.nat(60), { maxLength: 8 });
const partial = fc.array(fc.nat(8), { maxLength: 3 });
const rewinds = fc.array(fc.tuple(fc.nat(8), fc.nat()), { maxLength: 1 });

describe('formats/claudeCode read as it grows: every finish equals a fresh read of the same lines', function () {
  this.timeout(60_000); // hundreds of generated files, each read once per batch and again fresh
  it('generated records (continued messages, late tool results and summaries, sidechains, duplicates, bad lines)', () => {
    fc.assert(
      fc.property(generatedLines, cuts, partial, rewinds, fc.boolean(), (texts, at, halves, back, budget) => {
        const lines = toLines(texts);
        checkSteps(
          { fileName: 'sess-main.jsonl', ...(budget ? { defaultBudget: 2000 } : {}) },
          lines,
          stepsOf(lines.length, at, halves, back),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('reads the same whether push() reads records ahead after every record, never, or every 512 (the default)', () => {
    const readWith = (lines: readonly RawLine[], readAhead?: number): Transcript => {
      const reader = new ClaudeCodeReader({ fileName: 'sess-main.jsonl' }, readAhead);
      for (const line of lines) reader.push(line);
      return reader.finish();
    };
    fc.assert(
      fc.property(generatedLines, (texts) => {
        const lines = toLines(texts);
        const never = readWith(lines, Infinity);
        assert.deepStrictEqual(readWith(lines, 1), never);
        assert.deepStrictEqual(readWith(lines, 3), never);
        assert.deepStrictEqual(readWith(lines), never);
      }),
      { numRuns: 200 },
    );
    // A long file: thousands of records, so the default reads ahead many times.
    const long: string[] = [];
    for (let i = 0; i < 3000; i++) {
      long.push(
        JSON.stringify({
          type: i % 2 === 0 ? 'user' : 'assistant',
          uuid: `u${i}`,
          parentUuid: i > 0 ? `u${i - 1}` : null,
          sessionId: S,
          message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `step ${i}` },
        }),
      );
      if (i === 2500)
        long.push(JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: `u${i}`, sessionId: S }));
    }
    const lines = toLines(long);
    assert.ok(readWith(lines, Infinity).turns.length >= 3000);
    assert.deepStrictEqual(readWith(lines), readWith(lines, Infinity));
  });

  it('generated records, one line at a time', () => {
    fc.assert(
      fc.property(generatedLines, (texts) => {
        const lines = toLines(texts);
        checkSteps({ fileName: 'sess-main.jsonl' }, lines, stepsOf(lines.length, [...lines.keys()]));
      }),
      { numRuns: 150 },
    );
  });

  it('generated records, each line pushed once (as TranscriptFile pushes them): each record let go once read', () => {
    fc.assert(
      fc.property(generatedLines, cuts, (texts, at) => {
        const lines = toLines(texts);
        checkSteps({ fileName: 'sess-main.jsonl', linesOnce: true }, lines, stepsOf(lines.length, at));
        checkSteps({ fileName: 'sess-main.jsonl', linesOnce: true }, lines, stepsOf(lines.length, [...lines.keys()]));
      }),
      { numRuns: 200 },
    );
  });

  it('more problems than are kept: capped the same way at every finish', () => {
    const texts: string[] = [];
    for (let i = 0; i < 1400; i++) {
      if (i % 4 === 0) texts.push('not json');
      else if (i % 4 === 1) texts.push('[1]');
      else if (i % 4 === 2) texts.push(JSON.stringify({ type: 'user', uuid: `u${i}`, sessionId: S }));
      else
        texts.push(
          JSON.stringify({
            type: 'user',
            uuid: `u${i}`,
            parentUuid: `u${i - 1}`,
            sessionId: S,
            message: { role: 'user', content: `prompt ${i}` },
          }),
        );
    }
    const lines = toLines(texts);
    const at: number[] = [];
    for (let n = 150; n < lines.length; n += 150) at.push(n);
    checkSteps({ fileName: 'sess-main.jsonl' }, lines, stepsOf(lines.length, at, [2, 5]));
    assert.ok(freshRead({ fileName: 'sess-main.jsonl' }, lines).problems.some((p) => p.message.startsWith('…and ')));
  });

  it('the fuzz seeds, their lines reordered and repeated, cut anywhere', () => {
    const seeds = fixtureSeeds().filter((seed) => seed.format === 'claude-code');
    assert.ok(seeds.length > 0);
    for (const seed of seeds) {
      const seedLines = seed.bytes.toString('utf8').trimEnd().split('\n');
      const context = { fileName: seed.fileName, sideFiles: seed.sideFiles, defaultBudget: 20000 };
      fc.assert(
        fc.property(
          fc.array(fc.nat(seedLines.length - 1), { minLength: 1, maxLength: 2 * seedLines.length }),
          cuts,
          partial,
          rewinds,
          (picks, at, halves, back) => {
            const lines = toLines(picks.map((p) => seedLines[p]));
            checkSteps(context, lines, stepsOf(lines.length, at, halves, back));
          },
        ),
        { numRuns: 150 },
      );
      const lines = toLines(seedLines);
      checkSteps(context, lines, stepsOf(lines.length, [...lines.keys()]));
    }
  });
});

function sideFilesOf(relative: string): SideFile[] {
  const stem = relative.replace(/\.jsonl(\.gz)?$/, '');
  const folder = join(CORPUS, 'claude-code', stem, 'subagents');
  if (!existsSync(folder)) return [];
  return readdirSync(folder).map((name) => ({ path: join(folder, name), text: readFileSync(join(folder, name), 'utf8') }));
}

describe('formats/claudeCode read as it grows: the corpus sessions', function () {
  this.timeout(120_000);
  before(function () {
    requireCorpus(this);
  });

  const SESSIONS = [
    '258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz',
    '4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz',
    '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz',
    'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.gz',
    'short.jsonl',
    'tool_heavy.jsonl',
    'shape-fixtures/agent-sessions-small.jsonl',
    'wpfleger96/forked_session.jsonl',
    'wpfleger96/session_with_compact.jsonl',
  ];
  for (const file of SESSIONS) {
    it(`${file}: split every 250 lines, and every 97 lines`, () => {
      const lines = splitLines(corpusBytes(join('claude-code', file)));
      const context = { fileName: file, sideFiles: sideFilesOf(file), defaultBudget: 20000 };
      for (const step of [250, 97]) {
        const at: number[] = [];
        for (let n = step; n < lines.length; n += step) at.push(n);
        checkSteps(context, lines, stepsOf(lines.length, at));
        // As TranscriptFile reads it: each line pushed once, each record let go once read.
        checkSteps({ ...context, linesOnce: true }, lines, stepsOf(lines.length, at));
      }
    });

    it(`${file}: a checkpoint, from the line its reader says it is settled, is as the whole file reads it`, () => {
      const lines = splitLines(corpusBytes(join('claude-code', file)));
      const context = { fileName: file, sideFiles: sideFilesOf(file), defaultBudget: 20000, readOnce: true };
      const whole = freshRead(context, lines);
      const settled = assertSettledAsWhole(file, lines, whole, new ClaudeCodeReader(context));
      assert.equal(settled, whole.checkpoints.filter((cp) => cp.summary !== '').length);
    });
  }
});

describe('formats/claudeCode read as it grows: what did not change stays the same object', () => {
  const rec = (fields: Record<string, unknown>) => JSON.stringify({ sessionId: S, ...fields });
  const user = (uuid: string, parentUuid: string | null, content: unknown) =>
    rec({ type: 'user', uuid, parentUuid, message: { role: 'user', content } });
  const reply = (uuid: string, parentUuid: string, id: string, content: unknown[]) =>
    rec({ type: 'assistant', uuid, parentUuid, message: { id, role: 'assistant', content, usage: { output_tokens: 5 } } });
  const head = [
    user('u1', null, 'Fix ERR_4107 in ledger.ts'),
    reply('a1', 'u1', 'msg_A', [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'ledger.ts' } }]),
    user('r1', 'a1', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'ledger.ts' }]),
    reply('a2', 'r1', 'msg_B', [{ type: 'text', text: 'Fixed.' }]),
    rec({
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'b1',
      parentUuid: null,
      logicalParentUuid: 'a2',
      compactMetadata: { trigger: 'auto' },
    }),
    rec({
      type: 'user',
      uuid: 's1',
      parentUuid: 'b1',
      isCompactSummary: true,
      message: { role: 'user', content: 'Fixed ERR_4107 in ledger.ts' },
    }),
    user('u2', 's1', 'now the tests'),
    reply('a3', 'u2', 'msg_C', [{ type: 'text', text: 'Running.' }]),
  ];

  function readInTwo(more: string[]): { before: Transcript; copy: Transcript; after: Transcript } {
    const lines = toLines([...head, ...more]);
    const reader = new ClaudeCodeReader({ fileName: 'sess-main.jsonl' });
    for (const line of lines.slice(0, head.length)) reader.push(line);
    const before = reader.finish();
    const copy = structuredClone(before);
    for (const line of lines.slice(head.length)) reader.push(line);
    const after = reader.finish();
    assert.deepStrictEqual(after, freshRead({ fileName: 'sess-main.jsonl' }, lines));
    assert.deepStrictEqual(before, copy, 'the first result was changed by the second finish');
    return { before, copy, after };
  }

  it('finish() again with nothing pushed: the same transcript, in arrays of its own', () => {
    const reader = new ClaudeCodeReader({ fileName: 'sess-main.jsonl' });
    for (const line of toLines(head)) reader.push(line);
    const first = reader.finish();
    const again = reader.finish();
    assert.deepStrictEqual(again, first);
    assert.ok(again.turns !== first.turns && again.checkpoints !== first.checkpoints && again.problems !== first.problems);
    again.turns.pop();
    assert.deepStrictEqual(reader.finish(), first, 'what a finish gave is not what the next gives');
  });

  it('a new turn: every earlier turn and the checkpoint are the same objects', () => {
    const { before, after } = readInTwo([user('u3', 'a3', 'thanks')]);
    assert.equal(after.turns.length, before.turns.length + 1);
    before.turns.forEach((turn, i) => assert.ok(after.turns[i] === turn, `turn ${i}`));
    assert.ok(after.checkpoints[0] === before.checkpoints[0]);
  });

  it('a record continuing the last reply: that turn is a new object (the old one unchanged), the rest the same', () => {
    const { before, copy, after } = readInTwo([reply('a4', 'a3', 'msg_C', [{ type: 'text', text: 'All 49 pass.' }])]);
    const last = before.turns.length - 1;
    assert.equal(after.turns.length, before.turns.length);
    assert.equal(after.turns[last].text, 'Running.\nAll 49 pass.');
    assert.ok(after.turns[last] !== before.turns[last]);
    assert.deepStrictEqual(before.turns[last], copy.turns[last]);
    for (let i = 0; i < last; i++) assert.ok(after.turns[i] === before.turns[i], `turn ${i}`);
    assert.ok(after.checkpoints[0] === before.checkpoints[0]);
  });

  it('a boundary then its summary in the next read: only the new checkpoint is a new object', () => {
    const lines = toLines([
      ...head,
      rec({ type: 'system', subtype: 'compact_boundary', uuid: 'b2', parentUuid: null, logicalParentUuid: 'a3', compactMetadata: {} }),
      rec({ type: 'user', uuid: 's2', parentUuid: 'b2', isCompactSummary: true, message: { role: 'user', content: 'Running the tests.' } }),
    ]);
    const reader = new ClaudeCodeReader({ fileName: 'sess-main.jsonl' });
    for (const line of lines.slice(0, -1)) reader.push(line);
    const before = reader.finish();
    assert.equal(before.checkpoints[1].summary, '');
    reader.push(lines[lines.length - 1]);
    const after = reader.finish();
    assert.deepStrictEqual(after, freshRead({ fileName: 'sess-main.jsonl' }, lines));
    assert.equal(after.checkpoints[1].summary, 'Running the tests.');
    assert.ok(after.checkpoints[0] === before.checkpoints[0]);
    assert.ok(after.checkpoints[1] !== before.checkpoints[1]);
    before.turns.forEach((turn, i) => assert.ok(after.turns[i] === turn, `turn ${i}`));
  });
});

describe('formats/claudeCode read as it grows: through TranscriptFile', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'cc-incremental-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('an append is read into the same reader, a rewritten file into a new one; both equal a fresh open', async () => {
    const seed = fixtureSeeds().find((s) => s.format === 'claude-code')!;
    const seedLines = seed.bytes.toString('utf8').trimEnd().split('\n');
    const path = join(folder, 'sess-1.jsonl');
    writeFileSync(path, seedLines.slice(0, 10).join('\n') + '\n');
    const file = await TranscriptFile.open(path);
    for (const line of seedLines.slice(10)) {
      appendFileSync(path, `${line}\n`);
      assert.equal(await file.refresh(), 'appended');
      assert.deepStrictEqual(file.transcript, (await TranscriptFile.open(path)).transcript);
    }
    const kept = file.transcript.turns[0];
    writeFileSync(path, seedLines.slice(0, 5).join('\n') + '\n');
    assert.equal(await file.refresh(), 'reloaded');
    assert.deepStrictEqual(file.transcript, (await TranscriptFile.open(path)).transcript);
    assert.ok(file.transcript.turns[0] !== kept, 'a reloaded file is read by a new reader');
  });
});
