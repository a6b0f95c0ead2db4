// Reads a transcript that is one JSON document spread over many lines (an OpenHands event array, a LangGraph
// state dump, a message array) and says where every object and array of it sits: its line range and byte
// offsets, so each turn keeps the span of its own element. A small JSON parser that records positions; on a
// syntax error it keeps the complete elements read so far and reports the line of the error.

import { groupDigits } from '../core/displayText';
import type { Problem, RawLine, SourceSpan } from '../core/model';

/** How deep a document may nest: a parse fails past it, as JSON parsers with a stack limit do. */
export const MAX_DEPTH = 512;

class JsonSyntaxError extends Error {
  /** What was complete when the error was met (an array of complete elements, or undefined). */
  partial: unknown;
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

export interface LocatedJson {
  /** The parsed document; after a syntax error, what could be salvaged (complete array elements). */
  value: unknown;
  /** Character index and message of the first syntax error, if any. */
  error?: { at: number; message: string };
  /** Character range [start, end) of an object or array of `value`. */
  rangeOf(node: object): [number, number] | undefined;
}

/**
 * Parses `text` as one JSON document, recording the range of every object and array. Never throws. `depth`: how
 * deep the text sits in a larger document (an element of a document read a piece at a time, arrayElements.ts), so
 * the nesting limit is the larger document's.
 */
export function parseLocated(text: string, depth = 0): LocatedJson {
  const ranges = new WeakMap<object, [number, number]>();
  let pos = 0;

  const fail = (message: string, at = pos): never => {
    throw new JsonSyntaxError(message, at);
  };
  const skipSpace = (): void => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else return;
    }
  };
  const describe = (at: number): string => (at >= text.length ? 'the end of the file' : `${JSON.stringify(text[at])}`);

  const parseString = (): string => {
    const start = pos; // at the opening quote
    let i = pos + 1;
    for (;;) {
      const quote = text.indexOf('"', i);
      if (quote === -1) fail('a string is not closed', start);
      let backslashes = 0;
      for (let j = quote - 1; j > start && text.charCodeAt(j) === 0x5c; j--) backslashes++;
      if (backslashes % 2 === 0) {
        pos = quote + 1;
        const raw = text.slice(start + 1, quote);
        if (!raw.includes('\\') && /[\u0000-\u001f]/.test(raw)) {
          fail('a string holds a raw control character (a newline inside a string?)', start);
        }
        // Parsed, not the slice itself: a slice keeps the whole text it was cut from (a run's line, a document), and
        // a turn keeps its text for as long as the file is open (an OpenHands file held twice its size).
        try {
          return JSON.parse(text.slice(start, quote + 1)) as string;
        } catch {
          return fail('a string has an invalid escape', start);
        }
      }
      i = quote + 1;
    }
  };

  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const parseNumber = (): number => {
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (!match || match[0] === '-') fail(`unexpected ${describe(pos)}`);
    pos += match![0].length;
    return Number(match![0]);
  };

  const parseLiteral = (word: string, value: unknown): unknown => {
    if (text.startsWith(word, pos)) {
      pos += word.length;
      return value;
    }
    return fail(`unexpected ${describe(pos)}`);
  };

  const parseArray = (depth: number): unknown[] => {
    const start = pos;
    const array: unknown[] = [];
    pos++; // [
    try {
      skipSpace();
      if (text.charCodeAt(pos) === 0x5d) {
        pos++;
        ranges.set(array, [start, pos]);
        return array;
      }
      for (;;) {
        skipSpace();
        array.push(parseValue(depth + 1));
        skipSpace();
        const c = text.charCodeAt(pos);
        if (c === 0x2c) {
          pos++;
          continue;
        }
        if (c === 0x5d) {
          pos++;
          ranges.set(array, [start, pos]);
          return array;
        }
        fail(`expected , or ] but found ${describe(pos)}`);
      }
    } catch (error) {
      if (error instanceof JsonSyntaxError) {
        ranges.set(array, [start, error.at]);
        error.partial = array;
      }
      throw error;
    }
  };

  const parseObject = (depth: number): Record<string, unknown> => {
    const start = pos;
    const object: Record<string, unknown> = {};
    pos++; // {
    try {
      skipSpace();
      if (text.charCodeAt(pos) === 0x7d) {
        pos++;
        ranges.set(object, [start, pos]);
        return object;
      }
      for (;;) {
        skipSpace();
        if (text.charCodeAt(pos) !== 0x22) fail(`expected a "key" but found ${describe(pos)}`);
        const key = parseString();
        skipSpace();
        if (text.charCodeAt(pos) !== 0x3a) fail(`expected : but found ${describe(pos)}`);
        pos++;
        skipSpace();
        let child: unknown;
        try {
          child = parseValue(depth + 1);
        } catch (error) {
          // keep a partial child, array or object: what it holds complete is usable (a state's messages under
          // `values`); a half-read element of an array is not kept (parseArray keeps complete elements only)
          if (error instanceof JsonSyntaxError && error.partial !== undefined) {
            Object.defineProperty(object, key, { value: error.partial, enumerable: true, writable: true, configurable: true });
          }
          throw error;
        }
        Object.defineProperty(object, key, { value: child, enumerable: true, writable: true, configurable: true });
        skipSpace();
        const c = text.charCodeAt(pos);
        if (c === 0x2c) {
          pos++;
          continue;
        }
        if (c === 0x7d) {
          pos++;
          ranges.set(object, [start, pos]);
          return object;
        }
        fail(`expected , or } but found ${describe(pos)}`);
      }
    } catch (error) {
      if (error instanceof JsonSyntaxError) {
        ranges.set(object, [start, error.at]);
        error.partial = Object.keys(object).length > 0 ? object : undefined;
      }
      throw error;
    }
  };

  const parseValue = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail(`the document is nested deeper than ${MAX_DEPTH} levels`);
    const c = text.charCodeAt(pos);
    if (c === 0x7b) return parseObject(depth);
    if (c === 0x5b) return parseArray(depth);
    if (c === 0x22) return parseString();
    if (c === 0x74) return parseLiteral('true', true);
    if (c === 0x66) return parseLiteral('false', false);
    if (c === 0x6e) return parseLiteral('null', null);
    return parseNumber();
  };

  const rangeOf = (node: object) => ranges.get(node);
  try {
    skipSpace();
    const value = parseValue(depth);
    skipSpace();
    if (pos < text.length) {
      return { value, error: { at: pos, message: `unexpected ${describe(pos)} after the end of the document` }, rangeOf };
    }
    return { value, rangeOf };
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      return { value: error.partial, error: { at: error.at, message: error.message }, rangeOf };
    }
    // RangeError (stack) or anything unexpected: report it as unreadable rather than throw
    return { value: undefined, error: { at: pos, message: error instanceof Error ? error.message : String(error) }, rangeOf };
  }
}

