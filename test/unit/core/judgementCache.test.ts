// Tests for analyzeInSteps, judgeAhead and JudgementCache (src/core/analyze.ts, src/core/judgementCache.ts):
// analysing in steps yields at least once per STEP_UNITS turns before a checkpoint, sooner after much work, and
// gives what analyze gives; what is left once the judgement was made ahead reads a few thousand turns or results a
// step at most; an
// analysis that takes the judgements judgeAhead made equals one without and judges nothing again; judgements
// made for another snapshot (another turn array, checkpoint record, prefix or threshold) are never taken; the results
// copied with their token figures share a few hidden classes.
import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { analyze, analyzeInSteps, judgeAhead } from '../../../src/core/analyze';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { STEP_CHARS, STEP_PIECES, STEP_UNITS } from '../../../src/core/stepPace';
import { DEFAULT_COVERAGE_THRESHOLD } from '../../../src/core/evidence';
import { JudgementCache } from '../../../src/core/judgementCache';
import type { Analysis, AnalysisOptions, Transcript, TurnResult } from '../../../src/core/model';
import { checkpoint, incident, range, transcript, turn } from './transcripts';
import { turnReason } from '../../../src/core/reweigh';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words, ratioFloor: 5 };

/** Runs a generator to its end; returns its value and how many times it yielded. */
function run<T>(steps: Generator<void, T, void>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { value: next.value, yields };
    yields++;
  }
}

function judged(t: Transcript, options: Partial<AnalysisOptions> = {}): { judgements: JudgementCache; evidenceCache: EvidenceCache } {
  const judgements = new JudgementCache();
  const evidenceCache = new EvidenceCache();
  run(judgeAhead(t, { ...options, evidenceCache, judgements }));
  return { judgements, evidenceCache };
}

/**
 * judgeAhead of `t` run step by step with `evidenceCache`: the turns' evidence worked out in all, and the most
 * worked out between two yields.
 */
function workedPerStep(t: Transcript, evidenceCache: EvidenceCache): { worked: number; most: number } {
  const steps = judgeAhead(t, { ...OPTS, evidenceCache, judgements: new JudgementCache() });
  let worked = 0;
  let most = 0;
  for (let next = steps.next(); !next.done; next = steps.next()) {
    const misses = evidenceCache.stats.misses;
    most = Math.max(most, misses - worked);
    worked = misses;
  }
  return { worked, most };
}

/** Two checkpoints over forty turns, the second claiming turns the first does not. */
function twoCheckpoints(): Transcript {
  const turns = Array.from({ length: 40 }, (_, i) => turn(i, `Changed src/part_${i}.ts for TASK-${100 + i}`));
  return transcript(turns, [
    checkpoint({ summaryId: 'S1', summary: 'TASK-101 and src/part_2.ts', summaryBudget: 50, claimedIds: range(0, 19), turnsBefore: 20 }),
    checkpoint({ summaryId: 'S2', summary: 'TASK-130 only', summaryBudget: 5, claimedIds: range(0, 39), turnsBefore: 40 }),
  ]);
}

