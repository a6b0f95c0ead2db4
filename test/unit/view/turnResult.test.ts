// Tests for src/view/timelineData.ts's turnResult, the lookup of a turn's result in a checkpoint analysis (rows,
// details, hovers): the result at the turn's own position, or found by its index when the results are not one per
// position (in log order, as the model says); undefined for a turn after the checkpoint, or one it has no result for.
import assert from 'node:assert/strict';
import type { CheckpointAnalysis, TurnResult } from '../../../src/core/model';
import { turnResult } from '../../../src/view/timelineData';

const result = (index: number): TurnResult => ({
  id: `t${index}`,
  index,
  status: 'covered',
  claimed: true,
  evidence: [],
  reason: '',
  line: index + 1,
  endLine: index + 1,
});

/** Only what turnResult reads of a checkpoint analysis: its results. */
const withResults = (turns: TurnResult[]): CheckpointAnalysis => ({ turns }) as unknown as CheckpointAnalysis;

describe('view/timelineData turnResult', () => {
  it('gives the result at the turn’s position, and none for a turn after the checkpoint', () => {
    const checkpoint = withResults([0, 1, 2, 3].map(result));
    assert.equal(turnResult(checkpoint, 2), checkpoint.turns[2]);
    assert.equal(turnResult(checkpoint, 4), undefined);
    assert.equal(turnResult(checkpoint, 100_000), undefined);
    assert.equal(turnResult(checkpoint, -1), undefined);
  });

  it('finds a result by its index when the results are not one per position (in log order)', () => {
    const checkpoint = withResults([3, 5, 8, 13, 21].map(result));
    for (const index of [3, 5, 8, 13, 21]) assert.equal(turnResult(checkpoint, index)?.index, index);
    for (const index of [0, 4, 9, 22]) assert.equal(turnResult(checkpoint, index), undefined);
  });
});
