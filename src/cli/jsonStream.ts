// JSON written in pieces, never as one string: a document of any size (a million turns, past V8's string
// limit) goes out in chunks of about CHUNK_CHARS characters, each made safe for a terminal (terminalText's
// jsonText). The parts marked streamed (StreamedObject, StreamedArray) are walked, their items made one at a
// time; every other value is JSON.stringify'd whole. The text is exactly JSON.stringify(value, null, 2)'s, but for
// an array marked `itemPerLine`: each of its items is on one line of its own, as JSON.stringify(item) writes it.
import { once } from 'node:events';
import { jsonText } from './terminalText';

/** An object whose values may be streamed themselves. Keys whose value is undefined are left out, as JSON.stringify does. */
export class StreamedObject {
  constructor(readonly fields: Readonly<Record<string, unknown>>) {}
}

/** An array whose items are made as they are written (an iterable walked once). An undefined item is written null. */
export class StreamedArray {
  constructor(
    readonly items: Iterable<unknown>,
    /**
     * `itemPerLine`: each item on one line of its own, without spaces (JSON.stringify(item)), instead of indented
     * over lines of its own. For a long array of objects (a checkpoint's turns): under half the indented size, a
     * line to grep or diff each.
     */
    readonly layout: { itemPerLine?: boolean } = {},
  ) {}
}

/**
 * JSON text already made and encoded elsewhere, at the depth it is written at and with its terminal escapes
 * (jsonText): its UTF-8 bytes, in chunks, go out as they are.
 */
export class JsonBytes {
  constructor(readonly chunks: Iterable<Buffer>) {}
}

/** Items of `array` mapped by `fn`, one at a time. */
export function* mapLazily<T, U>(array: readonly T[], fn: (item: T) => U): Generator<U> {
  for (const item of array) yield fn(item);
}

const INDENT = '  ';
/** About how many characters each chunk holds (the last one fewer; one item's text larger). */
export const CHUNK_CHARS = 64 * 1024;

/** JSON.stringify(value, null, 2), its lines but the first indented by `pad`. Undefined for a value JSON leaves out. */
function plainJson(value: unknown, pad: string): string | undefined {
  const text = JSON.stringify(value, null, 2) as string | undefined;
  if (text === undefined) return undefined;
  // A JSON string never holds a raw newline (it is escaped): every newline is between tokens.
  return pad === '' ? text : text.replaceAll('\n', `\n${pad}`);
}

/**
 * The JSON text of `value` on one line, as JSON.stringify(value) writes it, with jsonText's escapes: an item of an
 * `itemPerLine` array (for JsonBytes). `value` holds no JsonBytes; a value JSON leaves out is null.
 */
export function jsonLineOf(value: unknown): string {
  const all = [...pieces(value, '', true)];
  return all.length === 0 ? 'null' : jsonText(all.join(''));
}

/** The indentation of the depth `depth` levels below the one indented by `pad`. */
export function padBelow(pad: string, depth: number): string {
  return pad + INDENT.repeat(depth);
}

/**
 * The pieces of `value`'s JSON, at the depth whose indentation is `pad` (or on one line, as JSON.stringify(value)
 * writes it, when `oneLine`); nothing for a value JSON leaves out. A JsonBytes comes as it is, for jsonChunks.
 */
function* pieces(value: unknown, pad: string, oneLine = false): Generator<string | JsonBytes> {
  if (value instanceof JsonBytes) {
    yield value;
  } else if (value instanceof StreamedArray) {
    const inner = pad + INDENT;
    const itemsOnOneLine = oneLine || value.layout.itemPerLine === true;
    // Before an item: a newline and the indentation, or only the comma on one line.
    const lead = oneLine ? '' : `\n${inner}`;
    let first = true;
    for (const item of value.items) {
      yield `${first ? '[' : ','}${lead}`;
      first = false;
      let wrote = false;
      for (const piece of pieces(item, inner, itemsOnOneLine)) {
        wrote = true;
        yield piece;
      }
      if (!wrote) yield 'null';
    }
    yield first ? '[]' : oneLine ? ']' : `\n${pad}]`;
  } else if (value instanceof StreamedObject) {
    const inner = pad + INDENT;
    let first = true;
    for (const [key, field] of Object.entries(value.fields)) {
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      yield oneLine ? `${first ? '{' : ','}${JSON.stringify(key)}:` : `${first ? '{\n' : ',\n'}${inner}${JSON.stringify(key)}: `;
      first = false;
      yield* pieces(field, inner, oneLine);
    }
    yield first ? '{}' : oneLine ? '}' : `\n${pad}}`;
  } else {
    const text = oneLine ? (JSON.stringify(value) as string | undefined) : plainJson(value, pad);
    if (text !== undefined) yield text;
  }
}

export interface ChunkOptions {
  /** About how many characters a chunk holds. Default CHUNK_CHARS. */
  chunkChars?: number;
  /** The indentation of the depth `value` sits at inside a larger document (its lines but the first get it). */
  pad?: string;
}

/**
 * The JSON of `value` (JSON.stringify(value, null, 2), with jsonText's escapes) in chunks of about
 * `chunkChars` characters. Concatenated, they are the document; no chunk is larger than needed for one item.
 * A JsonBytes' chunks come as they are, Buffers of UTF-8 (only when `value` holds one).
 */
export function* jsonChunks(value: unknown, options: ChunkOptions = {}): Generator<string | Buffer> {
  const chunkChars = options.chunkChars ?? CHUNK_CHARS;
  let parts: string[] = [];
  let size = 0;
  for (const piece of pieces(value, options.pad ?? '')) {
    if (piece instanceof JsonBytes) {
      if (size > 0) yield jsonText(parts.join(''));
      parts = [];
      size = 0;
      yield* piece.chunks;
      continue;
    }
    parts.push(piece);
    size += piece.length;
    if (size >= chunkChars) {
      yield jsonText(parts.join(''));
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield jsonText(parts.join(''));
}

/** Writes `text` to `out`, waiting when `out` asks to (drain). Rejects when `out` fails (a closed pipe). */
export async function writeOut(out: NodeJS.WritableStream, text: string | Buffer): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}
