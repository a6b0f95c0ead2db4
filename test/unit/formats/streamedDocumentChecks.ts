// Test helper for the readers of JSON Lines or one JSON document read as pushed (src/formats/streamedDocument.ts):
// an array read an element at a time gives what a read of the whole document gives, cut anywhere and damaged
// (a seeded property); it keeps no record once read, and read once no line either, and hands each turn over once;
// finished halfway and appended to, what the first finish returned is unchanged; a checkpoint it says is settled
// while it is read is the whole file's.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ReaderContext, Transcript, Turn } from '../../../src/core/model';
import type { StreamedDocumentReader } from '../../../src/formats/streamedDocument';
import { assertSettledAsWhole, feed, splitLines } from './feedLines';

/** Makes a reader: `readAhead` records a batch, `streamArrays` false to read an array whole. */
export type MakeStreamed = (context: Partial<ReaderContext>, readAhead?: number, streamArrays?: boolean) => StreamedDocumentReader<unknown>;

/**
 * A read of the whole document places a value that is not an object or array on the document's first line (its
 * parse keeps places of objects and arrays only); read an element at a time, it is on its own line. So the lines
 * of the problems `notAnObject` matches are left out when the two are compared.
 */
function comparable(t: Transcript, notAnObject: RegExp): Transcript {
  return {
    ...t,
    problems: t.problems
      .map((p) => (notAnObject.test(p.message) ? { ...p, line: 0, message: 'not an object' } : p))
      .sort((a, b) => a.line - b.line),
  };
}

/** Private fields of the base class, read for tests only. */
function kept(reader: StreamedDocumentReader<unknown>): {
  kept: unknown[];
  lines: { records: unknown[] };
  elements?: { lines: unknown[] };
} {
  return reader as unknown as { kept: unknown[]; lines: { records: unknown[] }; elements?: { lines: unknown[] } };
}

/**
 * Damages `base` by up to four random edits (a piece inserted, characters removed, or a character replaced by a
 * piece; seeded) and runs `check` on each damaged text.
 */
function assertDamagedAlike(base: string, pieces: string[], check: (text: string) => void, seed: number, numRuns: number): void {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(base.length), fc.nat(pieces.length - 1), fc.nat(2), fc.nat(3)), { minLength: 1, maxLength: 4 }),
      (edits) => {
        let text = base;
        for (const [at, piece, how, width] of edits) {
          const i = at % (text.length + 1);
          if (how === 0) text = text.slice(0, i) + pieces[piece] + text.slice(i);
          else if (how === 1) text = text.slice(0, i) + text.slice(i + 1 + width);
          else text = text.slice(0, i) + pieces[piece] + text.slice(i + 1);
        }
        check(text);
      },
    ),
    { seed, numRuns },
  );
}

/**
 * Finished after about every `1/parts` of its lines and then appended to, a reader of `text` gives what a reader fed
 * it at once gives, and what its first finish returned is unchanged.
 */
function assertAppendedAlike(make: MakeStreamed, name: string, text: string, parts: number): void {
  const expected = feed(make({}), text);
  const lines = splitLines(Buffer.from(text, 'utf8'));
  for (let cut = 1; cut < lines.length; cut += Math.max(1, Math.floor(lines.length / parts))) {
    const reader = make({});
    for (const line of lines.slice(0, cut)) reader.push(line);
    const first = reader.finish();
    const asReturned = structuredClone(first);
    for (const line of lines.slice(cut)) reader.push(line);
    assert.deepEqual(reader.finish(), expected, `${name}, cut after line ${cut}`);
    assert.deepEqual(first, asReturned, `${name}, cut after line ${cut}: the first finish's result is unchanged`);
  }
}

