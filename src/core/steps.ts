// Work written as steps: a generator that yields between small pieces of it (core/analyze.ts's analyzeInSteps,
// judgeAhead, textsToCountInSteps; CheckpointMemo.syncInSteps), so a shell can run it in time slices
// (node/inSlices.ts). runSteps runs such work at once, for callers that have no event loop to keep free.

/** Runs steps to their end, at once, and returns what they return. */
export function runSteps<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** `steps`, calling `onStep` at each of their yields: a shell's progress (a recovery bundle's turns written). */
export function* eachStep<T>(steps: Generator<void, T, void>, onStep: () => void): Generator<void, T, void> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    onStep();
    yield;
  }
}

/**
 * Runs steps until they end or `stop()` says to stop (asked before each step after the first): true when they
 * ended, false when they were stopped (their generator is closed).
 */
export function* stepsUntil(steps: Generator<void, unknown, void>, stop: () => boolean): Generator<void, boolean, void> {
  try {
    for (;;) {
      const next = steps.next();
      if (next.done) return true;
      if (stop()) return false;
      yield;
    }
  } finally {
    steps.return(undefined);
  }
}
