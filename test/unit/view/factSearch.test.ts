// Tests for src/view/factSearch.ts and the findFact request: the timeline's search box is answered with each
// matching turn and the selected checkpoint's route (the incident's dropped turns flagged, raw log line; the
// carried ones from the summary), a refused pattern comes back as a sentence, and a malformed request gets an
// error with its id.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { factFound, MAX_FOUND_TURNS } from '../../../src/view/factSearch';
import { answerRequest, type AnalysedData } from '../../../src/view/requests';
import { incident } from '../core/transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const FILE = '/work/incident.jsonl';

function data(): AnalysedData {
  const transcript = incident(true);
  return { transcript, analysis: analyze(transcript, { countTokens: words }) };
}

describe('view/factSearch: the findFact request', () => {
  it("answers with the checkpoint's route per matching turn: carried → summary, dropped → raw log, flagged", () => {
    const d = data();
    const answer = answerRequest({ type: 'findFact', requestId: 7, checkpointIndex: 0, query: '/batch_(379|380)\\.ts/' }, d, {
      file: FILE,
    });
    assert.ok(answer && answer.type === 'factFound', JSON.stringify(answer));
    assert.equal(answer.requestId, 7);
    assert.equal(answer.error, undefined);
    assert.deepEqual(
      answer.turns.map((turn) => [turn.id, turn.status, turn.route, turn.flagged, `${turn.why}; ${turn.says}`]),
      [
        [379, 'covered', 'summary', false, 'claimed by S1, whose summary carries “FACT-379-” but not the text itself; from summary S1'],
        [380, 'claimed-missing', 'raw-log', true, 'claimed by S1 but absent from its summary; raw log line 381'],
      ],
    );
    assert.equal(answer.flagged, 1);
    assert.equal(answer.omitted, 0);
  });

  it('with no checkpoint selected (-1), says the turn is in the context as written', () => {
    const d = data();
    const answer = factFound(d.transcript, d.analysis, -1, 'batch_7.ts');
    assert.deepEqual(
      answer.turns.map((turn) => [turn.index, turn.route, turn.flagged, turn.says]),
      [[7, 'not-compacted', false, 'in the context as written']],
    );
  });

  it('a refused pattern is a sentence, not an exception; over the cap the rest are counted', () => {
    const d = data();
    const refused = factFound(d.transcript, d.analysis, 0, '/(a+)+$/');
    assert.match(refused.error ?? '', /is refused: .*Search for plain text instead/);
    assert.deepEqual(refused.turns, []);
    const all = factFound(d.transcript, d.analysis, 0, 'ledger entry');
    assert.equal(all.turns.length, MAX_FOUND_TURNS);
    assert.equal(all.omitted, 420 - MAX_FOUND_TURNS);
  });

  it('a malformed findFact request gets an error carrying its id', () => {
    const d = data();
    for (const bad of [
      { type: 'findFact', requestId: 3, checkpointIndex: 0 },
      { type: 'findFact', requestId: 3, checkpointIndex: 0, query: 42 },
      { type: 'findFact', requestId: 3, checkpointIndex: 9, query: 'x' },
      { type: 'findFact', requestId: 3, checkpointIndex: 0, query: 'x'.repeat(5000) },
    ]) {
      const answer = answerRequest(bad, d, { file: FILE });
      assert.ok(answer && answer.type === 'error', JSON.stringify(bad).slice(0, 80));
      assert.equal(answer.requestId, 3);
      assert.equal(answer.reason, 'invalid');
    }
  });
});
