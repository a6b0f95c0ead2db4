// Property-based tests of analyze (fast-check): it agrees with the note's reference API on transcripts with
// explicit anchors (except where it refuses a vacuous verdict: an empty summary); the five statuses partition the
// earlier turns; the safe pointer set holds only claimed, substantiated turns; reconstruction never answers "from
// summary" for a turn that is not covered; a verdict never changes when turns are appended after its checkpoint;
// and no input, however nonsensical, makes it throw.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import {
  TURN_STATUSES,
  type AnalysisOptions,
  type Checkpoint,
  type CheckpointAnalysis,
  type Transcript,
  type Turn,
  type TurnId,
} from '../../../src/core/model';
import { buildCheckpoint, CompactionReversibilityError, pyList, reconstruct, type ReferenceCheckpoint } from '../../../src/core/reference';
import { span } from './transcripts';

// The exact count does not matter here: one token per whitespace-separated word (deterministic).
const OPTS: AnalysisOptions = { countTokens: (t) => t.split(/\s+/).filter(Boolean).length };

const ANCHORS = ['ERR_1', 'ERR_12', 'ledger', 'Ledger', '', 'src/a.ts', 'Ω-7', 'x', 'fact 9'];
const FRAGMENTS = [
  'ok, go ahead',
  'Fixed ERR_LEDGER_4107',
  'in src/core/ledger.ts',
  'renamed parseEntry',
  'bumped to v4.17.21',
  'see "reconciliation mismatch"',
  'Postgres',
  'ticket JIRA-881',
  'build 20261113',
  'thanks!',
  'sha a1b2c3d4',
];

interface Spec {
  turns: Turn[];
  cp: Checkpoint;
  ratio: number;
}

/** Transcripts whose turns carry explicit anchors and recorded tokens, with one checkpoint (positive budget). */
const explicitArb: fc.Arbitrary<Spec> = fc
  .record({
    n: fc.integer({ min: 0, max: 14 }),
    stringIds: fc.boolean(),
    anchors: fc.array(fc.constantFrom(...ANCHORS), { minLength: 14, maxLength: 14 }),
    tokens: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 14, maxLength: 14 }),
    summaryParts: fc.subarray(ANCHORS.filter((a) => a !== '')),
    claimMask: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
    reportMask: fc.option(fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }), { nil: undefined }),
    before: fc.integer({ min: 0, max: 14 }),
    budget: fc.integer({ min: 1, max: 200 }),
    ratio: fc.constantFrom(5, 5, 3, 10),
  })
  .map(({ n, stringIds, anchors, tokens, summaryParts, claimMask, reportMask, before, budget, ratio }) => {
    const turns: Turn[] = Array.from({ length: n }, (_, i) => ({
      id: stringIds ? `t-${i}` : i,
      role: 'assistant',
      text: `turn ${i}`,
      tokens: tokens[i],
      anchor: anchors[i],
      span: span(i + 1),
    }));
    const turnsBefore = Math.min(before, n);
    const claimedIds = turns
      .slice(0, turnsBefore)
      .filter((_, i) => claimMask[i])
      .map((t) => t.id);
    const cp: Checkpoint = {
      summaryId: 'S',
      summary: summaryParts.join(' … '),
      summaryBudget: budget,
      claimedIds,
      turnsBefore,
      span: span(100),
      ...(reportMask ? { reportedIds: [...turns.filter((_, i) => reportMask[i]).map((t) => t.id), 'not-a-turn'] } : {}),
    };
    return { turns, cp, ratio };
  });

function transcriptOf(turns: Turn[], checkpoints: Checkpoint[]): Transcript {
  return { format: 'canonical', turns, checkpoints, problems: [], lineCount: 0 };
}

