// Tests for KeptTurns (src/core/keptTurns.ts), the sink `find` and `bundle` analyse with: it keeps the results of
// the turns asked for and each checkpoint's claimed-missing turns, and findFact and the recovery bundle read an
// analysis made with it exactly as they read one that kept every turn (same answers, same Markdown), on the
// note's incident, Path A, three checkpoints (one encrypted, one claiming turns another does not) and more matches
// than an answer lists.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { findFact, matchingTurns, parseFactQuery } from '../../../src/core/findFact';
import { KeptTurns } from '../../../src/core/keptTurns';
import type { AnalysisOptions, BundleSelection, FactQuery, Transcript, TurnResult } from '../../../src/core/model';
import { writeRecoveryBundle } from '../../../src/core/recoveryBundle';
import { incident, range, threeCheckpoints } from './transcripts';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words, ratioFloor: 5 };

function query(text: string): FactQuery {
  const parsed = parseFactQuery(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.query;
}

const CASES: [string, () => Transcript][] = [
  ['the incident, derived anchors', () => incident(false)],
  ['the incident, explicit anchors', () => incident(true)],
  ['the incident, Path A', () => incident(false, range(0, 199))],
  ['three checkpoints', threeCheckpoints],
];

const QUERIES = ['LEDGER_ENTRY_1390', 'ledger', 'src/part_5.ts', '/TASK-1[0-4]\\d/', 'ok', 'nothing like this'];

/** The transcript analysed with KeptTurns keeping the turns `query` matches (as `find` keeps them), and the sink. */
function keptAnalysis(t: Transcript, wanted: readonly number[]) {
  const kept = new KeptTurns();
  const set = new Set(wanted);
  kept.keep((index) => set.has(index));
  return { analysis: analyze(t, { ...OPTS, turnSink: kept }), kept };
}

describe('KeptTurns: the turns find and bundle show, kept from an analysis with a sink', () => {
  for (const [name, make] of CASES) {
    describe(name, () => {
      const t = make();
      const full = analyze(t, OPTS);

      it('the analysis with it keeps no turn results (its checkpoints say their turns were written)', () => {
        const { analysis } = keptAnalysis(t, []);
        for (const cp of analysis.checkpoints) {
          assert.equal(cp.turnsWritten, true);
          assert.deepEqual(cp.turns, []);
        }
      });

      for (const text of QUERIES) {
        it(`findFact gives the same answer for ${JSON.stringify(text)}, with 200 or 3 listed`, () => {
          for (const maxMatches of [200, 3]) {
            const q = query(text);
            const { analysis, kept } = keptAnalysis(t, matchingTurns(t, q, maxMatches));
            assert.deepEqual(findFact(t, analysis, q, { maxMatches, kept }), findFact(t, full, q, { maxMatches }));
          }
        });
      }

      it('keeps every checkpoint’s claimed-missing turns, ascending, and the results only of the turns asked for', () => {
        const { analysis, kept } = keptAnalysis(t, [0, 5, 7]);
        analysis.checkpoints.forEach((cp, c) => {
          const dropped = full.checkpoints[c].turns.filter((r) => r.status === 'claimed-missing').map((r) => r.index);
          assert.deepEqual(kept.dropped(cp.index), dropped);
          for (let i = 0; i < full.checkpoints[c].turns.length; i++) {
            const result = kept.result(cp.index, i);
            if ([0, 5, 7].includes(i)) assert.deepEqual(result && withoutTokens(result), withoutTokens(full.checkpoints[c].turns[i]));
            else assert.equal(result, undefined);
          }
        });
      });

      const selections: BundleSelection[] = [
        { kind: 'checkpoints', checkpointIndices: full.checkpoints.map((_, c) => c) },
        { kind: 'checkpoints', checkpointIndices: [0] },
        { kind: 'turns', ids: [0, 12, 41, 395, 'no-such-turn'] },
      ];
      for (const selection of selections) {
        it(`the recovery bundle is the same for ${JSON.stringify(selection)}`, () => {
          const { analysis, kept } = keptAnalysis(t, []);
          assert.deepEqual(
            writeRecoveryBundle(analysis, t.turns, selection, { fileName: 'x.jsonl', kept }),
            writeRecoveryBundle(full, t.turns, selection, { fileName: 'x.jsonl' }),
          );
        });
      }
    });
  }

  it('a checkpoint begun again starts empty', () => {
    const kept = new KeptTurns();
    kept.keep(() => true);
    const result = (index: number): TurnResult => ({
      id: index,
      index,
      status: 'claimed-missing',
      claimed: true,
      evidence: [],
      reason: undefined,
      line: index + 1,
      endLine: index + 1,
    });
    kept.begin(0);
    kept.turn(result(0));
    kept.turn(result(1));
    kept.begin(0);
    kept.turn(result(1));
    assert.deepEqual(kept.dropped(0), [1]);
    assert.equal(kept.result(0, 0), undefined);
    assert.deepEqual(kept.result(0, 1), result(1));
    assert.deepEqual(kept.dropped(1), [], 'a checkpoint never begun has none');
  });

  it('a turn before any checkpoint began is an error, not a result kept nowhere', () => {
    assert.throws(() =>
      new KeptTurns().turn({ id: 0, index: 0, status: 'covered', claimed: true, evidence: [], reason: undefined, line: 1, endLine: 1 }),
    );
  });

  it('findFact on an analysis whose turns went to a sink, without the sink, is refused rather than said not analysed', () => {
    const t = incident(false);
    const { analysis } = keptAnalysis(t, []);
    assert.throws(() => findFact(t, analysis, query('LEDGER_ENTRY_1390')), /went to a sink, and none was given/);
  });

  it('a bundle of an analysis whose turns went to a sink, without the sink, is refused rather than said to have none', () => {
    const t = incident(false);
    const { analysis } = keptAnalysis(t, []);
    assert.throws(
      () => writeRecoveryBundle(analysis, t.turns, { kind: 'checkpoints', checkpointIndices: [0] }, {}),
      /went to a sink, and none was given/,
    );
  });
});

/** A result without its token figure (a sink's has only the recorded one, a kept result the analysis's). */
function withoutTokens(result: TurnResult): TurnResult {
  const { tokens: _tokens, ...rest } = result;
  return rest;
}
