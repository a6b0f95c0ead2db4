// Reads a JSON document whose root is an object (a LangGraph state dump, an OpenHands run, a request body, a Letta
// agent file) as its lines are pushed, and hands over each element of its lists of the given names (`messages`;
// `history` or `events`; `messages` or `input`) as soon as it is complete, so the lists are never kept whole. A list
// is an array under such a key in an object reached from the root through objects only (or through arrays too, when
// asked: a Letta file's `agents[i].messages`), at most `maxLevel` objects down (MAX_LEVEL: where a breadth-first
// search of the parsed document could find it; 0: the root's own). Its elements are read by ArrayElements
// (arrayElements.ts) from its `[` to its `]`. Each list is told as it opens, with its path and the members before it
// of the object holding it (ListPlace).
//
// The rest of the document, its outline, is kept as text with each list's elements left out (a list that opens and
// closes on one line stays whole), and parsed at the end (parseLocated, as a document read whole). The outline is the
// document with a list's elements taken out and nothing else changed, so its parse has the same shape, the same first
// syntax error, and the same places; a list in it is named by the byte offset of its `[` (`listAt`). A list is read
// only when the outline before it parses: after a syntax error, the document's parse would read nothing more. The
// outline is parsed now and then as it grows, so a document broken early is not kept to its end.
//
// No regular expression: the outline is scanned one character at a time, tracking only its objects, keys and strings.
import type { RawLine, SourceSpan } from '../core/model';
import { ArrayElements, type ArrayElement } from './arrayElements';
import { isObject, type JsonObject } from './jsonLines';
import { DocumentLines, MAX_DEPTH, parseLocated, utf8Length, type LocatedJson } from './jsonSpans';

/** How many objects down from the root (the root is 0) a list may sit: as deep as the readers' search for a key looks. */
export const MAX_LEVEL = 4;

/** How many lists are read an element at a time; any after them stay in the outline, read with it. */
export const MAX_LISTS = 16;

/** The outline is parsed when it has this many lines more than at its last parse (then twice as many). */
const FIRST_CHECK_LINES = 4096;

/** The document's outline, parsed, with the places of its nodes and the syntax error that ends the read. */
export interface OutlineDocument {
  located: LocatedJson;
  /** The span of an object or array of the outline (the whole document's for any other value). */
  spanOf(node: unknown): SourceSpan;
  whole: SourceSpan;
  /** The list read an element at a time that `node` (an array of the outline) stands for, if it is one. */
  listAt(node: unknown): number | undefined;
  /** The document's first syntax error: its line, message, and whether it is at the end of what was pushed. */
  error: { line: number; message: string; atEnd: boolean } | undefined;
}

/** Where a list sits, told as it opens (ObjectLists' `onList`). */
export interface ListPlace {
  /** The keys and array positions from the root to the list: `['agents', 2, 'messages']`. */
  path: readonly (string | number)[];
  /** The object holding the list, parsed from its `{` to the list's `[`: its members before the list, if it has any. */
  holder(): JsonObject | undefined;
}

/** An object or array the scan is inside, outside the lists. */
interface Frame {
  object: boolean;
  /** Objects down from the root, through objects only (-1: under an array), or through arrays too (`inArrays`). */
  level: number;
  /** What comes next: a key, a colon, a value, or a comma / the close. */
  next: 'key' | 'colon' | 'value' | 'after';
  key: string | undefined;
  /** An array's: the position of its value being read (its commas so far). */
  index: number;
  /** Where it starts in the outline's text (its `{` or `[`). */
  start: number;
}

export class ObjectLists {
  private readonly outline = new DocumentLines();
  private readonly frames: Frame[] = [];
  /** Before the root's `{`, inside the document, or after its end. */
  private phase: 'before' | 'inside' | 'after' | 'failed' = 'before';
  private inString = false;
  private escaped = false;
  /** Where the key being read starts on the line (-1: not a key, or not on this line). */
  private keyStart = -1;
  /** The reader of the elements of the list being read, if any. */
  private open: ArrayElements | undefined;
  /** The lists found, by the byte offset of their `[`. */
  private readonly lists = new Map<number, number>();
  private elementCounts: number[] = [];
  /** A list's syntax error, which ended the read. */
  private failure: { line: number; message: string } | undefined;
  private last: RawLine | undefined;
  private checkAt = FIRST_CHECK_LINES;
  /** Where the outline's part of the line being scanned starts. */
  private lineFrom = 0;
  private outlineLines = 0;

  /** How long the outline's text is (its lines joined with "\n"), kept as it grows rather than joined to be told. */
  private outlineChars = 0;
  /** The outline's text up to the `[` of the list isList found, for the list's ListPlace. */
  private textToList = '';

  private readonly keys: readonly string[];
  private readonly maxLevel: number;
  private readonly inArrays: boolean;
  private readonly onList: ((list: number, key: string, place: ListPlace) => void) | undefined;

