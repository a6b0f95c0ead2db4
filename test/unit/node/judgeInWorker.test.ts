// Tests for judging in a worker thread (src/node/judgeInWorker.ts, src/node/judgeWorker.ts, src/core/judgedParts.ts),
// with the real worker (out/src/node/judgeWorker.js): on the incident sample, generated transcripts (several
// checkpoints, the summariser's report, an encrypted summary) and every file of the shared corpus, the analysis
// that takes the worker's judgements equals the one judged here, and judges nothing again; analyzeFile with
// judgeWorker gives the same analysis, and falls back to judging here, saying why, when the worker cannot start;
// an abort rejects with an AbortError. Judgements whose parts do not fit the transcript are not kept, and a turn's
// plain copy has every field the judging reads.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join, resolve } from 'node:path';
import { analyze, checkpointsToJudge } from '../../../src/core/analyze';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { keepJudged, type JudgedHead } from '../../../src/core/judgedParts';
import { JudgementCache } from '../../../src/core/judgementCache';
import type { Checkpoint, Transcript, Turn, TurnResult } from '../../../src/core/model';
import { runSteps } from '../../../src/core/steps';
import { analyzeFile } from '../../../src/node/analyzeFile';
import { CLAIMS_PER_MESSAGE, JudgeWorker, judgeInWorker, plainTurn, TURN_FIELDS, turnGroups } from '../../../src/node/judgeInWorker';
import { RESULTS_PER_MESSAGE, type JudgeReply, type JudgeRequest } from '../../../src/node/judgeWorker';
import { TokenPool } from '../../../src/node/tokenPool';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { corpusFiles } from '../../corpusFiles';
import { skipOrFailInCi } from '../../sharedFolder';
import { checkpoint, incident, range, transcript, turn } from '../core/transcripts';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus');
const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const OPTIONS = { ratioFloor: 5 };

/** Judges every checkpoint judgeAhead would judge in the worker; checks the analysis that takes them. */
async function judgedAlike(t: Transcript, what: string): Promise<void> {
  const plan = runSteps(checkpointsToJudge(t, OPTIONS));
  const judgements = new JudgementCache();
  const kept = await judgeInWorker(
    t,
    plan.map((p) => p.index),
    OPTIONS,
    judgements,
  );
  assert.equal(kept, plan.length, `${what}: every judgement kept`);
  const evidenceCache = new EvidenceCache();
  const taking = analyze(t, { ...OPTIONS, countTokens: words, judgements, evidenceCache });
  assert.deepEqual(taking, analyze(t, { ...OPTIONS, countTokens: words }), what);
  assert.equal(evidenceCache.stats.misses + evidenceCache.stats.hits, 0, `${what}: no evidence looked up here`);
}

/** Three checkpoints over sixty turns: their own segments, the second with the summariser's report, the third encrypted. */
function generated(): Transcript {
  const turns = Array.from({ length: 60 }, (_, i) =>
    turn(i, `Changed src/part_${i}.ts for TASK-${100 + i}`, i % 4 === 0 ? { tokens: 9 } : {}),
  );
  return transcript(turns, [
    checkpoint({ summaryId: 'S1', summary: 'TASK-101 and src/part_2.ts', summaryBudget: 50, claimedIds: range(0, 19), turnsBefore: 20 }),
    checkpoint({
      summaryId: 'S2',
      summary: 'TASK-125',
      summaryBudget: 50,
      claimedIds: range(20, 39),
      reportedIds: range(20, 29),
      turnsBefore: 40,
    }),
    checkpoint({ summaryId: 'S3', summary: '', opaque: true, summaryBudget: 50, claimedIds: range(0, 59), turnsBefore: 60 }),
  ]);
}

