// Tests for src/view/firstView.ts and timelineData's firstRows, the rows `init` carries so the timeline draws its
// first rows without asking: the checkpoint the webview shows first, whole pages of the webview's row cache around
// the turn it starts on (clipped to the transcript), and rows equal to what a getRows request would give.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import type { Verdict } from '../../../src/core/model';
import { defaultCheckpoint, firstRowsRange, firstTurnShown, ROW_PAGE_SIZE } from '../../../src/view/firstView';
import { checkpointHeaders, firstRows, timelineRows } from '../../../src/view/timelineData';
import { incident } from '../core/transcripts';

const words = (text: string): number => text.split(' ').filter(Boolean).length;

const header = (verdict: Verdict, claimedMissingIndexes: number[] = []) => ({ verdict, claimedMissingIndexes });

describe('view/firstView and timelineData firstRows', () => {
  it('starts on the first checkpoint that is not reversible, else the first, else none', () => {
    assert.equal(defaultCheckpoint([]), -1);
    assert.equal(defaultCheckpoint([header('reversible'), header('reversible')]), 0);
    assert.equal(defaultCheckpoint([header('reversible'), header('fail-closed'), header('conditional')]), 1);
    assert.equal(firstTurnShown(header('fail-closed', [7, 9])), 7);
    assert.equal(firstTurnShown(header('reversible')), undefined);
    assert.equal(firstTurnShown(undefined), undefined);
  });

  it('sends whole pages around the turn the view starts on, clipped to the transcript', () => {
    assert.equal(firstRowsRange([], 0), undefined, 'no turns, no rows');
    assert.deepEqual(firstRowsRange([], 5), { checkpointIndex: -1, start: 0, count: 5 });
    assert.deepEqual(firstRowsRange([header('reversible')], 100_000), { checkpointIndex: 0, start: 0, count: 200 });
    assert.deepEqual(firstRowsRange([header('fail-closed', [380, 381])], 426), { checkpointIndex: 0, start: 300, count: 126 });
    assert.deepEqual(firstRowsRange([header('reversible'), header('conditional', [50_000])], 100_000), {
      checkpointIndex: 1,
      start: 49_900,
      count: 300,
    });
  });

  it('covers the view whatever the turn, in at most three pages (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.nat(), fc.boolean(), (turnCount, at, none) => {
        const anchor = at % turnCount;
        const range = firstRowsRange([header('fail-closed', none ? [] : [anchor])], turnCount);
        assert.ok(range);
        const start = none ? 0 : anchor;
        const end = range.start + range.count;
        assert.equal(range.start % ROW_PAGE_SIZE, 0, 'starts on a page');
        assert.ok(end === turnCount || end % ROW_PAGE_SIZE === 0, 'ends on a page or at the end');
        assert.ok(range.start <= Math.max(0, start - 15), 'the rows above the view and its overscan');
        assert.ok(end >= Math.min(turnCount, start + 133), 'a panel of 120 rows below and the overscan');
        assert.ok(range.count > 0 && range.count <= 3 * ROW_PAGE_SIZE);
      }),
    );
  });

  it('gives the rows a request for them would give, on the checkpoint shown first', () => {
    const transcript = incident(false);
    const analysis = analyze(transcript, { countTokens: words });
    const headers = checkpointHeaders(transcript, analysis);
    const sent = firstRows(transcript, analysis, headers);
    assert.ok(sent);
    assert.equal(sent.checkpointIndex, 0);
    assert.equal(sent.start, 300);
    assert.deepEqual(sent.rows, timelineRows(transcript, analysis, 0, 300, 126));
    assert.equal(sent.rows[80].status, 'claimed-missing', 'turn 380, the first claimed-missing one');
    assert.equal(firstRows({ ...transcript, turns: [], checkpoints: [] }, { ...analysis, checkpoints: [] }, []), undefined);
  });
});
