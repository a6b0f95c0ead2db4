// One measurement of `npm run bench`, run in a child process of its own so its peak RSS is its own. Prints one
// JSON line on stdout. Modes (FILE may be .jsonl or .jsonl.gz):
//   floor FILE     read + JSON.parse of every line (readline over the stream, gunzip when compressed)
//   analyze FILE   what `check` does (analyzeFile: read, count in TokenPool's workers, analyse), then a second
//                  analysis of the same transcript (token cache warm, no checkpoint memo: what a change of
//                  threshold or encoding costs), then the file read anew and analysed with the file's caches, its
//                  checkpoint memo included (reopenMs: what reading a rewritten but unchanged file costs the
//                  extension, read included), then that transcript analysed with another coverage threshold and
//                  back, with the same caches (thresholdMs, their mean: what a change of that setting costs the
//                  extension): times to the file read, to the first
//                  verdict and to the full analysis. The first verdict is when analyzeFile calls
//                  progress.onVerdict (verdicts settled before the analysis is done: before the judging, or
//                  before the exact counts); without that call it is the full analysis. stallMs is the longest the event loop waited meanwhile (a 5 ms timer's
//                  longest gap, less 5): in the extension, the longest the extension host is held; hostBusyMs how long
//                  this thread worked (the event loop's active time). JUDGE_WORKER=1 judges in a worker thread, as
//                  the extension does.
//   analyze-warm FILE  the same first analysis with the tokenizer already loaded (after samples/incident.jsonl
//                  in the same pool), as in the extension for its second file
//   tokenize FILE  tiktoken o200k_base in this thread alone over the texts the analysis counts (core's
//                  textsToCount): its load, then encode_ordinary on each whole text (ms, the reference), then
//                  createTokenCounter's count by pieces of the same texts (piecesMs, tokens apart: pieceTokens)
//   append FILE    what the extension does for one appended turn of a live file: FILE is copied to a temporary
//                  file, opened and analysed (analyzeFile), then APPENDS times one new turn line (a later turn with
//                  a new id, in the file's shape: canonical or Claude Code) is appended and timed: the store's
//                  work (analyzeAgain: TranscriptFile.refresh + analyzeTranscript under the heap watch, with the
//                  caches analyzeFile returned, as src/extension/transcriptStore.ts passes them) and the pure work
//                  of the store's listeners (the timeline's `updated` payload: fileInfo + checkpointHeaders, and
//                  its JSON size; the status bar's worst checkpoint; the CodeLens titles; the diagnostics'
//                  problems, runs and notes; the end-of-line marks, which run only when `inlineMarks` is on, timed
//                  apart). Median and worst.
//   judge FILE…    the judging alone, six passes over the files' transcripts (analyze with sizes for counts, no
//                  caches): each pass's CPU time and wall time, and the median wall time of passes 2–6
//   passes FILE [N]  the judging alone (as judge runs it) N times (default 3), timing nothing: for counting the
//                  instructions it takes, which vary far less from run to run than its time on a shared machine:
//                  valgrind --tool=cachegrind --cache-sim=no node --single-threaded --min-semi-space-size=16
//                    --max-semi-space-size=16 scripts/bench/measure.mjs passes FILE 3
//                  ("I refs"; less the same with N = 0, the read; scripts/bench/instructions.mjs runs it). The young
//                  generation's size is fixed because V8 resizes it as it runs, not the same way each time: without
//                  the two flags identical runs of the 10k canonical file differed by up to 4% (12.82–13.36G, two
//                  clusters as the number of scavenges changed), with them by 0.1% (12.79–12.80G).
//                  `passes FILE N warm`: one analysis with an evidence cache first, then
//                  the N passes with that cache warm (what an analysis costs whose evidence was worked out before)
//   kept FILE      what one analysis's results keep, as judge runs it: the heap after a full collection with the
//                  analysis alive, less before (node --expose-gc); then what an EvidenceCache keeps once an analysis
//                  with it is let go (evidenceCacheMb)
//   extract FILE…  evidence extraction alone (extractPieces, as turnPieces calls it on a turn's text: with terms,
//                  sentences for a user's turn) over the text of every turn (the first 30,000 of each file) and
//                  every summary, seven passes: the characters scanned and each pass's CPU time
//   bounds FILE    the pieces' lower bound (pieceLowerBound, o200k) of the texts the file's checkpoints claim, as
//                  verdictsBeforeJudging scans them before the judging: three passes in this fresh process (the
//                  first is V8's cold run, as in `check`), each pass's ms and the bound; with `scanned`, by the general
//                  scanner alone (scannedLowerBound), to compare
//   alloc FILE     what one analysis (as judge runs it) allocates, by the function that allocated it: V8's sampling
//                  heap profiler with the objects collected since included (so garbage counts), the top 25 in MB
//   cache FILE     the evidence cache when it must let texts go: FILE's turns asked of an EvidenceCache holding half
//                  their characters, three passes in order (as sharing's two passes and the judging ask them), against
//                  turnPieces alone over them once: each one's ms, and the cache's hits and misses
//   reanalyze-worker FILE  what the extension does when a large file is analysed again with another coverage
//                  threshold (a change that reaches every turn): the file analysed with its judging in a JudgeWorker
//                  (node/judgeInWorker.ts), then again with the file's caches and a new checkpoint memo, once with
//                  that worker kept (its evidence with it: what the extension does now) and once with a new worker
//                  (what it did before): each analysis's ms, and the kept worker's evidence hits and misses on its
//                  second job (judging only happens in a worker from JUDGE_IN_WORKER_TURNS claimed turns; below it,
//                  the worker is asked with minTurns 0)
//   stalls FILE    where the event loop waits longest: analyzeFile with the judging in a worker (as the extension
//                  runs it), under the inspector's CPU profiler (a sample every 0.5 ms); each gap of a 5 ms timer over
//                  STALL_MS ms (an environment variable, default 40), longest first (at most 8): its ms, the samples
//                  taken in it and how many it would hold had this thread run throughout (fewer: it waited for a
//                  core), and the functions most often on the stack in it (% of its samples)
//   clone FILE     analyses FILE, then times V8's serializer (what postMessage uses between threads) on the
//                  analysis and on the transcript: what a worker would pay to hand them to the host (the
//                  deserialising is the host's part)
// Needs `npm run compile` (out/). MEASURE_OUT (an environment variable) names another compiled tree to measure (a
// copy of out/ made before a change, say), as scripts/bench/instructions.mjs passes it.
import { appendFileSync, copyFileSync, createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { lastRecord, nextTurnLine } from './appendTurn.mjs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { serialize, deserialize } from 'node:v8';
import { createGunzip } from 'node:zlib';

const require = createRequire(import.meta.url);
const outDir = process.env.MEASURE_OUT ? resolve(process.env.MEASURE_OUT) : fileURLToPath(new URL('../../out', import.meta.url));
const out = (path) => require(join(outDir, 'src', path));

const [mode, file] = process.argv.slice(2);
const now = () => Number(process.hrtime.bigint()) / 1e6;
const peakMb = () => process.resourceUsage().maxRSS / 1024;

async function floor() {
  const start = now();
  const raw = createReadStream(file);
  const input = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  let records = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line === '') continue;
    JSON.parse(line);
    records += 1;
  }
  return { ms: now() - start, records };
}

