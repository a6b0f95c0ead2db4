// Tests for verdicts from token bounds (src/core/tokenBounds.ts, analyzeFile's onVerdict): utf8Length is
// Buffer.byteLength; tiktoken's counts (o200k_base, cl100k_base, by pieces as the counter counts) fall
// within tokenBounds; on generated transcripts whose ceiling lies near, below, between and above the prefix's
// bounds, with exact counts chosen anywhere within the bounds (and some already known), a verdict from the
// bounds is never one the exact counts contradict (verdicts, statuses, evidence, safe pointer sets), and the
// bounds do settle some cases and leave others open; analyzeFile's early analysis agrees with its exact one.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { analyze, judgeAhead } from '../../../src/core/analyze';
import { JudgementCache } from '../../../src/core/judgementCache';
import { runSteps } from '../../../src/core/steps';
import type { Analysis, Checkpoint, TokenCache, Transcript, Turn } from '../../../src/core/model';
import { boundsInSteps, tokenBounds, utf8Length, verdictFromBounds, type Bounds } from '../../../src/core/tokenBounds';
import { analyzeFile } from '../../../src/node/analyzeFile';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { TokenPool } from '../../../src/node/tokenPool';
import { skipWithoutShared } from '../../sharedFolder';

const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
const SESSION = resolve(__dirname, '../../../../../shared/corpus/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz');

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
          const target =
            'near' in ceiling ? exactPrefix + ceiling.near : Math.round(lowPrefix + ceiling.between * (highPrefix - lowPrefix));
          const cp: Checkpoint = {
            summaryId: 'S1',
            summary: summary.join(' '),
            summaryBudget: Math.max(1, target) / 5,
            claimedIds,
            turnsBefore: turns.length,
            span: { startLine: 99, endLine: 99, startOffset: 0, endOffset: 0 },
          };
          const transcript: Transcript = { format: 'canonical', turns, checkpoints: [cp], problems: [], lineCount: turns.length + 1 };
          const known: TokenCache = new Map();
          specs.forEach((s) => {
            if (s.known) known.set(s.text, exactOf.get(s.text)!);
          });
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

  for (const [name, path] of [
    ['the incident sample', SAMPLE],
    ['a real Claude Code session', SESSION],
  ]) {
    it(`gives analyzeFile's early analysis, when it gives one, as its exact analysis says: ${name}`, async function () {
      skipWithoutShared(this, existsSync(path), path);
      const pool = new TokenPool();
      try {
        let early: Analysis | undefined;
        const { analysis } = await analyzeFile(
          path,
          {},
          pool,
          { encoding: 'o200k_base', ratioFloor: 5 },
          { onVerdict: (a) => (early = a) },
        );
        if (early !== undefined) assert.deepEqual(promised(early), promised(analysis));
      } finally {
        pool.dispose();
      }
    });
  }
});
