// How far the CLI lets V8's heap grow past what is alive before a full collection. By default V8 lets it reach
// up to about four times what the last full collection kept when the heap limit is large, so a long analysis
// (which keeps a few hundred MB alive and makes much more garbage) peaked at several times its live data: 1.6 GB
// of RSS for a 300k-turn transcript that kept about 370 MB. Growing by half at most, it peaked at about 1.0 GB,
// at the cost of more full collections (there, 17 instead of 6: about 0.2 s more of pauses in a 45 s run; see
// docs/performance.md, "Turns written as judged"). By a fifth at most, the 1 GB file's `check` peaks at 1,065 MB
// instead of 1,205 MB, and the main thread's pauses at 300k turns did not grow (1.6 s in 101 full collections
// instead of 2.0 s in 60; section "Texts written as read, no results kept"). A process of its own, so the
// setting is the CLI's alone.
import { setFlagsFromString } from 'node:v8';

/** The heap grows by at most this percentage of what a full collection kept, before the next one. */
export const HEAP_GROWING_PERCENT = 20;

/** Sets the CLI process's heap growth (V8 reads it at each full collection). */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
