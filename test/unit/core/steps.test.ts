// core/steps: runSteps runs work written as steps to its end; stepsUntil stops it when asked, and closes it.
import * as assert from 'node:assert/strict';
import { runSteps, stepsUntil } from '../../../src/core/steps';

/** Steps that push 0..n-1 into `done`, one per step, and note when they are closed. */
function* counting(n: number, done: number[], closed: { value: boolean }): Generator<void, string, void> {
  try {
    for (let i = 0; i < n; i++) {
      done.push(i);
      yield;
    }
    return 'end';
  } finally {
    closed.value = true;
  }
}

describe('core/steps', () => {
  it('runSteps runs every step and returns what the steps return', () => {
    const done: number[] = [];
    assert.equal(runSteps(counting(4, done, { value: false })), 'end');
    assert.deepEqual(done, [0, 1, 2, 3]);
  });

  it('stepsUntil runs them to their end when never stopped', () => {
    const done: number[] = [];
    const closed = { value: false };
    assert.equal(runSteps(stepsUntil(counting(3, done, closed), () => false)), true);
    assert.deepEqual(done, [0, 1, 2]);
    assert.equal(closed.value, true);
  });

  it('stepsUntil stops before the next step once asked to, and closes the steps', () => {
    const done: number[] = [];
    const closed = { value: false };
    assert.equal(runSteps(stepsUntil(counting(10, done, closed), () => done.length >= 3)), false);
    assert.deepEqual(done, [0, 1, 2]);
    assert.equal(closed.value, true);
  });
});
