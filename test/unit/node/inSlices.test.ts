// Tests for running steps in time slices (src/node/inSlices.ts): inSlicesThen gives a quick result within the call
// (so a caller in the middle of a read has it before the read goes on) and a long one after the slices, and stops
// with an AbortError like inSlices; it rejects, never throws, on a bug in the steps or in what takes their result.
import assert from 'node:assert/strict';
import { inSlicesThen, SLICE_MS } from '../../../src/node/inSlices';

/** Steps that each hold the thread for `ms`, `count` of them, then return `value`. */
function* busySteps(count: number, ms: number, value: string): Generator<void, string, void> {
  for (let i = 0; i < count; i++) {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // busy: this is what a slice is for
    }
    yield;
  }
  return value;
}

describe('node/inSlices: inSlicesThen', () => {
  it('gives a result worked out within the first slice before it returns', async () => {
    let given: string | undefined;
    const running = inSlicesThen(busySteps(3, 0, 'quick'), (value) => (given = value));
    assert.equal(given, 'quick');
    await running;
  });

  it('gives a longer one once its slices end, not within the call', async () => {
    let given: string | undefined;
    const running = inSlicesThen(busySteps(6, SLICE_MS / 2, 'long'), (value) => (given = value));
    assert.equal(given, undefined);
    await running;
    assert.equal(given, 'long');
  });

  it('stops with an AbortError when its signal aborts between slices', async () => {
    const abort = new AbortController();
    let given: string | undefined;
    const running = inSlicesThen(busySteps(6, SLICE_MS / 2, 'never'), (value) => (given = value), abort.signal);
    abort.abort();
    await assert.rejects(running, { name: 'AbortError' });
    assert.equal(given, undefined);
  });

  it('rejects, never throws, when the steps or what takes their result throw', async () => {
    function* failing(): Generator<void, string, void> {
      yield;
      throw new Error('a bug in the steps');
    }
    await assert.rejects(
      inSlicesThen(failing(), () => undefined),
      /a bug in the steps/,
    );
    await assert.rejects(
      inSlicesThen(busySteps(1, 0, 'x'), () => {
        throw new Error('a bug in the caller');
      }),
      /a bug in the caller/,
    );
  });
});