export function assertStreamedDocument(options: {
  make: MakeStreamed;
  /** Arrays of the format (the first three are cut at every character: keep them small). */
  documents: [string, string][];
  /** The same format as JSON Lines. */
  jsonl: string;
  /** The problem a value that is not an object gives. */
  notAnObject: RegExp;
  /** An element of the array (a turn), for long arrays. */
  element: (k: number) => unknown;
}): void {
  const { make, documents, jsonl, notAnObject, element } = options;
  const whole = (text: string): Transcript => comparable(feed(make({}, 512, false), text), notAnObject);
  const streamed = (text: string): Transcript => comparable(feed(make({}), text), notAnObject);

  it('a checkpoint the reader says is settled as the lines are pushed one at a time is as the whole file reads it, and so are the turns before it', () => {
    for (const [name, text] of [...documents, ['JSON Lines', jsonl] as [string, string]]) {
      const lines = splitLines(Buffer.from(text, 'utf8'));
      assertSettledAsWhole(name, lines, feed(make({}), text), make({ readOnce: true }));
    }
  });

  it('an array read an element at a time gives what a read of the whole document gives', () => {
    for (const [name, text] of documents) assert.deepEqual(streamed(text), whole(text), name);
  });

  it('cut anywhere, it reports what the whole document would: the complete elements, the cut and its line', () => {
    for (const [name, text] of documents.slice(0, 3)) {
      for (let cut = 0; cut <= text.length; cut++) {
        const part = text.slice(0, cut);
        assert.deepEqual(streamed(part), whole(part), `${name}, cut at ${cut}`);
      }
    }
  });

  it('property: a damaged array gives what a read of the whole document gives (seeded, 400 runs)', () => {
    const pieces = ['{', '}', '[', ']', ',', '"', ':', '\\', ' ', '\n', 'x', '1', '-', 'true', '"\\"', '\u00e9'];
    assertDamagedAlike(documents[0][1], pieces, (text) => assert.deepEqual(streamed(text), whole(text)), 20261204, 400);
  });

  it('an element over 10,000 lines, and elements nested up to the parser limit, are read as a whole read reads them', () => {
    const base = JSON.parse(documents[0][1]) as unknown[];
    const long = { ...(element(7) as object), lines: Array.from({ length: 10000 }, (_, k) => `l${k}`) };
    const text = JSON.stringify([...base, long], null, 2);
    assert.ok(text.split('\n').length > 10000);
    const t = streamed(text);
    assert.deepEqual(t, whole(text));
    for (const depth of [509, 510, 511, 512]) {
      const nested = `[\n${JSON.stringify(base, null, 2).slice(1, -2)},\n{"nested": ${'['.repeat(depth)}${']'.repeat(depth)}}\n]`;
      assert.deepEqual(streamed(nested), whole(nested), `nested ${depth} deep`);
    }
  });

  it('an element not closed is found out long before the end, and no more lines are kept for it', () => {
    const good = Array.from({ length: 5 }, (_, k) => JSON.stringify(element(k), null, 2)).join(',\n');
    const rest = Array.from({ length: 3000 }, (_, k) => JSON.stringify(element(100 + k), null, 2)).join(',\n');
    const text = `[\n${good},\n{ "id": 99, "role": x,\n${rest}\n]\n`;
    const t = streamed(text);
    assert.deepEqual(t, whole(text));
    assert.equal(t.problems[0].severity, 'error');
    assert.match(t.problems[0].message, /unexpected "x"/);
    const reader = make({ readOnce: true });
    let most = 0;
    for (const line of splitLines(Buffer.from(text, 'utf8'))) {
      reader.push(line);
      most = Math.max(most, kept(reader).elements!.lines.length);
    }
    assert.ok(most <= 4096 + 1, `at most 4,097 lines kept for the element, not ${most}`);
  });

  it('read once, with its turns handed over: each turn once, no line or record kept', () => {
    for (const [name, text] of [...documents, ['JSON Lines', jsonl] as [string, string]]) {
      const again = make({});
      const expected = feed(again, text);
      // Not read once, it keeps the lines (to read them again when one is pushed again), but no record once read.
      assert.ok(kept(again).kept.length > 0, `${name}: lines kept`);
      assert.equal(kept(again).lines.records.length, 0, `${name}: no record kept once read`);
      for (const readAhead of [1, 3, 512]) {
        const once = make({ readOnce: true }, readAhead);
        assert.deepEqual(feed(once, text), expected, `${name}, read ahead ${readAhead}, read once`);
        assert.equal(kept(once).kept.length, 0, `${name}: no line kept`);
        assert.equal(kept(once).lines.records.length, 0, `${name}: no record kept`);
        const handed: unknown[] = [];
        const keepTurn = (turn: Turn): Turn => {
          handed.push(turn.id);
          return { ...turn };
        };
        assert.deepEqual(feed(make({ keepTurn, readOnce: true }, readAhead), text), expected, name);
        assert.deepEqual(
          handed,
          expected.turns.map((turn) => turn.id),
          `${name}: each turn handed over once`,
        );
      }
    }
  });

  it('finished halfway and appended to: what the first finish returned is unchanged', () => {
    for (const [name, text] of [...documents, ['JSON Lines', jsonl] as [string, string]]) {
      assertAppendedAlike(make, name, text, 7);
    }
  });

  it('a last line pushed again once complete is read again', () => {
    const text = documents[0][1];
    const lines = splitLines(Buffer.from(text, 'utf8'));
    const reader = make({});
    for (const line of lines.slice(0, -1)) reader.push(line);
    const last = lines[lines.length - 1];
    reader.push({ ...last, text: '', endOffset: last.offset, terminated: false });
    reader.finish();
    reader.push(last);
    assert.deepEqual(comparable(reader.finish(), notAnObject), whole(text));
  });
}

