// Tests for verdicts from token bounds (src/core/tokenBounds.ts, analyzeFile's onVerdict): utf8Length is
// Buffer.byteLength; tiktoken's counts (o200k_base, cl100k_base, by pieces as the counter counts) fall
// within tokenBounds; on generated transcripts whose ceiling lies near, below, between and above the prefix's
// bounds, with exact counts chosen anywhere within the bounds (and some already known), a verdict from the
// bounds is never one the exact counts contradict (verdicts, statuses, evidence, safe pointer sets), and the
// bounds do settle some cases and leave others open; the verdicts said before the judging (verdictsBeforeJudging)
// are the analysis's whatever the counts within the bounds, checkpoint by checkpoint, for every shape of
// checkpoint, and come before any turn is judged or counted in analyzeTranscript; analyzeFile's early verdicts,
// those it says while the file is read included (before the read ends, only the checkpoints read), agree with its
// analysis, on the sample and on real Claude Code, pi and Codex files.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { analyze, judgeAhead } from '../../../src/core/analyze';
import { JudgementCache } from '../../../src/core/judgementCache';
import { runSteps } from '../../../src/core/steps';
import type { Analysis, Checkpoint, CheckpointVerdict, TokenCache, Transcript, Turn } from '../../../src/core/model';
import {
  boundsInSteps,
  tokenBounds,
  utf8Length,
  verdictFromBounds,
  verdictsBeforeJudging,
  type Bounds,
} from '../../../src/core/tokenBounds';
import { DEFAULT_SUMMARY_BUDGETS } from '../../../src/core/defaults';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { analyzeFile, analyzeTranscript } from '../../../src/node/analyzeFile';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { TokenPool } from '../../../src/node/tokenPool';
import { skipWithoutShared } from '../../sharedFolder';
import { claudeCodeCompaction, claudeCodePrompt } from '../formats/claudeCodeRecords';

const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
const SESSION = resolve(__dirname, '../../../../../shared/corpus/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz');
const PI_SESSION = resolve(__dirname, '../../../../../shared/corpus/pi/before-compaction.jsonl.gz');
const CODEX_ROLLOUT = resolve(
  __dirname,
  '../../../../../shared/corpus/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
);

const TEXTS = [
  'Fixed src/ledger/batch_7.ts: LEDGER_ENTRY_1007 now posts 42 entries.',
  'ok',
  'Ünïcödé names: Zürich, 東京, emoji 🚀🚀 in notes/ärger_1.md',
  '[tool call Read] {"file_path":"/home/u/src/a.ts"}',
  'x'.repeat(300),
  'Closed TASK-12 and TASK-13; renamed HTMLParser to MarkupReader in parser.go.',
  '',
  'The retry path in src/payout/retry_3.ts now backs off 250 ms.',
];

/** What a verdict from the bounds promises: everything but the token figures and the sentences quoting them. */
function promised(a: Analysis) {
  return a.checkpoints.map((cp) => ({
    verdict: cp.verdict,
    overCeiling: cp.overCeiling,
    safeCovered: cp.safeCovered,
    claimedMissingRanges: cp.claimedMissingRanges,
    counts: cp.counts,
    turns: cp.turns.map(({ id, status, evidence, reason, score, claimed }) => ({ id, status, evidence, reason, score, claimed })),
  }));
}

