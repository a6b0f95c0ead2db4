// Stops an analysis before the process runs out of memory. V8 ends a process whose heap reaches its limit with
// a fatal error and a native stack trace (and in the extension, the whole extension host with it); a transcript
// too large for the heap is better refused with a message. After each major garbage collection (when the heap
// holds what is alive, not what is waiting to be collected) the watch compares the heap with its limit, and
// past LIVE_HEAP_SHARE of it aborts a signal with a TranscriptTooLargeError; the reading and the analysis stop
// at their next check of the signal (between chunks, between slices) and let their memory go. With several files
// analysed at once (the extension follows live files while it opens others), only the heaviest is stopped: the
// largest file, by its bytes (a .gz by the size its trailer records). The others go on: until a reading shows the
// stopped work's memory let go, another is stopped only past EMERGENCY_HEAP_SHARE.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { basename } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { UnusableTranscriptError } from './transcriptFile';

/** The share of the old generation's limit (see readHeap) that a live heap may reach before the analysis is stopped. */
export const LIVE_HEAP_SHARE = 0.8;
/** Past this share, another analysis is stopped even while one stopped earlier has not let its memory go yet. */
export const EMERGENCY_HEAP_SHARE = 0.92;

/** A transcript whose reading or analysis was stopped because the heap was nearly full. */
export class TranscriptTooLargeError extends UnusableTranscriptError {
  constructor(path: string, usedBytes: number, limitBytes: number) {
    super(
      `${basename(path)} is too large to analyse in the memory this process has: with it, the heap held ` +
        `${megabytes(usedBytes)} of the ${megabytes(limitBytes)} Node.js allows, so the analysis was stopped before the ` +
        'process ran out of memory.',
      path,
      [
        "`check` needs about 1.5 KB of memory a turn besides the turns' text (five times the size of a transcript of 350-byte turns); " +
          "the editor and the other commands, which keep every turn's result, ten to thirty times a transcript's size.",
        'From a terminal, give Node.js a larger heap: NODE_OPTIONS=--max-old-space-size=16384 compaction-lens check FILE (in MB; the machine needs that much free memory).',
      ],
    );
    this.name = 'TranscriptTooLargeError';
  }
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** What the watch reads of the heap: injectable for tests. */
export type HeapReading = () => { used: number; limit: number };

/**
 * What V8's heap limit keeps for the young generation (on 64-bit, three semi-spaces of 16 MB): the old
 * generation, where a transcript's analysis lives, runs out that much below `heap_size_limit`.
 */
const YOUNG_GENERATION_BYTES = 48 * 1024 * 1024;

const readHeap: HeapReading = () => {
  const stats = getHeapStatistics();
  const limit = Math.max(stats.heap_size_limit / 2, stats.heap_size_limit - YOUNG_GENERATION_BYTES);
  return { used: stats.used_heap_size, limit };
};

export interface MemoryWatch {
  /** Aborted, with a TranscriptTooLargeError as its reason, when this watch's work is the one stopped. */
  readonly signal: AbortSignal;
  /** Compares the heap with its limit now (the observer calls it after each major collection). */
  check(): void;
  /** Stops watching: the work is over, and its memory let go. */
  dispose(): void;
}

/** A running watch, as the others see it. */
interface Watched {
  readonly path: string;
  readonly controller: AbortController;
  readonly weight: () => number;
}

/** Every watch of this process whose work is running, in the order they started. */
const running = new Set<Watched>();
/**
 * A stopped work has ended, but no reading since has shown its memory let go: a collection may have started
 * marking while the work still held it (V8 marks incrementally), or none has run since. Cleared by a reading
 * below the share, or by a watch that starts with no other running.
 */
let awaitingRelease = false;

/**
 * Watches the heap while `path` is read and analysed. `weight` is how much the work holds, to choose which work
 * to stop when the heap nearly fills: the heaviest (the first started, among equals). Default: the file's bytes.
 */
export function watchMemory(
  path: string,
  share = LIVE_HEAP_SHARE,
  heap: HeapReading = readHeap,
  weight: () => number = () => fileWeight(path),
): MemoryWatch {
  const controller = new AbortController();
  const self: Watched = { path, controller, weight };
  // With nothing else running, a work stopped earlier has long ended: its memory is garbage the next collection frees.
  if (running.size === 0) awaitingRelease = false;
  running.add(self);
  const check = (): void => {
    const { used, limit } = heap();
    if (!(limit > 0)) return;
    if (used <= share * limit) {
      awaitingRelease = false;
      return;
    }
    // One work stopped already (still unwinding, or ended and not yet collected): its memory goes soon, so wait,
    // unless the heap is nearly out.
    const unwinding = awaitingRelease || [...running].some((w) => w.controller.signal.aborted);
    if (unwinding && used <= Math.max(share, EMERGENCY_HEAP_SHARE) * limit) return;
    const heaviest = heaviestOf([...running].filter((w) => !w.controller.signal.aborted));
    heaviest?.controller.abort(new TranscriptTooLargeError(heaviest.path, used, limit));
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) return check();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    signal: controller.signal,
    check,
    dispose: () => {
      observer.disconnect();
      running.delete(self);
      if (controller.signal.aborted) awaitingRelease = true;
    },
  };
}

function heaviestOf(watches: readonly Watched[]): Watched | undefined {
  let heaviest: Watched | undefined;
  let most = -1;
  for (const w of watches) {
    const weight = w.weight();
    if (weight > most) {
      heaviest = w;
      most = weight;
    }
  }
  return heaviest;
}

/**
 * A file's bytes as read: a .gz file's uncompressed size from its trailer (mod 4 GiB), else its size; 0 when it
 * cannot be read.
 */
export function fileWeight(path: string): number {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    if (!path.toLowerCase().endsWith('.gz') || size < 18) return size;
    const trailer = Buffer.alloc(4);
    readSync(fd, trailer, 0, 4, size - 4);
    return Math.max(size, trailer.readUInt32LE(0));
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Runs `work` on `path` under a heap watch: its signal aborts when `signal` does or when the heap nearly fills,
 * and in that case `work`'s AbortError becomes the watch's TranscriptTooLargeError.
 */
export async function underMemoryWatch<T>(
  path: string,
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const memory = watchMemory(path);
  try {
    return await work(signal ? AbortSignal.any([signal, memory.signal]) : memory.signal);
  } catch (error) {
    // The reading and the analysis stop with an AbortError; say why when it was the heap.
    if (memory.signal.aborted && !signal?.aborted) throw memory.signal.reason;
    throw error;
  } finally {
    memory.dispose();
  }
}
