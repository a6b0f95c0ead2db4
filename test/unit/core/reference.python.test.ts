// Runs the design note's own Python sketch (extracted at test time from the note's ```python block) on a
// table of generated cases and checks that the TypeScript port agrees case by case: the covered/uncovered
// lists, or the exact error message; and reconstruct's answer for every turn. Skips, saying why, when the
// note or python3 is not available.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import type { TurnId } from '../../../src/core/model';
import { buildCheckpoint, reconstruct, type ReferenceCheckpoint, type ReferenceTurn } from '../../../src/core/reference';
import { skipOrFailInCi, skipWithoutShared } from '../../sharedFolder';

const NOTE = resolve(__dirname, '../../../../../shared/seed/compaction-reversibility.md');

interface Case {
  turns: { id: TurnId; anchor: string; tokens: number }[];
  summary: string;
  budget: number;
  reported: TurnId[] | null;
  ratio: number;
  needed: TurnId[];
}

type Outcome = { ok: { covered: TurnId[]; uncovered: TurnId[] }; recon: ({ value: string } | { error: string })[] } | { error: string };

const DRIVER = `
import json, sys
import sketch
cases = json.load(sys.stdin)
out = []
for c in cases:
    sketch.COMPRESSION_RATIO_LOW = c["ratio"]
    turns = [sketch.Turn(t["id"], t["anchor"], t["tokens"]) for t in c["turns"]]
    try:
        cp = sketch.build_checkpoint(turns, c["summary"], c["budget"], c["reported"])
    except sketch.CompactionReversibilityError as e:
        out.append({"error": type(e).__name__ + ": " + str(e)})
        continue
    raw = {t["id"]: "raw text of " + str(t["id"]) for t in c["turns"]}
    recon = []
    for n in c["needed"]:
        try:
            recon.append({"value": sketch.reconstruct(cp, raw, n)})
        except sketch.CompactionReversibilityError as e:
            recon.append({"error": type(e).__name__ + ": " + str(e)})
    out.append({"ok": {"covered": cp.covered_ids, "uncovered": cp.uncovered_ids}, "recon": recon})
json.dump(out, sys.stdout, ensure_ascii=False)
`;

function runTs(c: Case): Outcome {
  const turns: ReferenceTurn[] = c.turns.map((t) => ({ id: t.id, anchorToken: t.anchor, tokens: t.tokens }));
  let cp: ReferenceCheckpoint;
  try {
    cp = buildCheckpoint(turns, c.summary, c.budget, c.reported, c.ratio);
  } catch (e) {
    const err = e as Error;
    return { error: `${err.name}: ${err.message}` };
  }
  const raw = new Map(c.turns.map((t) => [t.id, `raw text of ${String(t.id)}`]));
  const recon = c.needed.map((n) => {
    try {
      return { value: reconstruct(cp, raw, n) };
    } catch (e) {
      const err = e as Error;
      return { error: `${err.name}: ${err.message}` };
    }
  });
  return { ok: { covered: cp.coveredIds, uncovered: cp.uncoveredIds }, recon };
}

// Ids: ints, or strings with characters Python's repr must quote or escape.
const idArb = fc.oneof(
  fc.integer({ min: 0, max: 30 }),
  fc.constantFrom('a', 'msg-1', "it's", 'say "hi"', `both ' and "`, 'back\\slash', 'new\nline', 'é', 'tab\t'),
);
const anchorPool = ['ERR_1', 'ERR_12', 'ledger', 'Ledger', '', 'src/a.ts', 'Ω-7', 'x'];

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    ids: fc.uniqueArray(idArb, { maxLength: 9 }),
    anchors: fc.array(fc.constantFrom(...anchorPool), { minLength: 9, maxLength: 9 }),
    tokens: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 9, maxLength: 9 }),
    summaryParts: fc.subarray(anchorPool.filter((a) => a !== '')),
    budget: fc.integer({ min: 0, max: 300 }),
    reported: fc.option(fc.array(idArb, { maxLength: 6 }), { nil: null }),
    ratio: fc.constantFrom(5, 5, 5, 1, 3, 10),
    extraNeeded: fc.array(idArb, { maxLength: 2 }),
  })
  .map(({ ids, anchors, tokens, summaryParts, budget, reported, ratio, extraNeeded }) => ({
    turns: ids.map((id, i) => ({ id, anchor: anchors[i], tokens: tokens[i] })),
    summary: summaryParts.join(' … '),
    budget,
    reported,
    ratio,
    needed: [...ids, ...extraNeeded],
  }));

