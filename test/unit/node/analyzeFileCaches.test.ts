// Tests for analyzeFile's caches and overlap (src/node/analyzeFile.ts, TokenPool.start): on the incident sample
// and a real Claude Code session of the shared corpus, the analysis made with the evidence worked out while the
// tokens are counted equals the plain analysis (counted in this thread, no caches); a re-analysis with the
// file's kept caches is the same again and works out no evidence and counts no token again. A started pool
// counts as a cold one and takes its first job on the started worker. A one-shot analysis (the CLI's) and one
// whose evidence cache is far too small to hold the file's pieces (worked out again when let go) equal it too; a
// one-shot analysis keeps a small evidence cache for a file of one checkpoint, the default for several.
// The analysis runs in slices: a timer runs meanwhile, and an abort meanwhile rejects; two analyses of one file
// started together run one after the other.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { DEFAULT_EVIDENCE_CACHE_CHARS, EvidenceCache } from '../../../src/core/evidenceCache';
import type { Checkpoint, Transcript, Turn } from '../../../src/core/model';
import { analyzeFile, analyzeTranscript, ONE_SHOT_EVIDENCE_CHARS } from '../../../src/node/analyzeFile';
import { DigestTokenCache } from '../../../src/node/digestTokenCache';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { TokenPool } from '../../../src/node/tokenPool';
import { skipOrFailInCi, skipWithoutShared } from '../../sharedFolder';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus/claude-code');
const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
const SETTINGS = { encoding: 'o200k_base', ratioFloor: 5 } as const;

async function checkCaches(path: string): Promise<void> {
  const pool = new TokenPool();
  try {
    const { file, analysis, tokenCache, evidenceCache, checkpointMemo } = await analyzeFile(path, {}, pool, SETTINGS);
    const plain = analyze(file.transcript, { countTokens: createTokenCounter('o200k_base'), ratioFloor: 5 });
    assert.deepEqual(analysis, plain);
    const { misses } = evidenceCache.stats;
    const counted = tokenCache.size;
    const again = await analyzeTranscript(file.transcript, { tokenCache, evidenceCache }, pool, SETTINGS);
    assert.deepEqual(again, plain);
    assert.equal(evidenceCache.stats.misses, misses, 'no evidence worked out again');
    assert.equal(tokenCache.size, counted, 'no token counted again');
    // With the file's memo too (the extension's way): every checkpoint reused, nothing judged or looked up again.
    const stats = { ...evidenceCache.stats };
    const memoised = await analyzeTranscript(file.transcript, { tokenCache, evidenceCache, checkpointMemo }, pool, SETTINGS);
    assert.deepEqual(memoised, plain);
    assert.deepEqual(evidenceCache.stats, stats, 'no evidence looked up: no checkpoint judged again');
    // One-shot: the same analysis, nothing kept for a re-analysis.
    const once = await analyzeFile(path, {}, pool, SETTINGS, { oneShot: true });
    assert.deepEqual(once.analysis, plain);
    assert.equal(once.evidenceCache.size, 0);
    assert.equal(once.checkpointMemo.kept(0), undefined);
    // A cache that holds a few turns' pieces at most: the rest are worked out again, with the same result.
    for (const maxChars of [0, 500]) {
      const small = new EvidenceCache({ maxChars });
      const bounded = await analyzeTranscript(file.transcript, { tokenCache: new Map(), evidenceCache: small }, pool, SETTINGS);
      assert.deepEqual(bounded, plain);
      assert.ok(small.size <= maxChars);
    }
  } finally {
    pool.dispose();
  }
}

