// `npm run bench`: measures reading, analysis and the CLI on generated transcripts (100k turns by default),
// as ratios against a baseline run in the same process (a plain line-by-line JSON.parse of the same file),
// and token counting in this thread against TokenPool's worker threads (with the longest event-loop block).
// Usage: node scripts/bench.mjs [turns]   (needs `npm run build` and `npm run compile` first)
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const { TranscriptFile } = require('../out/src/node/transcriptFile.js');
const { analyze } = require('../out/src/core/analyze.js');
const { createTokenCounter } = require('../out/src/node/tokenCounter.js');
const { TokenPool } = require('../out/src/node/tokenPool.js');
const { warmTokenCache } = require('../out/src/node/warmTokenCache.js');

const TURNS = Number(process.argv[2] ?? 100000);
const RUNS = 3;
const topics = ['ledger', 'invoice', 'payout', 'refund', 'settlement', 'audit', 'currency', 'webhook'];

function generate(path, recordTokens) {
  const lines = [];
  const claimed = Math.floor(TURNS * 0.9);
  const mentioned = [];
  for (let i = 0; i < TURNS; i += 1) {
    const topic = topics[i % topics.length];
    const content = `Checked src/${topic}/handler_${i}.ts: case ${topic.toUpperCase()}_${i} now returns 4${i % 100} instead of crashing; the tests in test/${topic}.test.ts pass. Next I will look at the retry path.`;
    const record = { type: 'turn', id: i, role: i % 2 ? 'assistant' : 'user', content };
    if (recordTokens) record.tokens = 40;
    lines.push(JSON.stringify(record));
    if (i < claimed * 0.8 && i % 50 === 0) mentioned.push(`${topic.toUpperCase()}_${i}`);
  }
  const summary = `Summary: handled ${mentioned.join(', ')}.`;
  lines.splice(
    claimed,
    0,
    JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 8192, covered: { from: 0, to: claimed - 1 } }),
  );
  writeFileSync(path, lines.join('\n') + '\n');
}

async function baseline(path) {
  let records = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    JSON.parse(line);
    records += 1;
  }
  return records;
}

async function time(fn) {
  const times = [];
  let result;
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    result = await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], result };
}

const dir = mkdtempSync(join(tmpdir(), 'cl-bench-'));
try {
  const counted = join(dir, 'counted.jsonl');
  const recorded = join(dir, 'recorded.jsonl');
  generate(counted, false);
  generate(recorded, true);
  const mb = statSync(counted).size / (1024 * 1024);
  console.log(`${TURNS.toLocaleString('en-US')} turns, ${mb.toFixed(1)} MB, median of ${RUNS} runs, node ${process.version}\n`);

  const rows = [];
  const base = await time(() => baseline(counted));
  rows.push(['baseline: readline + JSON.parse per line', base.ms]);
  const open = await time(() => TranscriptFile.open(counted));
  rows.push(['TranscriptFile.open (stream, split, validate)', open.ms]);
  const countTokens = createTokenCounter('o200k_base');
  countTokens('warm up the tokenizer');
  const transcriptRecorded = (await TranscriptFile.open(recorded)).transcript;
  const analyzeRecorded = await time(() => analyze(transcriptRecorded, { countTokens }));
  rows.push(['analyze, tokens recorded (only the summary is counted)', analyzeRecorded.ms]);
  const transcriptCounted = open.result.transcript;
  const analyzeCounted = await time(() => analyze(transcriptCounted, { countTokens, tokenCache: new Map() }));
  rows.push(['analyze, tokens counted by tiktoken o200k (cold cache)', analyzeCounted.ms]);
  const cache = new Map();
  analyze(transcriptCounted, { countTokens, tokenCache: cache });
  const reanalyze = await time(() => analyze(transcriptCounted, { countTokens, tokenCache: cache }));
  rows.push(['re-analyse with a warm token cache (live update)', reanalyze.ms]);
  // Tokenizing alone: this thread against TokenPool's workers (already started, then started each run).
  const texts = transcriptCounted.turns.map((turn) => turn.text);
  const here = await time(() => texts.map((text) => countTokens(text)));
  rows.push(['tokenize every turn in this thread', here.ms]);
  for (const workers of [1, 2]) {
    const pool = new TokenPool({ maxWorkers: workers, spawnBytes: 0 });
    await pool.count(texts.slice(0, 2 * workers * 50), 'o200k_base'); // start the workers and their tiktoken
    assert(pool.workerCount === workers, `${pool.workerCount} workers started`);
    const pooled = await time(() => pool.count(texts, 'o200k_base'));
    pool.dispose();
    if (pooled.result.some((n, i) => n !== here.result[i])) throw new Error(`TokenPool (${workers}) counted differently`);
    rows.push([`tokenize every turn in TokenPool, ${workers} worker${workers === 1 ? '' : 's'} (started)`, pooled.ms]);
  }
  // What the extension does on a first analysis: a new pool (workers spawned, tiktoken loaded), then analyze.
  const blocks = [];
  for (const workers of [1, 2]) {
    let longest = 0;
    const pooled = await time(async () => {
      const pool = new TokenPool({ maxWorkers: workers });
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      // The histogram records from its second tick on: let it tick before the measured work (50 ms in all).
      await new Promise((resolve) => setTimeout(resolve, 30));
      try {
        const tokenCache = new Map();
        const count = await warmTokenCache(transcriptCounted, tokenCache, pool, 'o200k_base');
        await new Promise((resolve) => setTimeout(resolve, 20)); // the next tick records the last block
        delay.disable();
        longest = Math.max(longest, delay.max / 1e6);
        return analyze(transcriptCounted, { countTokens: count, tokenCache });
      } finally {
        delay.disable();
        pool.dispose();
      }
    });
    if (pooled.result.checkpoints[0].prefixTokens !== analyzeCounted.result.checkpoints[0].prefixTokens) {
      throw new Error(
        `TokenPool (${workers}) counted ${pooled.result.checkpoints[0].prefixTokens} tokens, this thread ${analyzeCounted.result.checkpoints[0].prefixTokens}`,
      );
    }
    rows.push([`warmTokenCache + analyze, ${workers} worker${workers === 1 ? '' : 's'} (spawned each run)`, pooled.ms]);
    blocks.push([workers, longest]);
  }
  for (const [label, path] of [
    ['CLI end to end, tokens counted', counted],
    ['CLI end to end, tokens recorded', recorded],
  ]) {
    const cli = await time(() => spawnSync(process.execPath, ['dist/cli.js', 'check', '--json', path], { maxBuffer: 1 << 30 }));
    rows.push([label, cli.ms]);
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, ms] of rows) {
    console.log(
      `${label.padEnd(width)}  ${(ms / 1000).toFixed(2).padStart(7)} s  ${(ms / base.ms).toFixed(1).padStart(6)}× baseline  ${(mb / (ms / 1000)).toFixed(1).padStart(7)} MB/s`,
    );
  }
  console.log(
    `\nlongest main-thread block while the workers count: ${blocks.map(([w, ms]) => `${w} worker${w === 1 ? '' : 's'} ${ms.toFixed(0)} ms`).join(', ')} (then analyze runs in this thread without tokenizing: as long as "tokens recorded" above)`,
  );
  const cp = analyzeCounted.result.checkpoints[0];
  console.log(
    `\ncheckpoint: ${cp.verdict}, ${cp.counts.covered} covered, ${cp.counts['claimed-missing']} claimed-missing, prefix ${cp.prefixTokens} tokens`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