  /**
   * `keys`: the names of the lists; `onElement` is given each complete element of list `list` (its number, in the
   * order the lists open), with its place in the list; `options.onList` is told of each list as it opens, with its
   * key and where it sits; `options.maxLevel` how many objects down a list may sit (MAX_LEVEL unless said);
   * `options.inArrays` lets it sit in an object in an array too (`{"agents": [{"messages": [...]}]}`), the array
   * counting as no level.
   */
  constructor(
    keys: string | readonly string[],
    private readonly onElement: (list: number, element: ArrayElement, index: number) => void,
    options: { maxLevel?: number; inArrays?: boolean; onList?: (list: number, key: string, place: ListPlace) => void } = {},
  ) {
    this.keys = typeof keys === 'string' ? [keys] : keys;
    this.maxLevel = options.maxLevel ?? MAX_LEVEL;
    this.inArrays = options.inArrays === true;
    this.onList = options.onList;
  }

  /** Reads the next line of the document (lines in order, each once). */
  push(line: RawLine): void {
    this.last = line;
    if (this.phase === 'failed') return;
    let from = 0;
    if (this.open !== undefined) {
      // Inside a list opened on an earlier line: only its `]` brings the scan back to the outline.
      const closed = this.readList(line, 0);
      if (closed === undefined) return;
      from = closed;
    }
    const to = this.scan(line, from);
    // The outline's part of the line: from the `]` of a list opened before it, to its end or a list's `[`.
    this.keep(line, from === 0 ? 0 : from - 1, to);
    if (!this.failed && this.outlineLines >= this.checkAt) this.check();
  }

  /** The outline parsed, and the document's first syntax error (a list's, or the outline's). */
  end(): OutlineDocument {
    const outline = this.outline;
    const located = parseLocated(outline.text);
    const whole = outline.spanOf(0, outline.text.length);
    const spanOf = (node: unknown): SourceSpan => {
      const range = typeof node === 'object' && node !== null ? located.rangeOf(node) : undefined;
      return range ? outline.spanOf(range[0], range[1]) : whole;
    };
    const listAt = (node: unknown): number | undefined => {
      if (!Array.isArray(node)) return undefined;
      const range = located.rangeOf(node);
      return range ? this.lists.get(outline.spanOf(range[0], range[0] + 1).startOffset) : undefined;
    };
    const lastLine = this.last?.line;
    let error: OutlineDocument['error'];
    if (this.failure !== undefined) error = { ...this.failure, atEnd: this.failure.line === lastLine };
    else if (this.open !== undefined) error = this.open.end();
    else if (located.error !== undefined) {
      const line = outline.lineAt(located.error.at);
      error = { line, message: located.error.message, atEnd: located.error.at >= outline.text.length || line === lastLine };
    }
    return { located, spanOf, whole, listAt, error };
  }

  /**
   * Reads the open list's part of `line` from character `from`; the character after its `]` when it closes there
   * (the scan of the outline goes on from it), else undefined.
   */
  private readList(line: RawLine, from: number): number | undefined {
    const elements = this.open!;
    elements.push(from === 0 ? line : sliceLine(line, from));
    const closedAt = elements.closedAt;
    if (closedAt !== undefined) {
      this.open = undefined;
      return from + closedAt;
    }
    if (elements.failed) this.fail(elements.end());
    return undefined;
  }

