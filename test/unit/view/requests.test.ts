// Tests for src/view/requests.ts and the protocol's `Requests` map: every request gets exactly one answer, the
// reply type its request type is tied to, or an error carrying its id when it is malformed, names a checkpoint
// or turn that does not exist, was asked against a superseded analysis, or has nothing to be answered from.
// The compile-time half: a handler map missing a request type, or answering with another type's response, does
// not compile (the @ts-expect-error lines below fail `tsc -p .` the day they stop being errors).
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { REPLY_TYPES, REQUEST_TYPES, type RequestHandlers, type RequestType } from '../../../src/protocol';
import { answerRequest, requestHandlers, type AnalysedData } from '../../../src/view/requests';
import { incident } from '../core/transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;

function data(): AnalysedData {
  const transcript = incident(true);
  return { transcript, analysis: analyze(transcript, { countTokens: words }) };
}

const FILE = '/work/incident.jsonl';

// ---- compile-time checks (never run) ------------------------------------------------------------------------
const _handlersCoverEveryType: Record<RequestType, unknown> = requestHandlers;
// @ts-expect-error a handler map without getSummary is not RequestHandlers
const _missing: RequestHandlers<AnalysedData> = { getRows: requestHandlers.getRows, getTurnDetails: requestHandlers.getTurnDetails };
const _wrongResponse: RequestHandlers<AnalysedData> = {
  ...requestHandlers,
  // @ts-expect-error getSummary must answer with a SummaryResponse, not rows
  getSummary: () => ({ checkpointIndex: 0, start: 0, rows: [] }),
};
void _handlersCoverEveryType;
void _missing;
void _wrongResponse;

describe('view/requests', () => {
  it('ties every request type to one reply type and one handler', () => {
    assert.deepEqual([...REQUEST_TYPES].sort(), ['findFact', 'getRows', 'getSummary', 'getTurnDetails']);
    assert.deepEqual(Object.keys(requestHandlers).sort(), [...REQUEST_TYPES].sort());
    assert.deepEqual(REPLY_TYPES, { getRows: 'rows', getTurnDetails: 'turnDetails', getSummary: 'summary', findFact: 'factFound' });
  });

  it('answers each valid request with its reply type and the same id', () => {
    const d = data();
    const rows = answerRequest({ type: 'getRows', requestId: 4, checkpointIndex: 0, start: 378, count: 4 }, d, { file: FILE });
    assert.ok(rows && rows.type === 'rows');
    assert.equal(rows.requestId, 4);
    assert.deepEqual(
      rows.rows.map((row) => [row.id, row.status]),
      [
        [378, 'covered'],
        [379, 'covered'],
        [380, 'claimed-missing'],
        [381, 'claimed-missing'],
      ],
    );
    const details = answerRequest({ type: 'getTurnDetails', requestId: 5, checkpointIndex: 0, turnIndex: 380 }, d, { file: FILE });
    assert.ok(details && details.type === 'turnDetails');
    assert.equal(details.details.id, 380);
    const summary = answerRequest({ type: 'getSummary', requestId: 6, checkpointIndex: 0, version: 3 }, d, { file: FILE, version: 3 });
    assert.ok(summary && summary.type === 'summary');
    assert.equal(summary.requestId, 6);
    assert.equal(summary.details.summaryId, 'S1');
  });

  it('answers an invalid request with an error carrying its id, never silence', () => {
    const d = data();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'getTurnDetails', requestId: 1, checkpointIndex: 0, turnIndex: 5000 }, /no turn at position 5000/],
      [{ type: 'getTurnDetails', requestId: 2, checkpointIndex: 9, turnIndex: 1 }, /unknown checkpoint 9/],
      [{ type: 'getSummary', requestId: 3, checkpointIndex: -1 }, /unknown checkpoint -1/],
      [{ type: 'getRows', requestId: 4, checkpointIndex: 0, start: 0, count: 1_000_000 }, /count/],
      [{ type: 'getRows', requestId: 5, checkpointIndex: 0, start: 0, count: 10, version: 'x' }, /version/],
    ];
    for (const [message, why] of cases) {
      const answer = answerRequest(message, d, { file: FILE, version: 0 });
      assert.ok(answer && answer.type === 'error', JSON.stringify(message));
      assert.equal(answer.requestId, message.requestId);
      assert.equal(answer.reason, 'invalid');
      assert.match(answer.message, why);
    }
  });

  it('answers a request asked against a superseded analysis, or with no analysis, with an error', () => {
    const stale = answerRequest({ type: 'getTurnDetails', requestId: 7, checkpointIndex: 0, turnIndex: 3, version: 1 }, data(), {
      file: FILE,
      version: 2,
    });
    assert.ok(stale && stale.type === 'error');
    assert.equal(stale.requestId, 7);
    assert.equal(stale.reason, 'stale');
    const none = answerRequest({ type: 'getSummary', requestId: 8, checkpointIndex: 0 }, undefined, { file: FILE });
    assert.ok(none && none.type === 'error');
    assert.equal(none.requestId, 8);
    assert.equal(none.reason, 'unavailable');
  });

  it('leaves what is not a request (no request type or no usable id) to the caller', () => {
    for (const message of [{ type: 'ready' }, { type: 'openTurn', turnIndex: 1 }, { type: 'getRows', requestId: -1 }, null, 'getRows']) {
      assert.equal(answerRequest(message, data(), { file: FILE }), undefined, JSON.stringify(message));
    }
  });
});
