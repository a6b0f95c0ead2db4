// Counts tokens in worker threads (tokenWorker.js), so that tiktoken's start-up (~0.5 s) and its counting
// (0.1–0.2 s per MB) never block the calling thread — the VS Code extension host's. Work is cut into batches of
// a bounded byte size, shared by up to maxWorkers lazily spawned workers; each batch that comes back reports
// progress, and a cancelled count stops at the batches already sent. Idle workers are ended after a while.
// When no worker can start, counting falls back to this thread, batch by batch, yielding in between.
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TokenCounter } from '../core/model';
import { createTokenCounter, type EncodingName } from './tokenCounter';
import { restartableParts } from '../core/tokenPieces';
import type { TokenReply, TokenRequest } from './tokenWorker';
import { abortError } from './inSlices';

/** Largest batch, in UTF-8 bytes (0.03–0.1 s of counting): bounds how late a cancellation or progress report comes. */
export const MAX_BATCH_BYTES = 256 * 1024;
/** Smallest batch: below this, the cost of a message outweighs sharing the work. */
const MIN_BATCH_BYTES = 16 * 1024;
/** Texts longer than this are sent in parts cut where their pieces restart, so the parts' counts add up exactly. */
const SPLIT_CHARS = 256 * 1024;
const PIECE_CHARS = 64 * 1024;
/**
 * Another worker is started only while this much waits to be counted (a few seconds of one worker's work, which
 * counts repeated pieces from its cache at 5–10 MB/s): a worker costs 0.4–0.9 s of CPU to load tiktoken and
 * takes a core from the analysis, so for less, the first worker is done before a second could help.
 */
export const DEFAULT_SPAWN_BYTES = 16 * 1024 * 1024;
/** An idle worker is ended after this long (a live transcript's appends reuse it meanwhile). */
export const DEFAULT_IDLE_MS = 60_000;
/** After this many crashes of workers that had been working, counting moves into this thread. */
const MAX_CRASHES = 3;

/** Progress of one count: UTF-8 bytes counted so far, of the total. */
export type CountProgress = (doneBytes: number, totalBytes: number) => void;

/** What one count may use of the pool. */
export interface CountLimits {
  /**
   * Most workers started while this count waits (those already running still take its batches). analyzeFile
   * gives 1 for a file too large to keep its texts in memory: a second worker is some 75 MB more.
   */
  maxWorkers?: number;
}

export interface TokenPoolOptions {
  /** Most worker threads to run at once. Default: defaultWorkerCount(). */
  maxWorkers?: number;
  /** The worker's entry file. Default: tokenWorker.js beside this module (dist/ in the bundles, out/src/node/ in tests). */
  workerFile?: string;
  /** Largest batch in UTF-8 bytes. Default MAX_BATCH_BYTES. */
  maxBatchBytes?: number;
  /** A worker beyond the first is started only while this many UTF-8 bytes wait. Default DEFAULT_SPAWN_BYTES. */
  spawnBytes?: number;
  /** Idle workers are ended after this many milliseconds. Default DEFAULT_IDLE_MS. */
  idleMs?: number;
  /** Told once, with the reason, when counting moves into this thread because workers cannot run. */
  onFallback?: (reason: string) => void;
}

/**
 * Two workers, or one on a single core. Measured on 2 cores (scripts/bench.mjs): two started workers count
 * about twice as fast as one (3.0 against 1.4 MB/s), three no faster than two; the calling thread waits
 * meanwhile. Each worker costs ~0.8 s of CPU to start and ~75 MB with o200k_base loaded.
 */
export function defaultWorkerCount(): number {
  const cores = typeof availableParallelism === 'function' ? availableParallelism() : cpus().length;
  return Math.max(1, Math.min(2, cores));
}

/** tokenWorker.js beside this module: dist/ for the bundles (extension.js, cli.js), out/src/node/ for tsc output. */
export function defaultWorkerFile(): string {
  return join(__dirname, 'tokenWorker.js');
}

/**
 * The pieces a text is sent as. Short texts go whole; a long one is cut where its pre-tokenizer pieces restart
 * (restartableParts), so createTokenCounter gives the same total over the pieces as over the whole text.
 */
export function piecesOf(text: string): string[] {
  return text.length <= SPLIT_CHARS ? [text] : restartableParts(text, PIECE_CHARS);
}

