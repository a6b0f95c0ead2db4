// Tests for src/view/selectionHandoff.ts: a turn selection the host asks of the timeline webview is posted at
// once when the webview is ready and queued otherwise, stays owed until a reported view state shows it, and is
// queued again when the webview is torn down before that, even if a view state sent before it arrived says
// otherwise (the race of the flaky "selected as its tab is being hidden" extension test).
import assert from 'node:assert/strict';
import { SelectionHandoff } from '../../../src/view/selectionHandoff';

/** The incident's turns. */
const TURNS = 420;
const turn408 = { checkpointIndex: 0, turnIndex: 408 };

describe('SelectionHandoff', () => {
  it('posts a selection at once when the webview is ready, and queues it for `ready` when not', () => {
    const handoff = new SelectionHandoff();
    assert.deepEqual(handoff.request(turn408, true, TURNS), turn408);
    const queued = new SelectionHandoff();
    assert.equal(queued.request(turn408, false, TURNS), undefined);
    assert.deepEqual(queued.ready(), turn408);
    assert.equal(queued.ready(), undefined, 'posted once');
  });

  it('queues a posted selection again when the webview is torn down before it shows it', () => {
    const handoff = new SelectionHandoff();
    handoff.request(turn408, true, TURNS);
    handoff.hidden();
    assert.deepEqual(handoff.ready(), turn408);
  });

  it('a view state sent before the selection arrived does not settle it', () => {
    const handoff = new SelectionHandoff();
    handoff.request(turn408, true, TURNS);
    handoff.reported(12); // the webview's delayed save of the turn it showed before
    handoff.hidden();
    assert.deepEqual(handoff.ready(), turn408);
  });

  it('a view state showing the turn settles it: later choices are the user’s', () => {
    const handoff = new SelectionHandoff();
    handoff.request(turn408, true, TURNS);
    handoff.reported(408);
    handoff.reported(30); // the user moved on
    handoff.hidden();
    assert.equal(handoff.ready(), undefined);
  });

  it('a selection posted after a `ready` stays owed until it is shown', () => {
    const handoff = new SelectionHandoff();
    handoff.request(turn408, false, TURNS);
    handoff.ready();
    handoff.hidden(); // torn down again before it acted on it
    assert.deepEqual(handoff.ready(), turn408);
    handoff.reported(408);
    handoff.hidden();
    assert.equal(handoff.ready(), undefined);
  });

  it('the latest request wins, and a queued one is not replaced by an older owed one', () => {
    const handoff = new SelectionHandoff();
    handoff.request(turn408, true, TURNS);
    const later = { checkpointIndex: 1, turnIndex: 7 };
    handoff.request(later, true, TURNS);
    handoff.reported(408); // not the one owed now
    handoff.hidden();
    assert.deepEqual(handoff.ready(), later);
    const queuedFirst = new SelectionHandoff();
    queuedFirst.request(turn408, true, TURNS);
    queuedFirst.hidden();
    queuedFirst.request(later, false, TURNS);
    assert.deepEqual(queuedFirst.ready(), later);
  });

  it('clear forgets both the queued and the owed selection (another transcript shown)', () => {
    const handoff = new SelectionHandoff();
    handoff.request(turn408, true, TURNS);
    handoff.clear();
    handoff.hidden();
    assert.equal(handoff.ready(), undefined);
    handoff.request(turn408, false, TURNS);
    handoff.clear();
    assert.equal(handoff.ready(), undefined);
  });
  it('asks a turn past the end as the last turn, so the webview can show it and settle it; with no turn, nothing', () => {
    const handoff = new SelectionHandoff();
    assert.deepEqual(handoff.request({ checkpointIndex: 0, turnIndex: 500 }, true, TURNS), { checkpointIndex: 0, turnIndex: 419 });
    handoff.reported(419); // what the webview shows: settled
    handoff.hidden();
    assert.equal(handoff.ready(), undefined);
    assert.deepEqual(handoff.request({ checkpointIndex: 0, turnIndex: -3 }, false, TURNS), undefined);
    assert.deepEqual(handoff.ready(), { checkpointIndex: 0, turnIndex: 0 });
    const empty = new SelectionHandoff();
    assert.equal(empty.request(turn408, true, 0), undefined);
    empty.hidden();
    assert.equal(empty.ready(), undefined);
  });
});