function checkPartition(t: Transcript, cp: CheckpointAnalysis, claimed: Set<TurnId>, before: number): void {
  assert.equal(cp.turns.length, before);
  cp.turns.forEach((r, i) => {
    assert.equal(r.index, i);
    assert.equal(r.id, t.turns[i].id);
    assert.equal(r.claimed, claimed.has(r.id));
    // Exactly one of the five statuses, and uncovered exactly for the unclaimed.
    assert.ok(TURN_STATUSES.includes(r.status));
    assert.equal(r.status === 'uncovered', !r.claimed);
    // Turns that are not claimed, or whose coverage cannot be checked, are not weighed at all.
    if (r.status === 'unverifiable' || r.status === 'uncovered') {
      assert.equal(r.score, undefined);
      assert.deepEqual(r.evidence, []);
    }
    if (cp.path === 'B' && r.score !== undefined) {
      assert.ok(r.threshold !== undefined && r.threshold > 0);
      for (const e of r.evidence) {
        assert.equal(e.found, e.at !== undefined);
        assert.ok(e.weight >= 0 && e.sharedBy >= 1);
      }
    }
    // Covered needs positive evidence: something found that is more than weak or a plain word of the prose, and a
    // score that reaches the threshold (a confirmation, whose evidence all comes from its call, is covered when
    // the summary knows what it confirms).
    if (cp.path === 'B' && r.status === 'covered') {
      assert.ok(r.score !== undefined && r.threshold !== undefined);
      const found = r.evidence.filter((e) => e.found);
      assert.ok(
        found.some((e) => e.kind !== 'weak' && e.kind !== 'term'),
        `turn ${String(r.id)}: covered by weak evidence only`,
      );
      assert.ok(r.score >= r.threshold || found.every((e) => e.fromCall), `turn ${String(r.id)}: score ${r.score} vs ${r.threshold}`);
    }
    // Below the threshold, with evidence of its own, a turn is not covered.
    if (
      cp.path === 'B' &&
      r.score !== undefined &&
      r.threshold !== undefined &&
      r.score < r.threshold &&
      r.evidence.some((e) => e.found && !e.fromCall)
    ) {
      assert.notEqual(r.status, 'covered');
    }
  });
  assert.deepEqual(Object.keys(cp.counts).sort(), [...TURN_STATUSES].sort());
  const total = TURN_STATUSES.reduce((sum, s) => sum + cp.counts[s], 0);
  assert.equal(total, before);
  for (const s of TURN_STATUSES) assert.equal(cp.turns.filter((r) => r.status === s).length, cp.counts[s], s);
  assert.equal(
    cp.claimedMissingRanges.reduce((s, r) => s + r.count, 0),
    cp.counts['claimed-missing'],
  );
  // Safe pointer set: claimed, substantiated, in log order, no duplicates.
  const byId = new Map(cp.turns.map((r) => [r.id, r]));
  let lastIndex = -1;
  let last: (typeof cp.turns)[number] | undefined;
  for (const id of cp.safeCovered) {
    const r = byId.get(id);
    assert.ok(r, `safe id ${String(id)} is an earlier turn`);
    assert.ok(r.claimed, `safe id ${String(id)} is claimed`);
    assert.ok(r.index > lastIndex, 'safe set in log order');
    lastIndex = r.index;
    last = r;
    if (cp.path === 'A') {
      assert.equal(r.reported, true);
      continue;
    }
    // Path B: covered, with evidence found. The one exception is the fail-closed run from the start, which passes
    // over turns with nothing to check (it never ends on one, see below).
    if (r.status === 'covered')
      assert.ok(
        r.evidence.some((e) => e.found),
        `safe id ${String(id)}: its evidence is in the summary`,
      );
    else assert.ok(r.status === 'nothing-to-check' && cp.verdict === 'fail-closed', `safe id ${String(id)} is ${r.status}`);
  }
  if (cp.path === 'B' && last) assert.equal(last.status, 'covered', 'the safe set never ends on a turn with nothing to check');
}

