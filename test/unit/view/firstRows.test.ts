// Tests for src/view/firstView.ts, src/view/timelineGeometry.ts and timelineData's firstRows, the rows `init`
// carries so the timeline draws the rows it opens on without asking: the checkpoint it shows, whole pages of the
// webview's row cache around its view (the default one, or the view state it restores, found through the list's
// geometry), clipped to the transcript, and rows equal to what a getRows request would give.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import type { Verdict } from '../../../src/core/model';
import { checkpointShown, defaultCheckpoint, firstRowsRange, firstTurnShown, ROW_PAGE_SIZE } from '../../../src/view/firstView';
import { checkpointHeaders, firstRows, timelineRows } from '../../../src/view/timelineData';
import { BAND_HEIGHT, bandBoundaries, ROW_HEIGHT, rowIndexAt, rowTopOf } from '../../../src/view/timelineGeometry';
import { incident } from '../core/transcripts';

const words = (text: string): number => text.split(' ').filter(Boolean).length;

const header = (verdict: Verdict, claimedMissingIndexes: number[] = [], turnsBefore = 0, safeBoundaryIndex = -1) => ({
  verdict,
  claimedMissingIndexes,
  turnsBefore,
  safeBoundaryIndex,
});

const view = (checkpointIndex: number, scrollTop: number) => ({ checkpointIndex, scrollTop });

