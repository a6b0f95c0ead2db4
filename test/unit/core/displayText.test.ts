// How numbers, sizes, counts and file names are written: grouping without Intl must match en-US grouping.
import assert from 'node:assert/strict';
import { countOf, fileNameOf, formatBytes, groupDigits, transcriptStem, verdictsLine } from '../../../src/core/displayText';

describe('core/displayText', () => {
  it('groups digits as en-US does, fractions and signs kept', () => {
    for (const n of [0, 7, 999, 1000, 42000, 167094, 1234567, -1234567, 1234.5, -0.5, 2 ** 53, 999999999999]) {
      assert.equal(groupDigits(n), n.toLocaleString('en-US', { maximumFractionDigits: 20 }), String(n));
    }
    assert.equal(groupDigits(Infinity), 'Infinity');
    assert.equal(groupDigits(NaN), 'NaN');
    assert.equal(groupDigits(1e21), '1e+21');
  });

  it('writes a count with its noun, plural unless one', () => {
    assert.equal(countOf(1, 'message'), '1 message');
    assert.equal(countOf(0, 'message'), '0 messages');
    assert.equal(countOf(1204, 'entry', 'entries'), '1,204 entries');
  });

  it('writes sizes in binary units', () => {
    assert.equal(formatBytes(512), '512 bytes');
    assert.equal(formatBytes(5000), '4.9 KB');
    assert.equal(formatBytes(3 * 1024 * 1024), '3 MB');
    assert.equal(formatBytes(2 * 1024 ** 3), '2 GB');
  });

  it('takes the last segment of a path with either separator', () => {
    assert.equal(fileNameOf('/home/u/.claude/projects/a/s.jsonl'), 's.jsonl');
    assert.equal(fileNameOf('C:\\work\\t.jsonl.gz'), 't.jsonl.gz');
    assert.equal(fileNameOf('plain.json'), 'plain.json');
    assert.equal(fileNameOf('dir/'), '');
  });

  it("takes a transcript's name without its extension, the name itself when nothing else is left", () => {
    assert.equal(transcriptStem('/a/b/incident.jsonl'), 'incident');
    assert.equal(transcriptStem('C:\\w\\s.jsonl.gz'), 's');
    assert.equal(transcriptStem('log.NDJSON'), 'log');
    assert.equal(transcriptStem('state.json'), 'state');
    assert.equal(transcriptStem('trace.gz'), 'trace');
    assert.equal(transcriptStem('notes.txt'), 'notes.txt');
    assert.equal(transcriptStem('.jsonl'), '.jsonl');
  });

  it('writes the verdicts of the checkpoints in one line, naming three and counting the rest', () => {
    assert.equal(verdictsLine([]), '');
    assert.equal(verdictsLine([{ summaryId: 'S1', verdict: 'fail-closed' }]), 'S1 fail-closed');
    assert.equal(verdictsLine([{ summaryId: 'S1', verdict: 'fail-closed' }, { summaryId: 'S2' }]), 'S1 fail-closed, S2 …');
    const many = ['reversible', 'conditional', 'reversible', 'fail-closed', 'reversible', 'fail-closed'].map((verdict, i) => ({
      summaryId: i === 0 ? '0111e7ef-0ff5-4c1e-9d1a-1b2c3d4e5f60' : `S${i + 1}`,
      verdict,
    }));
    assert.equal(verdictsLine(many), '0111e7ef… reversible, S2 conditional, S3 reversible, … and 3 more (2 fail-closed)');
    assert.equal(
      verdictsLine(many.slice(0, 4).map((cp) => ({ ...cp, verdict: 'reversible' }))),
      '0111e7ef… reversible, S2 reversible, S3 reversible, … and 1 more',
    );
  });
});
