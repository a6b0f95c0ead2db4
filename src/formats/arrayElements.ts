// Reads a JSON document whose root is an array (an OpenHands event file) as its lines are pushed, and hands over
// each element as soon as it is complete: its parsed value and its span (lines and byte offsets). Only the lines of
// the element being read are kept, so a document of any size is read in about the memory of its largest element.
// What it gives agrees with parseLocated over the whole document (jsonSpans.ts): the elements complete before the
// first syntax error, and that error's line and message. An element's end is found by counting brackets outside
// strings, one character at a time (no regular expression), and each element is then parsed alone. An array inside a
// larger document (a state's list of messages, objectLists.ts) is read the same way from its `[`: the read stops at
// its `]` and says where (`closedAt`).
import type { RawLine, SourceSpan } from '../core/model';
import { ByteCounter, parseLocated } from './jsonSpans';

/** One element of the array, complete. */
export interface ArrayElement {
  value: unknown;
  span: SourceSpan;
}

/** The document's first syntax error: its line, its message, and whether it is at the end of what was pushed. */
export interface ElementsError {
  line: number;
  message: string;
  atEnd: boolean;
}

/** What comes next: the root's `[`, its first element or `]`, an element, `,` or `]`, nothing (closed), or failed. */
type Phase = 'open' | 'first' | 'element' | 'separator' | 'closed' | 'failed';

/** An element being read: where it starts, and its brackets and string state for a composite one. */
interface Pending {
  /** Index in `lines` of its first line, and its first character there. */
  line: number;
  column: number;
  kind: 'composite' | 'string';
  depth: number;
  /** The deepest its brackets went. */
  deepest: number;
  inString: boolean;
  escaped: boolean;
}

/** An element that runs over this many lines is parsed as it stands, then at twice as many: a syntax error inside it ends the read then. */
const FIRST_LOOK_LINES = 4096;

const SPACE = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** The characters that end a bare value (a number or a literal): space, a separator, a bracket or a quote. */
const ENDS_BARE = (c: number): boolean => SPACE(c) || c === 0x2c || c === 0x5d || c === 0x7d || c === 0x5b || c === 0x7b || c === 0x22;

export class ArrayElements {
  private phase: Phase = 'open';
  /** The lines from the pending element's first (or the current line when none is pending). */
  private lines: RawLine[] = [];
  private counters: (ByteCounter | undefined)[] = [];
  private pending: Pending | undefined;
  private error: { line: number; message: string } | undefined;
  /** The last line pushed. */
  private lastPushed: RawLine | undefined;
  /** How many lines the pending element may run over before it is parsed as it stands. */
  private lookAt = FIRST_LOOK_LINES;

  /** In an array inside a larger document: the character after its `]` on the last line pushed, once it is read. */
  closedAt: number | undefined;
  /** The depth its elements sit at in the document (1: the root's elements), for the parser's nesting limit. */
  private readonly depth: number;
  private readonly inside: boolean;

  /**
   * `onElement` is given each element as it is complete, in order. `inside`: the array is part of a larger document,
   * its first line starting at its `[`, and the read stops at its `]`; `depth`: how deep its elements sit.
   */
  constructor(
    private readonly onElement: (element: ArrayElement) => void,
    options: { inside?: boolean; depth?: number } = {},
  ) {
    this.inside = options.inside === true;
    this.depth = options.depth ?? 1;
  }

  /** Reads the next line of the document (lines in order, each once). */
  push(line: RawLine): void {
    this.lastPushed = line;
    if (this.phase === 'failed' || this.closedAt !== undefined) return;
    if (this.pending === undefined) {
      this.lines = [line];
      this.counters = [undefined];
    } else {
      if (this.lines.length - this.pending.line >= this.lookAt && !this.lookInside()) return;
      this.lines.push(line);
      this.counters.push(undefined);
    }
    const text = line.text;
    let i = 0;
    while (i <= text.length && !this.failed) {
      // The line being read is the last one kept (the lines before the pending element's are let go).
      const index = this.lines.length - 1;
      if (this.pending !== undefined) {
        i = this.readPending(text, index, i);
        continue;
      }
      // Past the last character comes the newline that joins this line to the next: a space.
      const c = i < text.length ? text.charCodeAt(i) : 0x0a;
      if (SPACE(c)) {
        i++;
        continue;
      }
      i = this.readOutside(text, index, i, c);
    }
  }