describe('node/judgeInWorker: judging in a worker thread', function () {
  this.timeout(120_000);

  it('gives the judgements judged here, for generated transcripts and the sample', async () => {
    await judgedAlike(generated(), 'generated');
    await judgedAlike(incident(false), 'incident, anchors derived');
    await judgedAlike(incident(true, range(0, 379)), 'incident, reported');
    const sample = await TranscriptFile.open(SAMPLE, {});
    await judgedAlike(sample.transcript, SAMPLE);
  });

  it('sends long turns a few at a time, and gives the same judgements', async () => {
    // Six turns of 2.5M characters: the turns go in groups of 4M characters or so, not 2,000 turns at once.
    const long = (i: number) => `Edited src/long_${i}.ts for LONG-${i}. `.repeat(70_000);
    const turns = Array.from({ length: 6 }, (_, i) => turn(i, long(i)));
    const t = transcript(turns, [
      checkpoint({ summaryId: 'S1', summary: 'LONG-1 in src/long_1.ts', summaryBudget: 50, claimedIds: range(0, 5), turnsBefore: 6 }),
    ]);
    assert.deepEqual(
      [...turnGroups(turns)].map((group) => group.length),
      [2, 2, 2],
    );
    await judgedAlike(t, 'long turns');
    const short = Array.from({ length: 5000 }, (_, i) => turn(i, `turn ${i}`));
    assert.deepEqual(
      [...turnGroups(short)].map((group) => group.length),
      [2000, 2000, 1000],
    );
  });

  it('sends the claimed ids of a checkpoint in parts, and gives the same judgements', async () => {
    const n = 2 * CLAIMS_PER_MESSAGE + 5;
    const turns = Array.from({ length: n }, (_, i) => turn(i, i % 7 === 0 ? `Fixed BUG-${i} in src/f${i}.ts` : `ok ${i}`));
    const malformed = {
      ...checkpoint({ summaryId: 'S2', summary: 'BUG-14', summaryBudget: 50, claimedIds: [], turnsBefore: n }),
      claimedIds: 'all',
    };
    const t = transcript(turns, [
      checkpoint({ summaryId: 'S1', summary: 'BUG-7 and BUG-21', summaryBudget: 50, claimedIds: range(0, n - 1), turnsBefore: n }),
      malformed as unknown as Checkpoint,
    ]);
    // What the worker is sent, seen through Worker's prototype.
    const sent: JudgeRequest[] = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
      sent.push(message as JudgeRequest);
      return (post as (...args: unknown[]) => void).call(this, message, ...rest);
    } as typeof post;
    try {
      await judgedAlike(t, 'claims in parts');
    } finally {
      Worker.prototype.postMessage = post;
    }
    const parts = sent.filter((m) => m.kind === 'claims');
    assert.deepEqual(
      parts.map((m) => [m.index, m.ids.length]),
      [
        [0, CLAIMS_PER_MESSAGE],
        [0, CLAIMS_PER_MESSAGE],
        [0, 5],
      ],
    );
    assert.deepEqual(
      parts.flatMap((m) => m.ids),
      t.checkpoints[0].claimedIds,
      'the parts are the claimed ids, in order',
    );
    const job = sent.find((m) => m.kind === 'judge');
    assert.ok(job?.kind === 'judge');
    assert.deepEqual(job.claimsApart, [0]);
    assert.deepEqual(job.checkpoints[0].claimedIds, [], 'the ids went before the job, not with it');
    assert.equal(job.checkpoints[1].claimedIds, 'all', 'a checkpoint whose claimed ids are not a list goes as it is');
  });

  it('sends the results as they are judged, before the checkpoint is judged whole', async () => {
    const n = 3 * RESULTS_PER_MESSAGE + 100;
    const turns = Array.from({ length: n }, (_, i) => turn(i, `Fixed BUG-${i} in src/f${i}.ts`));
    const t = transcript(turns, [
      checkpoint({ summaryId: 'S1', summary: 'BUG-7 and BUG-21', summaryBudget: 50, claimedIds: range(0, n - 1), turnsBefore: n }),
    ]);
    // What the worker sends, seen through Worker's prototype: each message's kind, and a progress's turns done.
    const received: string[] = [];
    const emit = Worker.prototype.emit;
    Worker.prototype.emit = function (this: Worker, name: string | symbol, ...args: unknown[]) {
      const reply = args[0] as JudgeReply;
      if (name === 'message') received.push(reply.kind === 'progress' ? `progress ${reply.done}` : reply.kind);
      return emit.call(this, name, ...args);
    } as typeof emit;
    try {
      await judgedAlike(t, 'results as judged');
    } finally {
      Worker.prototype.emit = emit;
    }
    assert.equal(received.filter((kind) => kind === 'results').length, 4);
    const firstResults = received.indexOf('results');
    const progressAfter = received.slice(firstResults).filter((kind) => kind.startsWith('progress ') && kind !== `progress ${n}`);
    assert.ok(progressAfter.length > 0, `the first results came once all was judged: ${received.join(', ')}`);
  });

  it('gives the judgements judged here for every file of the shared corpus', async function () {
    if (!existsSync(CORPUS)) skipOrFailInCi(this, `the shared corpus folder ${CORPUS} is absent`);
    const files = corpusFiles(CORPUS);
    assert.ok(files.length >= 10, `${files.length} corpus files`);
    for (const path of files) {
      const file = await TranscriptFile.open(path, {});
      await judgedAlike(file.transcript, path);
    }
  });

  it('is what analyzeFile does with judgeWorker, and it falls back to judging here when the worker fails', async () => {
    const pool = new TokenPool();
    try {
      const settings = { encoding: 'o200k_base', ratioFloor: 5 } as const;
      const plain = await analyzeFile(SAMPLE, {}, pool, settings);
      const progress: string[] = [];
      const inWorker = await analyzeFile(SAMPLE, {}, pool, settings, {
        judgeWorker: { minTurns: 0, onFallback: (why) => assert.fail(`fell back: ${why}`) },
        onProgress: (_fraction, message) => progress.push(message),
      });
      assert.deepEqual(inWorker.analysis, plain.analysis);
      assert.equal(inWorker.evidenceCache.stats.misses, 0, 'nothing judged here');
      assert.ok(progress.some((m) => /^judging turns… \d+%$/.test(m)));
      const why: string[] = [];
      const fallen = await analyzeFile(SAMPLE, {}, pool, settings, {
        judgeWorker: { minTurns: 0, workerFile: join(__dirname, 'no-such-worker.js'), onFallback: (reason) => why.push(reason) },
      });
      assert.deepEqual(fallen.analysis, plain.analysis);
      assert.equal(why.length, 1);
      assert.match(why[0], /judging worker/);
      // The work is the claimed turns': two checkpoints after 500 and 1,000 turns, claiming 10 each, are 20 turns
      // to judge, not 1,500, so minTurns 100 keeps the judging here and 20 sends it to the worker.
      const dir = mkdtempSync(join(tmpdir(), 'cl-judge-'));
      try {
        const file = join(dir, 'few-claimed.jsonl');
        const records: unknown[] = Array.from({ length: 1000 }, (_, i) => ({
          type: 'turn',
          id: i,
          role: 'user',
          content: `Edited src/f_${i}.ts for T-${i}`,
        }));
        const checkpoint = (id: string, last: number) => ({
          type: 'checkpoint',
          summary_id: id,
          summary: `T-${last - 4}`,
          summary_budget: 500,
          covered: { from: last - 9, to: last },
        });
        records.splice(500, 0, checkpoint('S1', 499));
        records.push(checkpoint('S2', 999));
        writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
        const here = await analyzeFile(file, {}, pool, settings, { judgeWorker: { minTurns: 100 } });
        assert.ok(here.evidenceCache.stats.misses > 0, 'judged here');
        const there = await analyzeFile(file, {}, pool, settings, {
          judgeWorker: { minTurns: 20, onFallback: (reason) => assert.fail(reason) },
        });
        assert.equal(there.evidenceCache.stats.misses, 0, 'judged in the worker');
        assert.deepEqual(there.analysis, here.analysis);
        assert.deepEqual(
          there.analysis.checkpoints.map((cp) => cp.claimedIds.length),
          [10, 10],
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // Below minTurns, no worker: the judging is done here.
      const small = await analyzeFile(SAMPLE, {}, pool, settings, { judgeWorker: { onFallback: (reason) => assert.fail(reason) } });
      assert.deepEqual(small.analysis, plain.analysis);
      assert.ok(small.evidenceCache.stats.misses > 0, 'judged here');
    } finally {
      pool.dispose();
    }
  });

  it('a JudgeWorker kept between jobs gives the same judgements and works out no evidence again', async () => {
    const worker = new JudgeWorker();
    try {
      assert.equal(worker.running, false, 'no thread before the first job');
      const t = generated();
      const plan = runSteps(checkpointsToJudge(t, OPTIONS)).map((p) => p.index);
      const expected = analyze(t, { ...OPTIONS, countTokens: words });
      const judgedBy = async (transcript: Transcript): Promise<void> => {
        const judgements = new JudgementCache();
        const job = await worker.judge(transcript, plan, OPTIONS, judgements);
        assert.equal(job.kept, plan.length);
        assert.deepEqual(analyze(transcript, { ...OPTIONS, countTokens: words, judgements }), expected);
      };
      await judgedBy(t);
      assert.ok(worker.running && worker.idle);
      assert.ok(worker.lastJob !== undefined && worker.lastJob.evidence.misses > 0, 'the first job works out the evidence');
      // A second job, on a new snapshot of the same file (copies of its turns, as a reload reads them).
      await judgedBy({ ...t, turns: t.turns.map((turn) => ({ ...turn })) });
      assert.equal(worker.jobs, 2, 'the same thread');
      assert.equal(worker.lastJob?.evidence.misses, 0, 'no evidence worked out again');
      assert.ok((worker.lastJob?.evidence.hits ?? 0) > 0);
      // Jobs asked for at once run one after the other on the thread.
      await Promise.all([judgedBy(t), judgedBy(t)]);
      assert.equal(worker.jobs, 4);
    } finally {
      worker.dispose();
    }
    assert.equal(worker.running, false, 'disposed: the thread ended');
    await assert.rejects(worker.judge(generated(), [0], OPTIONS, new JudgementCache()), /disposed/);
  });

  it('a JudgeWorker whose job was aborted, or whose thread stopped, starts a new thread for the next job', async () => {
    const worker = new JudgeWorker();
    try {
      const t = generated();
      const plan = runSteps(checkpointsToJudge(t, OPTIONS)).map((p) => p.index);
      const controller = new AbortController();
      const aborted = worker.judge(t, plan, OPTIONS, new JudgementCache(), { signal: controller.signal });
      controller.abort();
      await assert.rejects(aborted, { name: 'AbortError' });
      assert.equal(worker.running, false, 'the aborted thread ended');
      assert.equal((await worker.judge(t, plan, OPTIONS, new JudgementCache())).kept, plan.length);
      assert.equal(worker.jobs, 1, 'a new thread');
      // The thread stops while it waits (a crash, say): the next job does not wait on it.
      const thread = (worker as unknown as { worker: import('node:worker_threads').Worker }).worker;
      await thread.terminate();
      assert.equal(worker.running, false);
      assert.equal((await worker.judge(t, plan, OPTIONS, new JudgementCache())).kept, plan.length);
      assert.ok(worker.running);
    } finally {
      worker.dispose();
    }
  });

  it('a JudgeWorker retired while it judges finishes the job, then ends its thread', async () => {
    const worker = new JudgeWorker();
    const t = generated();
    const plan = runSteps(checkpointsToJudge(t, OPTIONS)).map((p) => p.index);
    const job = worker.judge(t, plan, OPTIONS, new JudgementCache());
    worker.retire();
    assert.equal(worker.ended, true);
    await assert.rejects(worker.judge(t, plan, OPTIONS, new JudgementCache()), /disposed/, 'a job asked after it was retired');
    assert.equal((await job).kept, plan.length, 'the job under way was judged');
    assert.equal(worker.running, false, 'the thread ended after it');
    const idle = new JudgeWorker();
    idle.retire();
    await assert.rejects(idle.judge(t, plan, OPTIONS, new JudgementCache()), /disposed/);
    assert.equal(idle.running, false);
  });

  it('rejects with an AbortError when aborted, before or while it runs', async () => {
    const t = incident(false);
    const controller = new AbortController();
    const running = judgeInWorker(t, [0], OPTIONS, new JudgementCache(), { signal: controller.signal });
    controller.abort();
    await assert.rejects(running, { name: 'AbortError' });
    await assert.rejects(judgeInWorker(t, [0], OPTIONS, new JudgementCache(), { signal: controller.signal }), { name: 'AbortError' });
  });
});

describe('core/judgedParts: a judgement rebuilt from its parts', () => {
  /** The worker's parts of checkpoint `index` of `t`, made here: its head and own results. */
  function parts(t: Transcript, index: number): { head: JudgedHead; own: TurnResult[] } {
    const made = new JudgementCache();
    analyze(t, { ...OPTIONS, countTokens: words, judgements: made });
    const judged = made.judgedAt(index)!;
    const shared = made.unclaimedOf(t.turns);
    const own = judged.results!.filter((r) => r !== shared[r.index]);
    const { from, statuses, marks, rules } = judged;
    return { head: { index, before: judged.results!.length, from, statuses, marks, rules, own: own.length }, own };
  }

  it('keeps parts that fit, and refuses those of another snapshot or damaged ones', () => {
    const t = generated();
    const { head, own } = parts(t, 1);
    assert.equal(own.length, 40, 'S2 claims 20 turns and reports on all 40 before it');
    assert.equal(keepJudged(t, {}, new JudgementCache(), head, own), true);
    const refused = (h: JudgedHead, o: typeof own, x: Transcript = t): void =>
      assert.equal(keepJudged(x, {}, new JudgementCache(), h, o), false);
    refused({ ...head, before: 39 }, own);
    refused({ ...head, own: 39 }, own.slice(1));
    refused(head, own.slice(1));
    refused({ ...head, index: 7 }, own);
    refused({ ...head, marks: head.marks.slice(1) }, own);
    refused({ ...head, rules: head.rules.slice(1) }, own);
    refused(head, [{ ...own[0], id: 'another' }, ...own.slice(1)]);
    const shorter = transcript(t.turns.slice(0, 30), t.checkpoints);
    refused(head, own, shorter);
    // Without a report, a claimed turn's result left out is not taken for an unclaimed one.
    const s1 = parts(t, 0);
    assert.equal(s1.own.length, 20);
    assert.equal(keepJudged(t, {}, new JudgementCache(), s1.head, s1.own), true);
    refused({ ...s1.head, own: 19 }, s1.own.slice(1));
  });

  it('copies every field a turn may have, getters included', () => {
    const full: Turn = {
      id: 'x',
      role: 'tool',
      text: 'result',
      tokens: 3,
      anchor: 'A-1',
      span: { startLine: 2, endLine: 3, startOffset: 10, endOffset: 40 },
      externalSource: 'parent.jsonl',
      label: 'Read',
      answers: { turnId: 'c', callText: '[tool call Read] a.ts' },
      error: true,
      reasoning: 'to see a.ts',
    };
    assert.deepEqual(Object.keys(full).sort(), Object.keys(TURN_FIELDS).sort(), 'the test turn has every field');
    assert.deepEqual(plainTurn(full), full);
    const lazy = Object.create({
      get text() {
        return 'made when asked';
      },
      get span() {
        return full.span;
      },
    }) as Turn;
    Object.assign(lazy, { id: 1, role: 'user' });
    assert.deepEqual(plainTurn(lazy), { id: 1, role: 'user', text: 'made when asked', span: full.span });
  });
});
