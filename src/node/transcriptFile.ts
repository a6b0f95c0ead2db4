// Opens a transcript file on disk (read-only, streamed line by line), detects its format, feeds a reader,
// and keeps reading as the file grows: refresh() reads only the appended bytes when it can (the bytes read are
// still where they were: readSeam.ts for an append, prefixDigest.ts for a file written anew).
// Used by the CLI and the extension host; never writes to the transcript.
// Hostile input is bounded: gzip is inflated up to a size and a ratio limit, problems are capped
// (formats/problemCap.ts), UTF-16 with a byte-order mark is decoded to UTF-8 before lines are split, binary
// is judged by the share of non-text bytes (inputKind.ts), and special files are named for what they are.

import { formatBytes } from '../core/displayText';
import { constants, createReadStream } from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { FormatId, Problem, RawLine, Transcript, TranscriptReader } from '../core/model';
import { detectFormatWhy } from '../formats/detect';
import { ProblemList, capProblems } from '../formats/problemCap';
import { FORMATS, createReader } from '../formats/readers';
import { describeSpecialFile, describeUnopenable, judgeHead, textEncodingOf, TextTranscoder, type TextEncodingName } from './inputKind';
import { LineSplitter } from './lineSplitter';
import { PrefixDigest } from './prefixDigest';
import { checkSeam, seamAfter, SeamWindow } from './readSeam';
import { RecordGate } from './recordGate';
import { TurnTextStore, turnsWithTextsOnDisk } from './turnTextsOnDisk';
import { loadSideFiles, subAgentRunHint, type LoadedSideFiles } from './sideFiles';
import { textDigest } from './textDigest';

/** What a read notes of the file it read: its size then, inode and modification time (fs.Stats has them). */
interface FileStamp {
  size: number;
  ino: number;
  mtimeMs: number;
}

export interface OpenOptions {
  /** Skip detection and read as this format. */
  format?: FormatId;
  /** Budgets to assume per format when the transcript records none. */
  defaultBudgets?: Partial<Record<FormatId, number>>;
  /** Lines longer than this are skipped with a problem. Default 16 MiB. */
  maxLineBytes?: number;
  /**
   * A gzip-compressed transcript is decompressed up to this many bytes; past it reading stops with a problem
   * and what came before is analysed. Default DEFAULT_MAX_INFLATED_BYTES (2 GiB).
   */
  maxInflatedBytes?: number;
  /**
   * A gzip-compressed transcript may inflate to at most this many times the compressed bytes consumed (checked
   * once INFLATE_RATIO_FLOOR bytes are out, so small repetitive files are never refused); past it reading stops
   * with a problem, as for a decompression bomb. Default DEFAULT_MAX_INFLATE_RATIO (200).
   */
  maxInflateRatio?: number;
  /**
   * What the user calls the two limits where they set them (a CLI flag, an editor setting), for the problem
   * that says a limit stopped reading. Default: the option names above.
   */
  limitNames?: { maxInflatedBytes?: string; maxInflateRatio?: string };
  onProgress?: (readBytes: number, totalBytes: number) => void;
  signal?: AbortSignal;
  /**
   * The file is read once (`check`): its reader, with its own copy of the turns and its indexes of them (a map
   * entry a turn), is let go once the transcript is made. A refresh then reads the file anew.
   */
  readOnce?: boolean;
  /**
   * With readOnce: when the turns' texts add up to more than this many characters, they are kept in a temporary
   * file, and each turn reads its text back from it when asked (turnTextsOnDisk.ts). A file larger than this many
   * bytes (a gzip file larger than a quarter of it) whose reader hands over its turns as it reads them
   * (ReaderContext.keepTurn: the canonical, Claude Code, Codex and pi readers) has them written as they are read, so they are
   * never all in memory; other files have them moved once the transcript is made.
   */
  textsOnDiskPast?: number;
  /**
   * Called while the file is first read, each time its reader says more of its first checkpoints are settled
   * (TranscriptReader.settledCheckpoints), with the transcript read so far holding those checkpoints only: their
   * verdicts can be worked out before the read ends. The reader is asked after each line; a transcript is made
   * only once the lines read have doubled since the last one, so making them costs at most one more read of
   * the turns.
   */
  onSettledCheckpoints?: (transcript: Transcript) => void;
}

