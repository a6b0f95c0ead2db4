// The text report (src/cli/textReport.ts) of an analysis whose turns went to a turn sink (check's 'figures': the
// analysis keeps no turn, only their ids and lines in columns) is the report of the analysis that kept them all:
// numeric ids and string ids (shown with their lines), a duplicate id, claimed-missing runs, and safe sets.
import assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import type { AnalysisOptions, Transcript, TurnId, TurnSink } from '../../../src/core/model';
import { textReport } from '../../../src/cli/textReport';
import { checkpoint, incident, range, transcript, turn } from '../core/transcripts';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words, ratioFloor: 5 };
const FIGURES_ONLY: TurnSink = { begin: () => undefined, turn: () => undefined };

/** Forty turns with string ids (one of them used twice), lines 10 apart, and two checkpoints over them. */
function stringIds(): Transcript {
  const ids: TurnId[] = range(0, 39).map((i) => (i === 25 ? 'turn-3' : `turn-${i}`));
  const turns = ids.map((id, i) => turn(id, `Changed src/part_${i}.ts for TASK-${100 + i}`, {}, 10 * i + 1));
  return transcript(turns, [
    checkpoint({
      summaryId: 'S1',
      summary: 'TASK-100, TASK-101, TASK-103 and src/part_7.ts',
      summaryBudget: 500,
      claimedIds: ids.slice(0, 20),
      turnsBefore: 20,
    }),
    checkpoint({
      summaryId: 'S2',
      summary: 'TASK-120 to TASK-124, TASK-103, src/part_30.ts',
      summaryBudget: 5,
      claimedIds: ids.slice(0, 36),
      turnsBefore: 36,
    }),
  ]);
}

describe('cli/textReport of an analysis whose turns went to a sink', () => {
  for (const [name, make] of [
    ['numeric ids (the incident)', () => incident(false)],
    ['string ids, one used twice', stringIds],
  ] as const) {
    it(`${name}: the same report as the analysis that kept its turns`, () => {
      const t = make();
      const kept = analyze(t, OPTS);
      const written = analyze(t, { ...OPTS, turnSink: FIGURES_ONLY });
      assert.ok(written.checkpoints.every((cp) => cp.turnsWritten && cp.turns.length === 0));
      const report = (analysis: typeof kept) => textReport([{ path: 't.jsonl', format: 'canonical', analysis }], false);
      const text = report(kept);
      assert.match(text, /claimed-missing: /);
      assert.match(text, /safe pointer set: (?!empty)/);
      if (name.startsWith('string')) assert.match(text, /\(lines? \d+/, 'string ids are shown with their lines');
      assert.equal(report(written), text);
    });
  }
});
