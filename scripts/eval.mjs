// `npm run eval`: runs `compaction-lens eval` (dist/cli.js, built first by the npm script) over every
// *-labels.json in ../shared/corpus/labels/, and in every folder given with `--labels DIR` (label files kept
// outside the corpus; their "file" is read relative to the corpus folder), prints each report and then the
// figures summed over all of them. Other arguments are passed to every run (`npm run eval -- --threshold 2`).
// Skips, with a message, when there is no label file. Exit status: the highest of the runs (0 measured, 1
// --min-agreement not met, 2 unusable).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/cli.js');
const corpusFolder = resolve(root, '../shared/corpus');
const labelsFolder = join(corpusFolder, 'labels');

const extraArgs = [];
const extraFolders = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--labels' && i + 1 < argv.length) extraFolders.push(resolve(argv[++i]));
  else extraArgs.push(argv[i]);
}

/** Label files of a folder, each with the arguments that name its transcript (none: the CLI's default). */
function labelFiles(folder, inCorpus) {
  if (!existsSync(folder)) {
    console.log(`${folder} is absent: ${inCorpus ? "the shared corpus's labels (see docs/accuracy.md)" : 'no labels read from it'}`);
    return [];
  }
  return readdirSync(folder)
    .filter((name) => name.endsWith('-labels.json'))
    .sort()
    .map((name) => {
      const path = join(folder, name);
      if (inCorpus) return { name, args: [path] };
      let file;
      try {
        file = JSON.parse(readFileSync(path, 'utf8')).file;
      } catch {
        file = undefined; // the CLI says what is wrong with it
      }
      return { name, args: typeof file === 'string' ? [path, resolve(corpusFolder, file)] : [path] };
    });
}

const files = [labelsFolder, ...extraFolders].flatMap((folder) => labelFiles(folder, folder === labelsFolder));
if (files.length === 0) {
  console.log('eval skipped: no *-labels.json to run');
  process.exit(0);
}

const STATUSES = ['covered', 'claimed-missing', 'uncovered', 'nothing-to-check', 'unverifiable'];
const LABELS = ['covered', 'missing', 'no-content'];
const total = {
  runs: 0,
  agreement: { count: 0, of: 0 },
  missingShownCovered: { count: 0, of: 0 },
  noContentNoise: { count: 0, of: 0 },
  unmatched: 0,
  confusion: Object.fromEntries(LABELS.map((label) => [label, Object.fromEntries(STATUSES.map((status) => [status, 0]))])),
};
let exitStatus = 0;

const cliRun = (args, stdio) =>
  spawnSync(process.execPath, [cli, 'eval', ...args, ...extraArgs], { encoding: 'utf8', stdio, maxBuffer: 256 * 1024 * 1024 });
const add = (sum, share) => {
  sum.count += share.count;
  sum.of += share.of;
};
const shareText = ({ count, of }) => `${count} of ${of} (${of > 0 ? `${((count / of) * 100).toFixed(1)}%` : 'n/a'})`;

for (const { name, args } of files) {
  console.log(`── ${name}`);
  const text = cliRun(args, 'inherit');
  exitStatus = Math.max(exitStatus, text.status ?? 2);
  if (text.status === 2) continue;
  const json = cliRun(['--json', ...args], ['ignore', 'pipe', 'inherit']);
  const doc = JSON.parse(json.stdout);
  total.runs += 1;
  add(total.agreement, doc.agreement);
  add(total.missingShownCovered, doc.missing_shown_covered);
  add(total.noContentNoise, doc.no_content_noise);
  total.unmatched += doc.unmatched.length;
  for (const label of LABELS) for (const status of STATUSES) total.confusion[label][status] += doc.confusion[label][status];
  console.log('');
}

console.log(`── total over ${total.runs} of ${files.length} label file${files.length === 1 ? '' : 's'}`);
console.log(`  agreement: ${shareText(total.agreement)} covered/missing labels agree`);
console.log(`  missing shown covered: ${shareText(total.missingShownCovered)} missing labels`);
console.log(`  no-content noise: ${shareText(total.noContentNoise)} no-content labels shown claimed-missing`);
console.log(`  labels that match no turn: ${total.unmatched}`);
const width = Math.max(...STATUSES.map((status) => status.length));
console.log(`  ${'label \\ status'.padEnd(14)}  ${STATUSES.map((status) => status.padStart(width)).join('  ')}`);
for (const label of LABELS) {
  console.log(`  ${label.padEnd(14)}  ${STATUSES.map((status) => String(total.confusion[label][status]).padStart(width)).join('  ')}`);
}
process.exit(exitStatus);