describe('core/analyze in steps, with judgements made ahead', () => {
  it('yields at least once per STEP_UNITS turns before each checkpoint, and gives what analyze gives', () => {
    for (const t of [incident(false), incident(true), twoCheckpoints()]) {
      const { value, yields } = run(analyzeInSteps(t, OPTS));
      assert.deepEqual(value, analyze(t, OPTS));
      const before = t.checkpoints.reduce((sum, cp) => sum + cp.turnsBefore, 0);
      assert.ok(yields >= before / STEP_UNITS, `${yields} yields for ${before} turns before checkpoints`);
    }
  });

  it("works out at most STEP_UNITS turns' evidence between two yields, the sharing counts included", () => {
    // Forty turns with no calls (a unit a turn), under the 1,024 turns the light loops yield after; a cache of no
    // characters works every turn's evidence out again each time it is asked (the long pass's way too).
    for (const maxChars of [undefined, 0]) {
      const evidenceCache = new EvidenceCache({ maxChars });
      const { worked, most } = workedPerStep(twoCheckpoints(), evidenceCache);
      assert.ok(most <= STEP_UNITS, `${most} turns' evidence worked out in one step`);
      assert.ok(worked >= 40, 'every turn worked out');
    }
  });

  it('ends a step sooner after long texts worked out or read, or many pieces met: at most one turn past the bound', () => {
    // Turns of about 1,500 characters of prose (few pieces), and turns of about 1,000 characters naming 100 files
    // (100 pieces): each kind ends a step after a few turns, before STEP_UNITS, with every turn worked out each time.
    const prose = 'the change was made and then checked again before it went further along the way. '.repeat(18);
    const paths = Array.from({ length: 100 }, (_, k) => `d${k}/f${k}.ts`).join(' ');
    for (const [kind, text, most] of [
      ['long texts', prose, Math.ceil(STEP_CHARS / prose.length)],
      ['many pieces', paths, Math.ceil(STEP_PIECES / 100)],
    ] as const) {
      assert.ok(most < STEP_UNITS, `${kind}: a bound below STEP_UNITS`);
      const turns = Array.from({ length: 40 }, (_, i) => turn(i, `${i}: ${text}`));
      const summary = 'd1/f1.ts';
      const t = transcript(turns, [checkpoint({ summaryId: 'S', summary, summaryBudget: 50, claimedIds: range(0, 39), turnsBefore: 40 })]);
      const evidenceCache = new EvidenceCache({ maxChars: 0 });
      const { worked, most: longest } = workedPerStep(t, evidenceCache);
      assert.ok(worked >= 40, `${kind}: every turn worked out`);
      assert.ok(longest <= most, `${kind}: ${longest} turns' evidence worked out in one step, at most ${most}`);
    }
  });

  it('with the judgement made ahead, reads no more than a few thousand turns or results between two yields', () => {
    // What is left once the judging is done runs in steps too: the prefix's sizes read every turn before the
    // checkpoint, and each judged result was copied with its token figure, each in one step, which at 100k turns held
    // the extension host some 100 ms at the end of an analysis. The turns and the judged results read are counted
    // through proxies of their arrays. (The found evidence and its anchors, which walk the copies, are not counted.)
    const count = 12_000;
    let reads = 0;
    const counted = <T extends object>(array: T): T =>
      new Proxy(array, {
        get(target, key, receiver) {
          if (typeof key === 'string' && key.length > 0 && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    const turns = counted(Array.from({ length: count }, (_, i) => turn(i, `Changed src/part_${i}.ts for TASK-${100 + i}`)));
    const summary = 'TASK-101, src/part_2.ts and TASK-5000';
    const cp = checkpoint({ summaryId: 'S', summary, summaryBudget: 50_000, claimedIds: range(0, count - 1), turnsBefore: count });
    const t = transcript(turns, [cp]);
    const { judgements, evidenceCache } = judged(t, OPTS);
    const kept = judgements.get(0, { turns, checkpoint: cp, before: count, threshold: DEFAULT_COVERAGE_THRESHOLD, sink: undefined });
    assert.ok(kept?.results, 'judged ahead, with its results');
    (kept as { results: readonly TurnResult[] }).results = counted([...kept.results]);
    reads = 0;
    const steps = analyzeInSteps(t, { ...OPTS, judgements, evidenceCache });
    let most = 0;
    let next = steps.next();
    for (; !next.done; next = steps.next()) {
      most = Math.max(most, reads);
      reads = 0;
    }
    most = Math.max(most, reads);
    assert.ok(most <= 4096, `${most} turns or results read in one step`);
    assert.deepEqual(next.value, analyze(t, OPTS));
  });

  it('keeps statuses and marks only from the first turn that is claimed, reported or not uncovered', () => {
    const turns = Array.from({ length: 40 }, (_, i) => turn(i, `Changed src/part_${i}.ts for TASK-${100 + i}`));
    const late = checkpoint({ summaryId: 'S2', summary: 'TASK-130 only', summaryBudget: 5, claimedIds: range(25, 39), turnsBefore: 40 });
    const t = transcript(turns, [late]);
    const { judgements } = judged(t);
    const kept = judgements.get(0, {
      turns: t.turns,
      checkpoint: late,
      before: 40,
      threshold: DEFAULT_COVERAGE_THRESHOLD,
      sink: undefined,
    });
    assert.ok(kept, 'judged ahead');
    assert.equal(kept.from, 25);
    assert.equal(kept.statuses.length, 15);
    assert.equal(kept.marks.length, 15);
    const analysis = analyze(t, { ...OPTS, judgements });
    assert.deepEqual(analysis, analyze(t, OPTS));
    assert.equal(analysis.checkpoints[0].turns.filter((r) => r.status === 'uncovered').length >= 25, true);
  });

  it('keeps statuses and marks only up to the last turn that is claimed, reported or not uncovered', () => {
    const turns = Array.from({ length: 40 }, (_, i) => turn(i, `Changed src/part_${i}.ts for TASK-${100 + i}`));
    const middle = checkpoint({ summaryId: 'S2', summary: 'TASK-115 only', summaryBudget: 5, claimedIds: range(10, 24), turnsBefore: 40 });
    const t = transcript(turns, [middle]);
    const { judgements } = judged(t);
    const kept = judgements.get(0, {
      turns: t.turns,
      checkpoint: middle,
      before: 40,
      threshold: DEFAULT_COVERAGE_THRESHOLD,
      sink: undefined,
    });
    assert.ok(kept, 'judged ahead');
    assert.equal(kept.from, 10);
    assert.equal(kept.statuses.length, 15);
    assert.equal(kept.marks.length, 15);
    const [cp] = analyze(t, { ...OPTS, judgements }).checkpoints;
    // The counts, from the statuses kept, against the turns' own results.
    const byResults: Record<string, number> = {};
    for (const r of cp.turns) byResults[r.status] = (byResults[r.status] ?? 0) + 1;
    for (const [status, count] of Object.entries(cp.counts)) assert.equal(count, byResults[status] ?? 0, status);
    assert.equal(cp.counts.uncovered, 25);
  });

  it('takes the judgements judgeAhead made: the same analysis, and no evidence worked out again', () => {
    for (const t of [incident(false), twoCheckpoints()]) {
      const { judgements, evidenceCache } = judged(t);
      assert.ok(
        t.checkpoints.every((_, i) => judgements.has(i)),
        'every checkpoint judged ahead',
      );
      const stats = { ...evidenceCache.stats };
      const taking: Analysis = analyze(t, { ...OPTS, evidenceCache, judgements });
      assert.deepEqual(evidenceCache.stats, stats, 'no evidence looked up');
      assert.deepEqual(taking, analyze(t, OPTS));
    }
  });

  it('never takes judgements made for another snapshot, checkpoint, prefix or threshold', () => {
    const t = twoCheckpoints();
    const { judgements } = judged(t);
    const plain = (x: Transcript, options: Partial<AnalysisOptions> = {}): Analysis => analyze(x, { ...OPTS, ...options });
    // Another snapshot whose first turn changed: its turn array is new, and S1 and S2 must see the change.
    const changedTurns = t.turns.slice();
    changedTurns[1] = turn(1, 'Changed nothing of note');
    const changed = transcript(changedTurns, t.checkpoints);
    assert.deepEqual(analyze(changed, { ...OPTS, judgements }), plain(changed));
    // The same turns, another checkpoint record (a new summary) and another prefix.
    const other = transcript(t.turns, [
      { ...t.checkpoints[0], summary: 'TASK-119 src/part_19.ts' },
      { ...t.checkpoints[1], turnsBefore: 30, claimedIds: range(0, 29) },
    ]);
    assert.deepEqual(analyze(other, { ...OPTS, judgements }), plain(other));
    // Another coverage threshold.
    assert.deepEqual(analyze(t, { ...OPTS, judgements, coverageThreshold: 5 }), plain(t, { coverageThreshold: 5 }));
    assert.notDeepEqual(plain(t, { coverageThreshold: 5 }).checkpoints[0].turns, plain(t).checkpoints[0].turns);
  });

  it('judges ahead without counting tokens, and leaves a checkpoint that cannot be judged to the analysis', () => {
    const t = twoCheckpoints();
    const broken = transcript(t.turns, [t.checkpoints[0], null as never]);
    const { judgements } = judged(broken);
    assert.ok(judgements.has(0));
    assert.equal(judgements.has(1), false);
    const analysis = analyze(broken, { ...OPTS, judgements });
    assert.deepEqual(analysis, analyze(broken, OPTS));
    assert.match(analysis.problems.map((p) => p.message).join('\n'), /could not analyse checkpoint #2/);
  });
});

describe('core/analyze: the results with their token figures', () => {
  it('are one object per unclaimed turn, shared by the checkpoints that do not claim it, with or without judgements made ahead', () => {
    // Three checkpoints, each claiming its own ten turns; every fourth turn has a recorded figure, the others are
    // counted (another checkpoint claims them). A file of many compactions kept a result per checkpoint for every
    // earlier turn: 5M results for 223 summaries.
    const turns = Array.from({ length: 30 }, (_, i) => {
      const t = turn(i, `Changed src/part_${i}.ts for TASK-${100 + i}`);
      if (i % 4 === 0) t.tokens = 7;
      return t;
    });
    const segment = (k: number) =>
      checkpoint({
        summaryId: `S${k + 1}`,
        summary: `TASK-${100 + 10 * k}`,
        summaryBudget: 50,
        claimedIds: range(10 * k, 10 * k + 9),
        turnsBefore: 10 * k + 10,
      });
    const t = transcript(turns, [segment(0), segment(1), segment(2)]);
    for (const analysis of [analyze(t, OPTS), analyze(t, { ...OPTS, ...judged(t) })]) {
      const [, s2, s3] = analysis.checkpoints;
      for (let i = 0; i < 10; i++) {
        assert.equal(s2.turns[i], s3.turns[i], `turn ${i}: one result for S2 and S3`);
        assert.deepEqual(
          { ...s3.turns[i] },
          {
            id: i,
            index: i,
            status: 'uncovered',
            claimed: false,
            evidence: [],
            reason: s3.turns[i].reason,
            line: i + 1,
            endLine: i + 1,
            tokens: i % 4 === 0 ? 7 : words(turns[i].text as string),
          },
        );
        assert.match(turnReason(s3.turns[i]), /^not in the pointer set/);
      }
      for (let i = 10; i < 20; i++) assert.notEqual(s2.turns[i], s3.turns[i], `turn ${i}: claimed by S2, not by S3`);
    }
    assert.deepEqual(analyze(t, { ...OPTS, ...judged(t) }), analyze(t, OPTS));
    // A checkpoint with the summariser's report gives its unclaimed turns `reported`: results of their own.
    const reporting = transcript(turns, [segment(0), { ...segment(1), reportedIds: range(10, 19) }, segment(2)]);
    const [, a2, a3] = analyze(reporting, OPTS).checkpoints;
    assert.equal(a2.turns[0].reported, false);
    assert.notEqual(a2.turns[0], a3.turns[0]);
    assert.equal(a3.turns[0].reported, undefined);
  });

  it('look each turn up in the token cache once, however many checkpoints show it', () => {
    // Ten checkpoints, each claiming its own hundred turns: each shows every turn before it with its figure.
    const turns = Array.from({ length: 1000 }, (_, i) => turn(i, `Changed src/part_${i}.ts for TASK-${i}`));
    const segment = (k: number) =>
      checkpoint({
        summaryId: `S${k}`,
        summary: `TASK-${100 * k}`,
        summaryBudget: 50,
        claimedIds: range(100 * k, 100 * k + 99),
        turnsBefore: 100 * k + 100,
      });
    const t = transcript(
      turns,
      Array.from({ length: 10 }, (_, k) => segment(k)),
    );
    class CountingCache extends Map<string, number> {
      gets = 0;
      override get(key: string): number | undefined {
        this.gets++;
        return super.get(key);
      }
    }
    const tokenCache = new CountingCache();
    const analysis = analyze(t, { ...OPTS, tokenCache });
    assert.ok(tokenCache.gets <= 1000, `${tokenCache.gets} lookups for 1,000 turns`);
    assert.deepEqual(analysis, analyze(t, OPTS));
    assert.equal(analysis.checkpoints[9].turns[0].tokens, words(turns[0].text));
  });

  it('share a few hidden classes, not one each (a spread gave most copies a class of their own, about 330 bytes)', () => {
    // V8's %HaveSameMap, compiled while the flag is set, as gcSettings.ts makes V8's gc available.
    setFlagsFromString('--allow-natives-syntax');
    const sameClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    setFlagsFromString('--no-allow-natives-syntax');
    const turns = Array.from({ length: 2000 }, (_, i) => {
      const t = turn(i % 3 === 0 ? `t${i}` : i, i % 5 === 0 ? `Changed src/part_${i}.ts for TASK-${i}` : `plain words number ${i}`);
      if (i % 7 === 0) t.tokens = 4;
      return t;
    });
    const ids = turns.map((t) => t.id);
    const t = transcript(turns, [
      checkpoint({
        summaryId: 'S1',
        summary: 'TASK-5 and src/part_10.ts',
        summaryBudget: 50,
        claimedIds: ids.slice(0, 1500),
        turnsBefore: 2000,
      }),
    ]);
    const results = analyze(t, OPTS).checkpoints[0].turns;
    assert.equal(results.length, 2000);
    const classes: object[] = [];
    for (const r of results) if (!classes.some((c) => sameClass(c, r))) classes.push(r);
    assert.ok(classes.length <= 16, `${classes.length} hidden classes for 2,000 results`);
  });
});
