// Tests for src/view/analysisDigest.ts, what the extension keeps of a transcript it lets go: the checkpoints'
// verdicts, reasons, counts, truncation and why coverage could not be checked, as the full analysis says, and
// the claimed-missing runs with the lines of their first and last turns.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { digestAnalysis } from '../../../src/view/analysisDigest';
import { whyUnverifiable } from '../../../src/view/timelineData';
import { checkpoint, incident, INCIDENT_CUT, INCIDENT_TURNS, span, transcript, turn } from '../core/transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;

describe('analysisDigest', () => {
  it('keeps each checkpoint’s verdict, counts and reasons, and its claimed-missing runs with their lines', () => {
    const source = incident(false);
    const analysis = analyze(source, { countTokens: words });
    const digest = digestAnalysis(source, analysis);
    assert.equal(digest.format, analysis.format);
    assert.equal(digest.turnCount, INCIDENT_TURNS);
    assert.equal(digest.checkpoints.length, analysis.checkpoints.length);
    const [full] = analysis.checkpoints;
    const [kept] = digest.checkpoints;
    assert.equal(kept.summaryId, full.summaryId);
    assert.equal(kept.verdict, full.verdict);
    assert.deepEqual(kept.reasons, full.reasons);
    assert.deepEqual(kept.counts, full.counts);
    assert.deepEqual([kept.line, kept.endLine], [full.line, full.endLine]);
    assert.equal(kept.truncation.truncated, full.truncation.truncated);
    assert.equal(kept.whyUnverifiable, whyUnverifiable(full));
    assert.ok(full.counts['claimed-missing'] > 0, 'the incident has claimed-missing turns');
    assert.deepEqual(
      kept.claimedMissingRanges.map(({ from, to, count }) => ({ from, to, count })),
      full.claimedMissingRanges,
    );
    // Turn i is on line i + 1: the run from turn 380 to 419 spans lines 381–420.
    assert.deepEqual(
      kept.claimedMissingRanges.map(({ startLine, endLine }) => [startLine, endLine]),
      [[INCIDENT_CUT + 1, INCIDENT_TURNS]],
    );
  });

  it('takes a run’s lines from the first turn with its id, from a turn’s first and last line', () => {
    const turns = [turn('a', 'x', {}, 1), turn('b', 'y', { span: span(5, 9) }), turn('b', 'z', {}, 20), turn('c', 'w', {}, 30)];
    const source = transcript(turns, [checkpoint({ claimedIds: ['a', 'b'], turnsBefore: 4, summary: 'nothing of it' })]);
    const analysis = analyze(source, { countTokens: words });
    // A run from a to b, whatever the analysis made of it: the digest reads the lines only from the ids.
    analysis.checkpoints[0].claimedMissingRanges = [{ from: 'a', to: 'b', count: 2 }];
    const [kept] = digestAnalysis(source, analysis).checkpoints;
    assert.deepEqual(kept.claimedMissingRanges, [{ from: 'a', to: 'b', count: 2, startLine: 1, endLine: 9 }]);
  });

  it('gives line 0 for a run whose ids are not in the transcript, and nothing for a file without checkpoints', () => {
    const source = transcript([turn('a', 'x', {}, 1)], [checkpoint({ claimedIds: ['a'], turnsBefore: 1 })]);
    const analysis = analyze(source, { countTokens: words });
    analysis.checkpoints[0].claimedMissingRanges = [{ from: 'gone', to: 'a', count: 2 }];
    assert.deepEqual(
      digestAnalysis(source, analysis).checkpoints[0].claimedMissingRanges.map(({ startLine, endLine }) => [startLine, endLine]),
      [[0, 1]],
    );
    const empty = transcript([turn('a', 'x', {}, 1)], []);
    assert.deepEqual(digestAnalysis(empty, analyze(empty, { countTokens: words })).checkpoints, []);
  });

  it('makes a checkpoint’s digest once per checkpoint analysis, equal to a fresh one', () => {
    const source = incident(false);
    const analysis = analyze(source, { countTokens: words });
    const first = digestAnalysis(source, analysis);
    const grown = { ...source, turns: [...source.turns, turn(INCIDENT_TURNS, 'A later turn.', {}, INCIDENT_TURNS + 2)] };
    // A re-analysis that kept the checkpoint's analysis (the memo's) gives the same digest object.
    const again = digestAnalysis(grown, { ...analysis, turnCount: grown.turns.length, checkpoints: [...analysis.checkpoints] });
    assert.equal(again.checkpoints[0], first.checkpoints[0]);
    assert.equal(again.turnCount, INCIDENT_TURNS + 1);
    assert.deepEqual(again.checkpoints, digestAnalysis(structuredClone(grown), structuredClone(analysis)).checkpoints);
  });
});
