// Judges a transcript's checkpoints in a worker thread (judgeWorker.js), so the thread that asks (the extension
// host) spends its time on sending the turns and taking the judgements back, not on the judging: at 100k turns
// the judging is some 5 s of CPU, what crosses the threads about 1 s, in steps of a few tens of ms. The turns
// go as plain copies, a group per message, with a turn of the event loop between groups; each judgement comes
// back in parts (core/judgedParts.ts) and is kept in the caller's JudgementCache, where the analysis takes it.
// A JudgeWorker keeps its thread, and the evidence the thread worked out, from one job to the next (the extension
// keeps one per large file); judgeInWorker runs one job in a thread of its own. A thread that fails or is aborted
// is ended.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { keepJudged } from '../core/judgedParts';
import type { JudgementCache } from '../core/judgementCache';
import type { AnalysisOptions, Transcript, Turn, TurnResult } from '../core/model';
import { abortError } from './inSlices';
import type { JudgeReply, JudgeRequest } from './judgeWorker';

/**
 * Claimed turns to judge (summed over the checkpoints) from which a worker is worth its start (about 50 ms) and the
 * copies of every turn (about 3 µs a turn, and more for long texts).
 */
export const JUDGE_IN_WORKER_TURNS = 10_000;

/**
 * Most turns, and characters of their texts, sent in one message: the copy of a group holds this thread some 20 ms
 * at most, however long its turns' texts are.
 */
const TURNS_PER_MESSAGE = 2000;
const CHARS_PER_MESSAGE = 4 * 1024 * 1024;

/**
 * Most claimed ids sent in one message. A checkpoint's claimed ids go in parts, before the job, each a turn of the
 * event loop: a Claude Code checkpoint's 112,500 uuids sent with the job in one message held this thread 93 ms.
 */
export const CLAIMS_PER_MESSAGE = 16_384;

/**
 * Every field a Turn may have. `satisfies` makes the compiler ask for a field added to Turn here, so the copies
 * the worker judges never lack one.
 */
export const TURN_FIELDS = {
  id: true,
  role: true,
  text: true,
  tokens: true,
  anchor: true,
  span: true,
  externalSource: true,
  label: true,
  answers: true,
  error: true,
  reasoning: true,
} as const satisfies Record<keyof Turn, true>;

const FIELD_NAMES = Object.keys(TURN_FIELDS) as (keyof Turn)[];

/** A plain copy of a turn's fields: what a structured clone copies of a reader's turn may not be all of it. */
export function plainTurn(turn: Turn): Turn {
  const copy: Record<string, unknown> = {};
  for (const field of FIELD_NAMES) {
    const value = turn[field];
    if (value !== undefined) copy[field] = field === 'span' || field === 'answers' ? { ...(value as object) } : value;
  }
  return copy as unknown as Turn;
}

/**
 * The turns' plain copies in the groups they are sent in: up to TURNS_PER_MESSAGE turns, and no more turns once a
 * group holds CHARS_PER_MESSAGE characters of text. Made as they are asked for.
 */
export function* turnGroups(turns: readonly Turn[]): Generator<Turn[], void, void> {
  let next = 0;
  while (next < turns.length) {
    const group: Turn[] = [];
    let chars = 0;
    while (next < turns.length && group.length < TURNS_PER_MESSAGE && (group.length === 0 || chars < CHARS_PER_MESSAGE)) {
      const copy = plainTurn(turns[next++]);
      chars += textChars(copy);
      group.push(copy);
    }
    yield group;
  }
}

/** How many characters of text a turn holds (its text, its call's, its reasoning). */
function textChars(turn: Turn): number {
  const length = (text: unknown): number => (typeof text === 'string' ? text.length : 0);
  return length(turn.text) + length(turn.answers?.callText) + length(turn.reasoning);
}

/** judgeWorker.js beside this module: dist/ for the bundle, out/src/node/ for tsc output. */
export function defaultJudgeWorkerFile(): string {
  return join(__dirname, 'judgeWorker.js');
}

export interface JudgeInWorkerOptions {
  /** The worker's entry file (defaultJudgeWorkerFile). */
  workerFile?: string;
  signal?: AbortSignal;
  /** Turns judged of the total, as the worker reports them. */
  onProgress?: (done: number, total: number) => void;
}

