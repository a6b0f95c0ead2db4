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

/** The error an aborted job rejects with (its name is AbortError). */
export function abortError(): Error {
  return Object.assign(new Error('cancelled'), { name: 'AbortError' });
}