/** The input cannot be used at all (missing, not a transcript, no records). The message is for the user. */
export class UnusableTranscriptError extends Error {
  /** More about why, one line each (e.g. every format tried and what it needed), for who wants it. */
  readonly details: readonly string[];

  constructor(
    message: string,
    readonly path: string,
    details: readonly string[] = [],
  ) {
    super(message);
    this.details = details;
    this.name = 'UnusableTranscriptError';
  }
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Default of OpenOptions.maxInflatedBytes: 2 GiB. */
export const DEFAULT_MAX_INFLATED_BYTES = 2 * 1024 * 1024 * 1024;
/** Default of OpenOptions.maxInflateRatio. Transcripts compress 5–30×; a bomb, a thousand times and more. */
export const DEFAULT_MAX_INFLATE_RATIO = 200;
/** The inflate ratio is judged only once this much is decompressed (a small file may compress very well). */
export const INFLATE_RATIO_FLOOR = 64 * 1024 * 1024;
const HEAD_BYTES = 256 * 1024;
/**
 * How far the head is read on when it ends inside the first line (a first prompt with a large paste), so that the
 * first record is parsed whole rather than its format guessed from a fragment's keys: as far as the longest line
 * read by default (DEFAULT_MAX_LINE_BYTES; a longer one is skipped with a problem unless the limit is raised).
 */
const FIRST_RECORD_BYTES = DEFAULT_MAX_LINE_BYTES;
/**
 * Bytes read from the file at a time. Each chunk's lines are parsed and read in one turn of the event loop: 1 MB of
 * a Claude Code file held the extension host for 75–140 ms at a time, when the token workers share the cores; a
 * quarter of that reads a 100k-turn file in the same time (docs/performance-history.md, "Smaller read chunks…").
 */
const READ_CHUNK_BYTES = 256 * 1024;
/**
 * Bytes inflated at a time from a gzip stream (zlib's default is 16 KiB): each chunk is a turn of the event loop,
 * and 200 of them for a 3 MB session took 33–40 ms where 19 took about 20 ms.
 */
const GUNZIP_CHUNK_BYTES = 256 * 1024;
const DETECTION_LINES = 50;
const GZIP_MAGIC = [0x1f, 0x8b];
/**
 * How many times its bytes a gzip transcript inflates to, at the least, for deciding before the read where its
 * texts go: the corpus's Claude Code sessions inflate 7.6–9.5 times, a generated 321 MB one 9.4 times.
 */
const GZIP_INFLATES_AT_LEAST = 4;

function supportedFormats(): string {
  return FORMATS.map((format) => format.name).join('; ');
}

async function readHead(path: string, bytes = HEAD_BYTES): Promise<Buffer> {
  // O_NONBLOCK: a named pipe swapped in after the check is not waited on (no effect on a regular file).
  const handle = await openFile(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** True when `head` starts with the gzip magic bytes (how a compressed transcript is told, whatever its name). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

/**
 * The first HEAD_BYTES of a gzip file's text (less when the text is shorter, or the archive damaged). Inflated from
 * `rawHead`, the file's first bytes, when they hold that much (text compresses, so they nearly always do) or the
 * whole file; else from the file.
 */
async function readGzipHead(path: string, rawHead: Buffer, fileSize: number, bytes = HEAD_BYTES): Promise<Buffer> {
  const fromRaw = await inflateHead(Readable.from([rawHead]), bytes);
  if (fromRaw.length >= bytes || rawHead.length >= fileSize) return fromRaw;
  return inflateHead(createReadStream(path), bytes);
}

/**
 * The head of the file's text, read on past HEAD_BYTES when it holds no line break, doubling up to
 * FIRST_RECORD_BYTES, until it does or the text ends: its first record whole, if it is no longer than that.
 */
async function readHeadText(path: string, fileSize: number): Promise<{ head: Buffer; gzip: boolean; whole: boolean }> {
  let bytes = HEAD_BYTES;
  for (;;) {
    const raw = await readHead(path, bytes);
    const gzip = isGzip(raw);
    const head = gzip ? await readGzipHead(path, raw, fileSize, bytes) : raw;
    const whole = head.length < bytes;
    if (whole || head.includes(0x0a) || bytes >= FIRST_RECORD_BYTES) return { head, gzip, whole };
    bytes *= 2;
  }
}

async function inflateHead(compressed: Readable, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const stream = compressed.pipe(createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }));
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= bytes) break;
    }
  } catch {
    // a damaged archive, or the raw head's cut: detection works on what was decompressed
  } finally {
    stream.destroy();
    compressed.destroy();
  }
  return Buffer.concat(chunks);
}