interface Job {
  encoding: EncodingName;
  counts: number[];
  /** Batches not counted yet. */
  pending: number;
  doneBytes: number;
  totalBytes: number;
  onProgress?: CountProgress;
  /** CountLimits.maxWorkers, at least 1. */
  maxWorkers: number;
  settled: boolean;
  resolve(counts: number[]): void;
  reject(error: Error): void;
  cleanup(): void;
}

interface Batch {
  job: Job;
  texts: string[];
  /** For each text of the batch, the index in job.counts its count adds to. */
  targets: number[];
  bytes: number;
}

interface Thread {
  worker: Worker;
  batch?: Batch;
  requestId: number;
  idleTimer?: ReturnType<typeof setTimeout>;
  /** Ended on purpose (idle, fallback, dispose): its exit is expected. */
  retiring: boolean;
  gone: boolean;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class TokenPool {
  private readonly maxWorkers: number;
  private readonly workerFile: string;
  private readonly maxBatchBytes: number;
  private readonly idleMs: number;
  private readonly spawnBytes: number;
  private readonly onFallback?: (reason: string) => void;
  private readonly threads: Thread[] = [];
  private queue: Batch[] = [];
  private readonly jobs = new Set<Job>();
  /** The workers ended and not yet exited: their terminate() calls. */
  private readonly exiting = new Set<Promise<unknown>>();
  private readonly hereCounters = new Map<EncodingName, TokenCounter>();
  private nextRequestId = 0;
  private everServed = false;
  private crashes = 0;
  private draining = false;
  private isDisposed = false;
  private fallback?: string;

  constructor(options: TokenPoolOptions = {}) {
    this.maxWorkers = Math.max(1, Math.floor(options.maxWorkers ?? defaultWorkerCount()));
    this.workerFile = options.workerFile ?? defaultWorkerFile();
    this.maxBatchBytes = Math.max(1, options.maxBatchBytes ?? MAX_BATCH_BYTES);
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.spawnBytes = Math.max(0, options.spawnBytes ?? DEFAULT_SPAWN_BYTES);
    this.onFallback = options.onFallback;
  }

  /** Why counting runs in this thread, once workers could not; undefined while workers are used. */
  get fallbackReason(): string | undefined {
    return this.fallback;
  }

  /** True once dispose() was called. */
  get disposed(): boolean {
    return this.isDisposed;
  }

  /** Worker threads alive now. */
  get workerCount(): number {
    return this.threads.length;
  }

  /**
   * The token count of each text (as createTokenCounter(encoding) gives it), counted in worker threads.
   * Rejects with an AbortError when `signal` aborts, and with an error when the pool is disposed meanwhile.
   */
  count(
    texts: readonly string[],
    encoding: EncodingName,
    signal?: AbortSignal,
    onProgress?: CountProgress,
    limits: CountLimits = {},
  ): Promise<number[]> {
    if (this.disposed) return Promise.reject(new Error('the token pool was disposed'));
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise<number[]>((resolve, reject) => {
      const onAbort = (): void => this.fail(job, abortError());
      const job: Job = {
        encoding,
        counts: new Array<number>(texts.length).fill(0),
        pending: 0,
        doneBytes: 0,
        totalBytes: 0,
        onProgress,
        maxWorkers: typeof limits.maxWorkers === 'number' && limits.maxWorkers >= 1 ? Math.floor(limits.maxWorkers) : Infinity,
        settled: false,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      const batches = this.batchesOf(job, texts);
      if (batches.length === 0) {
        resolve(job.counts);
        return;
      }
      job.pending = batches.length;
      this.jobs.add(job);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(...batches);
      this.pump();
    });
  }

  /**
   * Starts a worker now, asking it nothing: its thread and Node's start-up in it (~30 ms) happen while the caller
   * goes on (analyzeFile, once the file is read: the verdicts before the judging), and the first count has it load
   * its encoding. Does nothing when a worker is alive already or counting runs in this thread. Unused, it is idle:
   * it never keeps the process alive, and is ended after idleMs.
   */
  start(): void {
    if (this.disposed || this.fallback !== undefined || this.threads.length > 0) return;
    const thread = this.spawn();
    if (thread) this.idle(thread);
  }

  /** Counts in this thread, synchronously: for the rare text nobody counted beforehand. */
  countHere(text: string, encoding: EncodingName): number {
    let counter = this.hereCounters.get(encoding);
    if (!counter) {
      counter = createTokenCounter(encoding);
      this.hereCounters.set(encoding, counter);
    }
    return counter(text);
  }

  /**
   * Ends every idle worker now, rather than after idleMs: for when no count is expected for long (a large file
   * read once, counted before it is judged), where a worker kept loaded holds some 75 MB. A later count starts one.
   */
  retireIdle(): void {
    for (const thread of [...this.threads]) if (!thread.batch && !thread.retiring) this.retire(thread);
  }

  /** Ends every worker; counts still running are rejected. */
  dispose(): void {
    if (this.disposed) return;
    this.isDisposed = true;
    for (const job of [...this.jobs]) this.fail(job, new Error('the token pool was disposed'));
    this.queue = [];
    for (const thread of [...this.threads]) this.retire(thread);
  }

  /**
   * dispose, then waits until every worker it ever ended has exited. For a process about to end (the CLI): one that
   * ends while a worker thread is still starting or stopping can crash in Node's teardown (nodejs/node#25007 and
   * its kin), with no exit status, where the work was done.
   */
  async disposeAndWait(): Promise<void> {
    this.dispose();
    await Promise.all([...this.exiting]);
  }

  /** Cuts the texts into batches of about equal size, enough of them to keep every worker busy. */
  private batchesOf(job: Job, texts: readonly string[]): Batch[] {
    const pieces: { text: string; target: number; bytes: number }[] = [];
    texts.forEach((text, target) => {
      for (const piece of piecesOf(typeof text === 'string' ? text : '')) {
        const bytes = Buffer.byteLength(piece, 'utf8');
        job.totalBytes += bytes;
        pieces.push({ text: piece, target, bytes });
      }
    });
    const size = Math.min(this.maxBatchBytes, Math.max(MIN_BATCH_BYTES, Math.ceil(job.totalBytes / (4 * this.maxWorkers))));
    const batches: Batch[] = [];
    let current: Batch | undefined;
    for (const piece of pieces) {
      if (!current || current.bytes + piece.bytes > size) {
        if (current && current.texts.length > 0) batches.push(current);
        current = { job, texts: [], targets: [], bytes: 0 };
      }
      current.texts.push(piece.text);
      current.targets.push(piece.target);
      current.bytes += piece.bytes;
    }
    if (current && current.texts.length > 0) batches.push(current);
    return batches;
  }

  /** Hands queued batches to idle workers; starts a first worker, and more while enough work waits. */
  private pump(): void {
    if (this.disposed) return;
    if (this.fallback !== undefined) {
      void this.drainHere();
      return;
    }
    for (const thread of this.threads) {
      if (this.queue.length === 0) return;
      if (!thread.batch) this.send(thread, this.queue.shift()!);
      else thread.worker.ref(); // busy: work waits for it now
    }
    while (
      this.queue.length > 0 &&
      this.threads.length < this.workerLimit() &&
      (this.threads.length === 0 || this.queuedBytes() >= this.spawnBytes)
    ) {
      const thread = this.spawn();
      if (!thread) return; // fell back: spawn() already drained the queue here
      this.send(thread, this.queue.shift()!);
    }
  }

  /** The most workers to run now: the pool's, or fewer when a count waiting asks for fewer (CountLimits). */
  private workerLimit(): number {
    let limit = this.maxWorkers;
    for (const job of this.jobs) limit = Math.min(limit, job.maxWorkers);
    return limit;
  }

  private queuedBytes(): number {
    let bytes = 0;
    for (const batch of this.queue) bytes += batch.bytes;
    return bytes;
  }

  private spawn(): Thread | undefined {
    let worker: Worker;
    try {
      // No execArgv: the host's flags (an inspector port, for one) are not all valid in a worker.
      worker = new Worker(this.workerFile, { execArgv: [] });
    } catch (error) {
      this.fallBack(`a token-counting worker could not start: ${messageOf(error)}`);
      return undefined;
    }
    const thread: Thread = { worker, requestId: 0, retiring: false, gone: false };
    worker.on('message', (reply: TokenReply) => this.onReply(thread, reply));
    worker.on('error', (error) => this.onGone(thread, messageOf(error)));
    worker.on('exit', (code) => this.onGone(thread, `it exited with code ${code}`));
    this.threads.push(thread);
    return thread;
  }

  private send(thread: Thread, batch: Batch): void {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
    thread.batch = batch;
    thread.requestId = ++this.nextRequestId;
    thread.worker.ref();
    const request: TokenRequest = { id: thread.requestId, encoding: batch.job.encoding, texts: batch.texts };
    thread.worker.postMessage(request);
  }

  private onReply(thread: Thread, reply: TokenReply): void {
    const batch = thread.batch;
    if (thread.retiring || !batch || reply?.id !== thread.requestId) return;
    thread.batch = undefined;
    this.everServed = true;
    if ('error' in reply) this.fail(batch.job, new Error(`token counting failed: ${reply.error}`));
    else this.credit(batch, reply.counts);
    this.pump();
    if (!thread.batch && !thread.retiring) this.idle(thread);
  }

  /** An idle worker does not keep the process alive, and is ended after idleMs. */
  private idle(thread: Thread): void {
    thread.worker.unref();
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => this.retire(thread), this.idleMs);
    thread.idleTimer.unref?.();
  }

  private retire(thread: Thread): void {
    thread.retiring = true;
    clearTimeout(thread.idleTimer);
    const index = this.threads.indexOf(thread);
    if (index >= 0) this.threads.splice(index, 1);
    const exited: Promise<unknown> = thread.worker
      .terminate()
      .catch(() => undefined)
      .finally(() => this.exiting.delete(exited));
    this.exiting.add(exited);
  }

  /** A worker failed or exited without being asked to: its batch goes back to the queue. */
  private onGone(thread: Thread, why: string): void {
    if (thread.gone) return;
    thread.gone = true;
    if (thread.retiring || this.disposed) return;
    this.retire(thread);
    const batch = thread.batch;
    thread.batch = undefined;
    if (batch && !batch.job.settled) this.queue.unshift(batch);
    if (!this.everServed) this.fallBack(`a token-counting worker could not start: ${why}`);
    else if (++this.crashes >= MAX_CRASHES) this.fallBack(`token-counting workers stopped ${this.crashes} times (last: ${why})`);
    this.pump();
  }

  /** From now on, counts run in this thread; workers still alive are ended and their batches queued again. */
  private fallBack(reason: string): void {
    if (this.fallback === undefined) {
      this.fallback = reason;
      try {
        this.onFallback?.(reason);
      } catch {
        // A failing listener must not stop the counting.
      }
    }
    for (const thread of [...this.threads]) {
      const batch = thread.batch;
      thread.batch = undefined;
      if (batch && !batch.job.settled) this.queue.unshift(batch);
      this.retire(thread);
    }
    void this.drainHere();
  }

  /** Counts the queued batches in this thread, yielding to the event loop between batches. */
  private async drainHere(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0 && !this.disposed) {
        await new Promise((resolve) => setImmediate(resolve)); // let aborts, I/O and UI messages through
        const batch = this.queue.shift();
        if (!batch || batch.job.settled) continue;
        try {
          this.credit(
            batch,
            batch.texts.map((text) => this.countHere(text, batch.job.encoding)),
          );
        } catch (error) {
          this.fail(batch.job, new Error(`token counting failed: ${messageOf(error)}`));
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private credit(batch: Batch, counts: unknown): void {
    const job = batch.job;
    if (job.settled) return;
    if (!Array.isArray(counts) || counts.length !== batch.texts.length) {
      this.fail(job, new Error('token counting failed: a worker replied with the wrong number of counts'));
      return;
    }
    counts.forEach((n: number, k) => {
      job.counts[batch.targets[k]] += n;
    });
    job.doneBytes += batch.bytes;
    job.pending--;
    try {
      job.onProgress?.(job.doneBytes, job.totalBytes);
    } catch {
      // A failing progress listener must not stop the counting.
    }
    if (job.pending === 0) {
      this.settle(job);
      job.resolve(job.counts);
    }
  }

  private fail(job: Job, error: Error): void {
    if (job.settled) return;
    this.settle(job);
    this.queue = this.queue.filter((batch) => batch.job !== job);
    job.reject(error);
  }

  private settle(job: Job): void {
    job.settled = true;
    job.cleanup();
    this.jobs.delete(job);
  }
}