  /**
   * The error a parse of the whole document pushed so far would report, if any: the first syntax error met, or
   * how what was pushed ends before the document is closed. Changes nothing: more lines may come.
   */
  end(): ElementsError | undefined {
    const last = this.lastPushed;
    if (this.error) return { ...this.error, atEnd: this.error.line === last?.line };
    if (last === undefined) return undefined;
    const atEof = (message: string): ElementsError => ({ line: last.line, message, atEnd: true });
    if (this.pending !== undefined) {
      const text = this.pendingText(this.lines.length - 1, last.text.length);
      const located = parseLocated(text, this.depth);
      if (located.error === undefined) return undefined; // cannot happen: a complete element is handed over
      const line = this.lineOf(this.pending, located.error.at);
      return { line, message: located.error.message, atEnd: located.error.at >= text.length || line === last.line };
    }
    if (this.phase === 'open' || this.phase === 'first' || this.phase === 'element') return atEof('unexpected the end of the file');
    if (this.phase === 'separator') return atEof('expected , or ] but found the end of the file');
    return undefined;
  }

  /** Reads outside any element, at a character that is not a space; returns where to go on. */
  private readOutside(text: string, index: number, i: number, c: number): number {
    switch (this.phase) {
      case 'open':
        if (c === 0x5b) {
          this.phase = 'first';
          return i + 1;
        }
        return this.fail(index, `unexpected ${describe(text, i)}`);
      case 'first':
        if (c === 0x5d) return this.close(i + 1);
        return this.startElement(text, index, i, c);
      case 'element':
        return this.startElement(text, index, i, c);
      case 'separator':
        if (c === 0x2c) {
          this.phase = 'element';
          return i + 1;
        }
        if (c === 0x5d) return this.close(i + 1);
        return this.fail(index, `expected , or ] but found ${describe(text, i)}`);
      default:
        return this.fail(index, `unexpected ${describe(text, i)} after the end of the document`);
    }
  }

  /** The array's `]` was read, before character `end`; an array inside a larger document stops there. */
  private close(end: number): number {
    this.phase = 'closed';
    if (!this.inside) return end;
    this.closedAt = end;
    this.lines = [];
    this.counters = [];
    return Number.MAX_SAFE_INTEGER;
  }

  /** Starts the element at character i: an object, array or string is read on; a bare value is read at once. */
  private startElement(text: string, index: number, i: number, c: number): number {
    if (c === 0x7b || c === 0x5b || c === 0x22) {
      const kind = c === 0x22 ? 'string' : 'composite';
      const depth = kind === 'string' ? 0 : 1;
      this.pending = { line: index, column: i, kind, depth, deepest: depth, inString: kind === 'string', escaped: false };
      this.lookAt = FIRST_LOOK_LINES;
      return i + 1;
    }
    let end = i;
    while (end < text.length && !ENDS_BARE(text.charCodeAt(end))) end++;
    if (end === i) return this.fail(index, `unexpected ${describe(text, i)}`);
    const located = parseLocated(text.slice(i, end), this.depth);
    if (located.error !== undefined && located.value === undefined) return this.fail(index, located.error.message);
    this.onElement({ value: located.value, span: this.spanOf(index, i, index, end) });
    this.phase = 'separator';
    if (located.error !== undefined) {
      // A value followed by more of it (`1-2`): the whole document's parse took the value, then wanted a separator.
      return this.fail(index, `expected , or ] but found ${describe(text, i + located.error.at)}`);
    }
    return end;
  }

