// A read-once transcript's turn texts kept in a temporary file instead of the heap (issue 13: the texts are the
// largest part of what a 1 GB transcript's analysis holds): written as a reader hands over each turn
// (TurnTextStore), or all at once after the read (turnsWithTextsOnDisk). Each turn becomes a TurnOnDisk, the same
// turn whose `text` is read back from the file when asked, and whose span, id, role and recorded tokens are kept
// in columns beside where the texts are; the last texts read are kept, few and short. The text of the call a tool
// result answers (Turn.answers.callText, a copy of the call in each result) goes to a second file, read back too.
// Texts are written as UTF-8 when they are well formed and as UTF-16 otherwise (a lone surrogate from a JSON
// escape survives the trip unchanged). A file is deleted as soon as it is open where the system allows it
// (elsewhere when the process exits), and closed once no turn refers to it. When it cannot be made, the turns keep
// their texts in memory; when a write fails (no room), the texts from there on stay in memory.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role, SourceSpan, TextKeeper, Turn, TurnId } from '../core/model';
import { ROLES } from '../core/model';
import { Column, OffsetColumn } from './chunkedColumns';

/** Bytes gathered before they are written. */
const WRITE_BYTES = 1 << 20;
/** Bytes read from the texts' file at a time. */
const BLOCK_BYTES = 64 * 1024;
/** Texts kept after they are read: this many slots, by turn (the passes over the turns go in order). */
const RECENT_SLOTS = 256;
/** Only texts up to this many characters are kept after they are read (the kept texts stay under 2 MB). */
const RECENT_MAX_CHARS = 4096;
/**
 * TextFile's flags: the text was written as UTF-16; the turn's span, id, role or recorded tokens are kept in the
 * columns; the role's index in ROLES, in the two bits from ROLE_SHIFT; and the id kept is the turn's number in
 * the file (ID_IS_AT: nothing in the ids' column).
 */
const UTF16 = 1;
const SPAN_KEPT = 2;
const ID_KEPT = 4;
const ROLE_KEPT = 8;
const TOKENS_KEPT = 16;
const ROLE_SHIFT = 5;
const ROLE_MASK = 3;
const ID_IS_AT = 128;
/** The most lines and bytes past its start a span kept in the columns may end (the width of its columns). */
const MAX_LINES_SPANNED = 0xffff;
const MAX_BYTES_SPANNED = 0xffff_ffff;
/**
 * The texts' file, written as turns come (append) and read back by turn (text). Texts are gathered in a buffer
 * and written a megabyte at a time (a longer one alone); a text still in the buffer is read from it. When a write
 * fails (no room), what it held stays in memory, read from there, and no text is appended after it (`broken`).
 * Texts are read a block at a time, the block after the text asked for when the turns are gone through forwards,
 * before it when backwards, so a pass over the turns reads the file about once.
 */
class TextFile {
  /**
   * Text i is bytes [starts[i], starts[i + 1]) of the file (or of `kept`), the last one's up to `size`: each text
   * is appended right after the one before.
   */
  private readonly starts = new OffsetColumn();
  /**
   * Turn i's UTF16 bit (its text was written as UTF-16: it is not well formed; else UTF-8), which of its span,
   * id, role and tokens the columns keep (SPAN_KEPT, ID_KEPT, ROLE_KEPT, TOKENS_KEPT), and its role's index.
   */
  private readonly flags = new Column((n) => new Uint8Array(n));
  /**
   * Turn i's span, when it is kept here: its startLine (a small integer, so it comes back as such, not as a number
   * boxed in each result that copies it) and how many lines further it ends; its startOffset and how many bytes
   * further it ends. 14 bytes a turn where the offsets take 4 (see OffsetColumn), rather than 24.
   */
  private readonly startLines = new Column((n) => new Int32Array(n));
  private readonly linesSpanned = new Column((n) => new Uint16Array(n));
  private readonly startOffsets = new OffsetColumn();
  private readonly bytesSpanned = new Column((n) => new Uint32Array(n));
  /** Turn i's id, when it is a 32-bit integer other than i; its recorded tokens, up to 2^32 - 1. */
  private readonly ids = new Column((n) => new Int32Array(n));
  private readonly tokens = new Column((n) => new Uint32Array(n));
  /** How many texts were appended. */
  count = 0;
  /** Bytes appended: those written to the file, then those in `pending`. */
  private size = 0;
  /** Bytes written to the file. */
  private written = 0;
  private readonly pending = Buffer.allocUnsafe(WRITE_BYTES);
  /** A text written alone whose write failed, from byte `keptStart` on: read from here. */
  private kept: Buffer | undefined;
  private keptStart = 0;
  /** True once a write failed: nothing more is appended. */
  broken = false;

