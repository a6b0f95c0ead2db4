// Tests for src/core/analyze.ts: statuses, verdicts, safe pointer sets and reasons on hand-made checkpoints
// (Path A, Path B within and over the ceiling, unknown budget, encrypted summaries, turns with nothing to check,
// the coverage threshold, no vacuous verdicts), the note's incident, token counting with real tiktoken (memoised,
// lazy), and internal failures kept per checkpoint.
import * as assert from 'node:assert/strict';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { analyze } from '../../../src/core/analyze';
import { DEFAULT_COVERAGE_THRESHOLD, SALIENCE } from '../../../src/core/evidence';
import { formatRanges } from '../../../src/core/idRanges';
import type { AnalysisOptions, CheckpointAnalysis, TokenCache, Turn, TurnStatus } from '../../../src/core/model';
import { checkpoint, incident, range, span, transcript, turn } from './transcripts';
import { turnReason } from '../../../src/core/reweigh';

// Where the exact count does not matter: one token per whitespace-separated word (deterministic).
const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words };

function statuses(cp: CheckpointAnalysis): TurnStatus[] {
  return cp.turns.map((t) => t.status);
}

describe("core/analyze: the note's incident", () => {
  for (const explicit of [true, false]) {
    it(`fail-closed, truncated, 380 covered · 40 claimed-missing (380–419), safe 0–379 (${explicit ? 'explicit anchors' : 'derived evidence'})`, () => {
      const a = analyze(incident(explicit), OPTS);
      assert.equal(a.checkpoints.length, 1);
      const cp = a.checkpoints[0];
      assert.equal(cp.verdict, 'fail-closed');
      assert.equal(cp.path, 'B');
      assert.equal(cp.prefixTokens, 42000);
      assert.equal(cp.prefixTokenSource, 'recorded');
      assert.equal(cp.ceiling, 20480);
      assert.equal(cp.overCeiling, true);
      assert.equal(cp.summaryTokens, 4093);
      assert.equal(cp.truncation.truncated, true);
      assert.ok(cp.truncation.reasons.some((r) => r.startsWith('ends mid-clause: “') && r.endsWith('you went fro”')));
      assert.ok(cp.truncation.reasons.includes('summary is at its budget: 4093 of 4096 tokens'));
      assert.deepEqual(cp.counts, { covered: 380, 'claimed-missing': 40, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 });
      assert.deepEqual(cp.claimedMissingRanges, [{ from: 380, to: 419, count: 40 }]);
      assert.equal(formatRanges(cp.claimedMissingRanges), '380–419');
      assert.deepEqual(cp.safeCovered, range(0, 379));
      assert.match(cp.reasons[0], /^the prefix is over the ceiling and the summariser reported no coverage: fail closed/);
      assert.match(cp.reasons[0], /\(40 claimed turns are not carried by it\)$/);
      assert.equal(cp.reasons[1], 'prefix 42,000 tokens > ceiling 20,480 (4,096 × 5)');
      assert.ok(cp.reasons.some((r) => r.startsWith('summary appears truncated: ends mid-clause')));
      const t408 = cp.turns[408];
      assert.equal(t408.status, 'claimed-missing');
      assert.equal(t408.line, 409);
      // Nothing of its own is in the summary (a word of the prose every turn shares may be, weighing next to nothing).
      assert.ok(t408.evidence.length > 0 && t408.evidence.every((x) => !x.found || (x.kind === 'term' && x.sharedBy === 420)));
      if (!explicit) {
        for (const text of ['LEDGER_ENTRY_1408', 'src/ledger/batch_408.ts']) {
          assert.equal(t408.evidence.find((x) => x.text === text)?.found, false, text);
        }
      }
      assert.ok((t408.score ?? 1) < 0.01);
      assert.equal(t408.threshold, 1);
      assert.match(
        turnReason(t408),
        explicit ? /^claimed, but its anchor “FACT-408-” is not in the summary$/ : /^claimed, but the summary lacks “/,
      );
      const t12 = cp.turns[12];
      assert.equal(t12.status, 'covered');
      assert.ok(t12.evidence.some((x) => x.found && x.at !== undefined && x.length !== undefined));
      assert.ok((t12.score ?? 0) >= 1);
      if (explicit)
        assert.deepEqual(
          t12.evidence.map((x) => [x.kind, x.text, x.weight]),
          [['explicit', 'FACT-12-', 1]],
        );
      else assert.ok(t12.evidence.some((x) => x.found && x.text === 'LEDGER_ENTRY_1012' && x.kind === 'error-code'));
      assert.ok(cp.foundAnchors.length >= 380);
      for (const f of cp.foundAnchors) assert.ok(f.at >= 0);
    });
  }

  it("with the summariser's report (Path A): conditional, turns 380–419 claimed-missing, safe 0–379", () => {
    const cp = analyze(incident(true, range(0, 379)), OPTS).checkpoints[0];
    assert.equal(cp.path, 'A');
    assert.equal(cp.verdict, 'conditional');
    assert.equal(cp.reasons[0], 'the pointer set claims 40 turns the summariser did not report consuming; narrow it to the reported ids');
    assert.deepEqual(cp.counts, { covered: 380, 'claimed-missing': 40, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 });
    assert.deepEqual(cp.safeCovered, range(0, 379));
    assert.equal(cp.turns[408].reported, false);
    assert.equal(cp.turns[12].reported, true);
    assert.equal(cp.turns[12].reason, 'reported consumed by the summariser');
  });
});

