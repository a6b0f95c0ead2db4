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
