// One measurement of `npm run bench`, run in a child process of its own so its peak RSS is its own. Prints one
// JSON line on stdout. Modes (FILE may be .jsonl or .jsonl.gz):
//   floor FILE     read + JSON.parse of every line (readline over the stream, gunzip when compressed)
//   analyze FILE   what `check` does (analyzeFile: read, count in TokenPool's workers, analyse), then a second
//                  analysis of the same transcript (token cache warm): times to the file read, to the first
//                  verdict and to the full analysis. The first verdict is when analyzeFile calls
//                  progress.onVerdict (a verdict settled before the exact counts); without that call it is the
//                  full analysis.
//   tokenize FILE  tiktoken o200k_base in this thread alone over the texts the analysis counts (core's
//                  textsToCount): its load, then the counting
// Needs `npm run compile` (out/).
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

const require = createRequire(import.meta.url);
const out = (path) => require(`../../out/src/${path}`);

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
  const { TokenPool } = out('node/tokenPool.js');
  const { DEFAULT_SUMMARY_BUDGETS } = out('core/defaults.js');
  const options = { encoding: 'o200k_base', ratioFloor: 5 };
  const start = now();
  let readMs;
  let firstVerdictMs;
  const pool = new TokenPool({});
  try {
    const {
      file: opened,
      analysis,
      tokenCache,
      evidenceCache,
    } = await analyzeFile(file, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS }, pool, options, {
      onProgress: (_fraction, message) => {
        if (readMs === undefined && message !== 'reading…') readMs = now() - start;
      },
      onVerdict: () => {
        firstVerdictMs ??= now() - start;
      },
    });
    const fullMs = now() - start;
    const again = now();
    // The file's caches as analyzeFile kept them, as the extension keeps them between analyses.
    const second = await analyzeTranscript(opened.transcript, { tokenCache, evidenceCache }, pool, options);
    const reanalysisMs = now() - again;
    const verdicts = (a) =>
      a.checkpoints.map((cp) => `${cp.summaryId}:${cp.verdict}:${cp.counts.covered}/${cp.counts['claimed-missing']}`).join(' ');
    if (verdicts(second) !== verdicts(analysis))
      throw new Error(`the second analysis differs: ${verdicts(second)} / ${verdicts(analysis)}`);
    return {
      readMs: readMs ?? fullMs,
      firstVerdictMs: firstVerdictMs ?? fullMs,
      earlyVerdict: firstVerdictMs !== undefined,
      fullMs,
      reanalysisMs,
      turns: opened.transcript.turns.length,
      checkpoints: verdicts(analysis),
    };
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
  const count = createTokenCounter('o200k_base');
  count('load the encoding');
  const loadMs = now() - loadStart;
  const start = now();
  let tokens = 0;
  let bytes = 0;
  for (const text of texts) {
    tokens += count(text);
    bytes += Buffer.byteLength(text);
  }
  return { loadMs, ms: now() - start, texts: texts.length, bytes, tokens };
}

const modes = { floor, analyze: analyzeOnce, tokenize };
if (!modes[mode] || !file) {
  process.stderr.write('usage: node scripts/bench/measure.mjs floor|analyze|tokenize FILE\n');
  process.exit(2);
}
const result = await modes[mode]();
process.stdout.write(`${JSON.stringify({ mode, ...result, peakRssMb: peakMb() })}\n`);
