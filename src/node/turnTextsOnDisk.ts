// A read-once transcript's turn texts kept in a temporary file instead of the heap (issue 13: the texts are the
// largest part of what a 1 GB transcript's analysis holds). Each turn becomes a TurnOnDisk, the same turn whose
// `text` is read back from the file when asked, and whose span is kept in columns beside where the texts are; the
// last texts read are kept, few and short. Texts are written as UTF-8 when they are well formed and as UTF-16
// otherwise (a lone surrogate from a JSON escape survives the trip unchanged). The file is deleted as soon as it
// is open where the system allows it (elsewhere when the process exits), and closed once no turn refers to it.
// When it cannot be made or written (no room, no rights), the turns keep their texts in memory, as before.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role, SourceSpan, Turn, TurnId } from '../core/model';

/** Bytes gathered before they are written. */
const WRITE_BYTES = 1 << 20;
/** Bytes read from the texts' file at a time. */
const BLOCK_BYTES = 64 * 1024;
/** Texts kept after they are read: this many slots, by turn (the passes over the turns go in order). */
const RECENT_SLOTS = 256;
/** Only texts up to this many characters are kept after they are read (the kept texts stay under 2 MB). */
const RECENT_MAX_CHARS = 4096;

/**
 * The texts' file: where each text starts, and how it was written. Texts are read a block at a time, the block
 * after the text asked for when the turns are gone through forwards, before it when backwards, so a pass over
 * the turns reads the file about once.
 */
class TextFile {
  private readonly block = Buffer.allocUnsafe(BLOCK_BYTES);
  /** The block holds bytes [blockStart, blockEnd) of the file. */
  private blockStart = 0;
  private blockEnd = 0;
  private lastAt = -1;
  private readonly recent: string[] = new Array<string>(RECENT_SLOTS).fill('');
  private readonly recentAt = new Float64Array(RECENT_SLOTS).fill(-1);

  /**
   * Turn i's span, when it is kept here: its startLine and endLine at 2i and 2i+1 of `lines` (small integers, so
   * they come back as such, not as numbers boxed in each result that copies them), its startOffset and endOffset
   * there in `offsets`.
   */
  private readonly lines: Int32Array;
  private readonly offsets: Float64Array;
  /** 1 where turn i's span is kept here. */
  private readonly spanKept: Uint8Array;

  constructor(
    private readonly fd: number,
    /** Text i is bytes [starts[i], starts[i + 1]) of the file. */
    private readonly starts: Float64Array,
    /** 1 where text i was written as UTF-16 (it is not well formed), else 0 (UTF-8). */
    private readonly utf16: Uint8Array,
  ) {
    this.lines = new Int32Array((starts.length - 1) * 2);
    this.offsets = new Float64Array((starts.length - 1) * 2);
    this.spanKept = new Uint8Array(starts.length - 1);
  }

  /**
   * Keeps turn `at`'s span in the columns, when it is a plain span (the four numbers and nothing else) that they
   * give back equal; false otherwise (the turn keeps its own).
   */
  keepSpan(at: number, span: unknown): boolean {
    if (!isPlainSpan(span)) return false;
    this.lines[at * 2] = span.startLine;
    this.lines[at * 2 + 1] = span.endLine;
    this.offsets[at * 2] = span.startOffset;
    this.offsets[at * 2 + 1] = span.endOffset;
    this.spanKept[at] = 1;
    return true;
  }

  /** Turn `at`'s span kept by keepSpan, as a new object; undefined when it was not kept (the turn had none). */
  span(at: number): SourceSpan | undefined {
    if (this.spanKept[at] !== 1) return undefined;
    const k = at * 2;
    return { startLine: this.lines[k], endLine: this.lines[k + 1], startOffset: this.offsets[k], endOffset: this.offsets[k + 1] };
  }

  text(at: number): string {
    const slot = at % RECENT_SLOTS;
    if (this.recentAt[slot] === at) return this.recent[slot];
    const backwards = at < this.lastAt;
    this.lastAt = at;
    const start = this.starts[at];
    const end = this.starts[at + 1];
    const encoding = this.utf16[at] === 1 ? 'utf16le' : 'utf8';
    let text: string;
    if (end - start > BLOCK_BYTES / 4) {
      const whole = Buffer.allocUnsafe(end - start);
      this.readFully(whole, end - start, start);
      text = whole.toString(encoding);
    } else {
      if (start < this.blockStart || end > this.blockEnd) {
        const fileEnd = this.starts[this.starts.length - 1];
        const from = backwards ? Math.max(0, end - BLOCK_BYTES) : start;
        const to = Math.min(fileEnd, from + BLOCK_BYTES);
        this.readFully(this.block, to - from, from);
        this.blockStart = from;
        this.blockEnd = to;
      }
      text = this.block.toString(encoding, start - this.blockStart, end - this.blockStart);
    }
    if (text.length <= RECENT_MAX_CHARS) {
      this.recent[slot] = text;
      this.recentAt[slot] = at;
    }
    return text;
  }

  /** Reads `bytes` bytes of the file from `position` into the start of `buffer`. */
  private readFully(buffer: Buffer, bytes: number, position: number): void {
    for (let done = 0; done < bytes;) {
      const read = readSync(this.fd, buffer, done, bytes - done, position + done);
      if (read === 0) throw new Error('a turn text kept in a temporary file could not be read back: the file was cut short');
      done += read;
    }
  }
}

/** Closes a texts' file (and deletes it where it could not be deleted open) once nothing refers to it. */
const closing = new FinalizationRegistry<() => void>((release) => release());

