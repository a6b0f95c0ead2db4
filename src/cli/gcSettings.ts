// How the CLI's V8 collects garbage: settings for this process alone (a process of its own), set as it starts.
// - The heap grows by a fifth at most past what a full collection kept. By default V8 lets it reach up to about
//   four times that when the heap limit is large, so a long analysis (which keeps a few hundred MB alive and makes
//   much more garbage) peaked at several times its live data: 1.6 GB of RSS for a 300k-turn transcript that kept
//   about 370 MB. Growing by half at most, it peaked at about 1.0 GB, at the cost of more full collections (there,
//   17 instead of 6: about 0.2 s more of pauses in a 45 s run; see docs/performance-history.md, "Turns written as judged").
//   By a fifth at most, the 1 GB file's `check` peaked at 1,065 MB instead of 1,205 MB, and the main thread's pauses
//   at 300k turns did not grow (1.6 s in 101 full collections instead of 2.0 s in 60; section "Texts written as
//   read, no results kept").
// - Marking runs in the main thread, not beside it. Each of V8's marking threads left glibc a pool of memory
//   (an arena) of 17–34 MB at 3M turns, almost all of it freed but kept. Marked in the main thread, the 1 GB
//   file's `check` peaks 33–40 MB lower (695,184 → 662,816 and 655,924 KiB), in 398–413 s where a run without
//   it took 396–515 s (section "Forms copied, narrower columns, marking in the main thread").
// - A full collection can be asked for (collectGarbage): analyzeFile asks for one between the read of a file
//   whose texts went to disk and its analysis. The read's garbage was still there when the sharing counts made
//   their tables, and that was the 1 GB file's peak: 653,376 → 610,440 and 595,284 KiB, for one collection of
//   94 ms (section "A collection after the read").
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The heap grows by at most this percentage of what a full collection kept, before the next one. */
export const HEAP_GROWING_PERCENT = 20;

/** V8's full collection, once tuneGarbageCollection has made it available (undefined before, or if it could not). */
let fullCollection: (() => void) | undefined;

/** Sets the CLI process's garbage collection (V8 reads these flags at each collection). */
export function tuneGarbageCollection(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  setFlagsFromString('--no-concurrent-marking');
  fullCollection ??= exposedCollection();
}

/**
 * A full garbage collection now, when tuneGarbageCollection has run (else nothing). For a moment when much has
 * just become garbage and much is about to be allocated: between a large file's read and its analysis.
 */
export function collectGarbage(): void {
  fullCollection?.();
}

/**
 * V8's `gc` function, without `--expose-gc` on the command line: the flag is set while one new context is made,
 * whose global `gc` is taken, and unset again, so no other context (the analysis' own) has a `gc` global.
 */
function exposedCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