describe('core/analyze: Path A', () => {
  const turns = [turn(0, 'a ERR_A_1'), turn(1, 'b ERR_B_2'), turn(2, 'c ERR_C_3'), turn(3, 'd ERR_D_4')];

  it('reversible when every claimed turn was reported; unclaimed turns are uncovered', () => {
    const cp = analyze(
      transcript(turns, [
        checkpoint({ summary: 'Fixed four errors.', claimedIds: [0, 1, 2], reportedIds: [0, 1, 2, 3], turnsBefore: 4, summaryBudget: 10 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'reversible');
    assert.deepEqual(statuses(cp), ['covered', 'covered', 'covered', 'uncovered']);
    assert.deepEqual(cp.safeCovered, [0, 1, 2]);
    assert.equal(cp.turns[3].reported, true);
    assert.equal(cp.overCeiling, false);
    assert.equal(cp.reasons[0], 'the summariser reported consuming every claimed turn (3)');
    assert.equal(cp.turns[0].reason, 'reported consumed by the summariser');
    assert.deepEqual(cp.turns[0].evidence, [], 'Path A weighs no evidence');
    assert.equal(cp.turns[0].score, undefined);
  });

  it('an empty summary is never reversible, even with a full report: fail-closed, safe = the reported ids', () => {
    const cp = analyze(
      transcript(turns, [
        checkpoint({ summary: '  \n', claimedIds: [0, 1, 2], reportedIds: [0, 1, 2], turnsBefore: 4, summaryBudget: 10 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(cp.reasons[0], 'the summary is empty: there is no positive evidence of coverage, so none may be claimed (fail closed)');
    assert.deepEqual(cp.safeCovered, [0, 1, 2]);
  });

  it('conditional when the pointer set claims turns the summariser did not report (even over the ceiling)', () => {
    const cp = analyze(
      transcript(turns, [
        checkpoint({ summary: 'Fixed two errors.', claimedIds: [0, 1, 2, 3], reportedIds: [1, 3], turnsBefore: 4, summaryBudget: 1 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'conditional');
    assert.equal(cp.overCeiling, true);
    assert.deepEqual(statuses(cp), ['claimed-missing', 'covered', 'claimed-missing', 'covered']);
    assert.deepEqual(cp.safeCovered, [1, 3]);
    assert.equal(cp.reasons[0], 'the pointer set claims 2 turns the summariser did not report consuming; narrow it to the reported ids');
    assert.equal(cp.turns[0].reason, 'claimed by the pointer set, but the summariser did not report consuming it');
    assert.deepEqual(
      cp.claimedMissingRanges.map((r) => [r.from, r.to]),
      [
        [0, 0],
        [2, 2],
      ],
    );
  });
});

describe('core/analyze: Path B', () => {
  const turns = [
    turn(0, 'Fix ERR_LEDGER_4107 in src/ledger.ts'),
    turn(1, 'ok, go ahead'),
    turn(2, 'Renamed parseEntry to readEntry'),
    turn(3, 'Bumped lodash to v4.17.21 in PR #8021'),
  ];
  const fullSummary =
    'We fixed err-ledger-4107 (src/ledger.ts), renamed parseEntry to readEntry, and bumped lodash to v4.17.21 in PR #8021.';
  const partialSummary = 'We fixed err-ledger-4107 and bumped lodash in PR #8021.';
  const NOTHING = 'nothing worth carrying: no names, paths, numbers or other specifics to carry';

  it('within the ceiling, every claimed turn carried: reversible; a turn with no specifics is nothing-to-check and says why', () => {
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: fullSummary, summaryBudget: 100, claimedIds: [0, 1, 2, 3], turnsBefore: 4 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'reversible');
    assert.deepEqual(statuses(cp), ['covered', 'nothing-to-check', 'covered', 'covered']);
    assert.deepEqual(cp.counts, { covered: 3, 'claimed-missing': 0, uncovered: 0, 'nothing-to-check': 1, unverifiable: 0 });
    assert.equal(cp.turns[1].reason, NOTHING);
    assert.deepEqual(cp.turns[1].evidence, []);
    assert.equal(cp.turns[1].score, undefined, 'a turn with nothing to check gets no score');
    // A neutral status is never evidence of coverage: within the ceiling the safe set holds covered turns only.
    assert.deepEqual(cp.safeCovered, [0, 2, 3]);
    assert.equal(
      cp.reasons[0],
      'within the ceiling, and the summary carries every claimed turn that holds something to carry: 3 covered (1 more hold nothing to check)',
    );
    assert.match(cp.reasons[1], /^prefix 18 tokens \(counted\) ≤ ceiling 500 \(100 × 5\)$/);
    assert.equal(cp.prefixTokenSource, 'counted');
    assert.equal(cp.truncation.truncated, false);
    // Each covered turn shows what was found, where, and its score against the threshold.
    const t0 = cp.turns[0];
    assert.equal(t0.score, 2);
    assert.equal(t0.threshold, 1);
    assert.equal(turnReason(t0), 'the summary carries “ERR_LEDGER_4107”, “src/ledger.ts” (score 2.00 of 1.00 needed)');
    for (const e of t0.evidence.filter((x) => x.found)) {
      assert.ok(e.at !== undefined && e.length !== undefined);
      assert.ok(e.weight > 0 && e.sharedBy >= 1);
    }
    const ledger = t0.evidence.find((e) => e.text === 'src/ledger.ts');
    assert.ok(ledger && ledger.kind === 'path' && ledger.found);
    assert.equal(fullSummary.slice(ledger.at, (ledger.at ?? 0) + (ledger.length ?? 0)), 'src/ledger.ts');
    const pr = cp.turns[3].evidence.find((e) => e.text === '#8021');
    assert.ok(pr && pr.kind === 'reference' && pr.found, 'PR #8021 is evidence of its own');
    assert.ok(cp.foundAnchors.some((f) => f.anchor === 'src/ledger.ts'));
  });

  it('within the ceiling, a turn not carried: conditional, safe set without it, the reason names what is lacking', () => {
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: partialSummary, summaryBudget: 100, claimedIds: [0, 1, 2, 3], turnsBefore: 4 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'conditional');
    assert.deepEqual(statuses(cp), ['covered', 'nothing-to-check', 'claimed-missing', 'covered']);
    assert.deepEqual(cp.safeCovered, [0, 3]);
    assert.equal(cp.reasons[0], 'the summary does not carry 1 claimed turn; narrow the pointer set to the turns it covers');
    assert.equal(
      turnReason(cp.turns[2]),
      'claimed, but the summary lacks “parseEntry”, “readEntry”, “Renamed parseEntry to readEntry” (score 0.00 of 1.00 needed)',
    );
    assert.equal(cp.turns[2].score, 0);
    assert.deepEqual(cp.claimedMissingRanges, [{ from: 2, to: 2, count: 1 }]);
  });

  it('over the ceiling: fail-closed, safe = the run from the start, stopping at the first missing turn', () => {
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: partialSummary, summaryBudget: 2, claimedIds: [0, 1, 2, 3], turnsBefore: 4 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.deepEqual(statuses(cp), ['covered', 'nothing-to-check', 'claimed-missing', 'covered']);
    assert.deepEqual(cp.safeCovered, [0]); // turn 1 has nothing to check: the run does not end on it
    assert.match(cp.reasons[0], /^the prefix is over the ceiling and the summariser reported no coverage: fail closed/);
    assert.match(cp.reasons[0], /\(1 claimed turn is not carried by it\)$/);
    assert.match(cp.reasons[1], /> ceiling 10 \(2 × 5\)$/);
  });

  it('over the ceiling with every claimed turn carried: still fail-closed, the run covers all', () => {
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: fullSummary, summaryBudget: 2, claimedIds: [0, 1, 2, 3], turnsBefore: 4 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    // The run from the start passes over the nothing-to-check turn 1 and ends on the last covered turn; a
    // neutral status is never evidence of coverage, so turn 1 itself is not in the safe set.
    assert.deepEqual(cp.safeCovered, [0, 2, 3]);
    assert.equal(cp.counts['claimed-missing'], 0);
    assert.doesNotMatch(cp.reasons[0], /not carried by it/);
  });

  it('an unknown budget fails closed and says the ceiling cannot be checked', () => {
    const cp = analyze(transcript(turns, [checkpoint({ summary: fullSummary, claimedIds: [0, 1, 2, 3], turnsBefore: 4 })]), OPTS)
      .checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(cp.ceiling, undefined);
    assert.equal(cp.summaryBudget, undefined);
    assert.match(cp.reasons[0], /^the summary budget is unknown, so the ceiling cannot be checked: fail closed/);
    assert.match(cp.reasons[1], /the summary budget is not recorded, so there is no ceiling to compare with/);
    assert.deepEqual(cp.safeCovered, [0, 2, 3]);
  });

  it('a nonsense budget is treated as unknown and named', () => {
    for (const b of [-5, 0, NaN]) {
      const cp = analyze(transcript(turns, [checkpoint({ summary: fullSummary, summaryBudget: b, claimedIds: [0], turnsBefore: 4 })]), OPTS)
        .checkpoints[0];
      assert.equal(cp.verdict, 'fail-closed');
      assert.match(cp.reasons[1], new RegExp(`summary budget ${String(b)} is not a usable number`));
    }
  });

  it('an assumed budget is marked as such, and the recorded prefix is shown', () => {
    const cp = analyze(
      transcript(turns, [
        checkpoint({
          summary: fullSummary,
          summaryBudget: 4096,
          budgetAssumed: true,
          recordedPrefixTokens: 167094,
          claimedIds: [0],
          turnsBefore: 4,
        }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.budgetAssumed, true);
    assert.equal(cp.reasons[1], 'prefix 4 tokens (counted) ≤ ceiling 20,480 (4,096 × 5) (assumed budget)');
    assert.equal(cp.reasons[2], 'the agent recorded 167,094 tokens of context at compaction');
    assert.equal(cp.recordedPrefixTokens, 167094);
  });

  it('the ratio floor is configurable', () => {
    const t = transcript(turns, [checkpoint({ summary: fullSummary, summaryBudget: 4, claimedIds: [0, 1, 2, 3], turnsBefore: 4 })]);
    // 18 tokens of prefix: within 4 × 5 = 20, over 4 × 4 = 16.
    assert.equal(analyze(t, OPTS).checkpoints[0].verdict, 'reversible');
    const four = analyze(t, { countTokens: words, ratioFloor: 4 }).checkpoints[0];
    assert.equal(four.verdict, 'fail-closed');
    assert.equal(four.ceiling, 16);
    assert.equal(four.ratioFloor, 4);
    assert.match(four.reasons[1], /> ceiling 16 \(4 × 4\)$/);
  });

  it('the coverage threshold decides how much found evidence a turn needs', () => {
    // Two identifiers, each weighing SALIENCE.identifier when found (no prose words or sentences to add to it).
    const ID = SALIENCE.identifier;
    const score = (n: number) => (Math.round(n * 100) / 100).toFixed(2);
    const t = [turn(0, 'Set parseEntry and readEntry')];
    const mk = (summary: string) => transcript(t, [checkpoint({ summary, summaryBudget: 100, claimedIds: [0], turnsBefore: 1 })]);
    const one = mk('parseEntry only');
    const with1 = (coverageThreshold?: number) => analyze(one, { countTokens: words, coverageThreshold }).checkpoints[0];
    // One found: covered exactly when the threshold is at most its weight.
    const atWeight = with1(ID);
    assert.equal(atWeight.verdict, 'reversible');
    assert.equal(atWeight.turns[0].status, 'covered');
    assert.equal(atWeight.turns[0].score, ID);
    assert.equal(atWeight.turns[0].threshold, ID);
    assert.equal(turnReason(atWeight.turns[0]), `the summary carries “parseEntry” (score ${score(ID)} of ${score(ID)} needed)`);
    const above = with1(ID + 0.1);
    assert.equal(above.verdict, 'conditional');
    assert.equal(above.turns[0].status, 'claimed-missing');
    assert.equal(above.turns[0].threshold, ID + 0.1);
    assert.equal(
      turnReason(above.turns[0]),
      `claimed, but the summary lacks “readEntry”; what it does carry (“parseEntry”) is shared with other turns or weak (score ${score(ID)} of ${score(ID + 0.1)} needed)`,
    );
    // By default (threshold 1), one identifier is enough exactly when it weighs 1.
    const byDefault = with1(undefined);
    assert.equal(byDefault.turns[0].threshold, DEFAULT_COVERAGE_THRESHOLD);
    assert.equal(byDefault.turns[0].status, ID >= DEFAULT_COVERAGE_THRESHOLD ? 'covered' : 'claimed-missing');
    // Both found: twice the weight, enough for a threshold of 2 × ID, not for more.
    const both = mk('parseEntry is now readEntry');
    assert.equal(analyze(both, OPTS).checkpoints[0].turns[0].status, 'covered');
    assert.equal(analyze(both, { countTokens: words, coverageThreshold: 2 * ID }).checkpoints[0].turns[0].status, 'covered');
    const strict = analyze(both, { countTokens: words, coverageThreshold: 2 * ID + 0.1 }).checkpoints[0];
    assert.equal(strict.verdict, 'conditional');
    assert.equal(strict.turns[0].score, 2 * ID);
    // A threshold that is not a positive finite number falls back to the default.
    for (const bad of [0, -1, NaN, Infinity]) {
      const cp = analyze(one, { countTokens: words, coverageThreshold: bad }).checkpoints[0];
      assert.equal(cp.turns[0].threshold, DEFAULT_COVERAGE_THRESHOLD, String(bad));
      assert.equal(cp.turns[0].status, byDefault.turns[0].status, String(bad));
    }
  });

  it('explicit anchors are matched exactly, as in the note, and alone decide', () => {
    const t = [turn(0, 'x', { anchor: 'Ledger-7' }), turn(1, 'y', { anchor: 'KEEP' }), turn(2, 'Fixed ERR_QUEUE_9', { anchor: 'Q-9' })];
    const cp = analyze(
      transcript(t, [checkpoint({ summary: 'ledger-7 and KEEP; ERR_QUEUE_9', summaryBudget: 100, claimedIds: [0, 1, 2], turnsBefore: 3 })]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(cp), ['claimed-missing', 'covered', 'claimed-missing']);
    assert.equal(cp.turns[0].reason, 'claimed, but its anchor “Ledger-7” is not in the summary');
    assert.equal(cp.turns[1].reason, 'its anchor “KEEP” is in the summary');
    assert.deepEqual(cp.turns[1].evidence, [{ text: 'KEEP', kind: 'explicit', found: true, weight: 1, sharedBy: 1, at: 13, length: 4 }]);
    assert.equal(cp.turns[1].score, 1);
    // A turn's own anchor wins over what its text holds: ERR_QUEUE_9 in the summary does not stand in for “Q-9”.
    assert.equal(cp.turns[2].reason, 'claimed, but its anchor “Q-9” is not in the summary');
    assert.deepEqual(cp.foundAnchors, [{ anchor: 'KEEP', at: 13 }]);
  });
});

describe('core/analyze: encrypted summaries', () => {
  const turns = [turn(0, 'ERR_A_1'), turn(1, 'ERR_B_2'), turn(2, 'later')];

  it('Path B: claimed turns are unverifiable, never covered; fail-closed, and it says why', () => {
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: 'gAAAAABk…', opaque: true, summaryBudget: 100, claimedIds: [0, 1], turnsBefore: 3 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.opaque, true);
    assert.equal(cp.verdict, 'fail-closed');
    assert.deepEqual(statuses(cp), ['unverifiable', 'unverifiable', 'uncovered']);
    assert.deepEqual(cp.counts, { covered: 0, 'claimed-missing': 0, uncovered: 1, 'nothing-to-check': 0, unverifiable: 2 });
    assert.equal(cp.turns[0].reason, 'the summary is encrypted: whether it carries this turn cannot be checked');
    assert.deepEqual(cp.turns[0].evidence, []);
    assert.deepEqual(cp.safeCovered, []);
    assert.equal(
      cp.reasons[0],
      'the summary is encrypted: whether it carries its 2 claimed turns cannot be checked, so none may be counted as covered (fail closed)',
    );
    assert.equal(cp.truncation.truncated, false);
    assert.deepEqual(cp.foundAnchors, []);
  });

  it('Path A: the report decides the statuses and the safe set, but an encrypted summary is never reversible', () => {
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: '', opaque: true, claimedIds: [0, 1], reportedIds: [0, 1], turnsBefore: 3 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.deepEqual(statuses(cp), ['covered', 'covered', 'uncovered']);
    assert.deepEqual(cp.safeCovered, [0, 1]);
    assert.match(cp.reasons[0], /^the summary is encrypted: coverage rests on the summariser's report alone/);
  });
});

describe('core/analyze: coverage that cannot be checked in this file', () => {
  const WHY = "the summarised turns are in the parent session P's file";

  it("a readable summary whose turns are elsewhere is fail-closed with the reader's reason, never vacuously reversible", () => {
    const turns = [turn(0, 'ERR_A_1')];
    const cp = analyze(
      transcript(turns, [checkpoint({ summary: 'ERR_A_1 done.', summaryBudget: 100, claimedIds: [], turnsBefore: 1, unverifiable: WHY })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(cp.unverifiable, WHY);
    assert.equal(cp.reasons[0], `coverage cannot be checked in this file: ${WHY}`);
    assert.deepEqual(cp.safeCovered, []);
    const vacuous = analyze(transcript(turns, [checkpoint({ summary: 'x.', summaryBudget: 100, claimedIds: [], turnsBefore: 1 })]), OPTS)
      .checkpoints[0];
    assert.equal(vacuous.verdict, 'reversible', 'a checkpoint that claims nothing, with nothing elsewhere, has nothing to get wrong');
  });

  it('claimed turns of such a checkpoint are unverifiable, even when the summary names them', () => {
    const cp = analyze(
      transcript(
        [turn(0, 'ERR_A_1')],
        [checkpoint({ summary: 'ERR_A_1 done.', summaryBudget: 100, claimedIds: [0], turnsBefore: 1, unverifiable: WHY })],
      ),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(cp.turns[0].status, 'unverifiable');
    assert.equal(cp.turns[0].reason, `coverage cannot be checked in this file: ${WHY}`);
    assert.deepEqual(cp.safeCovered, []);
  });
});

describe('core/analyze: sizes and tokens', () => {
  let enc: Tiktoken;
  before(function () {
    this.timeout(60_000); // loading the o200k ranks takes a while on a busy machine
    enc = get_encoding('o200k_base');
  });
  after(() => enc.free());

  it('counts unrecorded turns with the injected counter, once per text across analyses; recorded counts win', () => {
    const calls: string[] = [];
    const count = (t: string): number => {
      calls.push(t);
      return enc.encode_ordinary(t).length;
    };
    const turns: Turn[] = [
      turn(0, 'The ledger failed with ERR_LEDGER_4107 at src/ledger.ts line 88.'),
      turn(1, 'Recorded turn', { tokens: 1234 }),
      turn(2, 'Not claimed by anyone: never tokenized.'),
      turn(3, 'Claimed only by the second checkpoint, ERR_Z_9.'),
    ];
    const t = transcript(turns, [
      checkpoint({ summary: 'ERR_LEDGER_4107 happened.', summaryBudget: 1000, claimedIds: [0, 1], turnsBefore: 3 }),
      checkpoint({ summaryId: 'S2', summary: 'ERR_LEDGER_4107 happened.', summaryBudget: 1000, claimedIds: [3], turnsBefore: 4 }),
    ]);
    const tokenCache: TokenCache = new Map();
    const first = analyze(t, { countTokens: count, tokenCache });
    const expected0 = enc.encode_ordinary(turns[0].text).length;
    assert.equal(first.checkpoints[0].prefixTokens, expected0 + 1234);
    assert.equal(first.checkpoints[0].prefixTokenSource, 'mixed');
    assert.equal(first.checkpoints[1].prefixTokenSource, 'counted');
    assert.equal(first.checkpoints[0].summaryTokens, enc.encode_ordinary('ERR_LEDGER_4107 happened.').length);
    assert.equal(first.checkpoints[0].turns[1].tokens, 1234);
    assert.equal(first.checkpoints[0].turns[2].tokens, undefined);
    assert.ok(!calls.includes(turns[2].text), 'an unclaimed turn is not tokenized');
    assert.ok(!calls.includes(turns[1].text), 'a recorded turn is not tokenized');
    assert.equal(calls.filter((c) => c === turns[0].text).length, 1);
    assert.equal(calls.filter((c) => c === 'ERR_LEDGER_4107 happened.').length, 1, 'each summary counted once');
    const before = calls.length;
    const second = analyze(t, { countTokens: count, tokenCache });
    assert.equal(calls.length - before, 1, 'only the summary is counted again; turns come from the cache');
    assert.equal(second.checkpoints[0].prefixTokens, first.checkpoints[0].prefixTokens);
  });

  it('a recorded summary size wins over counting', () => {
    const cp = analyze(
      transcript([turn(0, 'x')], [checkpoint({ summary: 'a b c', recordedSummaryTokens: 77, claimedIds: [], turnsBefore: 1 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.summaryTokens, 77);
  });
});

describe('core/analyze: bad checkpoints and failures', () => {
  it("a failing token counter becomes a problem on that checkpoint's line; the others are analysed", () => {
    const turns = [turn(0, 'boom ERR_A_1'), turn(1, 'fine ERR_B_2', { tokens: 3 })];
    const t = transcript(turns, [
      checkpoint({
        summaryId: 'S1',
        summary: 'x.',
        summaryBudget: 10,
        claimedIds: [0],
        turnsBefore: 2,
        span: span(7),
        recordedSummaryTokens: 1,
      }),
      checkpoint({
        summaryId: 'S2',
        summary: 'ERR_B_2.',
        summaryBudget: 10,
        claimedIds: [1],
        turnsBefore: 2,
        span: span(9),
        recordedSummaryTokens: 1,
      }),
    ]);
    const a = analyze(t, {
      countTokens: (s) => {
        if (s.startsWith('boom')) throw new Error('tokenizer exploded');
        return 1;
      },
    });
    assert.equal(a.checkpoints.length, 2);
    assert.equal(a.checkpoints[0].verdict, 'fail-closed');
    assert.match(a.checkpoints[0].reasons[0], /could not be analysed \(tokenizer exploded\)/);
    assert.equal(a.checkpoints[1].verdict, 'reversible');
    assert.deepEqual(a.problems, [
      {
        line: 7,
        severity: 'error',
        message: 'could not analyse checkpoint S1: tokenizer exploded; the other checkpoints are still analysed',
      },
    ]);
  });

  it("keeps the transcript's problems, ignores claimed ids that are not earlier turns, clamps turnsBefore", () => {
    const t = transcript(
      [turn(0, 'Fixed ERR_A_1'), turn(1, 'b')],
      [checkpoint({ claimedIds: [0, 5, 'zz'], turnsBefore: 99, summaryBudget: 10, summary: 'ERR_A_1 fixed.' })],
    );
    t.problems.push({ line: 3, severity: 'error', message: 'pointer to unknown turn 5' });
    const a = analyze(t, OPTS);
    assert.equal(a.problems[0].message, 'pointer to unknown turn 5');
    assert.match(a.problems[1].message, /position \(99 turns before it\) is not within the 2 turns read; treated as 2/);
    assert.equal(a.checkpoints[0].turns.length, 2);
    assert.deepEqual(a.checkpoints[0].claimedIds, [0, 5, 'zz']);
    assert.deepEqual(a.checkpoints[0].safeCovered, [0]);
  });

  it('notes from the reader are kept and appended to the reasons', () => {
    const cp = analyze(
      transcript([turn(0, 'a')], [checkpoint({ claimedIds: [], turnsBefore: 1, notes: ['covered turns are in the parent session'] })]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(cp.notes, ['covered turns are in the parent session']);
    assert.equal(cp.reasons[cp.reasons.length - 1], 'covered turns are in the parent session');
  });

  it('an empty transcript, a missing counter, garbage input: no throw', () => {
    assert.deepEqual(analyze(transcript([], []), OPTS).checkpoints, []);
    const noCounter = analyze(transcript([turn(0, 'a')], [checkpoint({ claimedIds: [0], turnsBefore: 1 })]), {} as AnalysisOptions);
    assert.equal(noCounter.checkpoints[0].verdict, 'fail-closed');
    assert.match(noCounter.problems[0].message, /no token counter was given/);
    const garbage = analyze(null as unknown as never, OPTS);
    assert.equal(garbage.turnCount, 0);
    const weird = analyze(
      { format: 'canonical', turns: [null, 5], checkpoints: [null, 'x'], problems: null, lineCount: 0 } as unknown as never,
      OPTS,
    );
    assert.equal(weird.checkpoints.length, 2);
    assert.ok(weird.problems.length >= 2);
  });
});
