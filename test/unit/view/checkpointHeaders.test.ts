// Tests for src/view/timelineData.ts's checkpointHeaders keeping each header with the checkpoint analysis it
// was made from (a re-analysis after an append gives back the same CheckpointAnalysis for a checkpoint the append
// cannot change): the same analysis gives the same header objects, and anything a header depends on that
// changed (another analysis object, another position, another count of turns before) gives a new, right one.
import assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import type { Analysis, Transcript } from '../../../src/core/model';
import { checkpointHeaders } from '../../../src/view/timelineData';
import { incident } from '../core/transcripts';

const words = (text: string): number => text.split(' ').filter(Boolean).length;

/** Headers made from copies of the analysis' objects: never the kept ones. */
function fresh(transcript: Transcript, analysis: Analysis) {
  return checkpointHeaders(structuredClone(transcript), structuredClone(analysis));
}

describe('view/timelineData checkpointHeaders, kept per checkpoint analysis', () => {
  const transcript = incident(false);
  const analysis = analyze(transcript, { countTokens: words });

  it('gives the same header objects for the same checkpoint analyses, equal to freshly made ones', () => {
    const first = checkpointHeaders(transcript, analysis);
    const again = checkpointHeaders(transcript, { ...analysis, checkpoints: [...analysis.checkpoints] });
    assert.equal(first.length, 1);
    assert.equal(again[0], first[0], 'the header is not made again');
    assert.deepEqual(first, fresh(transcript, analysis));
    assert.ok(first[0].claimedMissingIndexes.length > 0, 'the incident has claimed-missing turns');
  });

  it('makes a new header for another analysis of the checkpoint', () => {
    const before = checkpointHeaders(transcript, analysis)[0];
    const changed = { ...analysis.checkpoints[0], verdict: 'reversible' as const, turns: analysis.checkpoints[0].turns.slice(0, 10) };
    const header = checkpointHeaders(transcript, { ...analysis, checkpoints: [changed] })[0];
    assert.notEqual(header, before);
    assert.equal(header.verdict, 'reversible');
    assert.deepEqual(header, fresh(transcript, { ...analysis, checkpoints: [changed] })[0]);
  });

  it('makes a new header when the same checkpoint analysis moves, or the turns before it change', () => {
    const [checkpoint] = analysis.checkpoints;
    const other = structuredClone(checkpoint);
    const moved = checkpointHeaders(transcript, { ...analysis, checkpoints: [other, checkpoint] });
    assert.equal(moved[1].index, 1);
    assert.deepEqual(moved, fresh(transcript, { ...analysis, checkpoints: [other, checkpoint] }));
    const fewer = { ...transcript, checkpoints: [{ ...transcript.checkpoints[0], turnsBefore: 300 }] };
    const header = checkpointHeaders(fewer, analysis)[0];
    assert.equal(header.turnsBefore, 300);
    assert.equal(checkpointHeaders(transcript, analysis)[0].turnsBefore, transcript.checkpoints[0].turnsBefore);
  });
});
