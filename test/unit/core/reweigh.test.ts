// Tests for re-weighing (src/core/reweigh.ts): a checkpoint's turns as judged at one coverage threshold, re-weighed
// at another, are what judging them at that one gives, field for field (a checkpoint whose claim starts past the
// first turn included, so its columns start later); results that no threshold decides stay the same objects; a
// judgement without results (a turn sink's) is not re-weighed; a covered or claimed-missing weighed turn's reason is made when asked, for its threshold;
// and coveredAt is the rule judge applies.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { CARRIED_AT_LENGTH, coveredAt } from '../../../src/core/evidence';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { JudgementCache } from '../../../src/core/judgementCache';
import {
  RULE_BLOCKED,
  RULE_FIXED,
  RULE_FIXED_COVERED,
  RULE_OWN,
  RULE_WEIGHED,
  type JudgedTurns,
  type Transcript,
} from '../../../src/core/model';
import { reweighed, turnReason } from '../../../src/core/reweigh';
import { runSteps } from '../../../src/core/steps';
import { checkpoint, span, transcript, turn } from './transcripts';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** Ten turns; S1 claims turns 4–9 only, and its summary carries some of what they name. */
function later(): Transcript {
  const turns = [
    turn(0, 'Set up the repository'),
    turn(1, 'Read src/setup/init.ts'),
    turn(2, 'Ran npm install'),
    turn(3, 'Configured the linter'),
    turn(4, 'Fixed the failing build in src/ledger/post.ts'),
    turn(5, 'Renamed parseEntry to parseLedgerEntry in src/ledger/parse.ts, error LEDGER_4107'),
    turn(6, 'Bumped lodash to v4.17.21 for JIRA-881'),
    turn(7, 'The anchored one', { anchor: 'FACT-7' }),
    turn(8, 'ok, go ahead'),
    turn(9, 'Moved src/payout/run.ts to src/payout/batch.ts'),
  ];
  const cp = checkpoint({
    summary: 'Fixed src/ledger/post.ts. Renamed parseLedgerEntry (LEDGER_4107, src/ledger/parse.ts). FACT-7. Bumped lodash.',
    summaryBudget: 1000,
    claimedIds: [4, 5, 6, 7, 8, 9],
    turnsBefore: 10,
    span: span(20),
  });
  return transcript(turns, [cp]);
}

/** S1's judgement as analysed at `threshold` (kept in a JudgementCache). */
function judgedAt(t: Transcript, threshold: number): JudgedTurns {
  const judgements = new JudgementCache();
  analyze(t, { countTokens: words, coverageThreshold: threshold, judgements });
  return judgements.judgedAt(0)!;
}