  /**
   * Scans the outline of `line` from character `from`, reading any list that opens and closes on it; returns where
   * the line's part of the outline ends: its end, or just after the `[` of a list still open at its end.
   */
  private scan(line: RawLine, from: number): number {
    const text = line.text;
    this.keyStart = -1;
    this.lineFrom = from === 0 ? 0 : from - 1;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.endString(text, i);
        continue;
      }
      if (c === 0x20 || c === 0x09 || c === 0x0d || this.phase === 'after') continue;
      const top = this.frames[this.frames.length - 1];
      if (c === 0x22) {
        this.inString = true;
        this.keyStart = top !== undefined && top.object && top.next === 'key' ? i : -1;
      } else if (c === 0x7b || c === 0x5b) {
        if (c === 0x5b && this.isList(top, line, i)) {
          top.next = 'after';
          const closed = this.openList(line, i, top.key!, this.placeAt(this.textToList));
          if (closed === undefined) return i + 1;
          i = closed - 1;
          continue;
        }
        if (this.failed) return text.length;
        if (this.frames.length >= MAX_DEPTH + 1) {
          // Deeper than the parse goes: the read ends here (the outline's parse says so), and no frame is kept for
          // each of a line's million brackets.
          this.fail(undefined);
          return text.length;
        }
        const level = top === undefined ? 0 : top.level < 0 ? -1 : top.object ? top.level + 1 : this.inArrays ? top.level : -1;
        if (top !== undefined) top.next = 'after';
        const start = this.outlineChars + (this.outline.all.length > 0 ? 1 : 0) + i - this.lineFrom;
        this.frames.push({ object: c === 0x7b, level, next: c === 0x7b ? 'key' : 'value', key: undefined, index: 0, start });
        this.phase = 'inside';
      } else if (c === 0x7d || c === 0x5d) {
        this.frames.pop();
        if (this.frames.length === 0) this.phase = 'after';
      } else if (c === 0x3a) {
        if (top !== undefined && top.next === 'colon') top.next = 'value';
      } else if (c === 0x2c) {
        if (top !== undefined) top.next = top.object ? 'key' : 'value';
        if (top !== undefined && !top.object) top.index++;
      } else if (top !== undefined && top.next === 'value') {
        top.next = 'after';
      }
    }
    // A string does not run over a line break (a parse of the outline reports it); its key is not known.
    if (this.inString) this.keyStart = -1;
    return text.length;
  }

  /** The string ending at the quote at `end`: a key sets its object's key. */
  private endString(text: string, end: number): void {
    this.inString = false;
    const top = this.frames[this.frames.length - 1];
    if (top === undefined) return;
    if (top.object && top.next === 'key') {
      top.key = this.keyStart >= 0 ? keyOf(text.slice(this.keyStart, end + 1)) : undefined;
      top.next = 'colon';
    } else if (top.next === 'value') {
      top.next = 'after';
    }
    this.keyStart = -1;
  }

  /** Whether the `[` at `at` opens a list: the value of the key, in an object reached through objects, not too deep. */
  private isList(top: Frame | undefined, line: RawLine, at: number): top is Frame {
    if (top === undefined || !top.object || top.next !== 'value' || top.key === undefined || !this.keys.includes(top.key)) return false;
    if (top.level < 0 || top.level > this.maxLevel || this.lists.size >= MAX_LISTS) return false;
    // Read it only if the outline before it parses: after a syntax error the document's parse reads nothing more.
    const before = this.outline.text;
    const head = line.text.slice(this.lineFrom, at + 1);
    const text = this.outline.all.length === 0 ? head : `${before}\n${head}`;
    const located = parseLocated(text);
    if (located.error !== undefined && located.error.at < text.length) {
      this.fail(undefined);
      return false;
    }
    this.textToList = text;
    return true;
  }

  /** Where the list whose `[` ends `text` (the outline's text to it) sits: its path, and its holder's members before it. */
  private placeAt(text: string): ListPlace {
    const path = this.frames.map((frame) => (frame.object ? (frame.key ?? '') : frame.index));
    const start = this.frames[this.frames.length - 1].start;
    const key = path[path.length - 1];
    const holder = (): JsonObject | undefined => {
      const value = parseLocated(text.slice(start)).value;
      if (!isObject(value)) return undefined;
      // The list itself, cut at its `[`, is not one of the members before it.
      delete value[key];
      return Object.keys(value).length > 0 ? value : undefined;
    };
    return { path, holder };
  }

  /** Opens a list at the `[` at `at`; the character after its `]` when it closes on this line, else undefined. */
  private openList(line: RawLine, at: number, key: string, place: ListPlace): number | undefined {
    const index = this.elementCounts.length;
    this.elementCounts.push(0);
    this.lists.set(line.offset + utf8Length(line.text, at), index);
    this.textToList = '';
    this.onList?.(index, key, place);
    const depth = this.frames.length + 1;
    const elements = new ArrayElements(
      (element) => {
        const k = this.elementCounts[index]++;
        this.onElement(index, element, k);
      },
      { inside: true, depth },
    );
    this.open = elements;
    return this.readList(line, at);
  }

  /** Whether a syntax error ended the read. */
  private get failed(): boolean {
    return this.phase === 'failed';
  }

  /** Keeps the outline's part of `line`: characters `from` to `to`. */
  private keep(line: RawLine, from: number, to: number): void {
    this.outlineChars += (this.outline.all.length > 0 ? 1 : 0) + to - from;
    if (from === 0 && to === line.text.length) this.outline.push(line);
    else {
      const part = sliceLine(line, from);
      this.outline.push({ ...part, text: part.text.slice(0, to - from) });
    }
    this.outlineLines++;
  }

  /** Parses the outline as it stands: a syntax error before its end ends the read (nothing after it is kept). */
  private check(): void {
    const text = this.outline.text;
    const located = parseLocated(text);
    if (located.error !== undefined && located.error.at < text.length) this.fail(undefined);
    this.checkAt = this.outlineLines * 2;
  }

  /** Ends the read: `error` is a list's syntax error (undefined: the outline's, found when it is parsed). */
  private fail(error: { line: number; message: string } | undefined): void {
    this.phase = 'failed';
    this.failure = error === undefined ? undefined : { line: error.line, message: error.message };
    this.open = undefined;
  }
}

/** `line` from character `from` on, with the byte offset of that character. */
function sliceLine(line: RawLine, from: number): RawLine {
  if (from === 0) return line;
  return { ...line, text: line.text.slice(from), offset: line.offset + utf8Length(line.text, from) };
}

/** A key's text (with its quotes) as a string; undefined when it is not a valid JSON string. */
function keyOf(quoted: string): string | undefined {
  if (!quoted.includes('\\')) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}
