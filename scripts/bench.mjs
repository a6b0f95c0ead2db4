// `npm run bench`: how fast and how lean `check` is, on generated transcripts and on the shared corpus's real
// Claude Code sessions, against floors measured in the same run. Each figure comes from a child process of its
// own (scripts/bench/measure.mjs; the CLI under /usr/bin/time when there is one), so each peak RSS is its own.
// Per file it prints: the floor (read + JSON.parse), the time to the first verdict, the full analysis (what
// `check` does: read, count in the workers, analyse), a second analysis in the same process (warm caches, no
// checkpoint memo), the file read anew and analysed with all its caches (as the extension re-reads a rewritten
// file), that transcript analysed with another coverage threshold (as the extension does when the setting
// changes), the tokenizer alone in one thread over the same texts, `check --json` end to end, their ratios and
// peak RSS, and what one appended turn costs the extension (measure.mjs append: re-read, re-analysis and the
// listeners' pure work; the median and the worst of its appends, from one run), and the longest the event loop
// waited during the full analysis (in the extension, the longest the extension host is held).
// Timings are medians of --runs runs; nothing here asserts a time.
//
// Usage: node scripts/bench.mjs [--sizes 10k,100k,1m] [--shapes canonical,claude-code,canonical-recorded]
//          [--runs N] [--huge] [--no-corpus] [--no-webview] [--keep DIR] [--smoke] [--save FILE] [--baseline FILE]
//   --sizes    turns per generated transcript (k = thousand, m = million). Default 10k,100k,1m.
//   --shapes   canonical (every turn counted), canonical-recorded (sizes recorded: only the summary is counted),
//              claude-code (Claude Code records). Default: canonical and claude-code below 1m turns,
//              canonical-recorded from 1m.
//   --huge     also a ~1 GB canonical-recorded transcript (generated into a temporary folder, deleted after).
//   --smoke    a short run for `npm test`: 300 turns, one run, no corpus, no huge file, no webview.
//   --save     writes this run's figures to FILE (JSON), to compare a later run with.
//   --baseline compares this run with one saved by --save: each timing as a multiple of its floor, flagged when it
//              grew by more than 25% (scripts/bench/baseline.mjs). A report: the exit status does not change.
// The webview figures (scripts/bench/webview.mjs, the 100k-turn timeline in Chromium) come last, unless --no-webview.
// Needs `npm run build` and `npm run compile` first (`npm run bench` does both).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { compareRuns, rowsOf, savedRun } from './bench/baseline.mjs';
import { writeCanonical, writeClaudeCode } from './bench/generate.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = '/work/shared/corpus/claude-code';
const TIME = '/usr/bin/time';

const USAGE =
  'usage: node scripts/bench.mjs [--sizes 10k,100k,1m] [--shapes canonical,claude-code,canonical-recorded] ' +
  '[--runs N] [--huge] [--no-corpus] [--no-webview] [--keep DIR] [--smoke] [--save FILE] [--baseline FILE] ' +
  '(see the header of scripts/bench.mjs)';