function firstLinesOf(head: Buffer): string[] {
  return head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .slice(0, DETECTION_LINES);
}

/** A limit as given when it is a positive number (Infinity turns the limit off), else undefined (the default). */
function positive(value: number | undefined): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The decompression limits of OpenOptions (and what the user calls them), shared with decompressedText.ts. */
export type InflateLimits = Pick<OpenOptions, 'maxInflatedBytes' | 'maxInflateRatio' | 'limitNames'>;

/**
 * The problem that stops decompressing `path` at `line` (the first line not yet complete), when `inflated` bytes
 * have come out of `compressed` bytes of gzip data and that is past a limit; undefined while within them.
 */
export function inflationLimitProblem(
  path: string,
  inflated: number,
  compressed: number,
  line: number,
  limits: InflateLimits,
): Problem | undefined {
  const name = basename(path);
  const maxBytes = positive(limits.maxInflatedBytes) ?? DEFAULT_MAX_INFLATED_BYTES;
  if (inflated > maxBytes) {
    return {
      line,
      severity: 'error',
      message: `decompression stopped at line ${line}: ${name} inflates to more than ${formatBytes(maxBytes)}, the limit for a compressed transcript (${limits.limitNames?.maxInflatedBytes ?? 'maxInflatedBytes'}), so only the lines before were read and analysed. If the transcript really is this large, decompress it (gunzip -k) and open the .jsonl, or raise the limit; if it should not be, the file may be a decompression bomb.`,
    };
  }
  const maxRatio = positive(limits.maxInflateRatio) ?? DEFAULT_MAX_INFLATE_RATIO;
  const consumed = Math.max(1, compressed);
  if (inflated >= INFLATE_RATIO_FLOOR && inflated > maxRatio * consumed) {
    return {
      line,
      severity: 'error',
      message: `decompression stopped at line ${line}: ${name} inflated to ${formatBytes(inflated)} from ${formatBytes(consumed)} of compressed data, more than ${maxRatio} times its size (the limit, ${limits.limitNames?.maxInflateRatio ?? 'maxInflateRatio'}). Transcripts compress about 5 to 30 times; this is what a decompression bomb does, so only the lines before were read and analysed. If it is a genuine transcript, decompress it (gunzip -k) and open the .jsonl, or raise the limit.`,
    };
  }
  return undefined;
}