describe('view/firstView and timelineData firstRows', () => {
  it('starts on the first checkpoint that is not reversible, else the first, else none, unless a view is restored', () => {
    assert.equal(defaultCheckpoint([]), -1);
    assert.equal(defaultCheckpoint([header('reversible'), header('reversible')]), 0);
    assert.equal(defaultCheckpoint([header('reversible'), header('fail-closed'), header('conditional')]), 1);
    assert.equal(checkpointShown([header('reversible'), header('fail-closed')], view(0, 0)), 0);
    assert.equal(checkpointShown([header('reversible'), header('fail-closed')], view(2, 0)), 1, 'a checkpoint that is gone');
    assert.equal(checkpointShown([], view(0, 0)), -1);
    assert.equal(firstTurnShown(header('fail-closed', [7, 9])), 7);
    assert.equal(firstTurnShown(header('reversible')), undefined);
    assert.equal(firstTurnShown(undefined), undefined);
  });

  it('lays rows out with a band above each checkpoint and above the end of the shown one’s safe pointer set', () => {
    const checkpoints = [header('reversible', [], 420, 379), header('fail-closed', [], 100, 49)];
    assert.deepEqual(bandBoundaries(checkpoints, 0), [100, 380, 420]);
    assert.deepEqual(bandBoundaries(checkpoints, 1), [50, 100, 420]);
    assert.deepEqual(bandBoundaries(checkpoints, -1), [100, 420]);
    assert.deepEqual(bandBoundaries([header('reversible', [], 10, 9)], 0), [10, 10], 'two bands above one row');
    assert.equal(rowTopOf(99, [100, 380]), 99 * ROW_HEIGHT);
    assert.equal(rowTopOf(100, [100, 380]), 100 * ROW_HEIGHT + BAND_HEIGHT);
    assert.equal(rowTopOf(400, [100, 380]), 400 * ROW_HEIGHT + 2 * BAND_HEIGHT);
  });

  it('finds the row at any height: each row from its top to the next row’s (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.nat(5000), { maxLength: 6 }),
        fc.nat(),
        fc.nat(),
        (rows, bands, at, into) => {
          const boundaries = [...bands].sort((a, b) => a - b);
          const index = at % rows;
          const top = rowTopOf(index, boundaries);
          const next = index + 1 < rows ? rowTopOf(index + 1, boundaries) : top + ROW_HEIGHT;
          assert.equal(rowIndexAt(top + (into % (next - top)), rows, boundaries), index);
        },
      ),
    );
  });

  it('sends whole pages around the view, clipped to the transcript', () => {
    assert.equal(firstRowsRange([], 0), undefined, 'no turns, no rows');
    assert.deepEqual(firstRowsRange([], 5), { checkpointIndex: -1, start: 0, count: 5 });
    assert.deepEqual(firstRowsRange([header('reversible')], 100_000), { checkpointIndex: 0, start: 0, count: 200 });
    // The view starts three rows above turn 380; near the end, a view as tall as 120 rows is covered too.
    assert.deepEqual(firstRowsRange([header('fail-closed', [380, 381], 420, 379)], 426), { checkpointIndex: 0, start: 200, count: 226 });
    assert.deepEqual(firstRowsRange([header('reversible'), header('conditional', [50_000])], 100_000), {
      checkpointIndex: 1,
      start: 49_900,
      count: 300,
    });
    // A view restored: the rows from where it was scrolled to, bands above included.
    const checkpoints = [header('fail-closed', [380], 420, 379)];
    const boundaries = bandBoundaries(checkpoints, 0);
    assert.deepEqual(firstRowsRange(checkpoints, 100_000, view(0, rowTopOf(5_000, boundaries) + 7)), {
      checkpointIndex: 0,
      start: 4_900,
      count: 300,
    });
    assert.deepEqual(firstRowsRange(checkpoints, 100_000, view(0, 0)), { checkpointIndex: 0, start: 0, count: 200 });
    assert.deepEqual(firstRowsRange(checkpoints, 100_000, view(3, 0)), { checkpointIndex: 0, start: 0, count: 200 }, 'a gone checkpoint');
  });

  it('covers the view wherever it is, in at most four pages (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.nat(), fc.boolean(), fc.boolean(), (turnCount, at, none, restored) => {
        const anchor = at % turnCount;
        const checkpoints = [header('fail-closed', none ? [] : [anchor], Math.floor(turnCount / 2), Math.floor(turnCount / 3) - 1)];
        const scrollTop = rowTopOf(anchor, bandBoundaries(checkpoints, 0));
        const range = firstRowsRange(checkpoints, turnCount, restored ? view(0, scrollTop) : undefined);
        assert.ok(range);
        const top = restored ? anchor : Math.max(0, (none ? 0 : anchor) - 3);
        const end = range.start + range.count;
        assert.equal(range.start % ROW_PAGE_SIZE, 0, 'starts on a page');
        assert.ok(end === turnCount || end % ROW_PAGE_SIZE === 0, 'ends on a page or at the end');
        assert.ok(range.start <= Math.max(0, Math.min(top, turnCount - 120) - 12), 'the overscan above, and a tall view at the end');
        assert.ok(end >= Math.min(turnCount, top + 133), 'a view of 120 rows and the overscan below');
        assert.ok(range.count > 0 && range.count <= 4 * ROW_PAGE_SIZE);
      }),
    );
  });

  it('gives the rows a request for them would give, on the checkpoint shown', () => {
    const transcript = incident(false);
    const analysis = analyze(transcript, { countTokens: words });
    const headers = checkpointHeaders(transcript, analysis);
    const sent = firstRows(transcript, analysis, headers);
    assert.ok(sent);
    assert.equal(sent.checkpointIndex, 0);
    assert.equal(sent.start, 200);
    assert.deepEqual(sent.rows, timelineRows(transcript, analysis, 0, 200, transcript.turns.length - 200));
    assert.equal(sent.rows[180].status, 'claimed-missing', 'turn 380, the first claimed-missing one');
    const restored = firstRows(transcript, analysis, headers, { version: 1, file: 'x', checkpointIndex: 0, selectedTurn: 3, scrollTop: 0 });
    assert.deepEqual(restored, { checkpointIndex: 0, start: 0, rows: timelineRows(transcript, analysis, 0, 0, 200) });
    assert.equal(firstRows({ ...transcript, turns: [], checkpoints: [] }, { ...analysis, checkpoints: [] }, []), undefined);
  });
});
