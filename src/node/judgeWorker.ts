// The worker-thread entry of judgeInWorker (judgeInWorker.ts): it is sent a transcript's turns (in groups) and
// checkpoints, judges the checkpoints it is asked for (core judgeAhead, with an evidence cache of its own), and
// sends back each judgement in parts (core/judgedParts.ts): the results it does not share with other checkpoints,
// in groups, then its head. Counts no tokens. Bundled as dist/judgeWorker.js.
import { parentPort } from 'node:worker_threads';
import { clampedTurnsBefore, judgeAhead } from '../core/analyze';
import { CheckpointMemo } from '../core/checkpointMemo';
import { EvidenceCache } from '../core/evidenceCache';
import { JudgementCache } from '../core/judgementCache';
import type { JudgedHead } from '../core/judgedParts';
import { runSteps } from '../core/steps';
import type { Checkpoint, FormatId, Transcript, Turn, TurnResult } from '../core/model';

/** What judgeInWorker sends: the turns, a group at a time, then what to judge. */
export type JudgeRequest =
  | { kind: 'turns'; turns: Turn[] }
  | {
      kind: 'judge';
      format: FormatId;
      checkpoints: Checkpoint[];
      lineCount: number;
      /** The checkpoints to judge, by index. */
      only: number[];
      ratioFloor?: number;
      coverageThreshold?: number;
    };

/** What the worker sends back: progress, each judgement in parts, and the end (or why it failed). */
export type JudgeReply =
  | { kind: 'progress'; done: number; total: number }
  | { kind: 'results'; index: number; results: TurnResult[] }
  | { kind: 'judged'; head: JudgedHead }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

/** Own results sent in one message: a group's deserialisation holds the receiving thread some 30 ms. */
export const RESULTS_PER_MESSAGE = 2000;

const turns: Turn[] = [];

function post(reply: JudgeReply): void {
  parentPort?.postMessage(reply);
}

/**
 * Judges the checkpoints asked for one at a time (one memo and evidence cache for all), sending each judgement as
 * soon as it is made, so the other thread takes one while the next is judged.
 */
function judge(request: Extract<JudgeRequest, { kind: 'judge' }>): void {
  const { format, checkpoints, lineCount } = request;
  const transcript: Transcript = { format, turns, checkpoints, problems: [], lineCount };
  const judgements = new JudgementCache();
  const shared = judgements.unclaimedOf(turns);
  const common = {
    judgements,
    evidenceCache: new EvidenceCache(),
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
    runSteps(judgeAhead(transcript, { ...common, only: new Set([index]), onProgress: (turnsDone) => report(done + turnsDone) }));
    const judged = judgements.judgedAt(index);
    if (!judged?.results) continue; // not judged (the checkpoint could not be): the shell judges it
    done += judged.results.length;
    const own = judged.results.filter((r) => r !== shared[r.index]);
    for (let k = 0; k < own.length; k += RESULTS_PER_MESSAGE) {
      post({ kind: 'results', index, results: own.slice(k, k + RESULTS_PER_MESSAGE) });
    }
    const { from, statuses, marks } = judged;
    post({ kind: 'judged', head: { index, before: judged.results.length, from, statuses, marks, own: own.length } });
  }
  report(total);
  post({ kind: 'done' });
}

parentPort?.on('message', (request: JudgeRequest) => {
  if (request.kind === 'turns') {
    for (const turn of request.turns) turns.push(turn);
    return;
  }
  try {
    judge(request);
  } catch (error) {
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  }
});
