// Tests for the two truncation tells of src/core/truncation.ts that read beyond the summary's last clause: a
// last word that is only the start of a word used elsewhere (in the summary or the turns it summarises), and a
// last list item without the full stop every earlier item has. Both must stay quiet on complete summaries.
import * as assert from 'node:assert/strict';
import { detectTruncation } from '../../../src/core/truncation';

const ITEMS = 'Work so far:\n- renamed the parser.\n- fixed the ledger test.\n';

describe('core/truncation: the cut-word tell', () => {
  it('flags a last list item cut inside a word used elsewhere in the summary', () => {
    const r = detectTruncation(`${ITEMS}- then the agent started to rena`, 100, 10_000, undefined);
    assert.equal(r.truncated, true);
    assert.deepEqual(r.reasons, ['ends mid-word: “…rena” is the start of “renamed”, used elsewhere']);
  });

  it('uses the summarised turns as well as the summary', () => {
    const summary = 'Done:\n- moved the config.\n- then we began the reconcil';
    assert.equal(detectTruncation(summary, 50, 10_000, undefined).truncated, false, 'no source: a list item is not enough');
    const r = detectTruncation(summary, 50, 10_000, undefined, undefined, ['We reconciled the ledger.']);
    assert.deepEqual(r.reasons, ['ends mid-word: “…reconcil” is the start of “reconciled”, used elsewhere']);
  });

  it('is quiet when the last word is itself a word used elsewhere', () => {
    const summary = 'Pending:\n- fix the parsers\n- run the tests\n- parser';
    assert.equal(detectTruncation(summary, 50, 10_000, undefined, undefined, ['the parser and the parsers']).truncated, false);
  });

  it('is quiet on a short or numeric last word', () => {
    for (const tail of ['- see PR 12', '- done ok']) {
      assert.equal(detectTruncation(`Notes:\n${tail}`, 10, 10_000, undefined, undefined, ['PR 1234 okay sooner']).truncated, false, tail);
    }
  });
});

describe('core/truncation: the unfinished list item tell', () => {
  it('flags a last item without the full stop every earlier item has', () => {
    const r = detectTruncation(`${ITEMS}- then the agent moved quickly`, 100, 10_000, undefined);
    assert.equal(r.truncated, true);
    assert.match(r.reasons[0], /^the last list item ends without the full stop all 2 earlier items have: “/);
  });

  it('works for numbered items too', () => {
    const r = detectTruncation('Steps:\n1. Read the file.\n2. Fixed the bug.\n3. Then we started', 100, 10_000, undefined);
    assert.match(r.reasons[0] ?? '', /^the last list item ends without the full stop all 2 earlier items have/);
  });

  it('is quiet when the earlier items have no full stops, or there is only one earlier item', () => {
    for (const s of ['Pending:\n- fix the parser\n- run the tests\n- commit', 'Pending:\n- Fix the parser.\n- commit the work']) {
      assert.equal(detectTruncation(s, 10, 10_000, undefined).truncated, false, s);
    }
  });

  it('is quiet when the last item ends with a full stop or a closing bracket', () => {
    for (const end of ['commit.', 'commit (done)', 'commit!']) {
      assert.equal(detectTruncation(`${ITEMS}- ${end}`, 10, 10_000, undefined).truncated, false, end);
    }
  });
});
