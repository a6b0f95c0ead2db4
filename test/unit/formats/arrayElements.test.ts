// Tests of the JSON array read an element at a time (src/formats/arrayElements.ts) on its own: each element's span
// gives back its bytes (multi-byte text, CRLF, several elements on a line, one over many lines), end() says how
// what was pushed ends without changing it, and a syntax error ends the read on its line. The readers' tests
// (streamedDocumentChecks.ts) compare it with a parse of the whole document.
import assert from 'node:assert/strict';
import type { RawLine } from '../../../src/core/model';
import { ArrayElements, type ArrayElement } from '../../../src/formats/arrayElements';
import { splitLines } from './feedLines';

function read(text: string): { elements: ArrayElement[]; reader: ArrayElements; lines: RawLine[] } {
  const elements: ArrayElement[] = [];
  const reader = new ArrayElements((element) => elements.push(element));
  const lines = splitLines(Buffer.from(text, 'utf8'));
  for (const line of lines) reader.push(line);
  return { elements, reader, lines };
}

describe('formats/arrayElements', () => {
  it('each element comes with the span of its own bytes, multi-byte text and CRLF included', () => {
    const values = [{ a: 'é€😀' }, [1, { b: 'x\ny' }], 'plain "quoted" \\ string', 42, null, true, { deep: [[[['ü']]]] }];
    const text =
      '[\r\n  ' +
      values.map((v) => JSON.stringify(v, null, 3).replace(/\n/g, '\r\n')).join(',\r\n  ') +
      ', {"two":1},{"on":"one line"}\r\n]\r\n';
    const { elements, reader } = read(text);
    const bytes = Buffer.from(text, 'utf8');
    assert.deepEqual(
      elements.map((e) => e.value),
      [...values, { two: 1 }, { on: 'one line' }],
    );
    for (const { value, span } of elements) {
      assert.deepEqual(JSON.parse(bytes.subarray(span.startOffset, span.endOffset).toString('utf8')), value);
      const before = bytes.subarray(0, span.startOffset).toString('utf8');
      assert.equal(span.startLine, before.split('\n').length, `the start line of ${JSON.stringify(value)}`);
    }
    assert.equal(reader.end(), undefined);
  });

  it('end() says how an unfinished document ends, and more lines then finish it', () => {
    assert.deepEqual(read('[\n{"a": 1},\n{"b": "unfinished').reader.end(), { line: 3, message: 'a string is not closed', atEnd: true });
    const lines = splitLines(Buffer.from('[\n{"a": 1},\n{"b":', 'utf8'));
    const elements: ArrayElement[] = [];
    const reader = new ArrayElements((element) => elements.push(element));
    for (const line of lines) reader.push(line);
    const first = reader.end();
    assert.deepEqual(first, { line: 3, message: 'unexpected the end of the file', atEnd: true });
    assert.deepEqual(reader.end(), first, 'asking again changes nothing');
    assert.equal(elements.length, 1);
    reader.push({ line: 4, offset: 100, endOffset: 104, text: ' 2}]', terminated: true });
    assert.equal(reader.end(), undefined);
    assert.deepEqual(elements[1].value, { b: 2 });
    assert.deepEqual([elements[1].span.startLine, elements[1].span.endLine], [3, 4]);
  });

  it('a syntax error ends the read on its line; the lines after it are not read', () => {
    const { elements, reader } = read('[\n{"a": 1}\n{"b": 2},\n{"c": 3}\n]\n');
    assert.deepEqual(
      elements.map((e) => e.value),
      [{ a: 1 }],
    );
    assert.deepEqual(reader.end(), { line: 3, message: 'expected , or ] but found "{"', atEnd: false });
  });

  it('what follows the closing bracket is an error, the elements before it stay', () => {
    const { elements, reader } = read('[1, 2]\n\n x\n');
    assert.deepEqual(
      elements.map((e) => e.value),
      [1, 2],
    );
    // on the last line pushed: a reader says it is still being written when that line has no newline yet
    assert.deepEqual(reader.end(), { line: 3, message: 'unexpected "x" after the end of the document', atEnd: true });
  });
});