/** What one job of a JudgeWorker did. */
export interface JudgedInWorker {
  /** The judgements kept in the caller's JudgementCache. */
  kept: number;
  /** Texts whose evidence the worker found in its cache (an earlier job's), and texts it worked out. */
  evidence: { hits: number; misses: number };
}

/**
 * A worker thread that judges transcripts, one job at a time, and is kept between jobs: its evidence cache (keyed by
 * text) stays with it, so judging a file again works out no evidence again, and its code is already optimised. The
 * thread starts with the first job and ends with dispose() (with retire(), once the jobs asked for are done), or when
 * a job fails or is aborted (the next job starts a new one). It keeps no turns between jobs, only the evidence (for a
 * 100k-turn file, some 250 MB) and its own start-up; it does not keep the process alive while it waits.
 */
export class JudgeWorker {
  private worker: Worker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Jobs asked for and not ended yet. */
  private pending = 0;
  private disposed = false;
  /** Set by retire: the thread ends once the jobs asked for are done. */
  private retiring = false;
  /** Jobs run on the thread now running (0 before its first, and after one failed or was aborted). */
  private jobsOnThread = 0;
  private last: JudgedInWorker | undefined;

  constructor(private readonly workerFile: string = defaultJudgeWorkerFile()) {}

  /** Whether a thread is running (it ran a job and was not ended). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** What the last job that ended well did. */
  get lastJob(): JudgedInWorker | undefined {
    return this.last;
  }

  /** Whether it was disposed or retired: it takes no new job, and should not be kept. */
  get ended(): boolean {
    return this.disposed || this.retiring;
  }

  /** Whether no job is under way or waiting. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** How many jobs the running thread has done (0 when none runs). */
  get jobs(): number {
    return this.jobsOnThread;
  }

  /**
   * Judges checkpoints `only` (by index) of `transcript` and keeps each judgement in `judgements`, for an analysis of
   * `transcript` with `options` to take, after the jobs asked for before it. Resolves with how many were kept (a
   * judgement that does not fit the transcript is not: judgeAhead makes it); rejects when the worker fails or was
   * disposed or retired before it was asked, and with an AbortError when `run.signal` aborts.
   */
  judge(
    transcript: Transcript,
    only: readonly number[],
    options: Pick<AnalysisOptions, 'ratioFloor' | 'coverageThreshold'>,
    judgements: JudgementCache,
    run: Omit<JudgeInWorkerOptions, 'workerFile'> = {},
  ): Promise<JudgedInWorker> {
    if (this.ended) return Promise.reject(new Error('the judging worker was disposed'));
    this.pending++;
    const job = this.queue.then(() => this.judgeNow(transcript, only, options, judgements, run));
    // Counted down before the caller's own reaction to the job runs (reactions run in the order they were added).
    const ended = (): void => {
      this.pending--;
      if (this.pending === 0 && this.retiring) this.dispose();
    };
    job.then(ended, ended);
    this.queue = job.catch(() => undefined);
    return job;
  }

  /**
   * Ends the thread once the jobs asked for are done (at once when there are none), so an analysis under way keeps
   * its worker; later jobs reject.
   */
  retire(): void {
    this.retiring = true;
    if (this.pending === 0) this.dispose();
  }

  /** Ends the thread now (a job under way rejects); later jobs reject. */
  dispose(): void {
    this.disposed = true;
    this.end();
  }

  /**
   * A new thread. Between jobs nothing else listens to it: a thread that fails or stops while it waits is
   * forgotten here, and the next job starts another.
   */
  private start(): Worker {
    const worker = new Worker(this.workerFile, { execArgv: [] });
    const forget = (): void => {
      if (this.worker === worker) this.end();
    };
    worker.on('error', forget);
    worker.on('exit', forget);
    this.worker = worker;
    return worker;
  }

  private end(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.jobsOnThread = 0;
    if (worker) void worker.terminate();
  }

