// Counts the instructions of the judging (measure.mjs passes) under valgrind's cachegrind, for one compiled tree or
// several side by side (a copy of out/ made before a change, and out/ itself), so that two trees are compared by a
// figure that moves 0.1% from run to run where their times move by a tenth or more on a shared machine.
// V8's young generation is given a fixed size: V8 resizes it as it runs, not the same way each time, and without
// that identical runs of the 10k generated canonical file differed by up to 4% (docs/performance.md, "Measuring").
// Instructions are not time: code that waits on memory costs more than its count says, so a change is also timed.
//
// Usage: node scripts/bench/instructions.mjs [--runs N] [--passes N] [--warm] FILE [OUT ...]
//   FILE      a transcript (the generated 10k-turn canonical file takes about a minute a run)
//   OUT       compiled trees to compare (folders holding `src/`, as out/ does); default: this project's out/
//   --runs    runs of each tree, taken in turn (default 3)
//   --passes  judging passes per run (default 3); a run of 0 passes (the read alone) is taken once per tree and
//             taken off, so each figure is the judging's own
//   --warm    each pass with an evidence cache worked out before (measure.mjs passes … warm)
// Needs valgrind (apt-get install valgrind) and `npm run compile`. Prints each tree's counts and its difference
// from the first tree's.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string' }, passes: { type: 'string' }, warm: { type: 'boolean' } },
  allowPositionals: true,
});
const [file, ...trees] = positionals;
const runs = Number(values.runs ?? 3);
const passes = Number(values.passes ?? 3);
const measure = fileURLToPath(new URL('./measure.mjs', import.meta.url));
const outs = (trees.length > 0 ? trees : [fileURLToPath(new URL('../../out', import.meta.url))]).map((tree) => resolve(tree));

function fail(message) {
  process.stderr.write(`instructions: ${message}\n`);
  process.exit(2);
}

if (file === undefined || !existsSync(file)) fail(`no such transcript: ${file ?? '(none given)'}`);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(passes) || passes < 1) fail('--runs and --passes take a whole number ≥ 1');
for (const out of outs) if (!existsSync(join(out, 'src/core/analyze.js'))) fail(`${out} holds no compiled tree (src/core/analyze.js)`);
if (spawnSync('valgrind', ['--version']).status !== 0) fail('valgrind is not installed (apt-get install valgrind)');

/** Instructions of one run of measure.mjs passes over `out`'s tree, with `count` passes. */
function instructions(out, count) {
  const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', process.execPath, '--single-threaded'];
  args.push('--min-semi-space-size=16', '--max-semi-space-size=16', measure, 'passes', file, String(count));
  if (values.warm) args.push('warm');
  const run = spawnSync('valgrind', args, { encoding: 'utf8', env: { ...process.env, MEASURE_OUT: out } });
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr ?? '');
  if (run.status !== 0 || refs === null) fail(`the run over ${out} failed:\n${(run.stderr ?? '').slice(-2000)}`);
  return Number(refs[1].replaceAll(',', ''));
}

const giga = (n) => `${(n / 1e9).toFixed(3)}G`;
const reads = outs.map((out) => instructions(out, 0));
const counts = outs.map(() => []);
for (let run = 0; run < runs; run++) {
  outs.forEach((out, k) => {
    counts[k].push(instructions(out, passes) - reads[k]);
    process.stderr.write(`run ${run + 1} of ${runs}, ${out}: ${giga(counts[k][run])}\n`);
  });
}
/** The middle value, or the mean of the two middle ones for an even number of runs. */
function medianOf(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
console.log(`${file}, ${passes} pass${passes === 1 ? '' : 'es'}${values.warm ? ' (warm)' : ''}, the read taken off; ${runs} runs each`);
outs.forEach((out, k) => {
  const list = counts[k];
  const low = Math.min(...list);
  const high = Math.max(...list);
  const against =
    k === 0 ? '' : `, ${(((medianOf(list) - medianOf(counts[0])) / medianOf(counts[0])) * 100).toFixed(2)}% against the first`;
  console.log(
    `${out}: median ${giga(medianOf(list))} (${giga(low)}–${giga(high)}, spread ${(((high - low) / low) * 100).toFixed(2)}%)${against}`,
  );
});
