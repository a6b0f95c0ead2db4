// The worker-thread entry of judgeInWorker (judgeInWorker.ts): it is sent a transcript's turns (in groups), its
// checkpoints' claimed ids (in parts) and checkpoints, judges the checkpoints it is asked for (core judgeAhead), and
// sends back each judgement in parts (core/judgedParts.ts): the results it does not share with other checkpoints,
// in groups as they are made, then its head, one part at a time (Outbox). Counts no tokens. A worker may be asked
// again (a JudgeWorker kept for a file): each job sends the turns again, and the worker lets them go once judged,
// but keeps its evidence cache, keyed by text, so a second analysis of the same file works out no evidence again.
// Bundled as dist/judgeWorker.js.
import { parentPort } from 'node:worker_threads';
import { clampedTurnsBefore, judgeAhead } from '../core/analyze';
import { CheckpointMemo } from '../core/checkpointMemo';
import { EvidenceCache } from '../core/evidenceCache';
import { JudgementCache } from '../core/judgementCache';
import type { JudgedHead } from '../core/judgedParts';
import type { Checkpoint, FormatId, Transcript, Turn, TurnId, TurnResult } from '../core/model';
import { inSlices } from './inSlices';

/**
 * What judgeInWorker sends: the turns, a group at a time, and the claimed ids, a part at a time, then what to judge;
 * then that it took each part.
 */
export type JudgeRequest =
  | { kind: 'turns'; turns: Turn[] }
  /** The next claimed ids of the checkpoint at `index` (CLAIMS_PER_MESSAGE at most), in order. */
  | { kind: 'claims'; index: number; ids: TurnId[] }
  | { kind: 'took' }
  | {
      kind: 'judge';
      format: FormatId;
      /** The checkpoints; those in claimsApart without their claimed ids, which came in `claims` messages. */
      checkpoints: Checkpoint[];
      claimsApart: number[];
      lineCount: number;
      /** The checkpoints to judge, by index. */
      only: number[];
      ratioFloor?: number;
      coverageThreshold?: number;
    };

/**
 * What the worker sends back: progress, each judgement in parts, and the end (or why it failed). `done` says how
 * the job used the evidence cache: texts found there (worked out by an earlier job) and texts worked out.
 */
export type JudgeReply =
  | { kind: 'progress'; done: number; total: number }
  | { kind: 'results'; index: number; results: TurnResult[] }
  | { kind: 'judged'; head: JudgedHead }
  | { kind: 'done'; evidence: { hits: number; misses: number } }
  | { kind: 'error'; message: string };

/**
 * Own results sent in one message. A group of 2,000 took some 30 ms to deserialise on its own; in the extension host,
 * its heap large at the end of a 100k-turn load, the groups and the collections they set off held the host up to
 * 177–222 ms, and groups of 500 up to 116–178 ms (three loads each, scripts/bench/appendUi.mjs;
 * docs/performance-history.md, "The extension host held less at the end of a load").
 */
export const RESULTS_PER_MESSAGE = 500;

/** The turns of the job under way: sent before it, let go after it. */
const turns: Turn[] = [];
/** The claimed ids of the job's checkpoints, by index, as their parts came: sent before it, let go after it. */
const claims = new Map<number, TurnId[]>();

/** The turns' evidence, kept from job to job (keyed by text, so it holds for any transcript). */
const evidenceCache = new EvidenceCache();

function post(reply: JudgeReply): void {
  parentPort?.postMessage(reply);
}

/**
 * The judgements' parts, sent one at a time: the next once the other thread says it took the last (`took`). A
 * thread takes every message waiting on its port in one go, so parts sent all at once held it in one block
 * (0.9–1.3 s at 100k turns) instead of one of a few tens of ms for each.
 */
class Outbox {
  private readonly waiting: JudgeReply[] = [];
  private out = false;
  private emptied: (() => void) | undefined;

  send(reply: JudgeReply): void {
    this.waiting.push(reply);
    this.next();
  }