  /** Reads the pending element from character i until it is complete or the line ends; returns where to go on. */
  private readPending(text: string, index: number, i: number): number {
    const p = this.pending!;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (p.inString) {
        if (p.escaped) p.escaped = false;
        else if (c === 0x5c) p.escaped = true;
        else if (c === 0x22) {
          p.inString = false;
          if (p.kind === 'string') return this.complete(index, i + 1);
        }
      } else if (c === 0x22) p.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        p.depth++;
        if (p.depth > p.deepest) p.deepest = p.depth;
      } else if (c === 0x7d || c === 0x5d) {
        p.depth--;
        if (p.depth === 0) return this.complete(index, i + 1);
      }
    }
    // The newline that joins this line to the next: inside a string it stays there (a parse reports it).
    return text.length + 1;
  }

  /** The pending element ends before character `end` of line `index`: parse it and hand it over. */
  private complete(index: number, end: number): number {
    const p = this.pending!;
    const text = this.pendingText(index, end);
    const located = parseElement(text, p.deepest, this.depth);
    if (located.error !== undefined) {
      const line = this.lineOf(p, located.error.at);
      this.pending = undefined;
      return this.failOn(line, located.error.message);
    }
    const span = this.spanOf(p.line, p.column, index, end);
    this.pending = undefined;
    this.lines = this.lines.slice(index);
    this.counters = this.counters.slice(index);
    this.phase = 'separator';
    this.onElement({ value: located.value, span });
    return end;
  }

  /**
   * Parses a long pending element as it stands, every line of it read: an error before its end is the document's,
   * and ends the read (an element that is not closed would otherwise keep every line after it). False when it did.
   */
  private lookInside(): boolean {
    const p = this.pending!;
    const last = this.lines.length - 1;
    const text = this.pendingText(last, this.lines[last].text.length);
    const located = parseLocated(text, this.depth);
    if (located.error !== undefined && located.error.at < text.length) {
      const line = this.lineOf(p, located.error.at);
      this.pending = undefined;
      this.failOn(line, located.error.message);
      return false;
    }
    this.lookAt *= 2;
    return true;
  }

  /** Whether a syntax error ended the read. */
  get failed(): boolean {
    return this.phase === 'failed';
  }

  /** The pending element's text up to character `end` of line `index`, its lines joined with newlines. */
  private pendingText(index: number, end: number): string {
    const p = this.pending!;
    if (index === p.line) return this.lines[index].text.slice(p.column, end);
    const parts = [this.lines[p.line].text.slice(p.column)];
    for (let k = p.line + 1; k < index; k++) parts.push(this.lines[k].text);
    parts.push(this.lines[index].text.slice(0, end));
    return parts.join('\n');
  }

  /** The line number of character `at` of the pending element's text. */
  private lineOf(p: Pending, at: number): number {
    let start = -p.column;
    for (let k = p.line; k < this.lines.length; k++) {
      const next = start + this.lines[k].text.length + 1;
      if (at < next || k === this.lines.length - 1) return this.lines[k].line;
      start = next;
    }
    return this.lines[this.lines.length - 1].line;
  }

  private spanOf(firstIndex: number, firstColumn: number, lastIndex: number, end: number): SourceSpan {
    const first = this.lines[firstIndex];
    const last = this.lines[lastIndex];
    return {
      startLine: first.line,
      endLine: last.line,
      startOffset: first.offset + this.bytesAt(firstIndex, firstColumn),
      endOffset: last.offset + this.bytesAt(lastIndex, end),
    };
  }

  /** UTF-8 bytes before character `at` of line `index` (asked in increasing order on each line). */
  private bytesAt(index: number, at: number): number {
    let counter = this.counters[index];
    if (counter === undefined) {
      counter = new ByteCounter(this.lines[index].text);
      this.counters[index] = counter;
    }
    return counter.at(at);
  }

  private fail(index: number, message: string): number {
    return this.failOn(this.lines[index].line, message);
  }

  private failOn(line: number, message: string): number {
    this.phase = 'failed';
    this.error = { line, message };
    this.lines = [this.lines[this.lines.length - 1]];
    this.counters = [undefined];
    return Number.MAX_SAFE_INTEGER;
  }
}

/** Elements nested at least this deep are parsed by parseLocated, whose nesting limit the whole document's parse has. */
const DEEP = 256;

/**
 * A complete element's value, or its syntax error as parseLocated gives it. JSON.parse first: it is faster, and its
 * strings are copies, where parseLocated's are slices of the element's text, which a string kept (a call id, as a
 * key of the calls' links) would keep whole: 428 MB of element texts 9 s into the read of a 1 GB message array.
 */
function parseElement(text: string, deepest: number, depth: number): { value: unknown; error?: { at: number; message: string } } {
  if (deepest + depth <= DEEP) {
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      // parseLocated says where, and why as a whole document's parse would
    }
  }
  return parseLocated(text, depth);
}

/** A character as parseLocated's messages name it. */
function describe(text: string, at: number): string {
  return at >= text.length ? 'the end of the file' : JSON.stringify(text[at]);
}