describe('core/reweigh', () => {
  it('re-weighs a checkpoint whose claim starts past the first turn into what judging at the new threshold gives', () => {
    const t = later();
    const at1 = judgedAt(t, 1);
    assert.ok(at1.from > 0, `its columns start at turn ${at1.from}`);
    const statuses = new Set<string>();
    let chained = at1;
    for (const threshold of [0.2, 1, 1.5, 2, 3.5, 10]) {
      const made = runSteps(reweighed(at1, threshold))!;
      assert.deepEqual(made, judgedAt(t, threshold), `at ${threshold}`);
      for (const r of made.results!) statuses.add(`${r.index}:${r.status}`);
      // Re-weighed again and again, each from the last, as a user tries thresholds.
      chained = runSteps(reweighed(chained, threshold))!;
      assert.deepEqual(chained, judgedAt(t, threshold), `at ${threshold}, re-weighed from the last`);
    }
    for (const status of ['4:covered', '4:claimed-missing', '5:covered', '5:claimed-missing']) {
      assert.ok(statuses.has(status), `statuses change with the threshold: ${[...statuses].join(' ')}`);
    }
  });

  it('keeps the results no threshold decides as the same objects, and copies the rest', () => {
    const at1 = judgedAt(later(), 1);
    const made = runSteps(reweighed(at1, 2))!;
    made.results!.forEach((r, i) => {
      const old = at1.results![i];
      if (old.score === undefined) assert.equal(r, old, `turn ${i}`);
      else assert.notEqual(r, old, `turn ${i}`);
      if (old.score !== undefined) assert.equal(r.evidence, old.evidence, `turn ${i}: the same evidence`);
    });
    assert.equal(made.marks, at1.marks);
    assert.equal(made.rules, at1.rules);
    assert.notEqual(made.statuses, at1.statuses, 'a new column: the kept one is never modified');
  });

  it("leaves a covered or claimed-missing weighed turn's reason to turnReason, which makes it for the new threshold", () => {
    const t = later();
    const at1 = judgedAt(t, 1);
    const weighed = (index: number): boolean => index >= at1.from && (at1.rules[index - at1.from] & RULE_WEIGHED) !== 0;
    for (const threshold of [0.2, 3.5]) {
      const made = runSteps(reweighed(at1, threshold))!;
      let fromResult = 0;
      for (const r of made.results!) {
        const left = weighed(r.index) && (r.status === 'covered' || r.status === 'claimed-missing');
        assert.equal(r.reason === undefined, left, `turn ${r.index} (${r.status}): its reason is made when asked`);
        if (!left) {
          assert.equal(turnReason(r), r.reason);
          continue;
        }
        fromResult++;
        const reason = turnReason(r);
        assert.match(reason, r.status === 'covered' ? /^the summary carries “/ : /^claimed, but /);
        assert.ok(reason.endsWith(` (score ${r.score!.toFixed(2)} of ${threshold.toFixed(2)} needed)`), reason);
        for (const e of r.evidence.filter((x) => x.found).slice(0, 3))
          assert.ok(reason.includes(`“${e.text}”`), `${reason} names ${e.text}`);
      }
      assert.ok(fromResult > 0, `some reasons are made when asked at ${threshold}`);
    }
  });

  it('re-weighs nothing without results (a turn sink took them)', () => {
    const at1 = judgedAt(later(), 1);
    assert.equal(runSteps(reweighed({ ...at1, results: undefined }, 2)), undefined);
  });

  it('is what an analysis with the memo does at another threshold, judging nothing again', () => {
    const t = later();
    const memo = new CheckpointMemo();
    const evidenceCache = new EvidenceCache();
    analyze(t, { countTokens: words, checkpointMemo: memo, evidenceCache });
    const misses = evidenceCache.stats.misses;
    for (const threshold of [2, 0.5, 4]) {
      const again = analyze(t, { countTokens: words, checkpointMemo: memo, evidenceCache, coverageThreshold: threshold });
      assert.deepEqual(again, analyze(t, { countTokens: words, coverageThreshold: threshold }), `at ${threshold}`);
    }
    assert.equal(evidenceCache.stats.misses, misses);
  });

  it('coveredAt: a fixed rule whatever the score; an own piece at the threshold; CARRIED_AT_LENGTH times it otherwise; never blocked', () => {
    const weighed = RULE_WEIGHED;
    assert.equal(coveredAt(weighed | RULE_FIXED | RULE_FIXED_COVERED, 0, 1), true);
    assert.equal(coveredAt(weighed | RULE_FIXED, 99, 1), false);
    assert.equal(coveredAt(weighed | RULE_OWN, 1, 1), true);
    assert.equal(coveredAt(weighed | RULE_OWN, 0.99, 1), false);
    assert.equal(coveredAt(weighed, 1, 1), false);
    assert.equal(coveredAt(weighed, CARRIED_AT_LENGTH, 1), true);
    assert.equal(coveredAt(weighed, CARRIED_AT_LENGTH * 0.5, 0.5), true);
    assert.equal(coveredAt(weighed | RULE_OWN | RULE_BLOCKED, 5, 1), false);
  });
});
