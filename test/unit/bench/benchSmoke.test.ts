// `npm run bench` as a correctness smoke (never a timed test): its short seeded run (--smoke: 300 turns, canonical
// and Claude Code-like, one run, no corpus) generates its transcripts, measures every figure in child processes,
// analyses them as `check` does, appends turns to them as a live file grows, and prints its table. Only that it
// runs and prints is asserted, no time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');

describe('npm run bench --smoke', function () {
  this.timeout(180000);
  it('generates, measures and prints every figure of its two small transcripts', () => {
    const run = spawnSync(process.execPath, [join(root, 'scripts/bench.mjs'), '--smoke'], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const rows = run.stdout.split('\n').filter((line) => /^\| (canonical|claude-code), 300 turns \|/.test(line));
    assert.equal(rows.length, 2, run.stdout);
    for (const row of rows) {
      const cells = row.split('|').slice(1, -1);
      assert.equal(cells.length, 12, row);
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
