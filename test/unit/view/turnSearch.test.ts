// Tests for src/view/turnSearch.ts: which turns Reveal Turn… lists for a large transcript: with nothing typed, a
// run of them from a little before the user's turn; else the first ones, in log order, whose lines hold the typed
// text (ignoring case and the spaces around it), saying whether more do; found a step of 256 turns at a time.
import assert from 'node:assert/strict';
import { runSteps } from '../../../src/core/steps';
import { linesHold, MAX_LISTED_TURNS, searchedText, turnsToListInSteps, type TurnLines } from '../../../src/view/turnSearch';

const linesOf = (index: number): TurnLines => ({
  label: `turn t${index}`,
  description: `${index % 2 === 0 ? 'user' : 'assistant'} · line ${index + 1}`,
  detail: index % 1000 === 7 ? `The Deploy of build ${index} failed.` : `Step ${index}.`,
});

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('view/turnSearch', () => {
  it('reads the typed text without case or the spaces around it, and finds it in any of the three lines', () => {
    assert.equal(searchedText('  Deploy OF \n'), 'deploy of');
    assert.ok(linesHold(linesOf(2007), 'deploy of build 2007'));
    assert.ok(linesHold(linesOf(12), 'line 13'));
    assert.ok(linesHold(linesOf(12), 'turn t12'));
    assert.ok(!linesHold(linesOf(12), 'deploy'));
    assert.ok(!linesHold(linesOf(12), 'turn t12 user'), 'not across two lines: VS Code would hide such a turn');
  });

  it('with nothing typed: the turns from a little before the current one, or all of a short transcript', () => {
    assert.deepEqual(runSteps(turnsToListInSteps(5000, '', linesOf, 2500)), { indices: range(2400, 3399), more: true });
    assert.deepEqual(runSteps(turnsToListInSteps(5000, ' ', linesOf, 30)), { indices: range(0, 999), more: true });
    assert.deepEqual(runSteps(turnsToListInSteps(5000, '', linesOf, 4990)), { indices: range(4000, 4999), more: true });
    assert.deepEqual(runSteps(turnsToListInSteps(5000, '', linesOf, undefined)).indices[0], 0);
    assert.deepEqual(runSteps(turnsToListInSteps(300, '', linesOf, 200)), { indices: range(0, 299), more: false });
  });

  it('with text typed: the first turns that hold it, in log order, and whether others do', () => {
    assert.deepEqual(runSteps(turnsToListInSteps(5000, 'DEPLOY', linesOf, 4000)), { indices: [7, 1007, 2007, 3007, 4007], more: false });
    assert.deepEqual(runSteps(turnsToListInSteps(5000, 'nothing holds this', linesOf, 0)), { indices: [], more: false });
    const steps = runSteps(turnsToListInSteps(5000, 'assistant', linesOf, 0));
    assert.equal(steps.indices.length, MAX_LISTED_TURNS);
    assert.equal(steps.more, true);
    assert.deepEqual(steps.indices.slice(0, 3), [1, 3, 5]);
    assert.deepEqual(runSteps(turnsToListInSteps(5000, 'deploy', linesOf, 0, 5)), { indices: [7, 1007, 2007, 3007, 4007], more: false });
    assert.deepEqual(runSteps(turnsToListInSteps(5000, 'deploy', linesOf, 0, 4)), { indices: [7, 1007, 2007, 3007], more: true });
  });

  it('a step looks at 256 turns, and the search stops once it found one more than it lists', () => {
    let looked = 0;
    const counted = (index: number) => {
      looked++;
      return linesOf(index);
    };
    let yields = 0;
    for (const steps = turnsToListInSteps(5000, 'deploy', counted, 0); !steps.next().done;) yields++;
    assert.equal(looked, 5000);
    assert.equal(yields, Math.floor(5000 / 256));
    looked = 0;
    runSteps(turnsToListInSteps(5000, 'user', counted, 0));
    assert.equal(looked, 2 * MAX_LISTED_TURNS + 1, 'the 1,001st turn that holds it ends the search');
  });
});