describe('node/analyzeFile: caches and overlap', function () {
  this.timeout(60_000);

  it('analyses the incident sample as a plain analysis does, and again from its caches', async () => {
    await checkCaches(SAMPLE);
  });

  it('analyses a real Claude Code session as a plain analysis does, and again from its caches', async function () {
    skipWithoutShared(this, existsSync(CORPUS), `the corpus at ${CORPUS}`);
    const name = readdirSync(CORPUS)
      .filter((n) => n.endsWith('.jsonl.gz'))
      .sort()[0];
    if (!name) skipOrFailInCi(this, `no .jsonl.gz session in ${CORPUS}`);
    await checkCaches(join(CORPUS, name));
  });

  it('gives a one-shot analysis of one checkpoint a small evidence cache, and one of several the default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-one-shot-'));
    const pool = new TokenPool();
    try {
      // The sample has one checkpoint: the small cache. (Its claimed turns hold less than the small bound; past it,
      // their evidence is worked out in each pass, not kept, which checkCaches' caches of 0 and 500 characters hold
      // equal to the plain analysis.)
      const one = await analyzeFile(SAMPLE, {}, pool, SETTINGS, { oneShot: true });
      assert.equal(one.evidenceCache.limit, ONE_SHOT_EVIDENCE_CHARS);
      // Two checkpoints, the second claiming the turns the first does too: their evidence is kept for both.
      const turn = (id: number): string =>
        `${JSON.stringify({ type: 'turn', id, role: 'user', content: `Fix src/mod${id}.ts: EXPIRY_${id} is wrong.` })}\n`;
      const checkpoint = (id: string, to: number): string =>
        `${JSON.stringify({ type: 'checkpoint', summary_id: id, summary: 'Fixed src/mod0.ts and EXPIRY_1.', summary_budget: 500, covered: { from: 0, to } })}\n`;
      const path = join(dir, 'two.jsonl');
      writeFileSync(path, turn(0) + turn(1) + turn(2) + checkpoint('S1', 2) + turn(3) + checkpoint('S2', 3));
      const two = await analyzeFile(path, {}, pool, SETTINGS, { oneShot: true });
      assert.equal(two.analysis.checkpoints.length, 2);
      assert.equal(two.evidenceCache.limit, DEFAULT_EVIDENCE_CACHE_CHARS);
      const plain = analyze(two.file.transcript, { countTokens: createTokenCounter('o200k_base'), ratioFloor: 5 });
      assert.deepEqual(two.analysis, plain);
      // Not one-shot (the extension's analysis, kept for the next): the default whatever the checkpoints.
      const kept = await analyzeFile(SAMPLE, {}, pool, SETTINGS);
      assert.equal(kept.evidenceCache.limit, DEFAULT_EVIDENCE_CACHE_CHARS);
    } finally {
      pool.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("asks for a full collection once, between the read and the analysis, only when a one-shot file's texts went to disk", async () => {
    const pool = new TokenPool();
    try {
      const plain = (await analyzeFile(SAMPLE, {}, pool, SETTINGS, { oneShot: true })).analysis;
      const calls: string[] = [];
      const progress = {
        oneShot: true,
        collectGarbage: () => calls.push('collect'),
        onProgress: (_: number, message: string) => {
          if (calls[calls.length - 1] !== message) calls.push(message);
        },
      };
      // The sample's texts past 0 characters: moved to disk.
      const moved = await analyzeFile(SAMPLE, { textsOnDiskPast: 0 }, pool, SETTINGS, progress);
      assert.equal(moved.file.textsOnDisk, true);
      assert.deepEqual(moved.analysis, plain);
      assert.equal(calls.filter((c) => c === 'collect').length, 1);
      assert.equal(calls[calls.indexOf('collect') - 1], 'reading…', 'after the read');
      assert.equal(calls[calls.indexOf('collect') + 1], 'counting tokens…', 'before the analysis');
      // Texts kept in memory (the default bound), or not one-shot: no collection asked for.
      calls.length = 0;
      const kept = await analyzeFile(SAMPLE, {}, pool, SETTINGS, progress);
      assert.equal(kept.file.textsOnDisk, false);
      await analyzeFile(SAMPLE, { textsOnDiskPast: 0 }, pool, SETTINGS, { ...progress, oneShot: false });
      assert.equal(calls.includes('collect'), false);
    } finally {
      pool.dispose();
    }
  });

  it("counts in one worker, into counts keyed by digest, when a one-shot file's texts went to disk; else as before", async () => {
    const asked: (number | undefined)[] = [];
    class Watched extends TokenPool {
      override count(...args: Parameters<TokenPool['count']>): Promise<number[]> {
        asked.push(args[4]?.maxWorkers);
        return super.count(...args);
      }
    }
    const pool = new Watched();
    try {
      const kept = await analyzeFile(SAMPLE, {}, pool, SETTINGS, { oneShot: true });
      assert.deepEqual(asked, [undefined], 'texts in memory: no limit');
      assert.ok(kept.tokenCache instanceof Map, 'texts in memory: counts keyed by text');
      const moved = await analyzeFile(SAMPLE, { textsOnDiskPast: 0 }, pool, SETTINGS, { oneShot: true });
      assert.equal(moved.file.textsOnDisk, true);
      assert.deepEqual(asked, [undefined, 1], 'texts on disk: one worker');
      assert.ok(moved.tokenCache instanceof DigestTokenCache, 'texts on disk: counts keyed by digest');
      assert.equal(moved.tokenCache.size, kept.tokenCache.size);
      assert.deepEqual(moved.analysis, kept.analysis);
    } finally {
      pool.dispose();
    }
  });

  it('counts a one-shot file whose texts went to disk before judging it, and ends the worker first', async () => {
    const events: string[] = [];
    class Watched extends TokenPool {
      override async count(...args: Parameters<TokenPool['count']>): Promise<number[]> {
        const counts = await super.count(...args);
        events.push('counted');
        return counts;
      }
    }
    const pool = new Watched();
    const turnSink = {
      begin: () => events.push(`judging, ${pool.workerCount} workers`),
      turn: () => undefined,
    };
    try {
      await analyzeFile(SAMPLE, { textsOnDiskPast: 0 }, pool, SETTINGS, { oneShot: true, turnSink });
      const firstJudged = events.findIndex((event) => event.startsWith('judging'));
      assert.ok(firstJudged > 0, events.join('; '));
      assert.equal(events.lastIndexOf('counted'), firstJudged - 1, `every count before the judging: ${events.join('; ')}`);
      assert.equal(events[firstJudged], 'judging, 0 workers');
    } finally {
      pool.dispose();
    }
  });

  it('counts on a started pool as createTokenCounter does, the first job on the started worker', async () => {
    const pool = new TokenPool({ maxWorkers: 2 });
    try {
      pool.start();
      assert.equal(pool.workerCount, 1);
      pool.start();
      assert.equal(pool.workerCount, 1, 'a second start starts no second worker');
      const texts = ['hello world', 'Posted LEDGER_ENTRY_1001 to src/ledger/batch_1.ts', ''];
      const counts = await pool.count(texts, 'o200k_base');
      const here = createTokenCounter('o200k_base');
      assert.deepEqual(
        counts,
        texts.map((t) => here(t)),
      );
      assert.equal(pool.workerCount, 1, 'a small job goes to the started worker rather than starting another');
    } finally {
      pool.dispose();
    }
  });

  it('lets the event loop run while it judges and analyses, and rejects with an AbortError when aborted meanwhile', async () => {
    // 5,000 claimed turns and a summary with recorded counts: nothing to count, so this thread's judging and analysis are the
    // whole job (hundreds of milliseconds, many times a slice).
    const turns: Turn[] = Array.from({ length: 5000 }, (_, i) => ({
      id: i,
      role: 'user',
      text: `Changed src/part_${i}.ts for TASK-${10_000 + i} after the ledger check`,
      tokens: 12,
      span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
    }));
    const cp: Checkpoint = {
      summaryId: 'S1',
      summary: 'TASK-10001 in src/part_1.ts',
      summaryBudget: 100_000,
      recordedSummaryTokens: 9,
      claimedIds: turns.map((t) => t.id),
      turnsBefore: turns.length,
      span: { startLine: 5001, endLine: 5001, startOffset: 0, endOffset: 0 },
    };
    const transcript: Transcript = { format: 'canonical', turns, checkpoints: [cp], problems: [], lineCount: 5001 };
    const pool = new TokenPool();
    try {
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 1);
      const reports: [number, string][] = [];
      const analysis = await analyzeTranscript(transcript, { tokenCache: new Map() }, pool, SETTINGS, {
        onProgress: (fraction, message) => reports.push([fraction, message]),
      }).finally(() => clearInterval(ticking));
      assert.deepEqual(analysis, analyze(transcript, { countTokens: () => 0, ratioFloor: 5 }));
      assert.ok(ticks > 0, 'a timer ran while the analysis went on');
      // Nothing to count: the progress is the judging's, from 0 to 1, never going back.
      assert.ok(reports.length >= 5, `${reports.length} progress reports`);
      assert.ok(
        reports.every(([f], i) => i === 0 || f >= reports[i - 1][0]),
        'the fraction never goes back',
      );
      assert.deepEqual(reports.at(-1), [1, 'judging turns… 100%']);
      assert.ok(reports.some(([f, m]) => f > 0 && f < 1 && /^judging turns… \d+%$/.test(m)));

      const controller = new AbortController();
      setImmediate(() => controller.abort());
      await assert.rejects(analyzeTranscript(transcript, { tokenCache: new Map() }, pool, SETTINGS, { signal: controller.signal }), {
        name: 'AbortError',
      });
    } finally {
      pool.dispose();
    }
  });

  it('analyses of one file (one memo) started together run one after the other, each as a plain analysis', async () => {
    // Snapshot A, then B: the same file rewritten (every turn a new object; in A every other turn is a tool's
    // result answering the call before it, in B there are no calls; B's checkpoint claims fewer turns). An
    // analysis of A that saw the memo synced to B would judge A's calls as unanswered.
    const make = (n: number, tag: string, claimed: number, calls: boolean): Transcript => {
      const turns: Turn[] = Array.from({ length: n }, (_, i) => {
        const call = `[tool call Read] {"file_path":"src/${tag}_${i}.ts"}`;
        const t: Turn = {
          id: i,
          role: calls ? (i % 2 === 0 ? 'assistant' : 'tool') : 'user',
          text: calls && i % 2 === 0 ? call : `${tag}: changed src/part_${i}.ts for TASK-${10_000 + i}`,
          tokens: 10,
          span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
        };
        if (calls && i % 2 === 1) t.answers = { turnId: i - 1, callText: `[tool call Read] {"file_path":"src/${tag}_${i - 1}.ts"}` };
        return t;
      });
      const cp: Checkpoint = {
        summaryId: 'S1',
        summary: `${tag} TASK-10001 in src/part_1.ts and src/${tag}_8.ts`,
        summaryBudget: 100_000,
        recordedSummaryTokens: 9,
        claimedIds: turns.slice(0, claimed).map((t) => t.id),
        turnsBefore: n,
        span: { startLine: n + 1, endLine: n + 1, startOffset: 0, endOffset: 0 },
      };
      return { format: 'canonical', turns, checkpoints: [cp], problems: [], lineCount: n + 1 };
    };
    const a = make(3000, 'first', 3000, true);
    const b = make(3000, 'second', 10, false);
    const plainA = analyze(a, { countTokens: () => 0, ratioFloor: 5 });
    const plainB = analyze(b, { countTokens: () => 0, ratioFloor: 5 });
    const pool = new TokenPool();
    try {
      // B asked for at once, or a few moments into A (A judging, A analysing).
      for (const delayMs of [0, 10, 40, 80, 120]) {
        const caches = { tokenCache: new Map(), evidenceCache: new EvidenceCache(), checkpointMemo: new CheckpointMemo() };
        const first = analyzeTranscript(a, caches, pool, SETTINGS);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const second = analyzeTranscript(b, caches, pool, SETTINGS);
        assert.deepEqual(await first, plainA);
        assert.deepEqual(await second, plainB);
        // What the memo kept is true of B, the snapshot analysed last.
        assert.deepEqual(await analyzeTranscript(b, caches, pool, SETTINGS), plainB, `B asked for ${delayMs} ms into A`);
      }
    } finally {
      pool.dispose();
    }
  });
});
