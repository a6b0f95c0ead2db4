// Tests for src/view/timelineData.ts's safeRunEnd (where the timeline draws the end of the safe pointer set):
// it walks the set in step with the turns instead of making a Set of every id, and must answer as that Set
// would, whatever order the set is in and however the ids repeat or mix numbers and text.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import type { CheckpointAnalysis, TurnId, TurnResult } from '../../../src/core/model';
import { safeRunEnd } from '../../../src/view/timelineData';
import { incident } from '../core/transcripts';

/** The rule as a Set says it: the turns from the start while each one's id is in the safe pointer set. */
function bySet(checkpoint: CheckpointAnalysis): TurnResult | undefined {
  const safe = new Set(checkpoint.safeCovered.map(String));
  let end: TurnResult | undefined;
  for (const result of checkpoint.turns) {
    if (!safe.has(String(result.id))) break;
    end = result;
  }
  return end;
}

function checkpointOf(ids: TurnId[], safeCovered: TurnId[]): CheckpointAnalysis {
  const turns = ids.map((id, index) => ({ id, index }) as TurnResult);
  return { turns, safeCovered } as CheckpointAnalysis;
}

describe('view/timelineData safeRunEnd', () => {
  it('ends the incident sample’s safe run where the Set rule does', () => {
    const words = (text: string): number => text.split(' ').filter(Boolean).length;
    const analysis = analyze(incident(true), { countTokens: words });
    assert.ok(analysis.checkpoints.length > 0);
    for (const checkpoint of analysis.checkpoints) {
      assert.ok(checkpoint.safeCovered.length > 0);
      assert.equal(safeRunEnd(checkpoint), bySet(checkpoint));
    }
  });

  it('stops at the first turn outside the set, and is empty when the first turn is', () => {
    assert.equal(safeRunEnd(checkpointOf([1, 2, 3, 4], [1, 2, 4]))?.index, 1);
    assert.equal(safeRunEnd(checkpointOf([1, 2, 3], [2, 3])), undefined);
    assert.equal(safeRunEnd(checkpointOf([1, 2, 3], [])), undefined);
    assert.equal(safeRunEnd(checkpointOf([1, 2, 3], [1, 2, 3]))?.index, 2);
  });

  it('finds a turn listed out of order, a repeated id, and a number id listed as text', () => {
    assert.equal(safeRunEnd(checkpointOf([1, 2, 3, 4], [2, 1, 3]))?.index, 2);
    assert.equal(safeRunEnd(checkpointOf(['a', 'b', 'a', 'c'], ['a', 'b']))?.index, 2);
    assert.equal(safeRunEnd(checkpointOf([7, 8, 9], ['7', '8']))?.index, 1);
  });

  it('answers as the Set rule on any ids and any safe list (property)', () => {
    const id = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom('0', '1', '2', 'a', 'b'));
    fc.assert(
      fc.property(fc.array(id, { maxLength: 30 }), fc.array(id, { maxLength: 30 }), fc.boolean(), (ids, extra, inOrder) => {
        // Half the cases are what analyze makes: a prefix-heavy subset of the turns in log order.
        const safe = inOrder ? ids.filter((_, index) => index < ids.length / 2 || index % 3 === 0) : extra;
        const checkpoint = checkpointOf(ids, safe);
        assert.equal(safeRunEnd(checkpoint), bySet(checkpoint));
      }),
      { numRuns: 500 },
    );
  });
});
