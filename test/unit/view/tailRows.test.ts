// Tests for src/view/timelineData.ts's tailRows, the rows that ride along with an `updated` after an append that
// changed no checkpoint: from the first turn that is not the same object as before to the end, equal to the rows
// a request would give for every checkpoint (or for none when there is no checkpoint); nothing when a turn in a
// checkpoint's prefix changed, turns went away, or too many changed.
import assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import type { Transcript, Turn } from '../../../src/core/model';
import { MAX_TAIL_ROWS, tailRows, timelineRows } from '../../../src/view/timelineData';
import { checkpoint, incident, transcript, turn } from '../core/transcripts';

const words = (text: string): number => text.split(' ').filter(Boolean).length;

/** The incident (420 turns, a checkpoint after them) with `extra` turns after it. */
function grown(base: Transcript, extra: Turn[]): Transcript {
  return { ...base, turns: [...base.turns, ...extra] };
}

const later = (from: number, count: number): Turn[] =>
  Array.from({ length: count }, (_, i) => turn(from + i, `Later turn ${from + i}: looked at the reconcile job.`, { role: 'assistant' }));

describe('view/timelineData tailRows', () => {
  const before = incident(false);
  const withTwo = grown(before, later(420, 2));

  it('gives the appended turns, as every checkpoint shows them, from the first new one', () => {
    const next = grown(withTwo, later(422, 3));
    const analysis = analyze(next, { countTokens: words });
    const tail = tailRows(withTwo.turns, next, analysis);
    assert.ok(tail);
    assert.equal(tail.start, 422);
    assert.deepEqual(tail.rows, timelineRows(next, analysis, 0, 422, 3));
    assert.deepEqual(
      tail.rows.map((row) => [row.index, row.status]),
      [
        [422, 'after'],
        [423, 'after'],
        [424, 'after'],
      ],
    );
  });

  it('starts at a turn the reader replaced after the checkpoint', () => {
    const replaced = [...withTwo.turns];
    replaced[421] = { ...replaced[421], text: `${replaced[421].text} And more.` };
    const next = grown({ ...withTwo, turns: replaced }, later(422, 1));
    const tail = tailRows(withTwo.turns, next, analyze(next, { countTokens: words }));
    assert.equal(tail?.start, 421);
    assert.equal(tail?.rows.length, 2);
    assert.match(tail?.rows[0].preview ?? '', /And more\.$/);
  });

  it('gives nothing when a turn before a checkpoint changed, turns went away, or too many changed', () => {
    const changed = [...withTwo.turns];
    changed[10] = { ...changed[10] };
    const inPrefix = { ...withTwo, turns: changed };
    assert.equal(tailRows(withTwo.turns, inPrefix, analyze(inPrefix, { countTokens: words })), undefined);
    const shorter = { ...withTwo, turns: withTwo.turns.slice(0, 421) };
    assert.equal(tailRows(withTwo.turns, shorter, analyze(shorter, { countTokens: words })), undefined);
    const many = grown(withTwo, later(422, MAX_TAIL_ROWS + 1));
    assert.equal(tailRows(withTwo.turns, many, analyze(many, { countTokens: words })), undefined);
    const enough = grown(withTwo, later(422, MAX_TAIL_ROWS));
    assert.equal(tailRows(withTwo.turns, enough, analyze(enough, { countTokens: words }))?.rows.length, MAX_TAIL_ROWS);
  });

  it('gives the rows without a checkpoint when there is none', () => {
    const first = transcript([turn(0, 'First.'), turn(1, 'Second.')], []);
    const next = grown(first, later(2, 1));
    const tail = tailRows(first.turns, next, analyze(next, { countTokens: words }));
    assert.deepEqual(tail, { start: 2, rows: timelineRows(next, analyze(next, { countTokens: words }), -1, 2, 1) });
    assert.equal(tail?.rows[0].status, 'uncovered');
  });

  it('with two checkpoints: the rows after both are the same for each, and a change past the first but inside the second gives nothing', () => {
    const turns = Array.from({ length: 12 }, (_, i) => turn(i, `Step ${i}: wrote LEDGER_${i} to src/step_${i}.ts.`));
    const cps = [
      checkpoint({ summaryId: 'S1', summary: 'LEDGER_0 LEDGER_1', claimedIds: [0, 1, 2, 3, 4], turnsBefore: 5 }),
      checkpoint({ summaryId: 'S2', summary: 'LEDGER_5 LEDGER_6', claimedIds: [5, 6, 7, 8, 9], turnsBefore: 10 }),
    ];
    const first = transcript(turns, cps);
    const appended = { ...first, turns: [...turns, ...later(12, 2)] };
    const analysis = analyze(appended, { countTokens: words });
    const tail = tailRows(first.turns, appended, analysis);
    assert.equal(tail?.start, 12);
    for (const index of [0, 1]) assert.deepEqual(tail?.rows, timelineRows(appended, analysis, index, 12, 2), `checkpoint ${index}`);
    const changed = [...appended.turns];
    changed[7] = { ...changed[7], text: 'Rewritten.' };
    const inSecond = { ...appended, turns: changed };
    assert.equal(tailRows(first.turns, inSecond, analyze(inSecond, { countTokens: words })), undefined);
  });
});
