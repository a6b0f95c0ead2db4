// Unit tests of ObjectLists (src/formats/objectLists.ts): which lists of a JSON object are read an element at a time,
// what is kept of a document broken early, and the places it gives. The readers' comparison with a read of the whole
// document is in streamedDocumentChecks.ts (assertStreamedObjects).
import assert from 'node:assert/strict';
import type { SourceSpan } from '../../../src/core/model';
import { MAX_LISTS, ObjectLists } from '../../../src/formats/objectLists';
import { splitLines } from './feedLines';

/** Reads `text`, returning each list's elements and the reader. */
function read(text: string): { lists: unknown[][]; spans: SourceSpan[][]; reader: ObjectLists } {
  const lists: unknown[][] = [];
  const spans: SourceSpan[][] = [];
  const reader = new ObjectLists('messages', (list, element, index) => {
    (lists[list] ??= [])[index] = element.value;
    (spans[list] ??= [])[index] = element.span;
  });
  for (const line of splitLines(Buffer.from(text, 'utf8'))) reader.push(line);
  return { lists, spans, reader };
}

/** The outline's kept lines, read for tests only. */
function outlineLines(reader: ObjectLists): number {
  return (reader as unknown as { outline: { all: unknown[] } }).outline.all.length;
}

describe('formats/objectLists', () => {
  it('reads the lists under the key in objects reached through objects, four levels down at most', () => {
    const doc = {
      messages: [1, { a: 2 }],
      values: { messages: ['x'], deeper: { a: { b: { messages: [3] } } } },
      tooDeep: { a: { b: { c: { d: { messages: [4] } } } } },
      inArray: [{ messages: [5] }],
      notAList: { messages: { messages: [6] } },
    };
    const { lists, reader } = read(JSON.stringify(doc, null, 2));
    assert.deepEqual(lists, [[1, { a: 2 }], ['x'], [3], [6]]);
    const outline = reader.end();
    assert.equal(outline.error, undefined);
    const value = outline.located.value as typeof doc;
    assert.deepEqual(value.messages, []);
    assert.equal(outline.listAt(value.messages), 0);
    assert.equal(outline.listAt(value.values.messages), 1);
    assert.equal(outline.listAt(value.inArray), undefined);
    assert.deepEqual(value.tooDeep.a.b.c.d.messages, [4]);
  });

  it('reads lists under any of several keys, tells each as it opens with its key, and only as deep as asked', () => {
    const doc = { history: [1, 2], events: [], run: { history: [3] }, other: [4] };
    const text = JSON.stringify(doc, null, 2);
    for (const [maxLevel, expected, opened] of [
      [0, [[1, 2], [], []], ['0 history', '1 events']],
      [1, [[1, 2], [], [3]], ['0 history', '1 events', '2 history']],
    ] as const) {
      const lists: unknown[][] = [[], [], []];
      const seen: string[] = [];
      const reader = new ObjectLists(['history', 'events'], (list, element, index) => (lists[list][index] = element.value), {
        maxLevel,
        onList: (list, key) => seen.push(`${list} ${key}`),
      });
      for (const line of splitLines(Buffer.from(text, 'utf8'))) reader.push(line);
      assert.deepEqual(lists, expected, `max level ${maxLevel}`);
      assert.deepEqual(seen, opened, `max level ${maxLevel}: the lists opened, the empty one too`);
      const value = reader.end().located.value as typeof doc;
      assert.deepEqual(value.run.history, maxLevel === 0 ? [3] : [], 'a list not read is in the outline');
      assert.deepEqual(value.other, [4]);
    }
  });

  it('in arrays too when asked: each list told with its path and the members of its holder before it', () => {
    const doc = {
      agents: [5, { name: 'a', in_context_message_ids: ['m1'], messages: [1, 2], after: 1 }, { messages: [3], name: 'late' }],
      messages: [0],
      x: [{ y: { messages: [8] } }, { messages: [9] }],
    };
    for (const [indent, inArrays] of [
      [2, true],
      [undefined, true],
      [1, false],
    ] as const) {
      const text = JSON.stringify(doc, null, indent);
      const lists: unknown[][] = [];
      const seen: unknown[] = [];
      const reader = new ObjectLists('messages', (list, element, index) => ((lists[list] ??= [])[index] = element.value), {
        maxLevel: 1,
        inArrays,
        onList: (list, key, place) => {
          const holder = place.holder();
          seen.push([list, key, place.path, holder && Object.keys(holder), holder?.in_context_message_ids]);
        },
      });
      for (const line of splitLines(Buffer.from(text, 'utf8'))) reader.push(line);
      const name = `indent ${String(indent)}, in arrays ${String(inArrays)}`;
      if (inArrays) {
        assert.deepEqual(lists, [[1, 2], [3], [0], [9]], name);
        assert.deepEqual(
          seen,
          [
            [0, 'messages', ['agents', 1, 'messages'], ['name', 'in_context_message_ids'], ['m1']],
            [1, 'messages', ['agents', 2, 'messages'], undefined, undefined],
            [2, 'messages', ['messages'], ['agents'], undefined],
            [3, 'messages', ['x', 1, 'messages'], undefined, undefined],
          ],
          name,
        );
      } else assert.deepEqual(seen, [[0, 'messages', ['messages'], ['agents'], undefined]], name);
      const value = reader.end().located.value as typeof doc;
      assert.deepEqual(value.x[0], { y: { messages: [8] } }, `${name}: a list two levels down is in the outline`);
    }
    // A holder right after other text, lines down: its `{` is found where it is, not a character off.
    const text = '{\n"agents":\n[5,{"name": "a",\n"messages": [\n1]}]}';
    const holders: unknown[] = [];
    const reader = new ObjectLists('messages', () => undefined, {
      maxLevel: 1,
      inArrays: true,
      onList: (_, __, place) => holders.push(place.holder()),
    });
    for (const line of splitLines(Buffer.from(text, 'utf8'))) reader.push(line);
    assert.deepEqual(holders, [{ name: 'a' }]);
  });

  it('gives each element its lines and byte offsets, after characters of several bytes', () => {
    const text = '{ "é€😀": [1],\n  "messages": [ {"k": "ü"},\n {"k": 2} ], "z": 0 }';
    const { spans } = read(text);
    const bytes = Buffer.from(text, 'utf8');
    const first = spans[0][0];
    assert.equal(bytes.subarray(first.startOffset, first.endOffset).toString('utf8'), '{"k": "ü"}');
    assert.deepEqual([first.startLine, first.endLine], [2, 2]);
    const second = spans[0][1];
    assert.equal(bytes.subarray(second.startOffset, second.endOffset).toString('utf8'), '{"k": 2}');
    assert.equal(second.startLine, 3);
  });

  it(`reads ${MAX_LISTS} lists an element at a time; the rest stay in the outline`, () => {
    const keys = Array.from({ length: MAX_LISTS + 2 }, (_, k) => `"k${k}": {"messages": [\n${k}\n]}`);
    const { lists, reader } = read(`{\n${keys.join(',\n')}\n}`);
    assert.equal(lists.length, MAX_LISTS);
    const value = reader.end().located.value as Record<string, { messages: number[] }>;
    assert.deepEqual(value.k0.messages, []);
    assert.deepEqual(value[`k${MAX_LISTS}`].messages, [MAX_LISTS]);
  });

  it('a document broken before a list reads none of it, and stops keeping lines', () => {
    const filler = Array.from({ length: 10000 }, (_, k) => `  "f${k}": ${k},`).join('\n');
    const text = `{\n  "config": x,\n${filler}\n  "messages": [\n1,\n2\n]\n}`;
    const { lists, reader } = read(text);
    assert.deepEqual(lists, []);
    assert.ok(outlineLines(reader) <= 4096 + 1, `at most 4,097 lines kept, not ${outlineLines(reader)}`);
    const error = reader.end().error!;
    assert.equal(error.line, 2);
    assert.match(error.message, /unexpected "x"/);
  });

  it('a syntax error in a list ends the read there, and a list cut short says where', () => {
    const broken = read('{\n"messages": [\n{"a": 1},\n{"a": 2 3},\n{"a": 4}\n], "n": 1\n}');
    assert.deepEqual(broken.lists, [[{ a: 1 }]]);
    assert.deepEqual(broken.reader.end().error, { line: 4, message: 'expected , or } but found "3"', atEnd: false });
    const cut = read('{\n"messages": [\n{"a": 1},\n{"a": 2');
    assert.deepEqual(cut.lists, [[{ a: 1 }]]);
    assert.equal(cut.reader.end().error?.atEnd, true);
  });

  it("keeps no more than the parser's depth of brackets for a line of a million of them", () => {
    const { lists, reader } = read(`{\n"a": ${'['.repeat(1_000_000)}\n"messages": [1]\n}`);
    assert.deepEqual(lists, []);
    const frames = (reader as unknown as { frames: unknown[] }).frames.length;
    assert.ok(frames <= 513, `${frames} frames kept`);
    assert.match(reader.end().error!.message, /nested deeper than 512 levels/);
  });
});