export class TranscriptFile {
  /** Undefined once a file read once was read (OpenOptions.readOnce). */
  private reader: TranscriptReader | undefined;
  private snapshot!: Transcript;
  /** Problems that hold only until the next read (an incomplete last line). */
  private transientProblems: Problem[] = [];
  /** Bytes of the file consumed into the reader. */
  private consumed = 0;
  /** Line number the next unread line gets. */
  private nextLine = 1;
  /** True when the last line read had no newline but was complete JSON and was given to the reader. */
  private openTail = false;
  private fileSize = 0;
  private inode = 0;
  /** The file's modification time when it was last read (ms). */
  private modified = 0;
  /**
   * The last bytes given to the reader, ending at `consumed` (readSeam.ts): a file that grew is read as appended
   * only when they are still there. Undefined when they are not known (a gzip or UTF-16 file, which is never
   * appended to, or an unfinished last line too long to keep them).
   */
  private seam: Buffer | undefined;
  /**
   * A digest of every byte given to the reader, [0, consumed) (prefixDigest.ts): a file written anew that still
   * begins with them is read on from there. Undefined when it is not known (a file not read by appends, or a read
   * that left its last line for the next, whose bytes were digested past `consumed`).
   */
  private prefix: PrefixDigest | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Problems found while splitting lines (size, encoding, read errors), kept across appends; capped. */
  private splitProblems = new ProblemList();
  /** Side files left out (too many, too large, outside the session's folder). */
  private sideFileProblems: Problem[] = [];
  /** Why the last read stopped before the end (a decompression limit), if it did. */
  private stoppedBecause: Problem | undefined;
  /** In a JSON Lines file, past 1,000 lines that cannot be records such lines are counted, not read. */
  private readonly gate = new RecordGate();
  private movedTexts = false;
  /** While the first read watches for settled checkpoints (OpenOptions.onSettledCheckpoints): how many were given, at which line. */
  private settledWatch: { given: number; line: number } | undefined;

  private constructor(
    readonly path: string,
    readonly format: FormatId,
    private readonly options: OpenOptions,
    private readonly gzip: boolean,
    /** JSON Lines (each line a record) as opposed to one JSON document over many lines. */
    private readonly jsonLines: boolean,
    /** How the text is encoded: UTF-16 is decoded to UTF-8 before lines are split (offsets are then UTF-8's). */
    private readonly encoding: TextEncodingName,
  ) {}

  static async open(path: string, options: OpenOptions = {}): Promise<TranscriptFile> {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      throw new UnusableTranscriptError(await describeUnopenable(path, error as NodeJS.ErrnoException), path);
    }
    const special = await describeSpecialFile(path, info);
    if (special !== undefined) throw new UnusableTranscriptError(special, path);
    // Only Claude Code keeps side files: they are looked for while the head is read and the format detected (their
    // reads then wait on the disk side by side), and dropped when the file turns out to be another format.
    const claudeCodeSideFiles =
      options.format === undefined || options.format === 'claude-code' ? loadSideFiles('claude-code', path) : undefined;