  private judgeNow(
    transcript: Transcript,
    only: readonly number[],
    options: Pick<AnalysisOptions, 'ratioFloor' | 'coverageThreshold'>,
    judgements: JudgementCache,
    run: Omit<JudgeInWorkerOptions, 'workerFile'>,
  ): Promise<JudgedInWorker> {
    const { signal } = run;
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.disposed) return Promise.reject(new Error('the judging worker was disposed'));
    const worker = this.worker ?? this.start();
    worker.ref();
    return new Promise<JudgedInWorker>((resolve, reject) => {
      let settled = false;
      let kept = 0;
      const own = new Map<number, TurnResult[]>();
      const finish = (outcome: Error | JudgedInWorker): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.off('message', onMessage);
        if (outcome instanceof Error) {
          // A thread that failed, was aborted or stopped is not used again.
          if (this.worker === worker) this.end();
          else void worker.terminate();
          reject(outcome);
          return;
        }
        this.jobsOnThread++;
        this.last = outcome;
        worker.unref();
        resolve(outcome);
      };
      const onAbort = (): void => finish(abortError());
      const onError = (error: Error): void => finish(new Error(`the judging worker failed: ${error.message}`));
      const onExit = (code: number): void => finish(new Error(`the judging worker stopped (exit code ${code})`));
      // The worker sends its next part once told this one was taken (judgeWorker.ts, Outbox).
      const took = (): void => {
        const request: JudgeRequest = { kind: 'took' };
        worker.postMessage(request);
      };
      const onMessage = (reply: JudgeReply): void => {
        if (settled) return;
        switch (reply.kind) {
          case 'progress':
            run.onProgress?.(reply.done, reply.total);
            break;
          case 'results': {
            const list = own.get(reply.index) ?? [];
            for (const result of reply.results) list.push(result);
            own.set(reply.index, list);
            took();
            break;
          }
          case 'judged':
            if (keepJudged(transcript, options, judgements, reply.head, own.get(reply.head.index) ?? [])) kept++;
            own.delete(reply.head.index);
            took();
            break;
          case 'done':
            finish({ kept, evidence: reply.evidence });
            break;
          case 'error':
            finish(new Error(`the judging worker failed: ${reply.message}`));
            break;
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.on('message', onMessage);
      sendTranscript(worker, transcript, only, options, () => settled).catch((error: unknown) =>
        finish(error instanceof Error ? error : new Error(String(error))),
      );
    });
  }
}

/**
 * Judges checkpoints `only` (by index) of `transcript` in a worker of its own, ended when it is done, and keeps each
 * judgement in `judgements` (as JudgeWorker.judge). Resolves with how many were kept.
 */
export async function judgeInWorker(
  transcript: Transcript,
  only: readonly number[],
  options: Pick<AnalysisOptions, 'ratioFloor' | 'coverageThreshold'>,
  judgements: JudgementCache,
  run: JudgeInWorkerOptions = {},
): Promise<number> {
  const worker = new JudgeWorker(run.workerFile);
  try {
    return (await worker.judge(transcript, only, options, judgements, run)).kept;
  } finally {
    worker.dispose();
  }
}

/**
 * Sends the turns a group at a time, then each checkpoint's claimed ids in parts, letting the event loop turn
 * between messages, then the request to judge.
 */
async function sendTranscript(
  worker: Worker,
  transcript: Transcript,
  only: readonly number[],
  options: Pick<AnalysisOptions, 'ratioFloor' | 'coverageThreshold'>,
  stopped: () => boolean,
): Promise<void> {
  for (const group of turnGroups(transcript.turns)) {
    if (stopped()) return;
    const request: JudgeRequest = { kind: 'turns', turns: group };
    worker.postMessage(request);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // Each checkpoint's claimed ids in parts; the job's checkpoints then go without them (claimsApart says which).
  const claimsApart: number[] = [];
  const checkpoints = transcript.checkpoints.map((cp, index) => {
    if (!Array.isArray(cp?.claimedIds)) return cp;
    claimsApart.push(index);
    return { ...cp, claimedIds: [] };
  });
  for (const index of claimsApart) {
    const ids = transcript.checkpoints[index].claimedIds;
    for (let k = 0; k < ids.length; k += CLAIMS_PER_MESSAGE) {
      if (stopped()) return;
      const request: JudgeRequest = { kind: 'claims', index, ids: ids.slice(k, k + CLAIMS_PER_MESSAGE) };
      worker.postMessage(request);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (stopped()) return;
  const request: JudgeRequest = {
    kind: 'judge',
    format: transcript.format,
    checkpoints,
    claimsApart,
    lineCount: transcript.lineCount,
    only: [...only],
    ratioFloor: options.ratioFloor,
    coverageThreshold: options.coverageThreshold,
  };
  worker.postMessage(request);
}