const arbCase = fc.record({
  turns: fc.array(
    fc.record({
      text: fc.constantFrom(...TEXTS),
      recorded: fc.option(fc.nat(400), { nil: undefined }),
      claimed: fc.boolean(),
      known: fc.boolean(),
      /** Where within its bounds the exact count lies, 0 (low) to 1 (high). */
      at: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
    { minLength: 1, maxLength: 24 },
  ),
  summary: fc.subarray(TEXTS),
  /** Where the ceiling lies: near the exact prefix, or anywhere from below the low bound to above the high one. */
  ceiling: fc.oneof(
    fc.record({ near: fc.integer({ min: -3, max: 3 }) }),
    fc.record({ between: fc.double({ min: -0.1, max: 1.1, noNaN: true }) }),
  ),
});

type CaseSpec = typeof arbCase extends fc.Arbitrary<infer T> ? T : never;

/** A generated case's transcript: one checkpoint whose ceiling lies where `ceiling` says, and the counts known ahead. */
function caseTranscript(
  specs: CaseSpec['turns'],
  summary: string[],
  ceiling: CaseSpec['ceiling'],
  pattern: 'o200k' | undefined,
  shape: Partial<Checkpoint> = {},
): { transcript: Transcript; known: TokenCache; exactOf: Map<string, number> } {
  const exactOf = new Map<string, number>();
  const turns: Turn[] = specs.map((s, i) => {
    const { low, high } = tokenBounds(s.text, pattern);
    if (!exactOf.has(s.text)) exactOf.set(s.text, Math.round(low + s.at * (high - low)));
    const t: Turn = {
      id: i,
      role: 'assistant',
      text: s.text,
      span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
    };
    if (s.recorded !== undefined) t.tokens = s.recorded;
    return t;
  });
  const claimedIds = turns.filter((_, i) => specs[i].claimed).map((t) => t.id);
  let exactPrefix = 0;
  let lowPrefix = 0;
  let highPrefix = 0;
  for (const t of turns) {
    if (!claimedIds.includes(t.id)) continue;
    const b = t.tokens !== undefined ? { low: t.tokens, high: t.tokens } : tokenBounds(t.text, pattern);
    exactPrefix += t.tokens ?? exactOf.get(t.text)!;
    lowPrefix += b.low;
    highPrefix += b.high;
  }
  const target = 'near' in ceiling ? exactPrefix + ceiling.near : Math.round(lowPrefix + ceiling.between * (highPrefix - lowPrefix));
  const cp: Checkpoint = {
    summaryId: 'S1',
    summary: summary.join(' '),
    summaryBudget: Math.max(1, target) / 5,
    claimedIds,
    turnsBefore: turns.length,
    span: { startLine: 99, endLine: 99, startOffset: 0, endOffset: 0 },
    ...shape,
  };
  const transcript: Transcript = { format: 'canonical', turns, checkpoints: [cp], problems: [], lineCount: turns.length + 1 };
  const known: TokenCache = new Map();
  specs.forEach((s) => {
    if (s.known) known.set(s.text, exactOf.get(s.text)!);
  });
  return { transcript, known, exactOf };
}

describe('core/tokenBounds: verdicts before the exact counts', function () {
  this.timeout(120_000);

  it('measures UTF-8 as Buffer.byteLength does, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(0xffff), { maxLength: 50 }), (codes) => {
        const text = String.fromCharCode(...codes);
        assert.equal(utf8Length(text), Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 2000 },
    );
  });

  it("bounds tiktoken's counts, for both encodings", () => {
    const counters = [
      [createTokenCounter('o200k_base'), 'o200k'],
      [createTokenCounter('cl100k_base'), 'cl100k'],
    ] as const;
    const unit = fc.oneof(
      fc.constantFrom(...TEXTS),
      fc.string({ maxLength: 30 }),
      fc.constant('a'.repeat(1000)),
      fc.constant('🚀'.repeat(50)),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), fc.array(fc.nat(0xffff), { maxLength: 40 }), (parts, codes) => {
        const text = parts.join(' ') + String.fromCharCode(...codes);
        const { low, high } = tokenBounds(text);
        for (const [count, pattern] of counters) {
          const n = count(text);
          assert.ok(low <= n && n <= high, `${n} not within ${low}..${high}`);
          const closer = tokenBounds(text, pattern);
          assert.ok(closer.low >= low && closer.high === high);
          assert.ok(closer.low <= n, `${n} under its ${pattern} pieces, ${closer.low}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  for (const pattern of [undefined, 'o200k'] as const) {
    it(`never gives a verdict that counts anywhere within the bounds contradict, and settles some cases but not all (${pattern ?? 'bytes only'})`, () => {
      let settled = 0;
      let open = 0;
      fc.assert(
        fc.property(arbCase, ({ turns: specs, summary, ceiling }) => {
          const { transcript, known, exactOf } = caseTranscript(specs, summary, ceiling, pattern);
          // The pieces' bounds worked out ahead, in steps, as analyzeFile does (none: the bytes' bounds alone).
          const ahead = new Map<string, Bounds>();
          if (pattern !== undefined) runSteps(boundsInSteps(TEXTS, pattern, ahead));
          for (const [text, b] of ahead) assert.deepEqual(b, tokenBounds(text, pattern));
          const early = verdictFromBounds(transcript, known, { ratioFloor: 5 }, ahead);
          const exact = analyze(transcript, { countTokens: (t) => exactOf.get(t) ?? tokenBounds(t).high, ratioFloor: 5 });
          if (early === undefined) {
            open++;
            return;
          }
          settled++;
          assert.deepEqual(promised(early), promised(exact));
          // With the judgements made ahead (as analyzeFile does), the same early analysis.
          const judgements = new JudgementCache();
          runSteps(judgeAhead(transcript, { judgements }));
          assert.deepEqual(verdictFromBounds(transcript, known, { ratioFloor: 5, judgements }, ahead), early);
        }),
        { numRuns: 3000 },
      );
      assert.ok(settled > 100 && open > 100, `settled ${settled}, left open ${open}`);
    });
  }

  it('says before the judging only the verdicts no judgement or count within the bounds can change, and says some', () => {
    // Checkpoint shapes whose verdict may or may not rest on the judging: encrypted, uncheckable, reported
    // (Path A), without a budget, with a position analyze must clamp, or plain.
    const shapes: Partial<Checkpoint>[] = [
      {},
      {},
      { opaque: true },
      { opaque: true, reportedIds: [0] },
      { unverifiable: 'the claimed turns are in another file' },
      { reportedIds: [0, 1] },
      { summaryBudget: undefined },
      { summaryBudget: -1 },
      { turnsBefore: 99 },
    ];
    let said = 0;
    let left = 0;
    fc.assert(
      fc.property(
        arbCase,
        fc.nat(shapes.length - 1),
        fc.nat(shapes.length - 1),
        fc.constantFrom(0.5, 1, 2),
        fc.boolean(),
        ({ turns: specs, summary, ceiling }, shape, otherShape, otherBudget, pieces) => {
          const pattern = pieces ? 'o200k' : undefined;
          const { transcript, known, exactOf } = caseTranscript(specs, summary, ceiling, pattern, shapes[shape]);
          // A second checkpoint at the same place, with a budget of its own: each is settled or not on its own.
          const [first] = transcript.checkpoints;
          const budget = (first.summaryBudget ?? 1) * otherBudget;
          transcript.checkpoints.push({ ...first, summaryId: 'S2', summaryBudget: budget, ...shapes[otherShape] });
          const bounds = new Map<string, Bounds>();
          const before = runSteps(verdictsBeforeJudging(transcript, known, 5, pattern, bounds));
          for (const [text, b] of bounds) assert.deepEqual(b, tokenBounds(text, pattern));
          const exact = analyze(transcript, { countTokens: (t) => exactOf.get(t) ?? tokenBounds(t).high, ratioFloor: 5 });
          assert.deepEqual(
            before.map((v) => v.summaryId),
            exact.checkpoints.map((cp) => cp.summaryId),
          );
          for (const [i, { verdict }] of before.entries()) {
            if (verdict === undefined) {
              left++;
              continue;
            }
            said++;
            assert.equal(verdict, exact.checkpoints[i].verdict);
          }
        },
      ),
      { numRuns: 3000 },
    );
    assert.ok(said > 300 && left > 300, `said ${said}, left ${left}`);
  });

  it('bounds a prefix before the judging only until it is over its ceiling', () => {
    const text = 'word '.repeat(50); // 50 pieces: at least 50 tokens
    const turns: Turn[] = [0, 1, 2, 3].map((i) => ({
      id: i,
      role: 'user',
      text: `${text}${i}`,
      span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
    }));
    const cp: Checkpoint = {
      summaryId: 'S1',
      summary: 'short',
      summaryBudget: 15, // ceiling 75: over it by the second turn
      claimedIds: [0, 1, 2, 3],
      turnsBefore: 4,
      span: { startLine: 5, endLine: 5, startOffset: 0, endOffset: 0 },
    };
    const transcript: Transcript = { format: 'canonical', turns, checkpoints: [cp], problems: [], lineCount: 5 };
    const bounds = new Map<string, Bounds>();
    assert.deepEqual(runSteps(verdictsBeforeJudging(transcript, new Map(), 5, 'o200k', bounds)), [
      { summaryId: 'S1', verdict: 'fail-closed' },
    ]);
    assert.deepEqual([...bounds.keys()], [turns[0].text, turns[1].text]);
    // Within its ceiling even if every character were a token (1,004 characters against 50,000): the verdict rests
    // on the judging, and no text is scanned.
    const wide: Transcript = { ...transcript, checkpoints: [{ ...cp, summaryBudget: 10_000 }] };
    const unscanned = new Map<string, Bounds>();
    assert.deepEqual(runSteps(verdictsBeforeJudging(wide, new Map(), 5, 'o200k', unscanned)), [{ summaryId: 'S1' }]);
    assert.equal(unscanned.size, 0);
    // Longer than its ceiling (1,004 characters against 500) but under it by its pieces (about 204): scanned in full.
    const near: Transcript = { ...transcript, checkpoints: [{ ...cp, summaryBudget: 100 }] };
    const scanned = new Map<string, Bounds>();
    assert.deepEqual(runSteps(verdictsBeforeJudging(near, new Map(), 5, 'o200k', scanned)), [{ summaryId: 'S1' }]);
    assert.equal(scanned.size, 4);
    // A checkpoint found fail-closed is kept as such, and a later call (after the file's read) takes it without
    // scanning again; one whose verdict rests on the judging is not kept.
    const failsClosed = new WeakSet<Checkpoint>();
    runSteps(
      verdictsBeforeJudging({ ...transcript, checkpoints: [cp, near.checkpoints[0]] }, new Map(), 5, 'o200k', new Map(), failsClosed),
    );
    assert.ok(failsClosed.has(cp) && !failsClosed.has(near.checkpoints[0]));
    const again = new Map<string, Bounds>();
    assert.deepEqual(runSteps(verdictsBeforeJudging(transcript, new Map(), 5, 'o200k', again, failsClosed)), [
      { summaryId: 'S1', verdict: 'fail-closed' },
    ]);
    assert.equal(again.size, 0);
  });

  it('has analyzeFile say the verdicts that rest on no judgement before any turn is judged or counted', async () => {
    const turns: Turn[] = Array.from({ length: 300 }, (_, i) => ({
      id: i,
      role: i % 2 ? 'assistant' : 'user',
      text: `Turn ${i} edited src/module_${i}.ts and ran the tests for TASK-${i}.`,
      span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
    }));
    const over: Checkpoint = {
      summaryId: 'S1',
      summary: 'Edited src/module_1.ts.',
      summaryBudget: 100, // ceiling 500: the 300 turns hold some 6,000 tokens
      claimedIds: turns.map((t) => t.id),
      turnsBefore: turns.length,
      span: { startLine: 301, endLine: 301, startOffset: 0, endOffset: 0 },
    };
    // Within its ceiling (the turns' 18,000 bytes at most): its verdict rests on the judging.
    const within: Checkpoint = { ...over, summaryId: 'S2', summaryBudget: 10_000 };
    const transcript: Transcript = { format: 'canonical', turns, checkpoints: [over, within], problems: [], lineCount: 301 };
    const pool = new TokenPool();
    try {
      const tokenCache: TokenCache = new Map();
      const evidenceCache = new EvidenceCache();
      const said: { verdicts: readonly CheckpointVerdict[]; judged: number; counted: number }[] = [];
      const analysis = await analyzeTranscript(
        transcript,
        { tokenCache, evidenceCache },
        pool,
        { encoding: 'o200k_base', ratioFloor: 5 },
        { onVerdict: (verdicts) => said.push({ verdicts, judged: evidenceCache.texts, counted: tokenCache.size }) },
      );
      assert.deepEqual(said[0], { verdicts: [{ summaryId: 'S1', verdict: 'fail-closed' }, { summaryId: 'S2' }], judged: 0, counted: 0 });
      assert.ok(evidenceCache.texts > 0 && tokenCache.size > 0); // judged and counted afterwards
      const verdicts = analysis.checkpoints.map(({ summaryId, verdict }) => ({ summaryId, verdict }));
      assert.equal(verdicts[0].verdict, 'fail-closed');
      assert.ok(analysis.checkpoints[0].overCeiling && !analysis.checkpoints[1].overCeiling);
      // Once judged, the bounds settle S2 too, unless the counts came in first.
      assert.ok(said.length <= 2);
      if (said.length === 2) assert.deepEqual(said[1].verdicts, verdicts);
    } finally {
      pool.dispose();
    }
  });

  it('has analyzeFile say a checkpoint settled while the file is read before the read ends, and only those read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-while-reading-'));
    const events: string[] = [];
    // The token worker starts once a verdict is said while reading, not before the read (where it held the verdicts
    // back); with no verdicts to say, before the read.
    class Watched extends TokenPool {
      constructor(private readonly into: string[]) {
        super();
      }

      override start(): void {
        if (this.workerCount === 0) this.into.push('worker started');
        super.start();
      }
    }
    const pool = new Watched(events);
    try {
      // A Claude Code session: 40 prompts, a compaction claiming them (some 600 tokens against a ceiling of 100 × 5),
      // 400 prompts, a second compaction claiming those (over the same ceiling), and 40 more.
      const records: string[] = [];
      let parent: string | null = null;
      const prompt = (n: number) => {
        records.push(claudeCodePrompt(`u${n}`, parent, `Step ${n}: edit src/module_${n}.ts for TASK-${n}.`));
        parent = `u${n}`;
      };
      const compaction = (k: number) => {
        records.push(...claudeCodeCompaction(k, parent, `Edited src/module_${k}.ts.`));
        parent = `s${k}`;
      };
      for (let n = 1; n <= 40; n++) prompt(n);
      compaction(1);
      for (let n = 41; n <= 440; n++) prompt(n);
      compaction(2);
      for (let n = 441; n <= 480; n++) prompt(n);
      const path = join(dir, 'session.jsonl');
      writeFileSync(path, records.join('\n') + '\n');
      const said: (readonly CheckpointVerdict[])[] = [];
      // Analyses the session with `on`'s pool, each progress message noted once in its events.
      const analyzeWith = (on: Watched, noted: string[], onVerdict?: (verdicts: readonly CheckpointVerdict[]) => void) =>
        analyzeFile(
          path,
          { defaultBudgets: { 'claude-code': 100 } },
          on,
          { encoding: 'o200k_base', ratioFloor: 5 },
          {
            onProgress: (_fraction, message) => {
              if (noted[noted.length - 1] !== message) noted.push(message);
            },
            onVerdict,
          },
        );
      const { analysis } = await analyzeWith(pool, events, (verdicts) => {
        said.push(verdicts);
        events.push('verdict');
      });
      assert.deepEqual(
        analysis.checkpoints.map((cp) => cp.verdict),
        ['fail-closed', 'fail-closed'],
      );
      // The first checkpoint alone while reading; both once the file is read.
      assert.deepEqual(said[0], [{ summaryId: 'b1', verdict: 'fail-closed' }]);
      assert.deepEqual(said[said.length - 1], [
        { summaryId: 'b1', verdict: 'fail-closed' },
        { summaryId: 'b2', verdict: 'fail-closed' },
      ]);
      assert.ok(events.indexOf('verdict') < events.indexOf('counting tokens…'), events.join(' / '));
      assert.ok(events.indexOf('verdict') < events.indexOf('worker started'), events.join(' / '));
      assert.ok(events.indexOf('worker started') < events.indexOf('counting tokens…'), events.join(' / '));
      // No verdicts to say: the worker starts before the first byte is read.
      const unsaid: string[] = [];
      const quiet = new Watched(unsaid);
      try {
        await analyzeWith(quiet, unsaid);
      } finally {
        quiet.dispose();
      }
      assert.equal(unsaid[0], 'worker started', unsaid.join(' / '));
      assert.ok(unsaid.includes('reading…'), unsaid.join(' / '));
    } finally {
      pool.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [name, path] of [
    ['the incident sample', SAMPLE],
    ['a real Claude Code session', SESSION],
    ['a real pi session', PI_SESSION],
    ['a real Codex rollout', CODEX_ROLLOUT],
  ]) {
    it(`gives analyzeFile's early verdicts, when it gives them, as its analysis says: ${name}`, async function () {
      skipWithoutShared(this, existsSync(path), path);
      const pool = new TokenPool();
      try {
        for (const defaultBudgets of [{}, DEFAULT_SUMMARY_BUDGETS]) {
          const said: (readonly CheckpointVerdict[])[] = [];
          const { analysis } = await analyzeFile(
            path,
            { defaultBudgets },
            pool,
            { encoding: 'o200k_base', ratioFloor: 5 },
            { onVerdict: (verdicts) => said.push(verdicts) },
          );
          // Every time: those said while the file was read too (the first ones, then more).
          for (const early of said) {
            for (const [i, { summaryId, verdict }] of early.entries()) {
              assert.equal(summaryId, analysis.checkpoints[i].summaryId);
              if (verdict !== undefined) assert.equal(verdict, analysis.checkpoints[i].verdict);
            }
          }
          if (path === SESSION || path === PI_SESSION)
            assert.ok(said.length > 0, 'its checkpoints are over their ceilings: said before the analysis is done');
        }
      } finally {
        pool.dispose();
      }
    });
  }
});