/** Says what is wrong with the command line, and how to use it, then exits 2 (no stack trace). */
function usageError(message) {
  process.stderr.write(`bench: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      shapes: { type: 'string' },
      runs: { type: 'string' },
      huge: { type: 'boolean', default: false },
      'no-corpus': { type: 'boolean', default: false },
      'no-webview': { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      keep: { type: 'string' },
      save: { type: 'string' },
      baseline: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  usageError(error.message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

function turnsOf(text) {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) usageError(`--sizes: "${text}" is not a number of turns (10k, 100k, 1m, 2500)`);
  return Math.round(Number(match[1]) * { '': 1, k: 1e3, m: 1e6 }[match[2].toLowerCase()]);
}

const sizes = (values.sizes ?? (values.smoke ? '300' : '10k,100k,1m')).split(',').map(turnsOf);
const SHAPES = ['canonical', 'canonical-recorded', 'claude-code'];
const chosenShapes = values.shapes?.split(',');
for (const shape of chosenShapes ?? []) if (!SHAPES.includes(shape)) usageError(`--shapes: unknown shape ${shape} (${SHAPES.join(', ')})`);
if (values.runs !== undefined && !(Number.isInteger(Number(values.runs)) && Number(values.runs) >= 1))
  usageError(`--runs: "${values.runs}" is not a whole number of runs (1 or more)`);
/** The baseline's saved run, read before any work so a wrong path fails at once. */
function readBaseline(path) {
  let saved;
  try {
    saved = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    usageError(`--baseline: cannot read ${path}: ${error.code ?? error.message}`);
  }
  const rows = rowsOf(saved);
  if (rows instanceof Error) usageError(`--baseline: ${path} is ${rows.message}`);
  return { rows, date: saved.date, node: saved.node };
}
const baseline = values.baseline === undefined ? undefined : readBaseline(values.baseline);
const shapesFor = (turns) => chosenShapes ?? (turns < 1e6 ? ['canonical', 'claude-code'] : ['canonical-recorded']);
const runsFor = (turns) => (values.runs !== undefined ? Number(values.runs) : values.smoke || turns >= 1e6 ? 1 : 3);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const seconds = (ms) => (ms === undefined ? '–' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1));
const times = (ms, base) => (ms === undefined || !base ? '–' : `${(ms / base).toFixed(1)}×`);
const milliseconds = (ms) => (ms === undefined ? '–' : ms.toFixed(ms < 10 ? 1 : 0));
const megabytes = (mb) => (mb === undefined ? '–' : mb.toFixed(0));

/** Runs scripts/bench/measure.mjs MODE FILE in a child process and returns its JSON line. */
function measure(mode, file) {
  const child = spawnSync(process.execPath, [join(root, 'scripts/bench/measure.mjs'), mode, file], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    cwd: root,
  });
  if (child.status !== 0) return { failed: `${mode}: ${whyFailed(child)}` };
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

/** Why a child process failed, in a few words ("out of memory", or its last line on stderr). */
function whyFailed(child) {
  const stderr = child.stderr ?? '';
  if (/heap out of memory|Invalid string length|Array buffer allocation failed/.test(stderr)) return 'out of memory';
  const lines = stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('BENCH ') && !line.startsWith('Command '));
  return `exit ${child.status ?? child.signal}: ${lines.at(-1)?.trim().slice(0, 200) ?? 'no message'}`;
}

/** `check --json FILE` end to end, its output thrown away: wall time and peak RSS (from /usr/bin/time when there). */
function cli(file) {
  const sink = openSync('/dev/null', 'w');
  try {
    const withTime = existsSync(TIME);
    const command = withTime ? TIME : process.execPath;
    const args = [...(withTime ? ['-f', 'BENCH %e %M', process.execPath] : []), join(root, 'dist/cli.js'), 'check', '--json', file];
    const start = process.hrtime.bigint();
    const child = spawnSync(command, args, { stdio: ['ignore', sink, 'pipe'], encoding: 'utf8', cwd: root });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const timed = /BENCH [\d.]+ (\d+)/.exec(child.stderr ?? '');
    const peakRssMb = timed ? Number(timed[1]) / 1024 : undefined;
    if (child.status !== 0 && child.status !== 1) return { failed: `check --json: ${whyFailed(child)} after ${seconds(ms)} s`, peakRssMb };
    return { ms, peakRssMb };
  } finally {
    closeSync(sink);
  }
}

/** The webview figures (scripts/bench/webview.mjs: the 100k-turn timeline in Chromium), printed. */
function webview() {
  const child = spawnSync(process.execPath, [join(root, 'scripts/bench/webview.mjs')], { encoding: 'utf8', cwd: root });
  if (child.status !== 0) {
    console.log(`webview: FAILED: ${whyFailed(child)}`);
    process.exitCode = 1;
    return;
  }
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
  if (result.skipped) console.log(`webview: skipped (${result.skipped})`);
  else
    console.log(
      `webview, ${result.turns.toLocaleString('en-US')}-turn timeline in Chromium: first paint ${result.firstPaintMs.toFixed(0)} ms after its data arrives` +
        ` (${result.fromReadyMs.toFixed(0)} ms from the fake host's ready, the harness's delivery included)` +
        ` (target ≤ 300), scrolling: p95 frame time ${result.p95FrameWorkMs.toFixed(1)} ms (target ≤ 16)` +
        (result.p95FrameWorkRangeMs === undefined
          ? ''
          : ` (the median of ${result.p95FrameWorkRangeMs[0].toFixed(1)}–${result.p95FrameWorkRangeMs[1].toFixed(1)} ms over three pages' first scrolls)`) +
        `, longest ${result.longestFrameWorkMs.toFixed(0)} ms` +
        (result.p95WarmFrameWorkMs === undefined
          ? ''
          : ` (scrolled again on the same page: p95 ${result.p95WarmFrameWorkMs.toFixed(1)} ms)`) +
        ';' +
        ` p95 frame interval ${result.p95FrameMs.toFixed(1)} ms (16.7 = every frame at 60 Hz), longest ${result.longestFrameMs.toFixed(0)} ms` +
        (result.paintMsPerFrame === undefined
          ? ''
          : `; per frame, traced: paint ${result.paintMsPerFrame.toFixed(2)} ms, raster ${result.rasterMsPerFrame.toFixed(2)} ms, style + layout ${result.styleLayoutMsPerFrame.toFixed(2)} ms`) +
        (result.loadingFrames === undefined
          ? ''
          : `; rows in view still loading: in ${result.loadingFrames} of 300 frames (${result.loadingRows} rows)`),
    );
}

/** Every figure of one file, medians over `runs`; the appended turn's with `append` (a generated transcript). */
function bench(label, file, runs, { append = false } = {}) {
  const mb = statSync(file).size / 1e6;
  const series = { floor: [], analyze: [], tokenize: [], cli: [], append: [] };
  for (let run = 0; run < runs; run += 1) {
    series.floor.push(measure('floor', file));
    series.analyze.push(measure('analyze', file));
    series.tokenize.push(measure('tokenize', file));
    series.cli.push(cli(file));
  }
  // One run: it analyses the file once more, then times each of its appends.
  if (append) series.append.push(measure('append', file));
  const pick = (list, key) => median(list.map((x) => x[key]).filter((x) => x !== undefined));
  const failed = [...new Set(Object.values(series).flatMap((list) => list.map((x) => x.failed).filter(Boolean)))];
  const peak = (list) => Math.max(...list.map((x) => x.peakRssMb ?? 0)) || undefined;
  const row = {
    label,
    mb,
    failed,
    turns: series.analyze[0].turns,
    verdicts: series.analyze[0].checkpoints ?? '–',
    earlyVerdict: series.analyze.some((x) => x.earlyVerdict),
    floor: pick(series.floor, 'ms'),
    floorRss: peak(series.floor),
    read: pick(series.analyze, 'readMs'),
    firstVerdict: pick(series.analyze, 'firstVerdictMs'),
    full: pick(series.analyze, 'fullMs'),
    stall: pick(series.analyze, 'stallMs'),
    reanalysis: pick(series.analyze, 'reanalysisMs'),
    reopen: pick(series.analyze, 'reopenMs'),
    threshold: pick(series.analyze, 'thresholdMs'),
    analyzeRss: peak(series.analyze),
    tokenizerLoad: pick(series.tokenize, 'loadMs'),
    tokenizer: pick(series.tokenize, 'ms'),
    tokenizedMb: (series.tokenize[0].bytes ?? 0) / 1e6,
    cli: pick(series.cli, 'ms'),
    cliRss: peak(series.cli),
    append: series.append[0]?.totalMs,
    appendWorst: series.append[0]?.totalWorstMs,
    appendAnalyse: series.append[0]?.analyseMs,
  };
  console.log(
    `${label}: ${row.mb.toFixed(1)} MB, ${row.turns} turns (${row.verdicts}); floor ${seconds(row.floor)} s, first verdict ${seconds(row.firstVerdict)} s` +
      `${row.earlyVerdict ? '' : ' (= full analysis)'}, full ${seconds(row.full)} s (longest stall ${milliseconds(row.stall)} ms), again ${seconds(row.reanalysis)} s, read anew ${seconds(row.reopen)} s, another threshold ${seconds(row.threshold)} s, tokenizer ${seconds(row.tokenizer)} s` +
      ` on ${row.tokenizedMb.toFixed(1)} MB, check --json ${seconds(row.cli)} s, appended turn ${milliseconds(row.append)} ms (worst ${milliseconds(row.appendWorst)}, analysis ${milliseconds(row.appendAnalyse)}), peak RSS ${megabytes(row.analyzeRss)} / ${megabytes(row.cliRss)} MB` +
      `${failed.length > 0 ? `; FAILED: ${failed.join('; ')}` : ''}`,
  );
  return row;
}

function table(rows) {
  const head = [
    'transcript',
    'MB',
    'floor s',
    'first verdict s (× floor)',
    'full analysis s (× floor)',
    'longest stall ms',
    'again s (× floor)',
    'read anew s (× floor)',
    'another threshold s (× floor)',
    'tokenizer alone s (MB counted)',
    'tokenizer ÷ full',
    'check --json s',
    'appended turn ms: median / worst',
    "peak RSS MB: floor / analysis / check (the 1 GB target's bound at this size: 0.5 × MB + 150)",
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(
      `| ${[
        `${r.label}${r.failed.length > 0 ? ` (failed: ${r.failed.join('; ')})` : ''}`,
        r.mb.toFixed(1),
        seconds(r.floor),
        `${seconds(r.firstVerdict)} (${times(r.firstVerdict, r.floor)})${r.earlyVerdict ? '' : ' = full'}`,
        `${seconds(r.full)} (${times(r.full, r.floor)})`,
        milliseconds(r.stall),
        `${seconds(r.reanalysis)} (${times(r.reanalysis, r.floor)})`,
        `${seconds(r.reopen)} (${times(r.reopen, r.floor)})`,
        `${seconds(r.threshold)} (${times(r.threshold, r.floor)})`,
        `${seconds(r.tokenizer)} (${r.tokenizedMb.toFixed(1)})`,
        r.tokenizer && r.full ? (r.tokenizer / r.full).toFixed(2) : '–',
        seconds(r.cli),
        r.append === undefined ? '–' : `${milliseconds(r.append)} / ${milliseconds(r.appendWorst)}`,
        `${megabytes(r.floorRss)} / ${megabytes(r.analyzeRss)} / ${megabytes(r.cliRss)} (${Math.round(0.5 * r.mb + 150)})`,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'cl-bench-'));
const rows = [];
try {
  console.log(`node ${process.version}, ${new Date().toISOString()}; timings are medians; "tokenizer ÷ full" ≥ 1.7 is the target\n`);
  for (const turns of sizes) {
    for (const shape of shapesFor(turns)) {
      const file = join(dir, `${shape}-${turns}.jsonl`);
      if (!existsSync(file)) {
        if (shape === 'claude-code') writeClaudeCode(file, { turns });
        else writeCanonical(file, { turns, recordTokens: shape === 'canonical-recorded' });
      }
      rows.push(bench(`${shape}, ${turns.toLocaleString('en-US')} turns`, file, runsFor(turns), { append: true }));
    }
  }
  if (values.huge) {
    const sample = join(dir, 'huge-sample.jsonl');
    const perTurn = writeCanonical(sample, { turns: 10000, recordTokens: true }) / 10000;
    const turns = Math.round(1e9 / perTurn);
    const file = join(dir, `canonical-recorded-huge.jsonl`);
    if (!existsSync(file)) writeCanonical(file, { turns, recordTokens: true });
    rows.push(bench(`canonical-recorded, ${turns.toLocaleString('en-US')} turns (--huge)`, file, 1));
    if (values.keep === undefined) rmSync(file, { force: true });
  }
  if (values.smoke || values['no-corpus']) {
    // the corpus is not part of a smoke run
  } else if (!existsSync(CORPUS)) {
    console.log(`\n${CORPUS} is absent: the real sessions are skipped`);
  } else {
    for (const name of readdirSync(CORPUS)
      .filter((n) => n.endsWith('.jsonl.gz'))
      .sort()) {
      rows.push(bench(`real ${name.slice(0, 8)} (.jsonl.gz)`, join(CORPUS, name), 3));
      // The same uncompressed (in the temporary folder, without the session's side files).
      const plain = join(dir, name.replace(/\.gz$/, ''));
      writeFileSync(plain, gunzipSync(readFileSync(join(CORPUS, name))));
      rows.push(bench(`real ${name.slice(0, 8)} (.jsonl)`, plain, 3));
    }
  }
  if (!values.smoke && !values['no-webview']) webview();
  console.log(`\n${table(rows)}`);
  if (baseline !== undefined) {
    console.log(`\nAgainst the baseline (${baseline.date}, node ${baseline.node}), each timing as a multiple of its floor:`);
    for (const line of compareRuns(baseline.rows, rows).lines) console.log(`- ${line}`);
  }
  if (values.save !== undefined) {
    writeFileSync(values.save, `${JSON.stringify(savedRun(rows), null, 1)}\n`);
    console.log(`\nsaved to ${values.save}`);
  }
  for (const row of rows) {
    if (row.failed.length === 0 && (!row.turns || row.verdicts === '–'))
      throw new Error(`${row.label}: no turns or no checkpoint analysed`);
  }
  if (rows.some((row) => row.failed.length > 0)) process.exitCode = 1;
} finally {
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
}