  took(): void {
    this.out = false;
    this.next();
  }

  /** Resolves once every part was sent and taken. */
  empty(): Promise<void> {
    if (!this.out && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => (this.emptied = resolve));
  }

  private next(): void {
    if (this.out) return;
    const reply = this.waiting.shift();
    if (reply === undefined) {
      this.emptied?.();
      this.emptied = undefined;
      return;
    }
    this.out = true;
    post(reply);
  }
}

const outbox = new Outbox();

/**
 * Judges the checkpoints asked for one at a time (one memo for all, the worker's evidence cache), in slices so that
 * the other thread's `took` comes in, sending each judgement's parts as soon as it is made; then lets the turns go.
 */
async function judge(request: Extract<JudgeRequest, { kind: 'judge' }>): Promise<void> {
  const { format, lineCount } = request;
  const checkpoints = request.checkpoints.slice();
  for (const index of request.claimsApart) checkpoints[index] = { ...checkpoints[index], claimedIds: claims.get(index) ?? [] };
  claims.clear();
  const transcript: Transcript = { format, turns, checkpoints, problems: [], lineCount };
  const judgements = new JudgementCache();
  const shared = judgements.unclaimedOf(turns);
  const { hits, misses } = evidenceCache.stats;
  const common = {
    judgements,
    evidenceCache,
    checkpointMemo: new CheckpointMemo({ oneSnapshot: true }),
    ratioFloor: request.ratioFloor,
    coverageThreshold: request.coverageThreshold,
  };
  // Progress over all of them: at most about a hundred messages.
  const total = request.only.reduce((sum, index) => sum + clampedTurnsBefore(checkpoints[index], turns.length), 0);
  let done = 0;
  let last = 0;
  const report = (now: number): void => {
    if (now === total || now - last >= total / 100) {
      last = now;
      post({ kind: 'progress', done: now, total });
    }
  };
  for (const index of request.only) {
    // Its own results (not an unclaimed turn's, which the other thread makes too) go as they are made, a group at
    // a time, while the rest is judged: sent once it was all judged, they held the end of the job 1.2 s at 100k
    // turns, the other thread idle until then.
    let own = 0;
    let group: TurnResult[] = [];
    const onResult = (_index: number, result: TurnResult): void => {
      if (result === shared[result.index]) return;
      own++;
      group.push(result);
      if (group.length < RESULTS_PER_MESSAGE) return;
      outbox.send({ kind: 'results', index, results: group });
      group = [];
    };
    const onProgress = (turnsDone: number): void => report(done + turnsDone);
    await inSlices(judgeAhead(transcript, { ...common, only: new Set([index]), onProgress, onResult }));
    if (group.length > 0) outbox.send({ kind: 'results', index, results: group });
    const judged = judgements.judgedAt(index);
    // Not judged (the checkpoint could not be): the shell judges it, and takes no results sent for it.
    if (!judged?.results) continue;
    done += judged.results.length;
    const { from, statuses, marks, rules } = judged;
    outbox.send({ kind: 'judged', head: { index, before: judged.results.length, from, statuses, marks, rules, own } });
  }
  report(total);
  await outbox.empty();
  turns.length = 0;
  post({ kind: 'done', evidence: { hits: evidenceCache.stats.hits - hits, misses: evidenceCache.stats.misses - misses } });
}

parentPort?.on('message', (request: JudgeRequest) => {
  if (request.kind === 'turns') {
    for (const turn of request.turns) turns.push(turn);
  } else if (request.kind === 'claims') {
    // judge() lets them go; a job stopped while they were sent ends its thread (JudgeWorker), so none are left.
    const ids = claims.get(request.index);
    if (ids === undefined) claims.set(request.index, request.ids);
    else for (const id of request.ids) ids.push(id);
  } else if (request.kind === 'took') {
    outbox.took();
  } else {
    judge(request).catch((error: unknown) => post({ kind: 'error', message: error instanceof Error ? error.message : String(error) }));
  }
});
