// Tests for StepPace (src/core/stepPace.ts): a step ends after STEP_UNITS units, or sooner once its units met
// STEP_PIECES pieces or had STEP_CHARS characters worked out, and the next step is counted from there.
import * as assert from 'node:assert/strict';
import { STEP_CHARS, STEP_PIECES, STEP_UNITS, StepPace } from '../../../src/core/stepPace';

/** How many units pass until `due` says to yield, each adding `pieces` pieces and `chars` characters. */
function unitsToStep(pace: StepPace, totals: { pieces: number; chars: number }, pieces: number, chars: number): number {
  for (let units = 1; units <= 10 * STEP_UNITS; units++) {
    totals.pieces += pieces;
    totals.chars += chars;
    if (pace.due(totals.pieces, totals.chars)) return units;
  }
  return Infinity;
}

describe('core/stepPace', () => {
  it('ends a step of light units after STEP_UNITS of them, step after step', () => {
    const totals = { pieces: 0, chars: 0 };
    const pace = new StepPace(0, 0);
    for (let step = 0; step < 3; step++) assert.equal(unitsToStep(pace, totals, 1, 10), STEP_UNITS);
  });

  it('ends a step sooner once its units met STEP_PIECES pieces, counting the unit that reached it', () => {
    const totals = { pieces: 0, chars: 0 };
    const pace = new StepPace(0, 0);
    // Several units, each under the bound, add up to it: their pieces are summed over the step.
    assert.ok(Math.ceil(STEP_PIECES / 100) > 1 && Math.ceil(STEP_PIECES / 100) < STEP_UNITS);
    assert.equal(unitsToStep(pace, totals, 100, 0), Math.ceil(STEP_PIECES / 100));
    assert.equal(unitsToStep(pace, totals, STEP_PIECES * 2, 0), 1, 'a unit of more pieces than a step is a step of its own');
    assert.equal(unitsToStep(pace, totals, 1, 0), STEP_UNITS, 'counted again from the last step');
  });

  it('ends a step sooner once its units had STEP_CHARS characters worked out', () => {
    const totals = { pieces: 0, chars: 0 };
    const pace = new StepPace(0, 0);
    assert.ok(Math.ceil(STEP_CHARS / 1500) > 1 && Math.ceil(STEP_CHARS / 1500) < STEP_UNITS);
    assert.equal(unitsToStep(pace, totals, 0, 1500), Math.ceil(STEP_CHARS / 1500));
    assert.equal(unitsToStep(pace, totals, 0, 60_000), 1);
    assert.equal(unitsToStep(pace, totals, 0, 0), STEP_UNITS);
  });

  it('counts from the running totals it was made with, not from zero', () => {
    const pace = new StepPace(5000, 100_000);
    assert.equal(pace.due(5001, 100_010), false);
    assert.equal(pace.due(5000 + STEP_PIECES, 100_010), true);
  });
});
