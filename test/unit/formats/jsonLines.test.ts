// JsonLinesBuffer: what it keeps of each record (keep, DROP_RECORD), and records let go (releaseRecords).
import assert from 'node:assert/strict';
import { DROP_RECORD, JsonLinesBuffer } from '../../../src/formats/jsonLines';
import { splitLines } from './feedLines';

const input = ['{"type":"a","n":1}', '{"type":"skip"}', 'not json', '{"type":"a","n":2}', ''].join('\n');

describe('formats/jsonLines', () => {
  it('keeps what keep returns, no record where it returns DROP_RECORD, and counts every line', () => {
    const buffer = new JsonLinesBuffer({
      dropText: true,
      keep: (v) => ((v as { type: string }).type === 'skip' ? DROP_RECORD : { n: (v as { n: number }).n }),
    });
    for (const line of splitLines(Buffer.from(input))) buffer.push(line);
    assert.deepEqual(
      buffer.records.map((r) => [r.line.line, r.value]),
      [
        [1, { n: 1 }],
        [4, { n: 2 }],
      ],
    );
    assert.equal(buffer.lineCount, 4);
    assert.deepEqual(
      buffer.problems.map((p) => p.line),
      [3],
    );
    assert.equal(buffer.recordsPushed, 2);
  });

  it('lets its records go, and counts on from there', () => {
    const buffer = new JsonLinesBuffer();
    const lines = splitLines(Buffer.from(input));
    buffer.push(lines[0]);
    buffer.push(lines[1]);
    buffer.releaseRecords();
    assert.equal(buffer.records.length, 0);
    for (const line of lines.slice(2)) buffer.push(line);
    assert.deepEqual(
      buffer.records.map((r) => r.line.line),
      [4],
    );
    assert.equal(buffer.recordsPushed, 3);
  });
});
