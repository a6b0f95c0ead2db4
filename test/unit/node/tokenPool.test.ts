// Tests for TokenPool (worker-thread token counting) and warmTokenCache: counts equal createTokenCounter's on
// a mixed corpus (prose, code, JSON, '<|endoftext|>', long unbroken runs, texts long enough to be cut into
// pieces), progress, cancellation, dispose, idle workers ending, a worker that cannot start (fallback to this
// thread, reported once), workers that crash (their batches are counted again), and analyze after warming
// the cache calling the counter for nothing.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { Worker } from 'node:worker_threads';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyze, textsToCount, textsToCountInSteps } from '../../../src/core/analyze';
import { runSteps } from '../../../src/core/steps';
import type { Transcript, Turn } from '../../../src/core/model';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { defaultWorkerFile, piecesOf, TokenPool } from '../../../src/node/tokenPool';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { SENT_AT_ONCE_CHARS, warmTokenCache } from '../../../src/node/warmTokenCache';
import { skipOrFailInCi, skipWithoutShared } from '../../sharedFolder';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus/claude-code');
const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');

/** Resolves as soon as `condition` holds; fails the test with `what` if it never does within 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function mixedTexts(): string[] {
  const prose = 'The summariser dropped turns 380–419; the pointer set still claims them. ';
  const code = 'export function f(x: number): number {\n  return x * 2; // doubled\n}\n';
  const json = JSON.stringify({ tool: 'Read', path: '/home/u/src/a.ts', lines: [1, 2, 3], ok: true, note: 'ünïcödé 🚀' });
  const base64 = Buffer.from(Array.from({ length: 60_000 }, (_, i) => (i * 7919) % 256)).toString('base64');
  return [
    '',
    'hello',
    '<|endoftext|>',
    `before <|endoftext|> after <|im_start|>system<|im_end|>`,
    prose.repeat(40),
    code.repeat(200),
    json,
    'a'.repeat(30_000), // an unbroken run: quadratic for BPE unless cut
    '-'.repeat(12_345) + ' tail',
    base64,
    ' '.repeat(20_000) + 'x', // a whitespace run longer than a chunk
    '日本語のテキスト、句読点つき。'.repeat(500),
    // Long enough to be sent in pieces (> 256k characters), mixing everything above.
    [prose, code, json, 'z'.repeat(9_000), '<|endoftext|>', ' '.repeat(9_000), base64.slice(0, 50_000)].join('\n').repeat(4),
  ];
}

describe('node/tokenPool', function () {
  this.timeout(120_000);
  let pool: TokenPool;
  const direct = createTokenCounter('o200k_base');

  before(() => {
    assert.ok(existsSync(defaultWorkerFile()), `the worker is compiled beside the pool: ${defaultWorkerFile()}`);
    pool = new TokenPool({ maxWorkers: 2, maxBatchBytes: 32 * 1024, spawnBytes: 0 });
  });
  after(() => pool.dispose());

  it("cuts a long text into pieces whose counts add up to the whole text's", () => {
    const long = mixedTexts()[mixedTexts().length - 1];
    const pieces = piecesOf(long);
    assert.ok(pieces.length > 1, 'the long text is cut');
    assert.equal(pieces.join(''), long);
    assert.equal(
      pieces.reduce((sum, piece) => sum + direct(piece), 0),
      direct(long),
    );
    assert.deepEqual(piecesOf('short'), ['short']);
  });

  it('counts as createTokenCounter does, on a mixed corpus, with progress up to the total', async () => {
    const texts = mixedTexts();
    const progress: [number, number][] = [];
    const counts = await pool.count(texts, 'o200k_base', undefined, (done, total) => progress.push([done, total]));
    assert.deepEqual(
      counts,
      texts.map((text) => direct(text)),
    );
    assert.ok(progress.length > 4, `progress reported per batch (${progress.length})`);
    const total = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    assert.deepEqual(progress[progress.length - 1], [total, total]);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i][0] > progress[i - 1][0]);
    assert.equal(pool.workerCount, 2);
    assert.equal(pool.fallbackReason, undefined);
  });

  it('starts a second worker only while enough work waits for it', async () => {
    const own = new TokenPool({ maxWorkers: 2, spawnBytes: 256 * 1024 });
    try {
      await own.count(['a small job', 'x'.repeat(50_000)], 'o200k_base');
      assert.equal(own.workerCount, 1, 'one worker for a small job');
      const texts = Array.from({ length: 40 }, (_, i) => `${mixedTexts()[4]} ${i}`); // ~120 KB
      await own.count(texts, 'o200k_base');
      assert.equal(own.workerCount, 1, 'still one');
      const big = Array.from({ length: 200 }, (_, i) => `${mixedTexts()[5]} ${i}`); // ~2.7 MB
      assert.deepEqual(
        await own.count(big, 'o200k_base'),
        big.map((text) => direct(text)),
      );
      assert.equal(own.workerCount, 2, 'a second worker for a big job');
    } finally {
      own.dispose();
    }
  });

  it('starts no second worker for a count limited to one, and counts the same', async () => {
    const own = new TokenPool({ maxWorkers: 2, maxBatchBytes: 32 * 1024, spawnBytes: 0 });
    try {
      const big = Array.from({ length: 200 }, (_, i) => `${mixedTexts()[5]} ${i}`); // ~2.7 MB
      const limited = await own.count(big, 'o200k_base', undefined, undefined, { maxWorkers: 1 });
      assert.deepEqual(
        limited,
        big.map((text) => direct(text)),
      );
      assert.equal(own.workerCount, 1, 'one worker, though every batch waited for a second');
      for (const nonsense of [0, -1, Number.NaN]) {
        const counts = await own.count(['a', 'b c'], 'o200k_base', undefined, undefined, { maxWorkers: nonsense });
        assert.deepEqual(counts, [direct('a'), direct('b c')], `a limit of ${nonsense} is no limit`);
      }
      await own.count(big, 'o200k_base');
      assert.equal(own.workerCount, 2, 'the next count without a limit starts the second');
    } finally {
      own.dispose();
    }
  });

  it('counts with cl100k_base too, and resolves an empty list at once', async () => {
    const texts = mixedTexts().slice(0, 6);
    const cl100k = createTokenCounter('cl100k_base');
    assert.deepEqual(
      await pool.count(texts, 'cl100k_base'),
      texts.map((text) => cl100k(text)),
    );
    assert.deepEqual(await pool.count([], 'o200k_base'), []);
  });

  it('counts the real Claude Code sessions of the corpus as createTokenCounter does', async function () {
    skipWithoutShared(this, existsSync(CORPUS), `the corpus at ${CORPUS}`);
    const name = readdirSync(CORPUS).find((file) => file.endsWith('.jsonl.gz'));
    if (!name) skipOrFailInCi(this, `no .jsonl.gz session in ${CORPUS}`);
    const texts = (await TranscriptFile.open(join(CORPUS, name!))).transcript.turns.map((turn) => turn.text);
    assert.deepEqual(
      await pool.count(texts, 'o200k_base'),
      texts.map((text) => direct(text)),
    );
  });

  it('rejects with an AbortError when cancelled, stops early, and counts correctly afterwards', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `${mixedTexts()[5]} ${i}`); // ~2.7 MB
    const abort = new AbortController();
    let reports = 0;
    const started = Date.now();
    await assert.rejects(
      pool.count(texts, 'o200k_base', abort.signal, () => {
        reports++;
        if (reports === 2) abort.abort();
      }),
      (error: Error) => error.name === 'AbortError',
    );
    const elapsed = Date.now() - started;
    assert.equal(reports, 2, 'no progress after the abort');
    await assert.rejects(pool.count(['x'], 'o200k_base', abort.signal), (error: Error) => error.name === 'AbortError');
    // Replies to batches still in flight when it was cancelled must not leak into the next count.
    const next = mixedTexts().slice(4, 9);
    assert.deepEqual(
      await pool.count(next, 'o200k_base'),
      next.map((text) => direct(text)),
    );
    console.log(`      (cancelled after ${elapsed} ms)`);
  });

  it('serves concurrent counts, each with its own results', async () => {
    const a = mixedTexts().slice(0, 7);
    const b = mixedTexts().slice(7);
    const [ca, cb] = await Promise.all([pool.count(a, 'o200k_base'), pool.count(b, 'o200k_base')]);
    assert.deepEqual(
      ca,
      a.map((text) => direct(text)),
    );
    assert.deepEqual(
      cb,
      b.map((text) => direct(text)),
    );
  });

  it('dispose ends the workers and rejects the counts still running, and every later count', async () => {
    const own = new TokenPool({ maxWorkers: 2, maxBatchBytes: 16 * 1024, spawnBytes: 0 });
    const running = own.count(
      Array.from({ length: 100 }, () => mixedTexts()[5]),
      'o200k_base',
    );
    await until(() => own.workerCount > 0, 'workers were started');
    own.dispose();
    await assert.rejects(running, /disposed/);
    assert.equal(own.workerCount, 0);
    await assert.rejects(own.count(['x'], 'o200k_base'), /disposed/);
  });

  it('disposeAndWait resolves once every worker it ended has exited: one still starting, one busy, one idle', async () => {
    // Each Worker the pool makes, with whether its thread has exited (its 'exit' event), seen through the prototype.
    const exited = new Map<Worker, boolean>();
    const original = Worker.prototype.terminate;
    Worker.prototype.terminate = function (this: Worker) {
      if (!exited.has(this)) {
        exited.set(this, false);
        this.once('exit', () => exited.set(this, true));
      }
      return original.call(this);
    };
    try {
      const own = new TokenPool({ maxWorkers: 2, maxBatchBytes: 16 * 1024, spawnBytes: 0, idleMs: 60_000 });
      // An idle worker (it counted), then two busy with a long count, then one just started and asked nothing.
      await own.count(['hello'], 'o200k_base');
      const running = own.count(
        Array.from({ length: 100 }, () => mixedTexts()[5]),
        'o200k_base',
      );
      await until(() => own.workerCount === 2, 'two workers were started');
      await own.disposeAndWait();
      await assert.rejects(running, /disposed/);
      assert.ok(exited.size >= 2, `${exited.size} workers ended`);
      assert.deepEqual(
        [...exited.values()],
        [...exited.values()].map(() => true),
        'every worker ended has exited',
      );
      const fresh = new TokenPool({ idleMs: 60_000 });
      fresh.start();
      await fresh.disposeAndWait();
      assert.ok([...exited.values()].every(Boolean), 'a worker still starting has exited too');
    } finally {
      Worker.prototype.terminate = original;
    }
  });

  it('ends idle workers after idleMs', async () => {
    const own = new TokenPool({ maxWorkers: 1, idleMs: 100 });
    try {
      assert.deepEqual(await own.count(['one two'], 'o200k_base'), [direct('one two')]);
      assert.equal(own.workerCount, 1);
      await until(() => own.workerCount === 0, 'the idle worker was ended');
      assert.deepEqual(await own.count(['three'], 'o200k_base'), [direct('three')], 'a new worker is spawned');
    } finally {
      own.dispose();
    }
  });

  it('retireIdle ends the idle workers at once; a later count starts one', async () => {
    const own = new TokenPool({ maxWorkers: 1 });
    try {
      assert.deepEqual(await own.count(['one two'], 'o200k_base'), [direct('one two')]);
      assert.equal(own.workerCount, 1);
      own.retireIdle();
      assert.equal(own.workerCount, 0);
      assert.deepEqual(await own.count(['three'], 'o200k_base'), [direct('three')], 'a new worker is spawned');
      assert.equal(own.workerCount, 1);
    } finally {
      own.dispose();
    }
  });

  it('start starts a worker at once and asks it nothing: the first count has it load its encoding', async () => {
    // A stand-in worker that logs when it starts and what it is asked, and "counts" characters.
    const dir = mkdtempSync(join(tmpdir(), 'cl-pool-start-'));
    const log = join(dir, 'log');
    const file = join(dir, 'logging.js');
    writeFileSync(
      file,
      `const { parentPort } = require('node:worker_threads');
       const fs = require('node:fs');
       fs.appendFileSync(${JSON.stringify(log)}, 'start\\n');
       parentPort.on('message', (r) => {
         fs.appendFileSync(${JSON.stringify(log)}, 'asked ' + r.encoding + ' ' + r.texts.join(',') + '\\n');
         parentPort.postMessage({ id: r.id, counts: r.texts.map((t) => t.length) });
       });`,
    );
    const read = (): string => (existsSync(log) ? readFileSync(log, 'utf8') : '');
    const own = new TokenPool({ workerFile: file, maxWorkers: 1 });
    try {
      own.start();
      assert.equal(own.workerCount, 1, 'the worker starts at once');
      own.start();
      assert.equal(own.workerCount, 1, 'a second start starts no second worker');
      await until(() => read() === 'start\n', 'the worker started');
      await new Promise((resolve) => setTimeout(resolve, 200)); // a warm-up sent at once would be logged by now
      assert.equal(read(), 'start\n', 'nothing asked before a count');
      assert.deepEqual(await own.count(['abc'], 'o200k_base'), [3]);
      assert.equal(read(), 'start\nasked o200k_base abc\n', 'the started worker takes the first count');
      assert.equal(own.workerCount, 1);
    } finally {
      own.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('when workers fail', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'cl-pool-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    for (const [what, source] of [
      ['does not exist', undefined],
      ['throws as it loads', 'throw new Error("broken worker");'],
      ['exits at once', 'process.exit(3);'],
    ] as const) {
      it(`counts in this thread when the worker ${what}, and says why once`, async () => {
        const file = join(dir, `${what.replace(/\W/g, '-')}.js`);
        if (source) writeFileSync(file, source);
        const reasons: string[] = [];
        const own = new TokenPool({ workerFile: file, onFallback: (reason) => reasons.push(reason) });
        try {
          const texts = source ? mixedTexts().slice(0, 9) : mixedTexts();
          assert.deepEqual(
            await own.count(texts, 'o200k_base'),
            texts.map((text) => direct(text)),
          );
          assert.deepEqual(await own.count(['again'], 'o200k_base'), [direct('again')]);
          assert.equal(reasons.length, 1);
          assert.match(reasons[0], /could not start/);
          assert.equal(own.fallbackReason, reasons[0]);
          assert.equal(own.workerCount, 0);
        } finally {
          own.dispose();
        }
      });
    }

    it("counts a crashed worker's batch again in a new worker", async () => {
      // A stand-in worker: "counts" characters; the first one exits instead of answering its third request.
      const file = join(dir, 'flaky.js');
      const crashed = join(dir, 'crashed');
      writeFileSync(
        file,
        `const { parentPort } = require('node:worker_threads');
         const fs = require('node:fs');
         let n = 0;
         parentPort.on('message', (r) => {
           n += 1;
           if (n === 3 && !fs.existsSync(${JSON.stringify(crashed)})) {
             fs.writeFileSync(${JSON.stringify(crashed)}, '');
             process.exit(1);
           }
           parentPort.postMessage({ id: r.id, counts: r.texts.map((t) => t.length) });
         });`,
      );
      const reasons: string[] = [];
      const own = new TokenPool({ workerFile: file, maxWorkers: 1, maxBatchBytes: 16 * 1024, onFallback: (r) => reasons.push(r) });
      try {
        const texts = Array.from({ length: 10 }, (_, i) => 'x'.repeat(15_000 + i));
        assert.deepEqual(
          await own.count(texts, 'o200k_base'),
          texts.map((text) => text.length),
        );
        assert.ok(existsSync(crashed), 'the worker crashed once');
        assert.deepEqual(reasons, [], 'a crash of a working worker is no reason to give up on workers');
      } finally {
        own.dispose();
      }
    });

    it('rejects a count when the worker reports an error', async () => {
      const file = join(dir, 'erring.js');
      writeFileSync(
        file,
        `require('node:worker_threads').parentPort.on('message', (r) => require('node:worker_threads').parentPort.postMessage({ id: r.id, error: 'no wasm' }));`,
      );
      const own = new TokenPool({ workerFile: file });
      try {
        await assert.rejects(own.count(['x'], 'o200k_base'), /token counting failed: no wasm/);
        // warmTokenCache then hands analyze a counter for this thread: it reports as it would without workers.
        const transcript = (await TranscriptFile.open(SAMPLE)).transcript;
        const unrecorded = {
          ...transcript,
          checkpoints: transcript.checkpoints.map((cp) => ({ ...cp, recordedSummaryTokens: undefined })),
        };
        const countTokens = await warmTokenCache(textsToCount(unrecorded), new Map(), own, 'o200k_base');
        assert.deepEqual(analyze(unrecorded, { countTokens }), analyze(unrecorded, { countTokens: direct }));
      } finally {
        own.dispose();
      }
    });
  });

  describe('warmTokenCache', () => {
    for (const [label, path] of [
      ['samples/incident.jsonl', SAMPLE],
      [
        'a real Claude Code session',
        existsSync(CORPUS) ? join(CORPUS, readdirSync(CORPUS).find((f) => f.endsWith('.jsonl.gz')) ?? '') : '',
      ],
    ]) {
      it(`${label}: analyze asks the returned counter only for pre-counted texts, and gives the same analysis`, async function () {
        skipWithoutShared(this, path !== '' && existsSync(path), path || `the corpus at ${CORPUS}`);
        const transcript = (await TranscriptFile.open(path)).transcript;
        const cache = new Map<string, number>();
        const reports: number[] = [];
        const countTokens = await warmTokenCache(textsToCount(transcript, cache), cache, pool, 'o200k_base', (done) => reports.push(done));
        const here = pool.countHere;
        pool.countHere = () => {
          throw new Error('analyze asked for a text that was not counted beforehand');
        };
        try {
          const warmed = analyze(transcript, { countTokens, tokenCache: cache });
          assert.deepEqual(warmed, analyze(transcript, { countTokens: direct, tokenCache: new Map() }));
          assert.equal(warmed.problems.filter((p) => p.severity === 'error').length, 0);
        } finally {
          pool.countHere = here;
        }
        assert.ok(reports.length > 0);
      });
    }

    it('counts a group of texts at a time when asked, each after the one before, into the same counts', async () => {
      // Forty turns of 60–100 characters, all claimed by one checkpoint; the last five repeat the first five's texts.
      const textOf = (i: number): string => `${mixedTexts()[i % 6].slice(0, 60)} turn ${i} ${'x'.repeat(i)}`;
      const turns: Turn[] = Array.from({ length: 40 }, (_, i) => ({
        id: `t${i}`,
        role: i % 2 === 0 ? 'user' : 'assistant',
        text: i >= 35 ? textOf(i - 35) : textOf(i),
        span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
      }));
      const summary = 'Summary: the turns were read; ERR_4107 was fixed.';
      const transcript: Transcript = {
        format: 'canonical',
        turns,
        checkpoints: [
          {
            summaryId: 's1',
            summary,
            claimedIds: turns.map((t) => t.id),
            turnsBefore: turns.length,
            span: { startLine: 41, endLine: 41, startOffset: 0, endOffset: 0 },
          },
        ],
        problems: [],
        lineCount: 41,
      };
      const whole = new Map<string, number>();
      const toCount = textsToCount(transcript, whole);
      await warmTokenCache(toCount, whole, pool, 'o200k_base');
      const calls: { texts: number; maxWorkers?: number }[] = [];
      const sent: string[] = [];
      let running = 0;
      const original = pool.count.bind(pool);
      pool.count = async (texts, encoding, signal, onProgress, limits) => {
        assert.equal(running++, 0, 'a group is sent once the one before is counted');
        calls.push({ texts: texts.length, maxWorkers: limits?.maxWorkers });
        sent.push(...texts);
        try {
          return await original(texts, encoding, signal, onProgress, limits);
        } finally {
          running--;
        }
      };
      const grouped = new Map<string, number>();
      const reports: [number, number][] = [];
      try {
        const groupChars = 200;
        // Named as for texts on disk: the repeated turns too, each text counted once all the same.
        const withRepeats = runSteps(textsToCountInSteps(transcript, grouped, undefined, true));
        assert.equal(withRepeats.turns.length, 40);
        const countTokens = await warmTokenCache(
          withRepeats,
          grouped,
          pool,
          'o200k_base',
          (done, total) => reports.push([done, total]),
          undefined,
          { maxWorkers: 1, groupChars, retireAfter: true },
        );
        assert.equal(pool.workerCount, 0, 'the idle worker was ended once the counts were in');
        assert.deepEqual([...grouped].sort(), [...whole].sort(), 'the same texts counted the same');
        assert.equal(new Set(sent).size, sent.length, 'no text sent twice');
        assert.equal(sent.length, toCount.turns.length + toCount.summaries.length);
        const texts = withRepeats.turns.length + withRepeats.summaries.length;
        assert.ok(calls.length > 1 && calls.length <= texts, `${calls.length} groups of ${texts} texts`);
        assert.ok(calls.every((c) => c.maxWorkers === 1));
        for (let i = 1; i < reports.length; i++) assert.ok(reports[i][0] >= reports[i - 1][0], 'progress never goes back');
        assert.deepEqual(reports[reports.length - 1], [texts, texts]);
        assert.equal(countTokens(toCount.summaries[0]), whole.get(toCount.summaries[0]));
      } finally {
        pool.count = original;
      }
    });

    /** Turns with `count` distinct texts of about 9,000 characters: past SENT_AT_ONCE_CHARS together. */
    const manyTexts = (count: number): { turns: Turn[]; summaries: string[] } => {
      const code = mixedTexts()[5];
      return {
        turns: Array.from({ length: count }, (_, i) => ({
          id: `t${i}`,
          role: 'assistant',
          text: `${i} ${code.slice(i % 100, 9000)} ${i}`,
          span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 0 },
        })),
        summaries: ['Summary: the texts were counted.'],
      };
    };

    it('sends texts in memory in groups, a group a turn of the event loop, into the same counts', async () => {
      const toCount = manyTexts(400);
      const chars = toCount.turns.reduce((sum, turn) => sum + (turn.text as string).length, 0);
      assert.ok(chars > 3 * SENT_AT_ONCE_CHARS, `${chars} characters`);
      const sends: number[] = [];
      let turnsOfLoop = 0;
      let counting = true;
      const tick = (): void => {
        turnsOfLoop++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const original = pool.count.bind(pool);
      pool.count = (texts, ...rest) => {
        sends.push(turnsOfLoop);
        return original(texts, ...rest);
      };
      const cache = new Map<string, number>();
      const reports: [number, number][] = [];
      const controller = new AbortController();
      let countTokens;
      try {
        countTokens = await warmTokenCache(
          toCount,
          cache,
          pool,
          'o200k_base',
          (done, total) => reports.push([done, total]),
          controller.signal,
        );
      } finally {
        pool.count = original;
        counting = false;
      }
      assert.ok(sends.length >= 3, `${sends.length} groups`);
      for (let i = 1; i < sends.length; i++)
        assert.ok(sends[i] > sends[i - 1], `group ${i} was sent in the same turn of the loop: ${sends.join(', ')}`);
      const counter = createTokenCounter('o200k_base');
      for (const turn of toCount.turns) assert.equal(cache.get(turn.text as string), counter(turn.text as string));
      assert.equal(countTokens(toCount.summaries[0]), counter(toCount.summaries[0]));
      for (let i = 1; i < reports.length; i++) assert.ok(reports[i][0] >= reports[i - 1][0], 'progress never goes back');
      assert.deepEqual(reports[reports.length - 1], [401, 401]);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener left on the signal');
    });

    it('rejects with an AbortError when aborted between its groups, and leaves no listener on the signal', async () => {
      const controller = new AbortController();
      const original = pool.count.bind(pool);
      let sent = 0;
      pool.count = (texts, ...rest) => {
        if (++sent === 2) controller.abort();
        return original(texts, ...rest);
      };
      try {
        await assert.rejects(
          warmTokenCache(manyTexts(400), new Map(), pool, 'o200k_base', undefined, controller.signal),
          (error: Error) => error.name === 'AbortError',
        );
      } finally {
        pool.count = original;
      }
      assert.equal(sent, 2, 'no group is sent once aborted');
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      // The pool still counts afterwards.
      assert.deepEqual(await pool.count(['hello'], 'o200k_base'), [createTokenCounter('o200k_base')('hello')]);
    });

    it('counts nothing on a second warm-up with the same cache', async () => {
      const transcript = (await TranscriptFile.open(SAMPLE)).transcript;
      const cache = new Map<string, number>();
      await warmTokenCache(textsToCount(transcript, cache), cache, pool, 'o200k_base');
      const seen: number[] = [];
      const original = pool.count.bind(pool);
      pool.count = (texts, ...rest) => {
        seen.push(texts.length);
        return original(texts, ...rest);
      };
      try {
        await warmTokenCache(textsToCount(transcript, cache), cache, pool, 'o200k_base');
      } finally {
        pool.count = original;
      }
      assert.deepEqual(seen, [], 'every turn and summary comes from the cache');
    });
  });
});