describe("core/reference agrees with the note's Python sketch", function () {
  this.timeout(60_000);
  let dir = '';

  before(function () {
    skipWithoutShared(this, existsSync(NOTE), `the design note at ${NOTE}`);
    const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      skipOrFailInCi(this, 'python3 is not available to run the sketch');
    }
    const match = /```python\n([\s\S]*?)```/.exec(readFileSync(NOTE, 'utf8'));
    assert.ok(match, 'the note has a ```python block');
    dir = mkdtempSync(join(tmpdir(), 'compaction-lens-sketch-'));
    writeFileSync(join(dir, 'sketch.py'), match[1]);
    writeFileSync(join(dir, 'driver.py'), DRIVER);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function runPython(cases: Case[]): Outcome[] {
    const result = spawnSync('python3', ['driver.py'], {
      cwd: dir,
      input: JSON.stringify(cases),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(result.status, 0, `python failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as Outcome[];
  }

  it("on the sketch's own cases and the incident", () => {
    const incidentTurns = Array.from({ length: 420 }, (_, i) => ({ id: i, anchor: `FACT-${i}-`, tokens: 100 }));
    const incidentSummary = Array.from({ length: 380 }, (_, i) => `FACT-${i}-`).join(' ') + ' you went fro';
    const cases: Case[] = [
      { turns: incidentTurns, summary: incidentSummary, budget: 4096, reported: null, ratio: 5, needed: [] },
      {
        turns: incidentTurns,
        summary: incidentSummary,
        budget: 4096,
        reported: Array.from({ length: 380 }, (_, i) => i),
        ratio: 5,
        needed: [408, 12, 999],
      },
      {
        turns: incidentTurns.slice(0, 3),
        summary: 'FACT-0- FACT-1- FACT-2-',
        budget: 4096,
        reported: null,
        ratio: 5,
        needed: [0, 1, 2, 3],
      },
      { turns: incidentTurns.slice(0, 3), summary: 'FACT-0-', budget: 4096, reported: null, ratio: 5, needed: [] },
      { turns: incidentTurns.slice(0, 3), summary: 'FACT-0- FACT-1- FACT-2-', budget: 10, reported: null, ratio: 5, needed: [] },
    ];
    const py = runPython(cases);
    cases.forEach((c, i) => assert.deepEqual(runTs(c), py[i], `case ${i}`));
  });

  it('on 400 generated cases (ids, anchors, budgets, reports, ratios)', () => {
    const cases = fc.sample(caseArb, { numRuns: 400, seed: 20261113 });
    const py = runPython(cases);
    let errors = 0;
    cases.forEach((c, i) => {
      const ts = runTs(c);
      if ('error' in ts) errors++;
      assert.deepEqual(ts, py[i], `case ${i}: ${JSON.stringify(c)}`);
    });
    // The table must exercise both outcomes, or it proves little.
    assert.ok(errors > 20 && errors < 380, `errors in ${errors} of 400 cases`);
  });

  // A fresh seed each run, printed on failure; FC_SEED=N replays one.
  const freshSeed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
  it('on random cases (fresh seed each run; FC_SEED=N replays a failure)', () => {
    const cases = fc.sample(caseArb, { numRuns: 200, seed: freshSeed });
    const py = runPython(cases);
    cases.forEach((c, i) =>
      assert.deepEqual(runTs(c), py[i], `case ${i} of seed ${freshSeed} (replay: FC_SEED=${freshSeed}): ${JSON.stringify(c)}`),
    );
  });
});
