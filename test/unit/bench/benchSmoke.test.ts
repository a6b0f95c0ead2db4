// `npm run bench` as a correctness smoke (never a timed test): its short seeded run (--smoke: 300 turns, canonical
// and Claude Code-like, one run, no corpus) generates its transcripts, measures every figure in child processes,
// analyses them as `check` does, appends turns to them as a live file grows, and prints its table; --save keeps its
// figures and --baseline compares with them (scripts/bench/baseline.mjs, run on the saved figures and on figures
// made slower). Only that it runs, prints and flags is asserted, no time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(__dirname, '../../../..');

/** compareRuns (scripts/bench/baseline.mjs) on two row lists, in a child process (the script is an ES module). */
function compare(before: unknown[], now: unknown[]): { lines: string[]; flagged: string[] } {
  const module = pathToFileURL(join(root, 'scripts/bench/baseline.mjs')).href;
  const script = `import { compareRuns } from ${JSON.stringify(module)}; const [a, b] = JSON.parse(process.argv[1]);
    process.stdout.write(JSON.stringify(compareRuns(a, b)));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify([before, now])], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { lines: string[]; flagged: string[] };
}

/** `node scripts/bench/measure.mjs MODE samples/incident.jsonl`, which must succeed: its figures, and its output for messages. */
function measureSample<T>(mode: string, env: NodeJS.ProcessEnv = {}): { figures: T & { mode: string }; stdout: string } {
  const run = spawnSync(process.execPath, [join(root, 'scripts/bench/measure.mjs'), mode, join(root, 'samples/incident.jsonl')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  assert.equal(run.status, 0, `${mode}: ${run.stderr}`);
  return { figures: JSON.parse(run.stdout) as T & { mode: string }, stdout: run.stdout };
}

describe('npm run bench --smoke', function () {
  this.timeout(180000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'cl-bench-test-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('generates, measures and prints every figure of its two small transcripts, and saves them', () => {
    const saved = join(dir, 'run.json');
    const run = spawnSync(process.execPath, [join(root, 'scripts/bench.mjs'), '--smoke', '--save', saved], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const rows = run.stdout.split('\n').filter((line) => /^\| (canonical|claude-code), 300 turns \|/.test(line));
    assert.equal(rows.length, 2, run.stdout);
    for (const row of rows) {
      const cells = row.split('|').slice(1, -1);
      assert.equal(cells.length, 14, row);
      assert.ok(
        cells.every((cell) => cell.trim() !== '–' && cell.trim() !== ''),
        `every figure measured: ${row}`,
      );
    }
    assert.match(run.stdout, /\(S1:(reversible|conditional|fail-closed):\d+\/\d+\)/, 'the canonical checkpoint was analysed');
    assert.equal(
      (run.stdout.match(/appended turn [\d.]+ ms \(worst [\d.]+, analysis [\d.]+\)/g) ?? []).length,
      2,
      'both appended-turn figures',
    );
    assert.equal((run.stdout.match(/\(longest stall [\d.]+ ms\)/g) ?? []).length, 2, 'both longest stalls');
    assert.equal((run.stdout.match(/, read anew [\d.]+ s,/g) ?? []).length, 2, 'both files read anew');
    assert.equal((run.stdout.match(/, another threshold [\d.]+ s,/g) ?? []).length, 2, 'both files at another threshold');
    const savedRows = (JSON.parse(readFileSync(saved, 'utf8')) as { rows: { label: string }[] }).rows;
    assert.deepEqual(
      savedRows.map((row) => row.label),
      ['canonical, 300 turns', 'claude-code, 300 turns'],
    );
  });

  it('compares a run with a saved one by multiples of the floor, and flags what grew', () => {
    const saved = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { rows: Record<string, unknown>[] };
    const same = compare(saved.rows, saved.rows);
    assert.deepEqual(same.flagged, []);
    assert.match(same.lines.join('\n'), /canonical, 300 turns: first verdict [\d.]+× → [\d.]+× the floor \(\+0%\)/);
    // The same figures on a machine twice as slow (floor included): nothing grew against its floor.
    const slowMachine = saved.rows.map((row) => scaled(row, ['floor', 'full', 'firstVerdict', 'reanalysis', 'cli'], 2));
    assert.deepEqual(compare(saved.rows, slowMachine).flagged, []);
    // The full analysis three times as slow on the same machine: flagged, and only that.
    const slower = saved.rows.map((row) => scaled(row, ['full'], 3));
    assert.deepEqual(compare(saved.rows, slower).flagged, ['canonical, 300 turns: full analysis', 'claude-code, 300 turns: full analysis']);
    const renamed = compare(saved.rows, [{ ...saved.rows[0], label: 'other' }]).lines;
    assert.ok(renamed.includes('other: not in the baseline') && renamed.includes('claude-code, 300 turns: in the baseline only'));
  });

  it('refuses a baseline it cannot read before measuring anything', () => {
    const bogus = join(dir, 'bogus.json');
    writeFileSync(bogus, '{"rows": 3}');
    for (const path of [bogus, join(dir, 'absent.json')]) {
      const run = spawnSync(process.execPath, [join(root, 'scripts/bench.mjs'), '--smoke', '--baseline', path], {
        cwd: root,
        encoding: 'utf8',
      });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /^bench: --baseline: .+\nusage: /);
      assert.equal(run.stdout, '', 'nothing measured');
    }
  });

  it('times the judging and the evidence extraction alone on a transcript (measure.mjs judge, extract)', () => {
    for (const mode of ['judge', 'extract']) {
      const { figures, stdout } = measureSample<{ passesMs: number[]; bestMs: number; texts?: number; chars?: number }>(mode);
      assert.equal(figures.mode, mode);
      assert.equal(figures.passesMs.length, mode === 'judge' ? 6 : 7);
      assert.ok(
        figures.passesMs.every((ms) => Number.isFinite(ms) && ms >= 0) && figures.bestMs === Math.min(...figures.passesMs.slice(1)),
      );
      if (mode === 'extract') assert.ok((figures.texts ?? 0) > 5 && (figures.chars ?? 0) > 1000, stdout);
    }
  });

  it('times the evidence cache letting texts go, each turn asked three times (measure.mjs cache)', () => {
    const { figures, stdout } = measureSample<{
      turns: number;
      chars: number;
      bareMs: number;
      cachedMs: number;
      hits: number;
      misses: number;
    }>('cache');
    assert.equal(figures.mode, 'cache');
    assert.ok(figures.turns > 5 && figures.chars > 1000, stdout);
    assert.ok(Number.isFinite(figures.bareMs) && figures.bareMs >= 0 && Number.isFinite(figures.cachedMs) && figures.cachedMs >= 0, stdout);
    assert.equal(figures.hits + figures.misses, 3 * figures.turns, stdout);
    assert.ok(figures.misses >= figures.turns, 'a cache of half the texts works each out at least once');
  });

  it('times a large file analysed again with its judging worker kept and with a new one (measure.mjs reanalyze-worker)', () => {
    const { figures, stdout } = measureSample<{
      firstMs: number;
      newWorkerMs: number;
      keptWorkerMs: number;
      keptJobs: number;
      keptEvidence: { hits: number; misses: number };
    }>('reanalyze-worker');
    assert.equal(figures.mode, 'reanalyze-worker');
    for (const ms of [figures.firstMs, figures.newWorkerMs, figures.keptWorkerMs]) assert.ok(Number.isFinite(ms) && ms >= 0, stdout);
    assert.equal(figures.keptJobs, 2, 'the kept worker judged both times');
    assert.ok(figures.keptEvidence.hits > 0 && figures.keptEvidence.misses === 0, stdout);
  });

  it('lists the longest waits of the event loop with the functions sampled in them (measure.mjs stalls)', () => {
    // Every gap of the 5 ms timer counts at STALL_MS=0, so a small file has some.
    const { figures, stdout } = measureSample<{
      fullMs: number;
      stallMs: number;
      gaps: { ms: number; samples: number; expected: number; top: string[] }[];
    }>('stalls', { STALL_MS: '0' });
    assert.equal(figures.mode, 'stalls');
    assert.equal(figures.stallMs, 0);
    assert.ok(figures.fullMs > 0, stdout);
    assert.ok(figures.gaps.length > 0 && figures.gaps.length <= 8, stdout);
    for (let i = 1; i < figures.gaps.length; i++) assert.ok(figures.gaps[i].ms <= figures.gaps[i - 1].ms, 'longest first');
    // A gap may hold only the event loop's own frames (left out) or no sample at all, but not every gap.
    assert.ok(
      figures.gaps.some((gap) => gap.samples > 0 && gap.top.length > 0),
      stdout,
    );
    for (const gap of figures.gaps) {
      assert.ok(gap.expected >= 0 && gap.samples >= 0, stdout);
      for (const line of gap.top) assert.match(line, / \d+%$/);
    }
  });

  it('says what is wrong with its command line in one line and its usage, without a stack trace', () => {
    for (const args of [['--bogus'], ['--sizes', '12x'], ['--shapes', 'xml'], ['--runs', '0']]) {
      const run = spawnSync(process.execPath, [join(root, 'scripts/bench.mjs'), ...args], { cwd: root, encoding: 'utf8' });
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^bench: .+\nusage: node scripts\/bench\.mjs /, args.join(' '));
      assert.doesNotMatch(run.stderr, /\n\s+at /, `${args.join(' ')} printed a stack trace`);
    }
  });
});

/** A row with some timings multiplied. */
function scaled(row: Record<string, unknown>, fields: string[], factor: number): Record<string, unknown> {
  const out = { ...row };
  for (const field of fields) if (typeof out[field] === 'number') out[field] = (out[field] as number) * factor;
  return out;
}
