// Unit tests for the byte-level line splitter: line numbers, byte offsets, CRLF, chunk boundaries,
// invalid UTF-8, over-long lines and an unterminated last line.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Problem, RawLine } from '../../../src/core/model';
import { LineSplitter } from '../../../src/node/lineSplitter';

function split(chunks: Buffer[], maxLineBytes = 1024) {
  const lines: RawLine[] = [];
  const problems: Problem[] = [];
  const splitter = new LineSplitter(
    { maxLineBytes },
    (line) => lines.push(line),
    (problem) => problems.push(problem),
  );
  for (const chunk of chunks) splitter.write(chunk);
  splitter.end();
  return { lines, problems };
}

describe('LineSplitter', () => {
  it('numbers lines from 1 and keeps byte offsets of each line', () => {
    const text = 'ab\néé\n\nlast';
    const { lines } = split([Buffer.from(text)]);
    assert.deepEqual(
      lines.map((l) => [l.line, l.offset, l.endOffset, l.text, l.terminated]),
      [
        [1, 0, 2, 'ab', true],
        [2, 3, 7, 'éé', true],
        [3, 8, 8, '', true],
        [4, 9, 13, 'last', false],
      ],
    );
    const bytes = Buffer.from(text);
    for (const line of lines) assert.equal(bytes.subarray(line.offset, line.endOffset).toString('utf8'), line.text);
  });

  it('gives the same lines whatever the chunk boundaries, even inside a multi-byte character', () => {
    const bytes = Buffer.from('{"a":"ünïcödé"}\r\n{"b":2}\n');
    const whole = split([bytes]).lines;
    for (let cut = 1; cut < bytes.length; cut += 1) {
      assert.deepEqual(split([bytes.subarray(0, cut), bytes.subarray(cut)]).lines, whole, `cut at ${cut}`);
    }
    assert.equal(whole[0].text, '{"a":"ünïcödé"}');
  });

  it('reports a line that is not UTF-8 with its number and keeps going', () => {
    const { lines, problems } = split([Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('\nafter\n')])]);
    assert.deepEqual(
      lines.map((l) => l.text),
      ['ok', 'after'],
    );
    assert.equal(problems.length, 1);
    assert.equal(problems[0].line, 2);
    assert.match(problems[0].message, /line 2 is not valid UTF-8/);
  });

  it('skips an over-long line with a problem that names its size and the limit', () => {
    const { lines, problems } = split([Buffer.from('short\n'), Buffer.alloc(5000, 0x61), Buffer.from('\nnext\n')], 1024);
    assert.deepEqual(
      lines.map((l) => [l.line, l.text]),
      [
        [1, 'short'],
        [3, 'next'],
      ],
    );
    assert.equal(problems[0].line, 2);
    assert.match(problems[0].message, /line 2 is 4\.9 KB, over the 1 KB limit/);
    assert.equal(lines[1].offset, 6 + 5000 + 1);
  });

  it('can start at a given line and offset (reading appended bytes)', () => {
    const lines: RawLine[] = [];
    const splitter = new LineSplitter(
      { maxLineBytes: 100, startLine: 10, startOffset: 500 },
      (l) => lines.push(l),
      () => undefined,
    );
    splitter.write(Buffer.from('x\ny\n'));
    assert.deepEqual(
      lines.map((l) => [l.line, l.offset]),
      [
        [10, 500],
        [11, 502],
      ],
    );
    assert.equal(splitter.consumedOffset, 504);
    assert.equal(splitter.nextLine, 12);
  });
  it('gives the same lines, offsets and problems whatever the chunks, with lines whole in a chunk or across them', () => {
    // Lines of every kind the splitter tells apart, near the 16-byte limit: plain, multi-byte, CRLF, NUL padding,
    // NULs only, not UTF-8, over the limit.
    const piece = fc.constantFrom(
      ...['a', 'bcd', 'é', '東', '🚀', '\r', '\0', 'x'.repeat(9), 'y'.repeat(17)].map((text) => Buffer.from(text)),
      Buffer.from([0xff]), // not UTF-8
    );
    const line = fc.array(piece, { maxLength: 5 }).map((parts) => Buffer.concat(parts));
    const arbInput = fc.tuple(
      fc.array(line, { maxLength: 12 }).map((lines) => Buffer.concat(lines.flatMap((bytes) => [bytes, Buffer.from('\n')]).slice(0, -1))),
      fc.array(fc.nat(), { maxLength: 6 }),
    );
    fc.assert(
      fc.property(arbInput, ([bytes, cuts]) => {
        const whole = split([bytes], 16);
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((x, y) => x - y);
        const chunks = [0, ...points].map((from, i) => bytes.subarray(from, i < points.length ? points[i] : bytes.length));
        assert.deepEqual(split(chunks, 16), whole);
      }),
      { numRuns: 2000 },
    );
  });
});