describe('core/analyze agrees with the reference API (explicit anchors, known budgets)', () => {
  it('reversible ⇔ buildCheckpoint returns with every claimed id covered; safe set = its covered ids', () => {
    fc.assert(
      fc.property(explicitArb, ({ turns, cp, ratio }) => {
        const a = analyze(transcriptOf(turns, [cp]), { ...OPTS, ratioFloor: ratio }).checkpoints[0];
        const claimed = new Set(cp.claimedIds);
        const refTurns = turns
          .slice(0, cp.turnsBefore)
          .filter((t) => claimed.has(t.id))
          .map((t) => ({ id: t.id, anchorToken: t.anchor as string, tokens: t.tokens as number }));
        let ref: ReferenceCheckpoint | undefined;
        let error: CompactionReversibilityError | undefined;
        try {
          ref = buildCheckpoint(refTurns, cp.summary, cp.summaryBudget as number, cp.reportedIds, ratio);
        } catch (e) {
          assert.ok(e instanceof CompactionReversibilityError);
          error = e;
        }
        const missingIds = a.turns.filter((r) => r.status === 'claimed-missing').map((r) => r.id);
        checkPartition(transcriptOf(turns, [cp]), a, claimed, cp.turnsBefore);
        // No neutral statuses here: every turn has its anchor, and the summary is readable.
        assert.equal(a.counts['nothing-to-check'] + a.counts.unverifiable, 0);
        if (cp.summary.trim() === '') {
          // Where the reference may still answer (Python's '' in '' is True), analyze refuses a vacuous verdict.
          assert.equal(a.verdict, 'fail-closed');
          assert.equal(
            a.reasons[0],
            'the summary is empty: there is no positive evidence of coverage, so none may be claimed (fail closed)',
          );
          assert.deepEqual(a.safeCovered, ref && a.path === 'A' ? ref.coveredIds : []);
          return;
        }
        if (error) {
          assert.equal(a.path, 'B');
          assert.notEqual(a.verdict, 'reversible');
          if (a.overCeiling) {
            assert.equal(a.verdict, 'fail-closed');
            assert.match(error.message, new RegExp(`^prefix ${a.prefixTokens}t `));
            if (missingIds.length > 0) assert.ok(error.message.includes(`omits anchors for turns ${pyList(missingIds.slice(0, 5))};`));
            else assert.ok(error.message.includes('exceeds reversible ceiling'));
          } else {
            assert.equal(a.verdict, 'conditional');
            assert.ok(error.message.includes(`omits anchors for turns ${pyList(missingIds.slice(0, 5))};`));
          }
        } else {
          assert.ok(ref);
          const allCovered = ref.coveredIds.length === refTurns.length;
          assert.equal(a.verdict === 'reversible', allCovered);
          if (!allCovered) assert.equal(a.verdict, 'conditional'); // Path A
          assert.deepEqual(a.safeCovered, ref.coveredIds);
          assert.deepEqual(missingIds, ref.uncoveredIds);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** Transcripts with derived anchors and several checkpoints of every kind. */
const derivedArb = fc
  .record({
    texts: fc.array(fc.subarray(FRAGMENTS, { minLength: 1, maxLength: 3 }), { maxLength: 20 }),
    tokens: fc.array(fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }), { minLength: 20, maxLength: 20 }),
    cps: fc.array(
      fc.record({
        before: fc.integer({ min: 0, max: 20 }),
        claimMask: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
        reportMask: fc.option(fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }), { nil: undefined, freq: 2 }), // Path B half the time
        summary: fc.subarray(FRAGMENTS),
        cut: fc.boolean(),
        budget: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
        opaque: fc.boolean(),
        threshold: fc.constantFrom(undefined, 0.5, 1, 1.5, 2),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ texts, tokens, cps }) => {
    const turns: Turn[] = texts.map((parts, i) => ({
      id: i % 3 === 0 ? `id-${i}` : i,
      role: 'user',
      text: `${parts.join('. ')} (step ${i})`,
      ...(tokens[i] !== undefined ? { tokens: tokens[i] } : {}),
      span: span(i + 1),
    }));
    const checkpoints: Checkpoint[] = cps.map((c, k) => {
      const before = Math.min(c.before, turns.length);
      const summary = c.summary.join('. ');
      return {
        summaryId: `S${k}`,
        summary: c.cut ? summary.slice(0, Math.floor(summary.length / 2)) : summary + '.',
        ...(c.budget !== undefined ? { summaryBudget: c.budget } : {}),
        claimedIds: turns
          .slice(0, before)
          .filter((_, i) => c.claimMask[i])
          .map((t) => t.id),
        ...(c.reportMask ? { reportedIds: turns.filter((_, i) => c.reportMask?.[i]).map((t) => t.id) } : {}),
        turnsBefore: before,
        span: span(200 + k),
        opaque: c.opaque,
      };
    });
    return { t: transcriptOf(turns, checkpoints), threshold: cps[0].threshold };
  });

function optionsWith(threshold: number | undefined): AnalysisOptions {
  return threshold === undefined ? OPTS : { ...OPTS, coverageThreshold: threshold };
}

describe('core/analyze invariants (derived evidence, random checkpoints)', () => {
  it('statuses partition the earlier turns; the safe set is claimed and substantiated; no vacuous verdict', () => {
    fc.assert(
      fc.property(derivedArb, ({ t, threshold }) => {
        const a = analyze(t, optionsWith(threshold));
        assert.equal(a.checkpoints.length, t.checkpoints.length);
        a.checkpoints.forEach((cp, k) => {
          const input = t.checkpoints[k];
          checkPartition(t, cp, new Set(input.claimedIds), input.turnsBefore);
          const claimedTurns = cp.turns.filter((r) => r.claimed);
          for (const r of claimedTurns) if (r.score !== undefined) assert.equal(r.threshold, threshold ?? 1);
          if (input.opaque && input.reportedIds === undefined) {
            assert.equal(cp.verdict, 'fail-closed');
            assert.equal(cp.counts.covered, 0);
            assert.ok(claimedTurns.every((r) => r.status === 'unverifiable'));
            assert.deepEqual(cp.safeCovered, []);
          }
          if (input.summaryBudget === undefined && input.reportedIds === undefined) assert.equal(cp.verdict, 'fail-closed');
          if (cp.verdict === 'reversible') {
            assert.equal(cp.counts['claimed-missing'], 0);
            assert.equal(cp.counts.unverifiable, 0);
            if (!input.opaque) assert.notEqual(input.summary.trim(), '', 'an empty summary is never reversible');
            if (cp.path === 'B' && claimedTurns.length > 0) {
              // Positive evidence: something covered, and at most half the claimed turns neutral.
              assert.ok(cp.counts.covered > 0);
              assert.ok(cp.counts['nothing-to-check'] * 2 <= claimedTurns.length);
            }
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("turns appended after the last checkpoint never change any checkpoint's analysis", () => {
    fc.assert(
      fc.property(
        derivedArb,
        fc.array(fc.subarray(FRAGMENTS, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        ({ t, threshold }, extra) => {
          const before = analyze(t, optionsWith(threshold));
          const appended: Turn[] = extra.map((parts, i) => ({
            id: `appended-${i}`,
            role: i % 2 === 0 ? 'assistant' : 'tool',
            text: parts.join('. '),
            span: span(1000 + i),
          }));
          const after = analyze(transcriptOf([...t.turns, ...appended], t.checkpoints), optionsWith(threshold));
          assert.deepEqual(after.checkpoints, before.checkpoints);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reconstruct from the safe pointer set never answers "from summary" for a turn that is not covered', () => {
    fc.assert(
      fc.property(derivedArb, ({ t, threshold }) => {
        const a = analyze(t, optionsWith(threshold));
        a.checkpoints.forEach((cp) => {
          if (cp.path === 'A') return; // Path A trusts the summariser's report, not anchors
          const safe = new Set(cp.safeCovered);
          const ref: ReferenceCheckpoint = {
            summary: '',
            summaryBudget: 0,
            coveredIds: cp.safeCovered,
            uncoveredIds: cp.turns.filter((r) => !safe.has(r.id)).map((r) => r.id),
          };
          const rawLog = new Map(t.turns.map((turn) => [turn.id, `raw:${turn.text}`]));
          for (const r of cp.turns) {
            const answer = reconstruct(ref, rawLog, r.id);
            if (answer.startsWith('raw:')) continue;
            // "From summary" only for a covered turn — or a turn with nothing to check that the fail-closed run
            // from the start passes over (see checkPartition) — and never when the summary is unreadable.
            assert.ok(!cp.opaque, `turn ${String(r.id)}: the summary is encrypted`);
            assert.ok(
              r.status === 'covered' || (r.status === 'nothing-to-check' && cp.verdict === 'fail-closed'),
              `turn ${String(r.id)} is ${r.status} but answered from the summary`,
            );
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it('the reference: reconstruct never answers "from summary" for a turn whose anchor is absent (Path B)', () => {
    fc.assert(
      fc.property(explicitArb, ({ turns, cp, ratio }) => {
        const refTurns = turns.map((t) => ({ id: t.id, anchorToken: t.anchor as string, tokens: t.tokens as number }));
        let ref: ReferenceCheckpoint;
        try {
          ref = buildCheckpoint(refTurns, cp.summary, cp.summaryBudget as number, undefined, ratio);
        } catch {
          return; // refused: nothing to reconstruct from
        }
        const rawLog = new Map(turns.map((t) => [t.id, `raw:${String(t.id)}`]));
        for (const t of refTurns) {
          if (!cp.summary.includes(t.anchorToken)) {
            assert.ok(!reconstruct(ref, rawLog, t.id).startsWith('[from summary]'));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('core/analyze never throws', () => {
  const weirdNumber = fc.oneof(
    fc.integer({ min: -10, max: 40 }),
    fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 1e300, 2.5),
    fc.constant(undefined),
  );
  const weirdId = fc.oneof(fc.integer({ min: -2, max: 30 }), fc.string({ maxLength: 4 }), fc.constant(null), fc.double());
  const weirdTurn = fc.oneof(
    fc.record({
      id: weirdId,
      role: fc.constantFrom('user', 'assistant', 'tool', 'system', 'alien'),
      text: fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom(...FRAGMENTS), fc.constant(undefined)),
      tokens: weirdNumber,
      anchor: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
      span: fc.option(fc.constant(span(3)), { nil: undefined }),
    }),
    fc.constant(null),
  );
  const weirdCheckpoint = fc.oneof(
    fc.record({
      summaryId: fc.oneof(fc.string({ maxLength: 5 }), fc.constant(undefined)),
      summary: fc.oneof(fc.string({ maxLength: 200 }), fc.constant(''), fc.constant(undefined), fc.constant(42)),
      summaryBudget: weirdNumber,
      budgetAssumed: fc.option(fc.boolean(), { nil: undefined }),
      claimedIds: fc.oneof(fc.array(weirdId, { maxLength: 10 }), fc.constant(undefined), fc.constant('x')),
      reportedIds: fc.oneof(fc.array(weirdId, { maxLength: 10 }), fc.constant(undefined), fc.constant(null)),
      span: fc.oneof(fc.constant(span(9)), fc.constant(undefined)),
      turnsBefore: weirdNumber,
      opaque: fc.option(fc.boolean(), { nil: undefined }),
      recordedPrefixTokens: weirdNumber,
      recordedSummaryTokens: weirdNumber,
      truncationHints: fc.option(
        fc.record({
          expectedClosings: fc.option(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }), { nil: undefined }),
          rawOutputClosed: fc.option(fc.boolean(), { nil: undefined }),
          expectedLastSection: weirdNumber,
        }),
        { nil: undefined },
      ),
      notes: fc.option(fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer())), { nil: undefined }),
    }),
    fc.constant(null),
    fc.constant(7),
  );

  it('on arbitrary, even nonsensical, transcripts and options', () => {
    fc.assert(
      fc.property(
        fc.array(weirdTurn, { maxLength: 25 }),
        fc.array(weirdCheckpoint, { maxLength: 4 }),
        fc.record({
          ratioFloor: weirdNumber,
          coverageThreshold: fc.oneof(weirdNumber, fc.constantFrom('1', null, 0.001, 1e9)),
          nearBudgetFraction: weirdNumber,
          failCounter: fc.boolean(),
        }),
        (turns, checkpoints, o) => {
          const t = { format: 'canonical', turns, checkpoints, problems: [], lineCount: 0 } as unknown as Transcript;
          const options = {
            ratioFloor: o.ratioFloor,
            coverageThreshold: o.coverageThreshold,
            nearBudgetFraction: o.nearBudgetFraction,
            countTokens: o.failCounter
              ? () => {
                  throw new Error('counter down');
                }
              : (s: string) => s.length,
          } as unknown as AnalysisOptions;
          const a = analyze(t, options);
          assert.equal(a.checkpoints.length, checkpoints.length);
          for (const cp of a.checkpoints) {
            assert.ok(['reversible', 'conditional', 'fail-closed'].includes(cp.verdict));
            assert.ok(Array.isArray(cp.reasons) && cp.reasons.length > 0);
            assert.equal(
              TURN_STATUSES.reduce((sum, s) => sum + cp.counts[s], 0),
              cp.turns.length,
            );
            assert.ok(cp.turns.every((r) => TURN_STATUSES.includes(r.status)));
          }
          assert.ok(a.problems.every((p) => typeof p.line === 'number' && typeof p.message === 'string'));
        },
      ),
      { numRuns: 400 },
    );
  });
});