    let read: { head: Buffer; gzip: boolean; whole: boolean };
    try {
      read = await readHeadText(path, info.size);
    } catch (error) {
      throw new UnusableTranscriptError(await describeUnopenable(path, error as NodeJS.ErrnoException), path);
    }
    let head = read.head;
    const gzip = read.gzip;
    const wholeFile = gzip ? read.whole : head.length >= info.size;
    const encoding = textEncodingOf(head);
    if (encoding !== 'utf-8') {
      const transcoder = new TextTranscoder(encoding);
      head = Buffer.concat([transcoder.write(head), transcoder.end()]);
    }
    const judged = judgeHead(head, wholeFile);
    if (judged.kind !== 'text')
      throw new UnusableTranscriptError(`${path} ${judged.message} Supported formats: ${supportedFormats()}.`, path);
    const firstLines = firstLinesOf(judged.text);
    const name = basename(path).replace(/\.gz$/, '');
    const detection = options.format !== undefined ? { format: options.format, rejected: [] } : detectFormatWhy(firstLines, name);
    const format = detection.format;
    if (format === undefined) {
      throw new UnusableTranscriptError(
        `${path} is not a transcript I know: ${detection.why} If it is one of them, name it with --format.`,
        path,
        detection.rejected,
      );
    }
    const firstRecord = firstLines.find((line) => line.trim() !== '') ?? '';
    const file = new TranscriptFile(path, format, options, gzip, parsesAsJson(firstRecord.trim()), encoding);
    if (options.onSettledCheckpoints !== undefined) file.settledWatch = { given: 0, line: 0 };
    try {
      await file.readFromStart(undefined, format === 'claude-code' ? claudeCodeSideFiles : undefined, info);
    } finally {
      file.settledWatch = undefined;
    }
    if (options.readOnce === true) {
      file.reader = undefined;
      if (options.textsOnDiskPast !== undefined && !file.movedTexts) file.moveTextsToDisk(options.textsOnDiskPast);
    }
    const { turns, checkpoints } = file.snapshot;
    if (turns.length === 0 && checkpoints.length === 0) {
      const first = file.stoppedBecause ?? file.snapshot.problems[0];
      const why = first ? ` ${first === file.stoppedBecause ? 'Reading stopped' : 'The first problem'}: ${withLine(first)}` : '';
      const hint = format === 'claude-code' ? await subAgentRunHint(path) : undefined;
      throw new UnusableTranscriptError(`${path} has no usable records (read as ${format}).${why}${hint ? ` ${hint}` : ''}`, path);
    }
    return file;
  }

  /** True when the file is gzip-compressed (decided by its first bytes when it was opened). */
  get compressed(): boolean {
    return this.gzip;
  }

  /** True when the turns' texts were moved to a temporary file (OpenOptions.textsOnDiskPast). */
  get textsOnDisk(): boolean {
    return this.movedTexts;
  }

  /** The transcript as read so far. */
  get transcript(): Transcript {
    return this.snapshot;
  }

  /**
   * Reads what the file gained since the last read; with `anew` (an edit may be anywhere in it: a save from an
   * editor) the whole file again, unless it still begins with every byte read (prefixDigest.ts). Calls are
   * serialised. When `signal` aborts the read stops with an AbortError midway, and the file is not to be read
   * again (open it anew).
   */
  refresh(signal?: AbortSignal, anew = false): Promise<'unchanged' | 'appended' | 'reloaded'> {
    const next = this.queue.then(() => this.refreshNow(signal, anew));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async refreshNow(signal: AbortSignal | undefined, anew: boolean): Promise<'unchanged' | 'appended' | 'reloaded'> {
    let info;
    try {
      info = await stat(this.path);
    } catch {
      throw new UnusableTranscriptError(`${this.path} was deleted or moved.`, this.path);
    }
    const appendable = this.reader !== undefined && this.appendsAtItsEnd;
    const sameFile = info.ino === this.inode;
    // Set once the bytes read are found changed: no need to compare them again.
    let changed = false;
    // With `anew` it is read whole, whatever its size and modification time say.
    if (!anew && sameFile && info.size === this.fileSize) {
      if (info.mtimeMs === this.modified) return 'unchanged';
      // Written to without a change of size: unchanged when it was only touched (the bytes read are all there).
      if (appendable && (await this.readBytesHeld())) {
        this.modified = info.mtimeMs;
        return 'unchanged';
      }
      changed = true;
    } else if (!anew && appendable && sameFile && info.size > this.fileSize) {
      // Grown: an append when the bytes read last are still where they were, else a rewrite, read anew.
      const change = await this.readOn(info, signal);
      if (change !== undefined) return change;
      changed = true;
    }
    // Written anew (renamed over, saved from an editor, rewritten in place): when it still begins with every byte
    // the reader was given, only what follows them is read.
    if (
      appendable &&
      !changed &&
      this.prefix?.bytes === this.consumed &&
      info.size >= this.consumed &&
      (await this.prefix.beginsFile(this.path))
    ) {
      const change = await this.readOn(info, signal);
      if (change !== undefined) return change;
    }
    await this.readFromStart(signal);
    return 'reloaded';
  }

  /** Adds bytes given to the reader, from file offset `offset`, to the prefix digest; a gap makes it unknown. */
  private digest(bytes: Buffer, offset: number): void {
    if (this.prefix !== undefined && !this.prefix.push(bytes, offset)) this.prefix = undefined;
  }

  /**
   * Whether the file still holds the bytes given to the reader: all of them, by the prefix digest, when it is known
   * (an edit anywhere is seen); else the last of them, the seam.
   */
  private async readBytesHeld(): Promise<boolean> {
    if (this.prefix !== undefined && this.prefix.bytes === this.consumed) return this.prefix.beginsFile(this.path);
    return (await this.seamHolds(0)).holds;
  }

  /**
   * For a file found to begin with the bytes given to the reader: 'unchanged' when it holds no more (its stamps
   * noted), 'appended' once what follows is read; undefined when it cannot be read on (a last line left without
   * its newline that goes on without one), for a read from the start.
   */
  private async readOn(info: FileStamp, signal: AbortSignal | undefined): Promise<'unchanged' | 'appended' | undefined> {
    if (info.size === this.consumed) {
      this.fileSize = info.size;
      this.inode = info.ino;
      this.modified = info.mtimeMs;
      return 'unchanged';
    }
    const seam = await this.seamHolds(this.openTail ? 1 : 0);
    if (!seam.holds) return undefined;
    if (this.openTail) {
      // The last line had no newline; it may only continue with one.
      if (seam.after[0] !== 0x0a) return undefined;
      this.seam = seamAfter(this.seam, seam.after.subarray(0, 1));
      this.digest(seam.after.subarray(0, 1), this.consumed);
      this.consumed += 1;
      this.openTail = false;
    }
    await this.read(this.consumed, info, signal);
    return 'appended';
  }

  /**
   * Whether the file can be read by appends: JSON Lines in UTF-8, not compressed (the only kind whose seam is kept,
   * and whose unfinished last line is left for the next read).
   */
  private get appendsAtItsEnd(): boolean {
    return !this.gzip && this.encoding === 'utf-8' && this.jsonLines;
  }

  /** checkSeam at `consumed`, with `extra` bytes after it; never holds when the seam is not known. */
  private async seamHolds(extra: number): Promise<{ holds: boolean; after: Buffer }> {
    const seam = this.consumed === 0 ? Buffer.alloc(0) : this.seam;
    if (seam === undefined) return { holds: false, after: Buffer.alloc(0) };
    return checkSeam(this.path, seam, this.consumed, extra);
  }

  /**
   * Reads the whole file anew; `found`: its side files when they were looked for already; `known`: its size and
   * inode when they were just read (as the file is opened).
   */
  private async readFromStart(signal = this.options.signal, found?: Promise<LoadedSideFiles>, known?: FileStamp): Promise<void> {
    const sideFiles = await (found ?? loadSideFiles(this.format, this.path));
    this.sideFileProblems = sideFiles.problems;
    const info = known ?? (await stat(this.path));
    const store = this.textStoreFor(info.size);
    this.reader = createReader(this.format, {
      fileName: this.path,
      sideFiles: sideFiles.files,
      defaultBudget: this.options.defaultBudgets?.[this.format],
      keepTurn: store && ((turn) => store.keep(turn)),
      textKeeper: store,
      readOnce: this.options.readOnce === true,
      // A line is given to this reader once: a file that cannot be read as appended is read anew, with a new reader.
      linesOnce: true,
      digest: textDigest,
    });
    this.consumed = 0;
    this.nextLine = 1;
    this.openTail = false;
    this.movedTexts = false;
    this.splitProblems = new ProblemList();
    this.stoppedBecause = undefined;
    this.gate.reset();
    this.seam = undefined;
    // A file read once is never read again: its bytes are not digested.
    this.prefix = this.appendsAtItsEnd && this.options.readOnce !== true ? new PrefixDigest() : undefined;
    await this.read(0, info, signal);
    // Texts the reader handed over are in the store's file (those of a write that failed stay in memory).
    if (store !== undefined && store.kept > 0) this.movedTexts = true;
  }

  /**
   * Where the turns' texts go as they are read: a new temporary file when the file is read once and, by its size
   * in bytes, may hold more than OpenOptions.textsOnDiskPast characters of text (a gzip file's size taken as
   * GZIP_INFLATES_AT_LEAST times its bytes; a smaller one's texts are moved once read, if they do hold more);
   * undefined otherwise, or when the file cannot be made.
   */
  private textStoreFor(bytes: number): TurnTextStore | undefined {
    const past = this.options.textsOnDiskPast;
    const size = this.gzip ? bytes * GZIP_INFLATES_AT_LEAST : bytes;
    if (this.options.readOnce !== true || past === undefined || size <= past) return undefined;
    return TurnTextStore.open();
  }

  /** Streams bytes [start, end) of the file (all of it when gzip) into the reader, until `signal` aborts. */
  private async read(start: number, file: FileStamp, signal = this.options.signal): Promise<void> {
    // Remember the size this read went up to, not a later one: bytes appended meanwhile are read next time.
    const end = file.size;
    this.fileSize = end;
    this.inode = file.ino;
    this.modified = file.mtimeMs;
    this.transientProblems = [];
    const window = this.appendsAtItsEnd ? new SeamWindow(start, start === 0 ? undefined : this.seam) : undefined;
    const splitter = new LineSplitter(
      { maxLineBytes: this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, startLine: this.nextLine, startOffset: start },
      (line: RawLine) => this.feed(line),
      (problem) => this.splitProblems.push(problem),
    );
    let stopped: Problem | undefined;
    if (end > start) {
      const raw = createReadStream(
        this.path,
        this.gzip ? { highWaterMark: READ_CHUNK_BYTES } : { start, end: end - 1, highWaterMark: READ_CHUNK_BYTES },
      );
      const gunzip = this.gzip ? createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }) : undefined;
      const stream = gunzip ? raw.pipe(gunzip) : raw;
      const transcoder = this.encoding === 'utf-8' ? undefined : new TextTranscoder(this.encoding);
      let readBytes = 0;
      let inflated = 0;
      raw.on('data', (chunk) => {
        // No encoding was set on the stream: its chunks are Buffers.
        window?.push(chunk as Buffer);
        this.digest(chunk as Buffer, start + readBytes);
        readBytes += chunk.length;
        this.options.onProgress?.(readBytes, end - start);
      });
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (signal?.aborted) {
            raw.destroy();
            throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
          }
          if (gunzip) {
            inflated += chunk.length;
            stopped = this.inflationLimitProblem(inflated, gunzip, splitter.nextLine);
            if (stopped) break;
          }
          splitter.write(transcoder ? transcoder.write(chunk) : chunk);
        }
        if (transcoder && !stopped) splitter.write(transcoder.end());
      } catch (error) {
        if ((error as Error).name === 'AbortError') throw error;
        this.splitProblems.push({
          line: splitter.nextLine,
          severity: 'error',
          message: `reading stopped at line ${splitter.nextLine}: ${(error as Error).message}. The file may be damaged; what was read before is analysed.`,
        });
      } finally {
        if (stopped) {
          raw.destroy();
          stream.destroy();
        }
      }
    }
    if (stopped) {
      // The line being read was cut by the limit: it is not given to the reader.
      this.stoppedBecause = stopped;
      this.openTail = false;
      this.consumed = end;
      this.nextLine = splitter.nextLine;
      this.seam = undefined;
      this.snapshot = this.composeSnapshot();
      return;
    }
    const tail = splitter.takePendingText();
    if (tail !== undefined && tail.text.endsWith('\0')) {
      // NUL padding at the end (a crash or an interrupted write): one problem line, not a record still being written.
      splitter.end();
      this.openTail = true;
      this.consumed = end;
      this.nextLine = splitter.nextLine;
    } else if (tail !== undefined && this.appendsAtItsEnd && !parsesAsJson(tail.text.trim())) {
      // An agent is probably still writing this line: leave it for the next read.
      this.transientProblems.push({
        line: tail.line,
        severity: 'warning',
        message: `line ${tail.line} is incomplete (no newline at the end and not valid JSON): the agent may still be writing it. It is read once it is complete.`,
      });
      this.consumed = tail.offset;
      this.nextLine = tail.line;
    } else {
      splitter.end();
      this.openTail = tail !== undefined;
      this.consumed = end;
      this.nextLine = splitter.nextLine;
    }
    this.seam = window?.seamAt(this.consumed);
    // A last line left for the next read was digested: the digest no longer ends where the reader stopped.
    if (this.prefix !== undefined && this.prefix.bytes !== this.consumed) this.prefix = undefined;
    this.snapshot = this.composeSnapshot();
  }

  /** Moves the turns' texts to a temporary file when they add up to more than `past` characters. */
  private moveTextsToDisk(past: number): void {
    let chars = 0;
    for (const turn of this.snapshot.turns) {
      chars += typeof turn?.text === 'string' ? turn.text.length : 0;
      if (chars > past) break;
    }
    if (chars <= past) return;
    const turns = turnsWithTextsOnDisk(this.snapshot.turns);
    if (turns === undefined) return;
    this.snapshot = { ...this.snapshot, turns };
    this.movedTexts = true;
  }

  /** The reader of the read under way (every read starts with one: readFromStart makes it, an append keeps it). */
  private readerNow(): TranscriptReader {
    if (this.reader === undefined) throw new Error('no reader: the file was read once and let it go');
    return this.reader;
  }

  /** Gives a line to the reader, or counts it as unreadable when the record gate withholds it. */
  private feed(line: RawLine): void {
    if (!this.jsonLines || this.gate.admits(line)) {
      this.readerNow().push(line);
      if (this.settledWatch !== undefined) this.giveSettled(this.settledWatch, line.line);
    } else this.splitProblems.count(line.line, line.terminated ? 'error' : 'warning');
  }

  /** Gives OpenOptions.onSettledCheckpoints the checkpoints settled since it was last given some, when it is time. */
  private giveSettled(watch: { given: number; line: number }, line: number): void {
    const reader = this.readerNow();
    const give = this.options.onSettledCheckpoints;
    if (give === undefined || reader.settledCheckpoints === undefined || line < 2 * watch.line) return;
    const settled = reader.settledCheckpoints();
    if (settled <= watch.given) return;
    watch.given = settled;
    watch.line = line;
    const transcript = reader.finish();
    give({ ...transcript, checkpoints: transcript.checkpoints.slice(0, settled) });
  }

  /** The problem that stops decompression, when `inflated` bytes out of the gzip stream are past a limit. */
  private inflationLimitProblem(inflated: number, gunzip: Gunzip, line: number): Problem | undefined {
    return inflationLimitProblem(this.path, inflated, gunzip.bytesWritten, line, this.options);
  }

  private composeSnapshot(): Transcript {
    const transcript = this.readerNow().finish();
    const problems = [...this.sideFileProblems, ...this.splitProblems.list(), ...transcript.problems, ...this.transientProblems];
    problems.sort((a, b) => a.line - b.line);
    // Why reading stopped is never capped away: it comes after every line read.
    const capped = capProblems(problems);
    if (this.stoppedBecause) capped.push(this.stoppedBecause);
    return { ...transcript, problems: capped, lineCount: Math.max(transcript.lineCount, this.nextLine - 1) };
  }
}

/** A problem's message with its line before it ("line 2: …"), said once: most readers' messages name it already. */
function withLine(problem: { line: number; message: string }): string {
  const where = `line ${problem.line}: `;
  return problem.message.startsWith(where) ? problem.message : `${where}${problem.message}`;
}