/**
 * The fields of a SourceSpan: a span with these and no others, all numbers, is kept in a texts' file's columns.
 * `satisfies` makes the compiler ask for a field added to SourceSpan here (a span with it is then not plain).
 */
const SPAN_FIELDS = Object.keys({
  startLine: true,
  endLine: true,
  startOffset: true,
  endOffset: true,
} as const satisfies Record<keyof SourceSpan, true>);

/** Whether `span` is an object with SourceSpan's four fields and no other: numbers, its lines 32-bit integers. */
function isPlainSpan(span: unknown): span is SourceSpan {
  if (typeof span !== 'object' || span === null || Object.getPrototypeOf(span) !== Object.prototype) return false;
  const fields = span as Record<string, unknown>;
  return (
    Object.keys(span).length === SPAN_FIELDS.length &&
    SPAN_FIELDS.every((field) => typeof fields[field] === 'number') &&
    isInt32(fields.startLine) &&
    isInt32(fields.endLine)
  );
}

/** Whether `value` is a 32-bit integer (not -0, which an Int32Array would give back as 0). */
function isInt32(value: unknown): boolean {
  return typeof value === 'number' && (value | 0) === value && !Object.is(value, -0);
}

/**
 * A turn whose text is in a texts' file, and its span in the file's columns (a span object per turn was some 53
 * bytes of the 122 a turn took). Every other field is the turn's own, copied; so is a span that is not plain.
 */
class TurnOnDisk implements Turn {
  declare readonly id: TurnId;
  declare readonly role: Role;
  readonly #file: TextFile;
  readonly #at: number;

  constructor(turn: Turn, file: TextFile, at: number) {
    const { text: _text, span, ...rest } = turn;
    Object.assign(this, rest);
    this.#file = file;
    this.#at = at;
    // An own span hides the one in the columns (defined, since the class's span has no setter).
    if (Object.hasOwn(turn, 'span') && !file.keepSpan(at, span))
      Object.defineProperty(this, 'span', { value: span, enumerable: true, writable: true, configurable: true });
  }

  get text(): string {
    return this.#file.text(this.#at);
  }

  /** A new object each time, equal to the turn's span (undefined for a malformed turn that had none). */
  get span(): SourceSpan {
    return this.#file.span(this.#at) as SourceSpan;
  }

  /** As the turn was: its span and text among its fields. */
  toJSON(): Turn {
    return { ...this, span: this.span, text: this.text };
  }
}

/** Whether a string has no lone surrogate, so UTF-8 holds it exactly. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The same turns with their texts in a new temporary file under `dir`, or undefined when it could not be made or
 * written (nothing is left on disk then). A turn whose text is not a string stays as it is.
 */
export function turnsWithTextsOnDisk(turns: readonly Turn[], dir = tmpdir()): Turn[] | undefined {
  let folder: string | undefined;
  let fd: number | undefined;
  try {
    folder = mkdtempSync(join(dir, 'compaction-lens-texts-'));
    const path = join(folder, 'texts');
    fd = openSync(path, 'w+', 0o600);
    let deleted = false;
    try {
      unlinkSync(path);
      rmSync(folder, { recursive: true, force: true });
      deleted = true;
    } catch {
      // Windows: an open file cannot be deleted; it is when the file is closed, or when the process exits.
    }
    const starts = new Float64Array(turns.length + 1);
    const utf16 = new Uint8Array(turns.length);
    writeTexts(fd, turns, starts, utf16);
    const file = new TextFile(fd, starts, utf16);
    const result = turns.map((turn, i) => (typeof turn?.text === 'string' ? new TurnOnDisk(turn, file, i) : turn));
    closing.register(file, releaser(fd, deleted ? undefined : folder));
    return result;
  } catch {
    if (fd !== undefined) closeSync(fd);
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
}

/**
 * What closes `fd` once, and then deletes `folder` when it is still there (where an open file cannot be deleted);
 * it also runs when the process exits, for such a folder.
 */
function releaser(fd: number, folder: string | undefined): () => void {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      closeSync(fd);
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    } catch {
      // Nothing to tell: the system removes what is left of a temporary folder.
    }
  };
  if (folder !== undefined) process.once('exit', release);
  return release;
}

/** Writes every turn's text to `fd` in order, filling in where each starts and how it is encoded. */
function writeTexts(fd: number, turns: readonly Turn[], starts: Float64Array, utf16: Uint8Array): void {
  const chunk = Buffer.allocUnsafe(WRITE_BYTES);
  let used = 0;
  let offset = 0;
  const flush = (): void => {
    for (let done = 0; done < used;) done += writeSync(fd, chunk, done, used - done);
    used = 0;
  };
  for (let i = 0; i < turns.length; i++) {
    starts[i] = offset;
    const text = typeof turns[i]?.text === 'string' ? turns[i].text : '';
    const encoding = isWellFormed(text) ? 'utf8' : 'utf16le';
    if (encoding === 'utf16le') utf16[i] = 1;
    const most = text.length * (encoding === 'utf8' ? 3 : 2);
    if (used + most > WRITE_BYTES) flush();
    let bytes: number;
    if (most > WRITE_BYTES) {
      const whole = Buffer.from(text, encoding);
      for (let done = 0; done < whole.length;) done += writeSync(fd, whole, done, whole.length - done);
      bytes = whole.length;
    } else {
      bytes = chunk.write(text, used, encoding);
      used += bytes;
    }
    offset += bytes;
  }
  flush();
  starts[turns.length] = offset;
}
