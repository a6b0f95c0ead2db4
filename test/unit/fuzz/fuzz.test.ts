// The seeded subset of `npm run fuzz` that runs with the unit tests: 2,000 mutants over the readers of fuzzCore.ts READERS (the same
// mutations and driver, test/unit/fuzz/fuzzCore.ts, with the `quick` profile's shorter hostile runs), seeded from
// the fixtures and, when it is beside the project, the shared corpus. No reader or analyze may throw, and no
// checkpoint may change because of lines after it. Time is measured and printed, never asserted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FormatId } from '../../../src/core/model';
import { READERS, fuzzRange, makeMutant, shrink, type Failure, type Tally } from './fuzzCore';
import { corpusSeeds, fixtureSeeds, type Seed } from './seeds';
import { skipOrFailInCi } from '../../sharedFolder';

const SEED = 20260214;
const TOTAL = 2000;
const ROOT = join(__dirname, '..', '..', '..', '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');

/**
 * Readers with known history bugs found by `npm run fuzz` (reported on issue #10). Their history check is pending
 * while it finds changes; the crash check still runs. Remove a reader once its history holds.
 *  (none at present: the claude-code and langchain history bugs are fixed.)
 */
const KNOWN_HISTORY_BUGS: ReadonlySet<FormatId> = new Set<FormatId>([]);

/** How the seeded mutants are shared out: 2,000 in all. */
function countFor(i: number): number {
  return Math.floor(TOTAL / READERS.length) + (i < TOTAL % READERS.length ? 1 : 0);
}

function describeFailures(seeds: readonly Seed[], failures: readonly Failure[]): string {
  return failures
    .slice(0, 3)
    .map((f) => {
      const small = shrink(makeMutant(seeds, f.reader, SEED, f.index, 'quick'), f.kind, 600);
      return `#${f.index} from ${f.seedName} [${f.ops.join(', ')}]: ${f.message}\n  reproduce: node scripts/fuzz.mjs --quick --reader ${f.reader} --seed ${SEED} --only ${f.index} --shrink\n  shrunk:\n${small.bytes
        .toString('utf8')
        .split('\n')
        .map((l) => `    ${l.slice(0, 300)}`)
        .join('\n')}`;
    })
    .join('\n');
}

describe(`fuzz: ${TOTAL.toLocaleString('en-US')} seeded mutants over the readers (the subset of npm run fuzz)`, function () {
  this.timeout(180000);
  const tallies = new Map<FormatId, Tally>();
  let seeds: Seed[] = [];

  before(function () {
    const corpus = corpusSeeds(CORPUS);
    if (corpus.length === 0) console.log(`      (corpus seeds skipped: ${CORPUS} is absent; fuzzing the fixtures only)`);
    seeds = [...fixtureSeeds(ROOT), ...corpus];
    READERS.forEach((reader, i) =>
      tallies.set(reader, fuzzRange(seeds, reader, SEED, 0, countFor(i), { profile: 'quick', budgetMs: 2000 })),
    );
    const line = (t: Tally) =>
      `${t.reader} ${t.mutants} mutants, ${t.crashes} crashes, ${t.history} history changes, ${t.hangs} over 2 s, slowest ${t.slowest.ms.toFixed(0)} ms, ${(t.ms / 1000).toFixed(1)} s`;
    for (const t of tallies.values()) console.log(`      ${line(t)}`);
  });

  for (const reader of READERS) {
    it(`${reader}: no exception out of the reader or analyze`, () => {
      const t = tallies.get(reader)!;
      assert.ok(t.mutants > 0);
      const crashes = t.failures.filter((f) => f.kind === 'crash');
      assert.equal(t.crashes, 0, `${t.crashes} crashes:\n${describeFailures(seeds, crashes)}`);
    });

    it(`${reader}: no checkpoint changes because of lines after it`, function () {
      const t = tallies.get(reader)!;
      const changes = t.failures.filter((f) => f.kind === 'history');
      if (KNOWN_HISTORY_BUGS.has(reader) && t.history > 0) {
        skipOrFailInCi(this, `${t.history} history changes, known ${reader} reader bugs (see KNOWN_HISTORY_BUGS)`);
      }
      assert.equal(t.history, 0, `${t.history} history changes:\n${describeFailures(seeds, changes)}`);
    });
  }
});
