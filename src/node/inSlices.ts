// Runs a pure computation written as steps (a generator that yields between small pieces of work, as core's
// analyzeInSteps does) in time slices: this thread works for about SLICE_MS, then lets the event loop run (a
// worker's reply, progress, an abort; in the extension, the whole extension host), and goes on.

/** How long one slice works before the event loop runs. */
export const SLICE_MS = 15;

/**
 * Runs `steps` to their end, letting the event loop run every SLICE_MS. Rejects with an AbortError when
 * `signal` aborts meanwhile.
 */
export async function inSlices<T>(steps: Generator<void, T, void>, signal?: AbortSignal): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart < SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw abortError();
    sliceStart = performance.now();
  }
}

/**
 * Runs `steps` as inSlices does, and gives their result to `done` as soon as it is worked out: within this call
 * when they end in the first slice (a caller in the middle of other work, such as a read, has it before that work
 * goes on), else once the slices end. Never throws: rejects as inSlices does, and with what the steps or `done`
 * throw.
 */
export function inSlicesThen<T>(steps: Generator<void, T, void>, done: (value: T) => void, signal?: AbortSignal): Promise<void> {
  try {
    const sliceStart = performance.now();
    for (;;) {
      const next = steps.next();
      if (next.done) {
        done(next.value);
        return Promise.resolve();
      }
      if (performance.now() - sliceStart >= SLICE_MS) return inSlices(steps, signal).then(done);
    }
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The error an aborted job rejects with (its name is AbortError). */
export function abortError(): Error {
  return Object.assign(new Error('cancelled'), { name: 'AbortError' });
}
