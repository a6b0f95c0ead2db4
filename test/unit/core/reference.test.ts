// Tests for the note's reference API (src/core/reference.ts): every case of the Python sketch, the incident
// from the note (420 turns, budget 4096, summary cut at turn 380), and Python-style message formatting.
import * as assert from 'node:assert/strict';
import {
  buildCheckpoint,
  COMPRESSION_RATIO_LOW,
  CompactionReversibilityError,
  pyList,
  pyNumber,
  pyStrRepr,
  reconstruct,
  type ReferenceTurn,
} from '../../../src/core/reference';

function turnsOf(n: number, tokens = 100): ReferenceTurn[] {
  return Array.from({ length: n }, (_, i) => ({ id: i, anchorToken: `ANCHOR_${i}_`, tokens }));
}

function raises(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CompactionReversibilityError, `expected CompactionReversibilityError, got ${String(err)}`);
    assert.equal(err.name, 'CompactionReversibilityError');
    assert.equal(err.message, message);
    return true;
  });
}

describe('core/reference: buildCheckpoint', () => {
  it('uses R_low = 5 by default', () => {
    assert.equal(COMPRESSION_RATIO_LOW, 5);
  });

  it('Path A: trusts only the reported ids, whatever the ceiling and the anchors', () => {
    const turns = turnsOf(6, 10_000); // prefix 60000 > ceiling 500
    const cp = buildCheckpoint(turns, 'no anchors at all', 100, [0, 2, 4, 99]);
    assert.deepEqual(cp.coveredIds, [0, 2, 4]);
    assert.deepEqual(cp.uncoveredIds, [1, 3, 5]);
    assert.equal(cp.summary, 'no anchors at all');
    assert.equal(cp.summaryBudget, 100);
  });

  it('Path A: an empty report covers nothing (it is still a report)', () => {
    const cp = buildCheckpoint(turnsOf(3), 'ANCHOR_0_ ANCHOR_1_ ANCHOR_2_', 4096, []);
    assert.deepEqual(cp.coveredIds, []);
    assert.deepEqual(cp.uncoveredIds, [0, 1, 2]);
  });

  it('Path B within the ceiling with every anchor present: all covered', () => {
    const turns = turnsOf(4);
    const cp = buildCheckpoint(turns, 'ANCHOR_0_ ANCHOR_1_, ANCHOR_2_ and ANCHOR_3_.', 100); // 400 <= 500
    assert.deepEqual(cp.coveredIds, [0, 1, 2, 3]);
    assert.deepEqual(cp.uncoveredIds, []);
  });

  it('Path B at exactly the ceiling is still within it', () => {
    const cp = buildCheckpoint(turnsOf(5), 'ANCHOR_0_ ANCHOR_1_ ANCHOR_2_ ANCHOR_3_ ANCHOR_4_', 100); // 500 == 500
    assert.deepEqual(cp.coveredIds, [0, 1, 2, 3, 4]);
  });

  it('Path B within the ceiling with anchors missing: raises, listing the first five', () => {
    const turns = turnsOf(8);
    raises(
      () => buildCheckpoint(turns, 'ANCHOR_0_ only', 1000),
      'summary within budget but omits anchors for turns [1, 2, 3, 4, 5]; pointer set must exclude them',
    );
  });

  it('Path B over the ceiling with anchors missing: raises with prefix, ceiling and the missing turns', () => {
    const turns = turnsOf(10, 100); // 1000 > 500
    raises(
      () => buildCheckpoint(turns, 'ANCHOR_0_ ANCHOR_1_ ANCHOR_2_ ANCHOR_3_ ANCHOR_4_ ANCHOR_5_', 100),
      'prefix 1000t > ceiling 500t and summary omits anchors for turns [6, 7, 8, 9]; ' + 'refusing to claim reversible coverage',
    );
  });

  it('Path B over the ceiling with every anchor present: still raises (the other error)', () => {
    const turns = turnsOf(3, 1000);
    raises(
      () => buildCheckpoint(turns, 'ANCHOR_0_ ANCHOR_1_ ANCHOR_2_', 100),
      'prefix 3000t exceeds reversible ceiling 500t; leave tail un-compacted or supply summarizer coverage report',
    );
  });

  it('anchors are exact substrings: case matters and "" is in every summary (as in Python)', () => {
    const turns: ReferenceTurn[] = [
      { id: 0, anchorToken: '', tokens: 1 },
      { id: 1, anchorToken: 'Ledger', tokens: 1 },
    ];
    assert.deepEqual(buildCheckpoint(turns, 'the Ledger', 10).coveredIds, [0, 1]);
    raises(
      () => buildCheckpoint(turns, 'the ledger', 10),
      'summary within budget but omits anchors for turns [1]; pointer set must exclude them',
    );
    assert.deepEqual(buildCheckpoint([{ id: 0, anchorToken: '', tokens: 1 }], '', 10).coveredIds, [0]);
  });

  it('a configurable ratio moves the ceiling', () => {
    const turns = turnsOf(2, 300); // 600
    raises(
      () => buildCheckpoint(turns, 'ANCHOR_0_ ANCHOR_1_', 100),
      'prefix 600t exceeds reversible ceiling 500t; leave tail un-compacted or supply summarizer coverage report',
    );
    assert.deepEqual(buildCheckpoint(turns, 'ANCHOR_0_ ANCHOR_1_', 100, undefined, 6).coveredIds, [0, 1]);
  });

  it('string ids are listed with Python repr quotes', () => {
    const turns: ReferenceTurn[] = [
      { id: 'msg-a', anchorToken: 'x1', tokens: 1 },
      { id: "it's", anchorToken: 'x2', tokens: 1 },
      { id: 7, anchorToken: 'x3', tokens: 1 },
    ];
    raises(
      () => buildCheckpoint(turns, 'nothing', 10),
      `summary within budget but omits anchors for turns ['msg-a', "it's", 7]; pointer set must exclude them`,
    );
  });

  it('accepts any iterable of turns and of reported ids', () => {
    function* gen(): Generator<ReferenceTurn> {
      yield { id: 1, anchorToken: 'a', tokens: 1 };
      yield { id: 2, anchorToken: 'b', tokens: 1 };
    }
    assert.deepEqual(buildCheckpoint(gen(), 'a b', 10, new Set([2])).coveredIds, [2]);
  });
});

