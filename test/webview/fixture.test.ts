// The webview tests' transcripts, checked without a browser: their real analysis gives the statuses, verdicts and
// figures the Chromium tests are written against, so a change in src/core that moves them fails here, by name,
// rather than as a puzzling browser failure.

import assert from 'node:assert/strict';
import type { TurnStatus } from '../../src/core/model';
import {
  claudeLikeSpec,
  codexLikeSpec,
  everyStatusSpec,
  FixtureDataset,
  hostileSpec,
  incidentSpec,
  LARGE_BEFORE,
  LARGE_TURNS,
  largeSpec,
  noCompactionSpec,
  trickySpec,
  twoCheckpointSpec,
} from './fixture';

/** A checkpoint's statuses as runs: "covered 0-379, claimed-missing 380-419". */
function runs(dataset: FixtureDataset, checkpoint: number): string {
  const out: string[] = [];
  let current: { status: TurnStatus; from: number; to: number } | undefined;
  for (const result of dataset.analysis.checkpoints[checkpoint].turns) {
    if (current && current.status === result.status) current.to = result.index;
    else {
      if (current) out.push(`${current.status} ${current.from}-${current.to}`);
      current = { status: result.status, from: result.index, to: result.index };
    }
  }
  if (current) out.push(`${current.status} ${current.from}-${current.to}`);
  return out.join(', ');
}

describe('webview fixture transcripts (real analysis)', function () {
  this.timeout(20_000);

  it('incident: 380 covered, 40 claimed-missing, counted prefix over the assumed ceiling, cut off: fail-closed', () => {
    const dataset = new FixtureDataset(incidentSpec());
    assert.equal(runs(dataset, 0), 'covered 0-379, claimed-missing 380-419');
    const [header] = dataset.headers();
    assert.equal(header.verdict, 'fail-closed');
    assert.equal(header.prefixTokenSource, 'counted');
    assert.equal(header.ceiling, 20_480);
    assert.ok(header.prefixTokens > 20_480, `prefix ${header.prefixTokens}`);
    assert.equal(header.truncation.truncated, true);
    assert.equal(header.safeBoundaryIndex, 379);
    assert.equal(dataset.file.turnCount, 426);
    assert.equal(dataset.analysis.problems.length, 1);
    assert.equal(new FixtureDataset(incidentSpec(26)).file.turnCount, 446);
  });

  it('two checkpoints: S1 reversible over 0–89 with 90–99 not claimed, S2 the incident', () => {
    const dataset = new FixtureDataset(twoCheckpointSpec());
    assert.equal(runs(dataset, 0), 'covered 0-89, uncovered 90-99');
    assert.deepEqual(
      dataset.headers().map((header) => header.verdict),
      ['reversible', 'fail-closed'],
    );
    assert.equal(runs(dataset, 1), 'covered 0-379, claimed-missing 380-419');
  });

  it('every status: covered, nothing to check, claimed-missing and uncovered in S1; unverifiable in S2', () => {
    const dataset = new FixtureDataset(everyStatusSpec());
    assert.equal(runs(dataset, 0), 'covered 0-9, nothing-to-check 10-13, claimed-missing 14-17, uncovered 18-23');
    assert.equal(runs(dataset, 1), 'unverifiable 0-27');
    assert.deepEqual(
      dataset.headers().map((header) => header.verdict),
      ['conditional', 'fail-closed'],
    );
    assert.deepEqual(dataset.analysis.checkpoints[0].turns[11].evidence, [], 'an acknowledgement has no evidence');
  });

  it('no compaction: five turns, no checkpoint', () => {
    const dataset = new FixtureDataset(noCompactionSpec());
    assert.equal(dataset.file.turnCount, 5);
    assert.deepEqual(dataset.headers(), []);
  });

  it('Codex-like: encrypted, every claimed turn unverifiable, counted prefix within the ceiling, larger recorded context', () => {
    const [header] = new FixtureDataset(codexLikeSpec()).headers();
    assert.equal(header.verdict, 'fail-closed');
    assert.equal(header.opaque, true);
    assert.equal(header.counts.unverifiable, 420);
    assert.equal(header.prefixTokenSource, 'counted');
    assert.ok(header.prefixTokens <= header.ceiling!, `prefix ${header.prefixTokens} within ${header.ceiling}`);
    assert.equal(header.recordedPrefixTokens, 212_134);
    assert.equal(header.safeCoveredCount, 0);
  });

  it('Claude-like: partly counted prefix over the ceiling, two truncation tells, preTokens and trigger notes', () => {
    const [header] = new FixtureDataset(claudeLikeSpec()).headers();
    assert.equal(header.verdict, 'fail-closed');
    assert.equal(header.prefixTokenSource, 'mixed');
    assert.ok(header.prefixTokens > header.ceiling!, `prefix ${header.prefixTokens} over ${header.ceiling}`);
    assert.equal(header.truncation.reasons.length, 2);
    assert.match(header.truncation.reasons[0], /^ends mid-clause/);
    assert.match(header.truncation.reasons[1], /raw summariser output has no closing <\/summary>/);
    assert.deepEqual(header.notes, ['preTokens 167,094 (recorded by Claude Code)', 'trigger: auto']);
  });

  it('hostile and tricky: evidence in S1, a reason quoting the transcript in S2', () => {
    const hostile = new FixtureDataset(hostileSpec());
    assert.equal(runs(hostile, 0), 'covered 0-5, claimed-missing 6-9');
    assert.equal(runs(hostile, 1), 'unverifiable 0-11');
    const tricky = new FixtureDataset(trickySpec());
    assert.equal(runs(tricky, 0), 'covered 0-2, claimed-missing 3-4, uncovered 5-5');
    assert.deepEqual(
      tricky.headers().map((header) => [header.line, header.verdict]),
      [
        [7, 'fail-closed'],
        [10, 'fail-closed'],
      ],
    );
    assert.ok(tricky.headers()[1].reasons[0].includes('1\u202E 99-05'));
  });

  it('large: 100,000 turns built and analysed within a few seconds, with all three main statuses', () => {
    const started = Date.now();
    const dataset = new FixtureDataset(largeSpec());
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 10_000, `built and analysed in ${elapsed} ms`);
    assert.equal(dataset.file.turnCount, LARGE_TURNS);
    const [header] = dataset.headers();
    assert.equal(header.turnsBefore, LARGE_BEFORE);
    assert.ok(header.counts.covered > 0 && header.counts['claimed-missing'] > 0 && header.counts.uncovered > 0);
    assert.equal(header.claimedMissingIndexes.at(-1), 98_974);
  });
});
