// Tests of the position-keeping JSON parser and of the line/byte mapping used for document-style transcripts.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { DocumentLines, parseLocated, utf8Length } from '../../../src/formats/jsonSpans';
import { splitLines } from './feedLines';
import { heapKeptMb } from '../../heapKept';

describe('formats/jsonSpans', () => {
  it('parses like JSON.parse', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const located = parseLocated(text);
        assert.equal(located.error, undefined);
        assert.deepEqual(located.value, JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps no parsed text alive through its strings', () => {
    // 40 texts of 1 MB, each with a string value long enough for V8 to slice it as a view into the text, and kept.
    const module = resolve(__dirname, '../../../src/formats/jsonSpans.js');
    const keptMb = heapKeptMb(
      `const { parseLocated } = require(${JSON.stringify(module)});`,
      `const kept = [];
      for (let i = 0; i < 40; i++) {
        const text = JSON.stringify({ id: 'an id long enough to be a slice ' + i, pad: 'x'.repeat(1e6), events: [{ text: 'an event text ' + i }] });
        const { value } = parseLocated(Buffer.from(text).toString());
        kept.push(value.id, value.events[0].text);
      }`,
    );
    assert.ok(keptMb < 10, `${keptMb} MB of parsed texts kept (40 MB would be every text)`);
  });

  it('never throws on arbitrary text, and reports an error for what JSON.parse rejects', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const located = parseLocated(text);
        assert.equal(located.error === undefined, valid, text);
      }),
      { numRuns: 500 },
    );
    assert.ok(parseLocated('['.repeat(100000)).error);
  });

  it('gives each element its line range and byte offsets (multi-byte text included)', () => {
    const text = '[\n  {"a": "é€😀"},\n  {"b": [1,\n 2]}\n]\n';
    const bytes = Buffer.from(text, 'utf8');
    const doc = new DocumentLines();
    for (const line of splitLines(bytes)) doc.push(line);
    const { located } = doc.parse('test');
    const [first, second] = located.value as object[];
    const r1 = located.rangeOf(first)!;
    const s1 = doc.spanOf(r1[0], r1[1]);
    assert.deepEqual([s1.startLine, s1.endLine], [2, 2]);
    assert.equal(bytes.subarray(s1.startOffset, s1.endOffset).toString('utf8'), '{"a": "é€😀"}');
    const r2 = located.rangeOf(second)!;
    const s2 = doc.spanOf(r2[0], r2[1]);
    assert.deepEqual([s2.startLine, s2.endLine], [3, 4]);
    assert.equal(bytes.subarray(s2.startOffset, s2.endOffset).toString('utf8'), '{"b": [1,\n 2]}');
    assert.equal(utf8Length('é€😀'), Buffer.byteLength('é€😀'));
  });

  it('keeps the complete elements of a cut array, and names the line of the error', () => {
    const doc = new DocumentLines();
    for (const line of splitLines(Buffer.from('[\n{"id": 1},\n{"id": 2},\n{"id": 3, "x": tru\n'))) doc.push(line);
    const { located, problem } = doc.parse('event file');
    assert.deepEqual(located.value, [{ id: 1 }, { id: 2 }]);
    assert.equal(problem?.line, 4);
    assert.equal(problem?.severity, 'error');
  });

  it('keeps what a cut object holds complete on the way down to the cut, but no half-read element of an array', () => {
    // A LangGraph state being written: its messages under `values` are read up to the cut.
    const text = '{"config": {"a": 1}, "values": {"messages": [{"id": 1}, {"id": 2}, {"id": 3, "content": "par';
    const cut = parseLocated(text);
    assert.deepEqual(cut.value, { config: { a: 1 }, values: { messages: [{ id: 1 }, { id: 2 }] } });
    assert.ok(cut.error);
    // An object cut before any key holds nothing to keep; a half-read object in an array is not an element.
    assert.deepEqual(parseLocated('{"values": {').value, undefined);
    assert.deepEqual(parseLocated('{"runs": [{"id": 1}, {"id": 2, "x": {"y": 1').value, { runs: [{ id: 1 }] });
    // The kept objects have their places (to where the cut is).
    const values = (cut.value as { values: object }).values;
    assert.deepEqual(cut.rangeOf(values), [text.indexOf('{"messages"'), cut.error!.at]);
  });
});