describe('core/reference: reconstruct', () => {
  const cp = buildCheckpoint(turnsOf(4), 'x', 4096, [0, 1]);
  const rawLog = new Map<number, string>([
    [0, 'raw 0'],
    [1, 'raw 1'],
    [2, 'raw 2'],
    [3, 'raw 3'],
  ]);

  it('answers covered turns from the summary', () => {
    assert.equal(reconstruct(cp, rawLog, 1), '[from summary] fact for turn 1');
  });

  it('routes uncovered turns to the raw log', () => {
    assert.equal(reconstruct(cp, rawLog, 3), 'raw 3');
    assert.equal(reconstruct(cp, { '2': 'raw two' }, 2), 'raw two');
  });

  it('raises for a turn in neither set', () => {
    raises(() => reconstruct(cp, rawLog, 9), 'turn 9 is in neither covered nor uncovered set; pointer set is inconsistent with checkpoint');
  });

  it('an uncovered turn missing from the raw log is an error, never a summary answer (Python: KeyError)', () => {
    assert.throws(() => reconstruct(cp, new Map(), 3), RangeError);
  });
});

describe("core/reference: the note's incident", () => {
  // 420 turns of 100 tokens (prefix 42000), budget 4096 (ceiling 20480); the summariser stopped at turn 380
  // mid-sentence, and the pointer set was written from the input range {covered: [0..419]}.
  const N = 420;
  const turns = Array.from({ length: N }, (_, i) => ({ id: i, anchorToken: `FACT-${i}-`, tokens: 100 }));
  const summary =
    Array.from({ length: 380 }, (_, i) => `Turn ${i} established FACT-${i}-.`).join(' ') + ' Then, at the ledger migration, you went fro';
  const rawLog = new Map(turns.map((t) => [t.id, `raw text of turn ${t.id}: the ledger id is L-${t.id}`]));

  it('without a coverage report, buildCheckpoint refuses and names turns 380–384', () => {
    raises(
      () => buildCheckpoint(turns, summary, 4096),
      'prefix 42000t > ceiling 20480t and summary omits anchors for turns [380, 381, 382, 383, 384]; ' +
        'refusing to claim reversible coverage',
    );
  });

  it("with the summariser's report (0..379), turn N−12 comes from the raw log, never the summary", () => {
    const cp = buildCheckpoint(
      turns,
      summary,
      4096,
      Array.from({ length: 380 }, (_, i) => i),
    );
    assert.equal(cp.coveredIds.length, 380);
    assert.deepEqual(
      cp.uncoveredIds,
      Array.from({ length: 40 }, (_, i) => 380 + i),
    );
    const answer = reconstruct(cp, rawLog, N - 12);
    assert.equal(answer, 'raw text of turn 408: the ledger id is L-408');
    assert.ok(!answer.startsWith('[from summary]'));
    assert.equal(reconstruct(cp, rawLog, 12), '[from summary] fact for turn 12');
  });
});

describe('core/reference: Python formatting', () => {
  it('prints numbers as Python does', () => {
    assert.equal(pyNumber(20480), '20480');
    assert.equal(pyNumber(-3), '-3');
    assert.equal(pyNumber(2.5), '2.5');
    assert.equal(pyNumber(0.1 + 0.2), '0.30000000000000004');
    assert.equal(pyNumber(1e-5), '1e-05');
    assert.equal(pyNumber(0.0001), '0.0001');
    assert.equal(pyNumber(1.5e16), '15000000000000000');
    assert.equal(pyNumber(1.25e17 + 0.5), '125000000000000000');
    assert.equal(pyNumber(123456.75), '123456.75');
    assert.equal(pyNumber(NaN), 'nan');
    assert.equal(pyNumber(-Infinity), '-inf');
  });

  it('prints strings and lists as Python repr does', () => {
    assert.equal(pyStrRepr('abc'), "'abc'");
    assert.equal(pyStrRepr("it's"), `"it's"`);
    assert.equal(pyStrRepr(`it's "x"`), `'it\\'s "x"'`);
    assert.equal(pyStrRepr('a\\b\n\t'), "'a\\\\b\\n\\t'");
    assert.equal(pyStrRepr('\u0001\u00a0é'), "'\\x01\\xa0é'");
    assert.equal(pyStrRepr('\u200b'), "'\\u200b'");
    assert.equal(pyList([1, 'a', 2]), "[1, 'a', 2]");
    assert.equal(pyList([]), '[]');
  });
});