/** Private fields of ObjectLists, read for tests only. */
function outlineOf(reader: StreamedDocumentReader<unknown>): { outline: { all: unknown[] } } | undefined {
  return (reader as unknown as { objectLists?: { outline: { all: unknown[] } } }).objectLists;
}

/**
 * A reader whose documents may be objects holding lists of records (StreamedDocumentReader.listKey): the lists read
 * an element at a time give what a read of the whole document gives, cut anywhere and damaged, and keep only the
 * document's outline.
 */
export function assertStreamedObjects(options: {
  make: MakeStreamed;
  /**
   * Objects of the format (the first two are cut at every character), and which turns are handed over as read:
   * `each` once (one list), `all` among others (lists the transcript does not show), `none` (a list read with the
   * outline, or none); `atEnd`: the ids of turns read from the outline at the end, never handed over (a request
   * body's `system`).
   */
  objects: [name: string, text: string, handed: 'each' | 'all' | 'none', atEnd?: readonly unknown[]][];
  notAnObject: RegExp;
  /** A document with `n` records in its list. */
  large: (n: number) => string;
}): void {
  const { make, objects, notAnObject, large } = options;
  const whole = (text: string): Transcript => comparable(feed(make({}, 512, false), text), notAnObject);
  const streamed = (text: string): Transcript => comparable(feed(make({}), text), notAnObject);

  it('an object read a list element at a time gives what a read of the whole document gives', () => {
    for (const [name, text] of objects) {
      const reader = make({});
      const t = comparable(feed(reader, text), notAnObject);
      assert.ok(outlineOf(reader) !== undefined, `${name}: read as an object, its lists an element at a time`);
      assert.deepEqual(t, whole(text), name);
    }
  });

  it('an object cut anywhere reports what the whole document would', () => {
    for (const [name, text] of objects.slice(0, 2)) {
      for (let cut = 0; cut <= text.length; cut++) {
        const part = text.slice(0, cut);
        assert.deepEqual(streamed(part), whole(part), `${name}, cut at ${cut}`);
      }
    }
  });

  for (const [k, [name]] of objects.slice(0, 3).entries()) {
    it(`property: a damaged object gives what a read of the whole document gives (${name}; seeded, 300 runs)`, () => {
      const pieces = ['{', '}', '[', ']', ',', '"', ':', '\\', ' ', '\n', 'x', '1', '"messages"', 'true', '"\\"', '\u00e9'];
      assertDamagedAlike(objects[k][1], pieces, (text) => assert.deepEqual(streamed(text), whole(text)), 20261204 + k, 300);
    });
  }

  it('read once: each turn handed over once, no line kept, and only the outline of a large object', () => {
    for (const [name, text, expectHanded, atEnd = []] of objects) {
      const expected = feed(make({}), text);
      const handed: unknown[] = [];
      const keepTurn = (turn: Turn): Turn => {
        handed.push(turn.id);
        return { ...turn };
      };
      const once = make({ keepTurn, readOnce: true });
      assert.deepEqual(feed(once, text), expected, name);
      assert.equal(kept(once).kept.length, 0, `${name}: no line kept`);
      const ids = expected.turns.map((turn) => turn.id).filter((id) => !atEnd.includes(id));
      for (const id of atEnd) assert.ok(!handed.includes(id), `${name}: ${String(id)} read at the end, not handed over`);
      if (expectHanded === 'each') assert.deepEqual(handed, ids, `${name}: each turn handed over once`);
      else if (expectHanded === 'all') for (const id of ids) assert.ok(handed.includes(id), `${name}: ${String(id)} handed over`);
      else for (const id of ids) assert.ok(!handed.includes(id), `${name}: ${String(id)} read at the end, not handed over`);
    }
    const text = large(2000);
    const lines = text.split('\n').length;
    const once = make({ readOnce: true });
    const t = feed(once, text);
    assert.equal(t.turns.length, 2000);
    const outline = outlineOf(once)!.outline.all.length;
    assert.ok(outline < 40, `the outline of ${lines} lines keeps ${outline}`);
    assert.deepEqual(comparable(t, notAnObject), whole(text));
  });

  it('an object finished halfway and appended to: what the first finish returned is unchanged', () => {
    for (const [name, text] of objects) {
      assertAppendedAlike(make, name, text, 9);
      const lines = splitLines(Buffer.from(text, 'utf8'));
      // A line pushed again reads the kept lines before it again.
      const reader = make({});
      for (const line of lines) reader.push(line);
      reader.finish();
      for (const line of lines.slice(Math.floor(lines.length / 2))) reader.push(line);
      assert.deepEqual(comparable(reader.finish(), notAnObject), whole(text), `${name}, pushed again from the middle`);
    }
  });
}