  private readonly block = Buffer.allocUnsafe(BLOCK_BYTES);
  /** The block holds bytes [blockStart, blockEnd) of the file. */
  private blockStart = 0;
  private blockEnd = 0;
  private lastAt = -1;
  private readonly recent: string[] = new Array<string>(RECENT_SLOTS).fill('');
  private readonly recentAt = new Float64Array(RECENT_SLOTS).fill(-1);

  constructor(private readonly fd: number) {}

  /** Appends a text, and gives its number; undefined when the file is broken (the text is not kept). */
  append(text: string): number | undefined {
    if (this.broken) return undefined;
    const encoding = isWellFormed(text) ? 'utf8' : 'utf16le';
    const most = text.length * (encoding === 'utf8' ? 3 : 2);
    const at = this.count;
    const start = this.size;
    if (this.size - this.written + most > WRITE_BYTES) this.flush();
    if (this.broken) return undefined;
    let bytes: number;
    if (most > WRITE_BYTES) {
      const whole = Buffer.from(text, encoding);
      bytes = whole.length;
      if (!this.writeOut(whole, start)) {
        this.kept = whole;
        this.keptStart = start;
      }
    } else {
      bytes = this.pending.write(text, this.size - this.written, encoding);
    }
    this.size += bytes;
    this.starts.set(at, start);
    this.flags.set(at, encoding === 'utf16le' ? UTF16 : 0);
    this.count++;
    return at;
  }

  /** Bytes the columns take in memory. */
  get columnBytes(): number {
    const columns = [
      this.starts,
      this.flags,
      this.startLines,
      this.linesSpanned,
      this.startOffsets,
      this.bytesSpanned,
      this.ids,
      this.tokens,
    ];
    let bytes = 0;
    for (const column of columns) bytes += column.bytes;
    return bytes;
  }

  /** Writes what is gathered to the file (when the write fails, it stays gathered, and is read from there). */
  flush(): void {
    const used = this.size - this.written;
    if (used === 0 || this.broken) return;
    this.writeOut(this.pending.subarray(0, used), this.written);
  }

