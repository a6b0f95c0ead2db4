// Opens a transcript file on disk (read-only, streamed line by line), detects its format, feeds a reader,
// and keeps reading as the file grows: refresh() reads only the appended bytes when it can.
// Used by the CLI and the extension host; never writes to the transcript.

import { createReadStream } from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { FormatId, Problem, RawLine, Transcript, TranscriptReader } from '../core/model';
import { detectFormat } from '../formats/detect';
import { FORMATS, createReader } from '../formats/readers';
import { LineSplitter } from './lineSplitter';
import { loadSideFiles } from './sideFiles';

export interface OpenOptions {
  /** Skip detection and read as this format. */
  format?: FormatId;
  /** Budgets to assume per format when the transcript records none. */
  defaultBudgets?: Partial<Record<FormatId, number>>;
  /** Lines longer than this are skipped with a problem. Default 16 MiB. */
  maxLineBytes?: number;
  onProgress?: (readBytes: number, totalBytes: number) => void;
  signal?: AbortSignal;
}

/** The input cannot be used at all (missing, not a transcript, no records). The message is for the user. */
export class UnusableTranscriptError extends Error {
  constructor(message: string, readonly path: string) {
    super(message);
    this.name = 'UnusableTranscriptError';
  }
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const HEAD_BYTES = 256 * 1024;
const DETECTION_LINES = 50;
const GZIP_MAGIC = [0x1f, 0x8b];

function supportedFormats(): string {
  return FORMATS.map((format) => format.name).join('; ');
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await openFile(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

async function readGzipHead(path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const stream = createReadStream(path).pipe(createGunzip());
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= HEAD_BYTES) break;
    }
  } catch {
    // a damaged archive: detection works on what was decompressed
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

function looksBinary(head: Buffer): boolean {
  return head.subarray(0, 8192).includes(0);
}

function firstLinesOf(head: Buffer): string[] {
  return head.toString('utf8').split('\n').slice(0, DETECTION_LINES);
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export class TranscriptFile {
  private reader!: TranscriptReader;
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
  private queue: Promise<unknown> = Promise.resolve();
  /** Problems found while splitting lines (size, encoding, read errors), kept across appends. */
  private splitProblems: Problem[] = [];

  private constructor(
    readonly path: string,
    readonly format: FormatId,
    private readonly options: OpenOptions,
    private readonly gzip: boolean,
    /** JSON Lines (each line a record) as opposed to one JSON document over many lines. */
    private readonly jsonLines: boolean,
  ) {}

  static async open(path: string, options: OpenOptions = {}): Promise<TranscriptFile> {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new UnusableTranscriptError(`${path}: no such file. Check the path.`, path);
    }
    if (info.isDirectory()) throw new UnusableTranscriptError(`${path} is a folder, not a transcript file.`, path);
    if (info.size === 0) throw new UnusableTranscriptError(`${path} is empty: there are no records to analyse.`, path);

    let head = await readHead(path);
    const gzip = isGzip(head);
    if (gzip) head = await readGzipHead(path);
    if (looksBinary(head)) {
      throw new UnusableTranscriptError(`${path} looks like binary data, not a transcript (it contains NUL bytes). Supported formats: ${supportedFormats()}.`, path);
    }
    const firstLines = firstLinesOf(head);
    const name = basename(path).replace(/\.gz$/, '');
    const format = options.format ?? detectFormat(firstLines, name);
    if (format === undefined) {
      throw new UnusableTranscriptError(`${path} is not a transcript I know. Supported formats: ${supportedFormats()}. If it is one of them, name it with --format.`, path);
    }
    const firstRecord = firstLines.find((line) => line.trim() !== '') ?? '';
    const file = new TranscriptFile(path, format, options, gzip, parsesAsJson(firstRecord.trim()));
    await file.readFromStart();
    const { turns, checkpoints } = file.snapshot;
    if (turns.length === 0 && checkpoints.length === 0) {
      const first = file.snapshot.problems[0];
      const why = first ? ` The first problem: line ${first.line}: ${first.message}` : '';
      throw new UnusableTranscriptError(`${path} has no usable records (read as ${format}).${why}`, path);
    }
    return file;
  }

  /** The transcript as read so far. */
  get transcript(): Transcript {
    return this.snapshot;
  }

  /** Reads what the file gained since the last read. Calls are serialised. */
  refresh(): Promise<'unchanged' | 'appended' | 'reloaded'> {
    const next = this.queue.then(() => this.refreshNow());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async refreshNow(): Promise<'unchanged' | 'appended' | 'reloaded'> {
    let info;
    try {
      info = await stat(this.path);
    } catch {
      throw new UnusableTranscriptError(`${this.path} was deleted or moved.`, this.path);
    }
    if (info.size === this.fileSize && info.ino === this.inode) return 'unchanged';
    const canAppend = !this.gzip && this.jsonLines && info.ino === this.inode && info.size > this.fileSize;
    if (canAppend && this.openTail) {
      // The last line had no newline; it may only continue with one.
      const handle = await openFile(this.path, 'r');
      const first = Buffer.alloc(1);
      await handle.read(first, 0, 1, this.consumed).finally(() => handle.close());
      if (first[0] === 0x0a) {
        this.consumed += 1;
        this.openTail = false;
      }
    }
    if (canAppend && !this.openTail) {
      await this.read(this.consumed, info.size, info.ino);
      return 'appended';
    }
    await this.readFromStart();
    return 'reloaded';
  }

  private async readFromStart(): Promise<void> {
    const sideFiles = await loadSideFiles(this.format, this.path);
    this.reader = createReader(this.format, {
      fileName: this.path,
      sideFiles,
      defaultBudget: this.options.defaultBudgets?.[this.format],
    });
    this.consumed = 0;
    this.nextLine = 1;
    this.openTail = false;
    this.splitProblems = [];
    const info = await stat(this.path);
    await this.read(0, info.size, info.ino);
  }

  /** Streams bytes [start, end) of the file (all of it when gzip) into the reader. */
  private async read(start: number, end: number, inode: number): Promise<void> {
    // Remember the size this read went up to, not a later one: bytes appended meanwhile are read next time.
    this.fileSize = end;
    this.inode = inode;
    this.transientProblems = [];
    const readerProblems: Problem[] = [];
    const splitter = new LineSplitter(
      { maxLineBytes: this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, startLine: this.nextLine, startOffset: start },
      (line: RawLine) => this.reader.push(line),
      (problem) => readerProblems.push(problem),
    );
    if (end > start) {
      const raw = createReadStream(this.path, this.gzip ? {} : { start, end: end - 1, highWaterMark: 1024 * 1024 });
      const stream = this.gzip ? raw.pipe(createGunzip()) : raw;
      let readBytes = 0;
      raw.on('data', (chunk) => {
        readBytes += chunk.length;
        this.options.onProgress?.(readBytes, end - start);
      });
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (this.options.signal?.aborted) {
            raw.destroy();
            throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
          }
          splitter.write(chunk);
        }
      } catch (error) {
        if ((error as Error).name === 'AbortError') throw error;
        readerProblems.push({
          line: splitter.nextLine,
          severity: 'error',
          message: `reading stopped at line ${splitter.nextLine}: ${(error as Error).message}. The file may be damaged; what was read before is analysed.`,
        });
      }
    }
    const tail = splitter.takePendingText();
    if (tail !== undefined && !this.gzip && this.jsonLines && !parsesAsJson(tail.text.trim())) {
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
    this.splitProblems.push(...readerProblems);
    this.snapshot = this.composeSnapshot();
  }

  private composeSnapshot(): Transcript {
    const transcript = this.reader.finish();
    const problems = [...this.splitProblems, ...transcript.problems, ...this.transientProblems];
    problems.sort((a, b) => a.line - b.line);
    return { ...transcript, problems, lineCount: Math.max(transcript.lineCount, this.nextLine - 1) };
  }
}