async function analyzeOnce() {
  const { analyzeFile, analyzeTranscript } = out('node/analyzeFile.js');
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { TokenPool } = out('node/tokenPool.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const options = { encoding: 'o200k_base', ratioFloor: 5 };
  const start = now();
  let readMs;
  let firstVerdictMs;
  // SPAWN_BYTES (an environment variable) overrides the pool's threshold for a second worker, to compare.
  const spawnBytes = process.env.SPAWN_BYTES ? Number(process.env.SPAWN_BYTES) : undefined;
  const pool = new TokenPool(spawnBytes === undefined ? {} : { spawnBytes });
  // JUDGE_WORKER=1 (an environment variable) judges in a worker thread, as the extension does (judgeInWorker.ts).
  let fallback;
  const judgeWorker = process.env.JUDGE_WORKER ? { onFallback: (why) => (fallback = why) } : undefined;
  let tick = now();
  let stallMs = 0;
  const busy = performance.eventLoopUtilization();
  const ticking = setInterval(() => {
    const at = now();
    stallMs = Math.max(stallMs, at - tick - 5);
    tick = at;
  }, 5);
  try {
    const {
      file: opened,
      analysis,
      tokenCache,
      evidenceCache,
      checkpointMemo,
    } = await analyzeFile(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS }, pool, options, {
      onProgress: (_fraction, message) => {
        if (readMs === undefined && message !== 'reading…') readMs = now() - start;
      },
      onVerdict: () => {
        firstVerdictMs ??= now() - start;
      },
      judgeWorker,
    });
    const fullMs = now() - start;
    const hostBusyMs = performance.eventLoopUtilization(busy).active;
    // Taken before the second analysis, which works out in this thread what a worker judged.
    const judgedHere = evidenceCache.stats.misses > 0;
    clearInterval(ticking);
    const again = now();
    // The file's caches as analyzeFile kept them, as the extension keeps them between analyses.
    const second = await analyzeTranscript(opened.transcript, { tokenCache, evidenceCache }, pool, options);
    const reanalysisMs = now() - again;
    const verdicts = (a) =>
      a.checkpoints.map((cp) => `${cp.summaryId}:${cp.verdict}:${cp.counts.covered}/${cp.counts['claimed-missing']}`).join(' ');
    if (verdicts(second) !== verdicts(analysis))
      throw new Error(`the second analysis differs: ${verdicts(second)} / ${verdicts(analysis)}`);
    // The file read anew (every turn a new object, as after a rewrite), analysed with all of the file's caches.
    const reopen = now();
    const reopened = await TranscriptFile.open(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
    const third = await analyzeTranscript(reopened.transcript, { tokenCache, evidenceCache, checkpointMemo }, pool, options);
    const reopenMs = now() - reopen;
    if (verdicts(third) !== verdicts(analysis)) throw new Error(`the file read anew differs: ${verdicts(third)} / ${verdicts(analysis)}`);
    // Another coverage threshold (0.5, then back to the default), with all of the file's caches and its memo: what a
    // change of the compactionLens.coverageThreshold setting costs the extension. The median of the two.
    const thresholds = [];
    for (const coverageThreshold of [0.5, undefined]) {
      const at = now();
      await analyzeTranscript(reopened.transcript, { tokenCache, evidenceCache, checkpointMemo }, pool, { ...options, coverageThreshold });
      thresholds.push(now() - at);
    }
    const thresholdMs = (thresholds[0] + thresholds[1]) / 2;
    return {
      readMs: readMs ?? fullMs,
      firstVerdictMs: firstVerdictMs ?? fullMs,
      earlyVerdict: firstVerdictMs !== undefined,
      fullMs,
      stallMs: Math.max(0, stallMs),
      hostBusyMs,
      // A worker that judged leaves this thread's evidence cache untouched (fewer claimed turns than the rule: judged here).
      ...(judgeWorker ? { judgeWorker: fallback !== undefined ? `fell back: ${fallback}` : judgedHere ? 'judged here' : 'used' } : {}),
      reanalysisMs,
      reopenMs,
      thresholdMs,
      turns: opened.transcript.turns.length,
      checkpoints: verdicts(analysis),
    };
  } finally {
    clearInterval(ticking);
    pool.dispose();
  }
}

/**
 * The first analysis of FILE with the tokenizer already loaded, as in the extension for its second file (the
 * pool's worker stays loaded for a minute): samples/incident.jsonl is analysed first in the same pool.
 */
async function analyzeWarm() {
  const { analyzeFile } = out('node/analyzeFile.js');
  const { TokenPool } = out('node/tokenPool.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const options = { encoding: 'o200k_base', ratioFloor: 5 };
  const open = { defaultBudgets: DEFAULT_SUMMARY_BUDGETS };
  const pool = new TokenPool({});
  try {
    await analyzeFile(new URL('../../samples/incident.jsonl', import.meta.url).pathname, open, pool, options);
    const start = now();
    let firstVerdictMs;
    await analyzeFile(file, open, pool, options, { onVerdict: () => (firstVerdictMs ??= now() - start) });
    const fullMs = now() - start;
    return { firstVerdictMs: firstVerdictMs ?? fullMs, earlyVerdict: firstVerdictMs !== undefined, fullMs };
  } finally {
    pool.dispose();
  }
}

async function tokenize() {
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { textsToCount } = out('core/analyze.js');
  const { createTokenCounter } = out('node/tokenCounter.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const opened = await TranscriptFile.open(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
  const { turns, summaries } = textsToCount(opened.transcript);
  const texts = [...new Set([...turns.map((turn) => turn.text), ...summaries])];
  const loadStart = now();
  const encoder = require('tiktoken').get_encoding('o200k_base');
  encoder.encode_ordinary('load the encoding');
  const loadMs = now() - loadStart;
  // The reference: tiktoken's encode_ordinary on each whole text, as the issue measures the tokenizer alone.
  const start = now();
  let tokens = 0;
  let bytes = 0;
  for (const text of texts) {
    tokens += encoder.encode_ordinary(text).length;
    bytes += Buffer.byteLength(text);
  }
  const ms = now() - start;
  // What the analysis's counter does with the same texts in one thread (tiktoken per distinct piece).
  const count = createTokenCounter('o200k_base');
  count('load'); // the counter's own tiktoken encoder, loaded apart from the one above
  const piecesStart = now();
  let pieceTokens = 0;
  for (const text of texts) pieceTokens += count(text);
  return { loadMs, ms, piecesMs: now() - piecesStart, texts: texts.length, bytes, tokens, pieceTokens };
}

/** Appended turns timed by `append`. */
const APPENDS = 7;

/** The pure work the store's listeners do for an update, outside `vscode`; returns what it made, to be kept alive. */
function listenersWork(view, path, transcript, analysis, seen) {
  const { fileInfo, checkpointHeaders, describeCheckpoint } = view.timeline;
  const {
    worstCheckpoint,
    checkpointName,
    checkpointProblem,
    truncationProblem,
    claimedMissingRuns,
    missingRunMessage,
    missingTurnNote,
    collapseProblems,
    DEFAULT_KIND_SEVERITIES,
  } = view.problems;
  const start = now();
  // timelinePanel.postUpdate: the `updated` message (postMessage serialises it: JSON's size stands for that), its
  // headers left out when they are those the webview has.
  const headers = checkpointHeaders(transcript, analysis);
  const same = headers.length === seen.headers.length && headers.every((header, index) => header === seen.headers[index]);
  seen.headers = headers;
  const updated = {
    type: 'updated',
    file: fileInfo(path, transcript),
    checkpoints: same ? [] : headers,
    problems: analysis.problems,
    ...(same ? { sameCheckpoints: true } : {}),
  };
  const timelineMs = now() - start;
  const updatedBytes = JSON.stringify(updated).length;
  const serialiseMs = now() - start - timelineMs;
  const others = now();
  // statusBar.show, checkpointLens.provideCodeLenses
  const worst = worstCheckpoint(analysis.checkpoints);
  const status = worst ? `${checkpointName(worst)}: ${worst.verdict}` : '';
  const lenses = analysis.checkpoints.map((checkpoint) => `${checkpoint.summaryId}: ${describeCheckpoint(checkpoint)}`);
  // diagnostics.diagnosticsFor (what it makes before the vscode objects)
  const diagnostics = [];
  for (const checkpoint of analysis.checkpoints) {
    // src/extension/diagnostics.ts keeps a checkpoint analysis' flags: one seen before costs nothing again.
    if (seen.has(checkpoint)) continue;
    diagnostics.push(checkpointProblem(checkpoint), truncationProblem(checkpoint));
    for (const run of claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES)) {
      diagnostics.push(missingRunMessage(run, checkpoint));
      for (const index of run.turnIndexes.slice(0, 50)) {
        const result = checkpoint.turns[index];
        if (result) diagnostics.push(missingTurnNote(result, transcript.turns[index]));
      }
    }
  }
  diagnostics.push(...collapseProblems(analysis.problems));
  const othersMs = now() - others;
  const marksStart = now();
  // src/extension/missingTurnMarks.ts leaves an editor's marks as they are when every checkpoint analysis is one
  // they were made from.
  const marks = analysis.checkpoints.every((checkpoint) => seen.has(checkpoint))
    ? []
    : view.problems.missingTurnMarks(analysis, transcript, DEFAULT_KIND_SEVERITIES);
  const marksMs = now() - marksStart;
  for (const checkpoint of analysis.checkpoints) seen.add(checkpoint);
  return { timelineMs, serialiseMs, othersMs, marksMs, updatedBytes, kept: [updated, status, lenses, diagnostics, marks] };
}

async function appendTurns() {
  const { analyzeAgain, analyzeFile, analyzeTranscript } = out('node/analyzeFile.js');
  const { TokenPool } = out('node/tokenPool.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const view = { timeline: out('view/timelineData.js'), problems: out('view/problemsModel.js') };
  const options = { encoding: 'o200k_base', ratioFloor: 5 };
  const dir = mkdtempSync(join(tmpdir(), 'cl-append-'));
  const live = join(dir, file.endsWith('.gz') ? 'live.jsonl.gz' : 'live.jsonl');
  copyFileSync(file, live);
  const pool = new TokenPool({});
  try {
    const openStart = now();
    // What the store keeps of analyzeFile's result: the file, and its caches for the next analysis.
    const {
      file: opened,
      analysis: first,
      ...caches
    } = await analyzeFile(live, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS }, pool, options, {
      // JUDGE_WORKER=1: the first analysis judged in a worker thread, as the extension judges a large file's.
      judgeWorker: process.env.JUDGE_WORKER ? {} : undefined,
    });
    const openMs = now() - openStart;
    // The re-read's own time, within analyzeAgain's.
    const fileRefresh = opened.refresh.bind(opened);
    let refreshMs = 0;
    opened.refresh = async (signal) => {
      const refreshStart = now();
      const outcome = await fileRefresh(signal);
      refreshMs = now() - refreshStart;
      return outcome;
    };
    let analysis = first;
    // The checkpoint analyses the listeners have seen (listenersWork), and the timeline's first headers (its init).
    const seen = Object.assign(new WeakSet(first.checkpoints), { headers: view.timeline.checkpointHeaders(opened.transcript, first) });
    let last = lastRecord(live);
    const appends = [];
    for (let n = 1; n <= APPENDS; n += 1) {
      const line = nextTurnLine(last, n);
      last = JSON.parse(line);
      appendFileSync(live, `${line}\n`);
      const before = opened.transcript.turns.length;
      const start = now();
      const previous = analysis;
      const again = await analyzeAgain(opened, caches, pool, options, true);
      const result = again.change;
      analysis = again.analysis ?? previous;
      const analyseMs = now() - start - refreshMs;
      const work = listenersWork(view, live, opened.transcript, analysis, seen);
      const totalMs = now() - start;
      const turns = opened.transcript.turns.length;
      if (turns !== before + 1) throw new Error(`append ${n}: ${result}, ${before} → ${turns} turns (expected one more)`);
      const reused = analysis.checkpoints.filter((checkpoint, index) => checkpoint === previous.checkpoints[index]).length;
      appends.push({ result, refreshMs, analyseMs, ...work, kept: undefined, totalMs, reused });
    }
    // A small file's last analysis is checked against a fresh one (at 100k turns that is a full analysis more).
    if (opened.transcript.turns.length <= 20_000) {
      const freshAnalysis = await analyzeTranscript(opened.transcript, { tokenCache: new Map() }, pool, options);
      const verdicts = (a) => JSON.stringify(a.checkpoints.map((cp) => [cp.summaryId, cp.verdict, cp.counts, cp.safeCovered.length]));
      if (verdicts(freshAnalysis) !== verdicts(analysis))
        throw new Error(`after the appends, the analysis differs from a fresh one: ${verdicts(analysis)} / ${verdicts(freshAnalysis)}`);
    }
    const median = (key) => [...appends.map((a) => a[key])].sort((a, b) => a - b)[Math.floor(appends.length / 2)];
    const worst = (key) => Math.max(...appends.map((a) => a[key]));
    const figures = {};
    for (const key of ['totalMs', 'refreshMs', 'analyseMs', 'timelineMs', 'serialiseMs', 'othersMs', 'marksMs']) {
      figures[key] = median(key);
      figures[`${key.replace(/Ms$/, '')}WorstMs`] = worst(key);
    }
    return {
      openMs,
      appends: appends.length,
      results: [...new Set(appends.map((a) => a.result))].join(','),
      ...figures,
      updatedBytes: median('updatedBytes'),
      checkpointsReused: `${median('reused')}/${analysis.checkpoints.length}`,
      turns: opened.transcript.turns.length,
    };
  } finally {
    pool.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a worker would pay to send its analysis to the host: V8's serializer, which postMessage uses. */
async function cloneCost() {
  const { analyzeFile } = out('node/analyzeFile.js');
  const { TokenPool } = out('node/tokenPool.js');
  const pool = new TokenPool({});
  try {
    const { file: opened, analysis } = await analyzeFile(file, {}, pool, { encoding: 'o200k_base', ratioFloor: 5 });
    const timed = (value) => {
      let start = now();
      const bytes = serialize(value);
      const serialiseMs = now() - start;
      start = now();
      deserialize(bytes);
      return { mb: bytes.length / 1e6, serialiseMs, deserialiseMs: now() - start };
    };
    return { analysis: timed(analysis), transcript: timed(opened.transcript) };
  } finally {
    pool.dispose();
  }
}

/**
 * The judging alone: FILE (and any more files after it) opened, then analysed six times in a row with sizes taken
 * as the texts' lengths (no tokenizer) and no caches kept between passes, so each pass extracts and judges every
 * turn again. The CPU time of each pass: the first is V8's cold start, the later ones its optimised code.
 */
async function judgeOnly() {
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { analyze } = out('core/analyze.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const transcripts = [];
  for (const path of process.argv.slice(3)) {
    transcripts.push((await TranscriptFile.open(path, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS })).transcript);
  }
  const passesMs = [];
  const wallMs = [];
  for (let pass = 0; pass < 6; pass += 1) {
    const start = process.cpuUsage();
    const started = now();
    for (const transcript of transcripts) analyze(transcript, { countTokens: (text) => text.length, ratioFloor: 5 });
    wallMs.push(Math.round(now() - started));
    const used = process.cpuUsage(start);
    passesMs.push(Math.round((used.user + used.system) / 1000));
  }
  const later = wallMs.slice(1).sort((a, b) => a - b);
  return { files: transcripts.length, passesMs, bestMs: Math.min(...passesMs.slice(1)), wallMs, medianWallMs: later[later.length >> 1] };
}

/** The judging alone, N times (process.argv[4], default 3), as judgeOnly runs it: for counting its instructions. */
async function judgePasses() {
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { analyze } = out('core/analyze.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const { transcript } = await TranscriptFile.open(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
  const passes = process.argv[4] === undefined ? 3 : Number(process.argv[4]);
  // `warm`: one analysis with an evidence cache first, then each pass with that cache (its evidence worked out).
  const warm = process.argv[5] === 'warm';
  const options = { countTokens: (text) => text.length, ratioFloor: 5 };
  if (warm) {
    const { EvidenceCache } = out('core/evidenceCache.js');
    options.evidenceCache = new EvidenceCache();
    analyze(transcript, options);
  }
  for (let pass = 0; pass < passes; pass += 1) analyze(transcript, options);
  return { passes, warm };
}

/**
 * What one analysis's results keep: the heap after a full collection with the analysis alive, less the heap
 * before it (the transcript's own), as judge runs it. Needs `node --expose-gc`.
 */
async function keptByResults() {
  if (typeof globalThis.gc !== 'function') {
    process.stderr.write('measure.mjs kept needs a collection on demand: run it with node --expose-gc\n');
    process.exit(2);
  }
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { analyze } = out('core/analyze.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const { transcript } = await TranscriptFile.open(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  const analysis = analyze(transcript, { countTokens: (text) => text.length, ratioFloor: 5 });
  globalThis.gc();
  const keptMb = Math.round((process.memoryUsage().heapUsed - before) / 1e5) / 10;
  const results = analysis.checkpoints.reduce((sum, cp) => sum + cp.turns.length, 0);
  // Then what an evidence cache keeps once an analysis with it is let go (what the extension keeps per file).
  const { EvidenceCache } = out('core/evidenceCache.js');
  globalThis.gc();
  const beforeCache = process.memoryUsage().heapUsed;
  const evidenceCache = new EvidenceCache();
  analyze(transcript, { countTokens: (text) => text.length, ratioFloor: 5, evidenceCache });
  globalThis.gc();
  globalThis.gc();
  const evidenceCacheMb = Math.round((process.memoryUsage().heapUsed - beforeCache) / 1e5) / 10;
  return { results, keptMb, evidenceCacheMb, cachedChars: evidenceCache.size };
}

/** Evidence extraction alone: extractPieces over the files' turn and summary texts, seven passes of CPU time. */
async function extractOnly() {
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { extractPieces, MAX_SCAN_CHARS } = out('core/evidenceText.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const texts = [];
  for (const path of process.argv.slice(3)) {
    const { transcript } = await TranscriptFile.open(path, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
    for (const turn of transcript.turns.slice(0, 30_000)) {
      if (typeof turn.text === 'string') texts.push({ text: turn.text, user: turn.role === 'user' });
    }
    for (const cp of transcript.checkpoints) if (typeof cp.summary === 'string') texts.push({ text: cp.summary, user: true });
  }
  let chars = 0;
  for (const { text } of texts) chars += Math.min(text.length, MAX_SCAN_CHARS);
  const passesMs = [];
  for (let pass = 0; pass < 7; pass += 1) {
    const start = process.cpuUsage();
    for (const { text, user } of texts) extractPieces(text, { sentences: user, terms: true });
    const used = process.cpuUsage(start);
    passesMs.push(Math.round((used.user + used.system) / 1000));
  }
  return { texts: texts.length, chars, passesMs, bestMs: Math.min(...passesMs.slice(1)) };
}

/** The claimed texts' lower bounds, three passes: the first is V8's cold run, as before the judging in `check`. */
async function boundsOnly() {
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { pieceLowerBound, scannedLowerBound } = out('core/tokenPieces.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const { transcript } = await TranscriptFile.open(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
  const texts = [];
  for (const checkpoint of transcript.checkpoints) {
    const claimed = new Set(checkpoint.claimedIds);
    for (const turn of transcript.turns.slice(0, checkpoint.turnsBefore)) {
      if (claimed.has(turn.id) && typeof turn.text === 'string') texts.push(turn.text);
    }
  }
  const bound = process.argv[4] === 'scanned' ? scannedLowerBound : pieceLowerBound;
  const passesMs = [];
  let tokens = 0;
  for (let pass = 0; pass < 3; pass += 1) {
    const start = now();
    tokens = 0;
    for (const text of texts) tokens += bound(text, 'o200k');
    passesMs.push(Math.round(now() - start));
  }
  return { texts: texts.length, chars: texts.reduce((sum, text) => sum + text.length, 0), tokens, passesMs };
}

/** The allocations of one analysis by function, garbage included (V8's sampling heap profiler). */
async function allocations() {
  const { Session } = await import('node:inspector');
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { analyze } = out('core/analyze.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const { transcript } = await TranscriptFile.open(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((done, fail) => session.post(method, params, (error, reply) => (error ? fail(error) : done(reply))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  analyze(transcript, { countTokens: (text) => text.length, ratioFloor: 5 });
  const { profile } = await post('HeapProfiler.stopSampling');
  const byFunction = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const mb = (bytes) => Math.round(bytes / 1e5) / 10;
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25);
  return { turns: transcript.turns.length, allocatedMb: mb(total), top: top.map(([name, bytes]) => `${mb(bytes)} ${name}`) };
}

/** The evidence cache letting texts go as it takes new ones (see the header). */
async function cacheChurn() {
  const { TranscriptFile } = out('node/transcriptFile.js');
  const { EvidenceCache } = out('core/evidenceCache.js');
  const { turnPieces } = out('core/evidence.js');
  const { turns } = (await TranscriptFile.open(file, {})).transcript;
  let chars = 0;
  for (const turn of turns) chars += typeof turn.text === 'string' ? turn.text.length : 0;
  let start = now();
  for (const turn of turns) turnPieces(turn, false);
  const bareMs = now() - start;
  const cache = new EvidenceCache({ maxChars: Math.floor(chars / 2) });
  start = now();
  for (let pass = 0; pass < 3; pass += 1) for (const turn of turns) cache.piecesOf(turn, false);
  return { turns: turns.length, chars, bareMs: Math.round(bareMs), cachedMs: Math.round(now() - start), ...cache.stats };
}

/** A large file analysed again with another threshold, its judging worker kept and new (see the header). */
async function reanalyzeWorker() {
  const { analyzeFile, analyzeTranscript } = out('node/analyzeFile.js');
  const { TokenPool } = out('node/tokenPool.js');
  const { JudgeWorker } = out('node/judgeInWorker.js');
  const { CheckpointMemo } = out('core/checkpointMemo.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const options = { encoding: 'o200k_base', ratioFloor: 5 };
  const pool = new TokenPool({});
  const kept = new JudgeWorker();
  const judging = (worker) => ({
    minTurns: 0,
    worker,
    onFallback: (why) => {
      throw new Error(`the judging fell back to this thread: ${why}`);
    },
  });
  try {
    const start = now();
    const {
      file: opened,
      tokenCache,
      evidenceCache,
    } = await analyzeFile(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS }, pool, options, { judgeWorker: judging(kept) });
    const firstMs = now() - start;
    const again = async (worker) => {
      const begun = now();
      const caches = { tokenCache, evidenceCache, checkpointMemo: new CheckpointMemo() };
      await analyzeTranscript(opened.transcript, caches, pool, { ...options, coverageThreshold: 0.9 }, { judgeWorker: judging(worker) });
      return now() - begun;
    };
    const fresh = new JudgeWorker();
    let newWorkerMs;
    try {
      newWorkerMs = await again(fresh);
    } finally {
      fresh.dispose();
    }
    const keptWorkerMs = await again(kept);
    return {
      turns: opened.transcript.turns.length,
      firstMs: Math.round(firstMs),
      newWorkerMs: Math.round(newWorkerMs),
      keptWorkerMs: Math.round(keptWorkerMs),
      keptJobs: kept.jobs,
      keptEvidence: kept.lastJob?.evidence,
    };
  } finally {
    kept.dispose();
    pool.dispose();
  }
}

/** The event loop's longest waits during a first analysis with the judging in a worker, and what ran in them. */
async function stalls() {
  const { analyzeFile } = out('node/analyzeFile.js');
  const { TokenPool } = out('node/tokenPool.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const stallMs = process.env.STALL_MS ? Number(process.env.STALL_MS) : 40;
  const intervalUs = 500;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  const gaps = [];
  let tick = process.hrtime.bigint();
  const ticking = setInterval(() => {
    const at = process.hrtime.bigint();
    const ms = Number(at - tick) / 1e6;
    // The profile's timestamps are microseconds of the same clock.
    if (ms > stallMs) gaps.push({ from: Number(tick / 1000n), to: Number(at / 1000n), ms });
    tick = at;
  }, 5);
  const pool = new TokenPool({});
  const start = now();
  try {
    await analyzeFile(
      file,
      { defaultBudgets: DEFAULT_SUMMARY_BUDGETS },
      pool,
      { encoding: 'o200k_base', ratioFloor: 5 },
      {
        judgeWorker: { onFallback: () => undefined },
      },
    );
  } finally {
    clearInterval(ticking);
    pool.dispose();
  }
  const fullMs = now() - start;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nameOf = (id) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    return `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
  };
  // Frames that every gap has (the event loop's own), left out of what is listed.
  const plumbing =
    /^\((root|program|idle)\)|^(runMicrotasks|processTicksAndRejections|processImmediate|runNextTicks|listOnTimeout|processTimers) /;
  let at = profile.startTime;
  const times = profile.timeDeltas.map((delta) => (at += delta));
  const longest = gaps.sort((a, b) => b.ms - a.ms).slice(0, 8);
  return {
    fullMs: Math.round(fullMs),
    stallMs,
    gaps: longest.map((gap) => {
      const counts = new Map();
      let samples = 0;
      for (let i = 0; i < times.length; i++) {
        if (times[i] < gap.from || times[i] > gap.to) continue;
        samples++;
        const seen = new Set();
        for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
          const name = nameOf(id);
          if (seen.has(name) || plumbing.test(name)) continue;
          seen.add(name);
          counts.set(name, (counts.get(name) ?? 0) + 1);
        }
      }
      const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8);
      return {
        ms: Math.round(gap.ms),
        samples,
        expected: Math.round((gap.ms * 1000) / intervalUs),
        top: top.map(([name, count]) => `${name} ${Math.round((100 * count) / samples)}%`),
      };
    }),
  };
}

const modes = {
  floor,
  stalls,
  'reanalyze-worker': reanalyzeWorker,
  cache: cacheChurn,
  alloc: allocations,
  kept: keptByResults,
  bounds: boundsOnly,
  analyze: analyzeOnce,
  judge: judgeOnly,
  passes: judgePasses,
  extract: extractOnly,
  'analyze-warm': analyzeWarm,
  tokenize,
  append: appendTurns,
  clone: cloneCost,
};
if (!modes[mode] || !file) {
  process.stderr.write(`usage: node scripts/bench/measure.mjs ${Object.keys(modes).join('|')} FILE\n`);
  process.exit(2);
}
const result = await modes[mode]();
process.stdout.write(`${JSON.stringify({ mode, ...result, peakRssMb: peakMb() })}\n`);
