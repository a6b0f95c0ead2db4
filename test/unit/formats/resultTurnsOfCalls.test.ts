// Tests for ResultTurnsOfCalls (src/formats/resultTurnsOfCalls.ts): the turns holding the results of each turn's
// tool calls, joined as calls and results are read in any order, agree with looking each call id up afterwards,
// the way the Claude Code reader's claim did before (every result of every id the turn called).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ResultTurnsOfCalls } from '../../../src/formats/resultTurnsOfCalls';

type Event = { kind: 'call' | 'result'; turn: number; id: string };

/** The results of each call turn's ids, looked up once everything is read: distinct, sorted. */
function lookedUp(events: readonly Event[], turn: number): number[] {
  const ids = new Set(events.filter((e) => e.kind === 'call' && e.turn === turn).map((e) => e.id));
  return [...new Set(events.filter((e) => e.kind === 'result' && ids.has(e.id)).map((e) => e.turn))].sort((a, b) => a - b);
}

function joined(join: ResultTurnsOfCalls, turn: number): number[] {
  const seen: number[] = [];
  join.forEachResultOf(turn, (result) => seen.push(result));
  return [...new Set(seen)].sort((a, b) => a - b);
}

describe('ResultTurnsOfCalls', () => {
  it('joins a result read before its call, after it, and for a call made again by a later turn', () => {
    const join = new ResultTurnsOfCalls();
    join.addResult(2, 'early');
    join.addCall(1, 'early');
    join.addCall(1, 'a');
    join.addCall(1, 'b');
    join.addResult(3, 'a');
    join.addResult(3, 'b');
    join.addResult(4, 'b');
    // History copied after a compaction: turn 7 makes call 'a' again, and its result is copied as turn 8.
    join.addCall(7, 'a');
    join.addResult(8, 'a');
    assert.deepEqual(joined(join, 1), [2, 3, 4, 8]);
    assert.deepEqual(joined(join, 7), [3, 8]);
    assert.deepEqual(joined(join, 3), []);
  });

  it('gives a result once for a record that names the same call twice', () => {
    const join = new ResultTurnsOfCalls();
    join.addCall(0, 'x');
    join.addCall(0, 'x');
    join.addResult(1, 'x');
    join.addResult(1, 'x');
    const seen: number[] = [];
    join.forEachResultOf(0, (result) => seen.push(result));
    assert.deepEqual(seen, [1]);
  });

  it('agrees with looking every call id up afterwards, whatever the order read', () => {
    const event = fc.record({
      kind: fc.constantFrom<'call' | 'result'>('call', 'result'),
      turn: fc.nat({ max: 12 }),
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    });
    fc.assert(
      // Any order: a result may come before its call, and a reply's later record (its turn's calls) after other turns.
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const join = new ResultTurnsOfCalls();
        for (const e of events) {
          if (e.kind === 'call') join.addCall(e.turn, e.id);
          else join.addResult(e.turn, e.id);
        }
        for (let turn = 0; turn <= 12; turn++) assert.deepEqual(joined(join, turn), lookedUp(events, turn));
      }),
      { seed: 20261206, numRuns: 500 },
    );
  });
});