/** Number of UTF-8 bytes of text[0, end) (no Buffer: src/formats stays free of Node APIs). */
export function utf8Length(text: string, end = text.length): number {
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The most characters a JavaScript string holds (V8 on 64 bits: 2^29 − 24): lines longer in all are not joined. */
export const MAX_JOINED_LENGTH = 2 ** 29 - 24;

/**
 * The lines of a document-style transcript, joined into one text, with the mapping from character positions
 * back to line numbers and byte offsets. A line pushed again (same or lower number) replaces the tail. Lines too
 * long to join (MAX_JOINED_LENGTH) give an empty text, and parse() says so.
 */
export class DocumentLines {
  private readonly lines: RawLine[] = [];
  private joined: { text: string; starts: number[]; length: number } | undefined;

  push(line: RawLine): void {
    while (this.lines.length > 0 && this.lines[this.lines.length - 1].line >= line.line) this.lines.pop();
    this.lines.push(line);
    this.joined = undefined;
  }

  get all(): readonly RawLine[] {
    return this.lines;
  }

  get lineCount(): number {
    return this.lines.length === 0 ? 0 : this.lines[this.lines.length - 1].line;
  }

  /** The lines joined with "\n", and where each line starts in it. */
  get text(): string {
    return this.join().text;
  }

  /** The index in `all` of the line holding character `at` of `text`. */
  indexAt(at: number): number {
    const { starts } = this.join();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Line number of character `at` (0 when there are no lines). */
  lineAt(at: number): number {
    return this.lines.length === 0 ? 0 : this.lines[this.indexAt(at)].line;
  }

  /** The span of characters [start, end) of `text`. */
  spanOf(start: number, end: number): SourceSpan {
    if (this.lines.length === 0) return { startLine: 0, endLine: 0, startOffset: 0, endOffset: 0 };
    const first = this.indexAt(start);
    const last = this.indexAt(Math.max(start, end - 1));
    return {
      startLine: this.lines[first].line,
      endLine: this.lines[last].line,
      startOffset: this.byteOffset(first, start),
      endOffset: this.byteOffset(last, end),
    };
  }

  /**
   * Parses the joined text; the syntax error, if any, becomes a problem on its line. Lines too long to join are
   * not parsed: an error on the first line says so.
   */
  parse(what: string): { located: LocatedJson; problem?: Problem } {
    const { length } = this.join();
    if (length > MAX_JOINED_LENGTH) {
      const line = this.lines[0].line;
      const message = `the ${what} is too large to be read as one JSON document: ${groupDigits(length)} characters, more than the ${groupDigits(MAX_JOINED_LENGTH)} one text can hold`;
      return {
        located: { value: undefined, error: { at: 0, message }, rangeOf: () => undefined },
        problem: {
          line,
          severity: 'error',
          message: `line ${line}: ${message}. Nothing in it was read; split it into smaller files to check it.`,
        },
      };
    }
    const located = parseLocated(this.text);
    if (!located.error) return { located };
    const at = located.error.at;
    const line = this.lineAt(at);
    const last = this.lines[this.lines.length - 1];
    const atEnd = at >= this.text.length || line === last?.line;
    return { located, problem: documentProblem(what, line, located.error.message, atEnd && last !== undefined && !last.terminated) };
  }

  private join(): { text: string; starts: number[]; length: number } {
    if (this.joined) return this.joined;
    const starts: number[] = [];
    let at = 0;
    for (const line of this.lines) {
      starts.push(at);
      at += line.text.length + 1;
    }
    const length = Math.max(0, at - 1);
    const text = length > MAX_JOINED_LENGTH ? '' : this.lines.map((line) => line.text).join('\n');
    this.joined = { text, starts, length };
    return this.joined;
  }

  private byteOffset(index: number, at: number): number {
    const line = this.lines[index];
    const column = Math.min(Math.max(0, at - this.join().starts[index]), line.text.length);
    return line.offset + utf8Length(line.text, column);
  }
}

/**
 * The problem for a document's syntax error on `line`: a warning that the document is still being written when
 * the error is on its last line and that line has no newline yet (`unfinished`), an error otherwise.
 */
export function documentProblem(what: string, line: number, message: string, unfinished: boolean): Problem {
  return unfinished
    ? {
        line,
        severity: 'warning',
        message: `line ${line} is incomplete (the agent may still be writing): the ${what} ends before it is closed. What was complete before it was read.`,
      }
    : {
        line,
        severity: 'error',
        message: `line ${line}: the ${what} is not valid JSON (${message}). What was complete before this point was read; fix the file to have the rest read.`,
      };
}

/** UTF-8 byte position of character positions of one text; fast when asked in increasing order. */
export class ByteCounter {
  private lastAt = 0;
  private lastBytes = 0;
  constructor(private readonly text: string) {}
  at(position: number): number {
    if (position < this.lastAt) {
      this.lastAt = 0;
      this.lastBytes = 0;
    }
    let bytes = this.lastBytes;
    let i = this.lastAt;
    while (i < position) {
      const c = this.text.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < this.text.length) {
        bytes += 4;
        i++;
      } else bytes += 3;
      i++;
    }
    this.lastAt = i;
    this.lastBytes = bytes;
    return bytes;
  }
}

/** Parses one JSONL line with positions, so elements inside a large record get their own byte range. */
export function locateInLine(line: RawLine): { value: unknown; spanOf(node: unknown): SourceSpan } {
  const located = parseLocated(line.text);
  const bytes = new ByteCounter(line.text);
  const whole: SourceSpan = { startLine: line.line, endLine: line.line, startOffset: line.offset, endOffset: line.endOffset };
  return {
    value: located.value,
    spanOf(node: unknown): SourceSpan {
      const range = typeof node === 'object' && node !== null ? located.rangeOf(node) : undefined;
      if (!range) return whole;
      return {
        startLine: line.line,
        endLine: line.line,
        startOffset: line.offset + bytes.at(range[0]),
        endOffset: line.offset + bytes.at(range[1]),
      };
    },
  };
}