  /** Writes `bytes`, which start at byte `start` of the texts, to the file; false when that fails (then broken). */
  private writeOut(bytes: Buffer, start: number): boolean {
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, start + done);
      this.written = start + bytes.length;
      return true;
    } catch {
      this.broken = true;
      return false;
    }
  }

  /**
   * Keeps turn `at`'s span in the columns, when it is a plain span (the four numbers and nothing else) that they
   * give back equal; false otherwise (the turn keeps its own).
   */
  keepSpan(at: number, span: unknown): boolean {
    if (!isPlainSpan(span)) return false;
    const lines = span.endLine - span.startLine;
    const bytes = span.endOffset - span.startOffset;
    if (!(lines >= 0 && lines <= MAX_LINES_SPANNED)) return false;
    // Whole bytes, and the sum gives the end back as it was (a fraction or a far offset could round; -0 is 0).
    if (!(Number.isInteger(bytes) && bytes >= 0 && bytes <= MAX_BYTES_SPANNED)) return false;
    if (!Object.is(span.startOffset + (bytes >>> 0), span.endOffset)) return false;
    this.startLines.set(at, span.startLine);
    this.linesSpanned.set(at, lines);
    this.startOffsets.set(at, span.startOffset);
    this.bytesSpanned.set(at, bytes);
    this.flags.set(at, this.flags.get(at) | SPAN_KEPT);
    return true;
  }

  /** Keeps turn `at`'s id in the columns when it is a 32-bit integer (not -0); false otherwise. */
  keepId(at: number, id: unknown): boolean {
    if (!isInt32(id)) return false;
    if (id === at) {
      this.flags.set(at, this.flags.get(at) | ID_KEPT | ID_IS_AT);
      return true;
    }
    this.ids.set(at, id as number);
    this.flags.set(at, this.flags.get(at) | ID_KEPT);
    return true;
  }

  /** Keeps turn `at`'s role in the columns when it is one of the first four of ROLES; false otherwise. */
  keepRole(at: number, role: unknown): boolean {
    const code = ROLES.indexOf(role as Role);
    if (code === -1 || code > ROLE_MASK) return false; // a role past the flags' two bits stays the turn's own
    this.flags.set(at, this.flags.get(at) | ROLE_KEPT | (code << ROLE_SHIFT));
    return true;
  }

  /** Keeps turn `at`'s recorded tokens in the columns when they are a whole number below 2^32; false otherwise. */
  keepTokens(at: number, tokens: unknown): boolean {
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0 || tokens > 0xffff_ffff || Object.is(tokens, -0))
      return false;
    this.tokens.set(at, tokens);
    this.flags.set(at, this.flags.get(at) | TOKENS_KEPT);
    return true;
  }

  /** Turn `at`'s id, role and tokens kept in the columns; undefined where one was not kept. */
  id(at: number): number | undefined {
    const flags = this.flags.get(at);
    if ((flags & ID_KEPT) === 0) return undefined;
    return (flags & ID_IS_AT) !== 0 ? at : this.ids.get(at);
  }

  role(at: number): Role | undefined {
    const flags = this.flags.get(at);
    return (flags & ROLE_KEPT) !== 0 ? ROLES[(flags >>> ROLE_SHIFT) & ROLE_MASK] : undefined;
  }

  recordedTokens(at: number): number | undefined {
    return (this.flags.get(at) & TOKENS_KEPT) !== 0 ? this.tokens.get(at) : undefined;
  }

  /** Turn `at`'s span kept by keepSpan, as a new object; undefined when it was not kept (the turn had none). */
  span(at: number): SourceSpan | undefined {
    if ((this.flags.get(at) & SPAN_KEPT) === 0) return undefined;
    const startLine = this.startLines.get(at);
    const startOffset = this.startOffsets.get(at);
    return {
      startLine,
      endLine: startLine + this.linesSpanned.get(at),
      startOffset,
      endOffset: startOffset + this.bytesSpanned.get(at),
    };
  }

  text(at: number): string {
    const slot = at % RECENT_SLOTS;
    if (this.recentAt[slot] === at) return this.recent[slot];
    const text = this.textAt(at);
    if (text.length <= RECENT_MAX_CHARS) {
      this.recent[slot] = text;
      this.recentAt[slot] = at;
    }
    return text;
  }

  private textAt(at: number): string {
    const backwards = at < this.lastAt;
    this.lastAt = at;
    const start = this.starts.get(at);
    const end = at + 1 < this.count ? this.starts.get(at + 1) : this.size;
    const encoding = (this.flags.get(at) & UTF16) !== 0 ? 'utf16le' : 'utf8';
    if (this.kept !== undefined && start >= this.keptStart)
      return this.kept.toString(encoding, start - this.keptStart, end - this.keptStart);
    if (start >= this.written) return this.pending.toString(encoding, start - this.written, end - this.written);
    if (end - start > BLOCK_BYTES / 4) {
      const whole = Buffer.allocUnsafe(end - start);
      this.readFully(whole, end - start, start);
      return whole.toString(encoding);
    }
    if (start < this.blockStart || end > this.blockEnd) {
      const from = backwards ? Math.max(0, end - BLOCK_BYTES) : start;
      const to = Math.min(this.written, from + BLOCK_BYTES);
      this.readFully(this.block, to - from, from);
      this.blockStart = from;
      this.blockEnd = to;
    }
    return this.block.toString(encoding, start - this.blockStart, end - this.blockStart);
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

/** A turn whose text is in a texts' file (see turnClassOf). */
interface TurnOnDisk extends Turn {
  toJSON(): Turn;
}

/**
 * The class of the turns whose texts are in `file`, and their span, id, role and recorded tokens in its columns (a
 * span object per turn was some 53 bytes of the 122 a turn took; the three fields 24 of the 64 left). Each turn
 * holds only its number in the file: the file is the class's, one class a file (a reference to it in each turn
 * was another 8 bytes a turn, 24 MB at 3M turns). Every other field is the turn's own, copied; so is one of
 * those the columns cannot keep (a string id, a span with a field more).
 */
function turnClassOf(file: TextFile): new (turn: Turn, at: number) => TurnOnDisk {
  return class implements TurnOnDisk {
    readonly #at: number;

    constructor(turn: Turn, at: number) {
      const { text: _text, span, id, role, tokens, ...rest } = turn;
      Object.assign(this, rest);
      this.#at = at;
      // A field the columns cannot keep is the turn's own, and hides the class's getter.
      if (Object.hasOwn(turn, 'id') && !file.keepId(at, id)) ownField(this, 'id', id);
      if (Object.hasOwn(turn, 'role') && !file.keepRole(at, role)) ownField(this, 'role', role);
      if (Object.hasOwn(turn, 'tokens') && !file.keepTokens(at, tokens)) ownField(this, 'tokens', tokens);
      if (Object.hasOwn(turn, 'span') && !file.keepSpan(at, span)) ownField(this, 'span', span);
    }

    get text(): string {
      return file.text(this.#at);
    }

    /** The turn's id, role and recorded tokens (undefined where a malformed turn had none). */
    get id(): TurnId {
      return file.id(this.#at) as TurnId;
    }

    get role(): Role {
      return file.role(this.#at) as Role;
    }

    get tokens(): number | undefined {
      return file.recordedTokens(this.#at);
    }

    /** A new object each time, equal to the turn's span (undefined for a malformed turn that had none). */
    get span(): SourceSpan {
      return file.span(this.#at) as SourceSpan;
    }

    /** As the turn was: its fields, those in the columns among them (a field it did not have stays out). */
    toJSON(): Turn {
      const json: Record<string, unknown> = { id: this.id, role: this.role };
      Object.assign(json, this, { tokens: this.tokens, span: this.span, text: this.text });
      return json as unknown as Turn;
    }
  };
}

/** Gives `turn` its own `key` (defined, since the class's getter has no setter). */
function ownField(turn: Turn, key: string, value: unknown): void {
  Object.defineProperty(turn, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Whether a string has no lone surrogate, so UTF-8 holds it exactly. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Where the turns' texts go as a reader is done with each turn (ReaderContext.keepTurn): a new temporary file.
 * keep gives the turn to keep in a turn's place, its text in the file. When a write fails (no room), the texts
 * it held stay in memory, and the turns kept after it keep their own texts (`broken` says so).
 */
export class TurnTextStore implements TextKeeper {
  /** The class of the turns kept here. */
  private readonly TurnOnDisk: new (turn: Turn, at: number) => TurnOnDisk;
  /**
   * The texts of the calls the turns answer (Turn.answers.callText) and those a reader keeps (keepText), in a file
   * of their own, made on first use (null when it could not be made: the texts stay in memory).
   */
  private calls: { file: TextFile; release: () => void; AnswersOnDisk: AnswersClass } | null | undefined;

  private constructor(
    private readonly file: TextFile,
    private readonly release: () => void,
    private readonly dir: string,
  ) {
    this.TurnOnDisk = turnClassOf(file);
  }

  /** A store in a new temporary file under `dir`, or undefined when it cannot be made (nothing is left then). */
  static open(dir = tmpdir()): TurnTextStore | undefined {
    const made = openTextFile(dir);
    return made && new TurnTextStore(made.file, made.release, dir);
  }

  /** Closes the files now; they are closed anyway once nothing refers to them. */
  readonly close = (): void => {
    this.release();
    this.calls?.release();
  };

  /**
   * The turn to keep in `turn`'s place: the same turn, its text in the file, and the text of the call it answers
   * in the calls' file (a turn without a string text as it is).
   */
  keep(turn: Turn): Turn {
    if (typeof turn?.text !== 'string') return turn;
    const at = this.file.append(turn.text);
    if (at === undefined) return turn;
    const kept = new this.TurnOnDisk(turn, at);
    const answers = this.answersOnDisk(turn.answers);
    if (answers !== undefined) kept.answers = answers;
    return kept;
  }

  /** `answers` with its call's text in the calls' file, or undefined to keep it as it is (or when it is not plain). */
  private answersOnDisk(answers: unknown): Turn['answers'] {
    if (!isPlainAnswers(answers)) return undefined;
    const calls = this.callsFile();
    const at = calls?.file.append(answers.callText);
    return at === undefined ? undefined : new calls!.AnswersOnDisk(answers.turnId, at);
  }

  /**
   * Keeps a text in the calls' file (TextKeeper, for a reader's calls a later result may answer): its number, or
   * undefined when the file could not be made or written (the reader keeps the text then).
   */
  keepText(text: string): number | undefined {
    return this.callsFile()?.file.append(text);
  }

  /** The text keepText kept as number `at`. */
  keptText(at: number): string {
    return this.calls!.file.text(at);
  }

  /** The calls' file, made on first use; undefined when it could not be made. */
  private callsFile(): { file: TextFile; AnswersOnDisk: AnswersClass } | undefined {
    if (this.calls === undefined) {
      const made = openTextFile(this.dir);
      this.calls = made ? { ...made, AnswersOnDisk: answersClassOf(made.file) } : null;
    }
    return this.calls ?? undefined;
  }

  /** How many texts were kept. */
  get kept(): number {
    return this.file.count;
  }

  /** True once a write failed: some texts are kept in memory, and turns kept since keep their own. */
  get broken(): boolean {
    return this.file.broken || this.calls?.file.broken === true;
  }

  /** Bytes the turns' columns take in memory (their texts are on disk): offsets, flags, spans, ids, tokens. */
  get columnBytes(): number {
    return this.file.columnBytes + (this.calls?.file.columnBytes ?? 0);
  }

  /** Writes the texts gathered so far (a failure makes the store broken). */
  flush(): void {
    this.file.flush();
    this.calls?.file.flush();
  }
}

/**
 * The same turns with their texts in a new temporary file under `dir`, or undefined when it could not be made or
 * written (nothing is left on disk then). A turn whose text is not a string stays as it is.
 */
export function turnsWithTextsOnDisk(turns: readonly Turn[], dir = tmpdir()): Turn[] | undefined {
  const store = TurnTextStore.open(dir);
  if (store === undefined) return undefined;
  const result = turns.map((turn) => store.keep(turn));
  store.flush();
  if (!store.broken) return result;
  store.close();
  return undefined;
}

/**
 * A texts' file in a new temporary file under `dir`, deleted at once where the system allows it, and what closes
 * it (it is closed anyway once nothing refers to it); undefined when it cannot be made (nothing is left then).
 */
function openTextFile(dir: string): { file: TextFile; release: () => void } | undefined {
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
    const file = new TextFile(fd);
    const release = releaser(fd, deleted ? undefined : folder);
    closing.register(file, release);
    return { file, release };
  } catch {
    if (fd !== undefined) closeSync(fd);
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
}

/** Whether `answers` is Turn.answers as the readers make it: a plain object of a turn id and a string, nothing else. */
function isPlainAnswers(answers: unknown): answers is NonNullable<Turn['answers']> {
  if (typeof answers !== 'object' || answers === null || Object.getPrototypeOf(answers) !== Object.prototype) return false;
  const fields = answers as Record<string, unknown>;
  return (
    Object.keys(answers).length === 2 &&
    (typeof fields.turnId === 'string' || typeof fields.turnId === 'number') &&
    typeof fields.callText === 'string'
  );
}

type AnswersClass = new (turnId: TurnId, at: number) => NonNullable<Turn['answers']>;

/**
 * The class of the Turn.answers whose call's text is in `file` (read back when asked): a tool result's answers
 * held the text of the call it answers, a copy of that call in every result (some 27 MB of a 104 MB pi session's
 * heap once read). Like the turns, each holds only its number in the file.
 */
function answersClassOf(file: TextFile): AnswersClass {
  return class {
    readonly #at: number;

    constructor(
      readonly turnId: TurnId,
      at: number,
    ) {
      this.#at = at;
    }

    get callText(): string {
      return file.text(this.#at);
    }

    /** As it was: the turn id and the call's text. */
    toJSON(): NonNullable<Turn['answers']> {
      return { turnId: this.turnId, callText: this.callText };
    }
  };
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
