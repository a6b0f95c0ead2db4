// Splits a stream of bytes into RawLines with 1-based line numbers and byte offsets, decoding each line as
// strict UTF-8. Lines over the size limit and lines that are not UTF-8 are reported, not returned. NUL padding
// (what a crash or an interrupted write leaves) is one problem: a line of NULs only is reported and skipped,
// NULs before or after a line's text are reported and dropped, and the rest of the line is read.

import { countOf, formatBytes } from '../core/displayText';
import type { Problem, RawLine } from '../core/model';

export interface SplitterOptions {
  /** Lines longer than this many bytes are skipped with a problem. */
  maxLineBytes: number;
  /** Line number and byte offset of the first byte fed (for reading appended data). */
  startLine?: number;
  startOffset?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

function nulBytes(n: number): string {
  return `${countOf(n, 'NUL byte')}`;
}

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of an over-long line. */
  private skipping = false;
  private lineNumber: number;
  private lineStart: number;
  private offset: number;

  constructor(
    private readonly options: SplitterOptions,
    private readonly onLine: (line: RawLine) => void,
    private readonly onProblem: (problem: Problem) => void,
  ) {
    this.lineNumber = options.startLine ?? 1;
    this.offset = options.startOffset ?? 0;
    this.lineStart = this.offset;
  }

  /** Byte offset just past the last complete (newline-terminated) line. */
  get consumedOffset(): number {
    return this.lineStart;
  }

  /** Line number the next line will get. */
  get nextLine(): number {
    return this.lineNumber;
  }

  write(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (newline !== -1 && this.pendingBytes === 0 && !this.skipping && end - start <= this.options.maxLineBytes) {
        // A whole line within this chunk (most): decoded from the chunk itself, not copied first.
        this.offset += end - start + 1; // the line and its newline
        this.emit({ terminated: true }, chunk.subarray(start, end));
        start = newline + 1;
        continue;
      }
      this.append(chunk.subarray(start, end));
      if (newline === -1) break;
      this.offset += 1; // the newline itself
      this.emit({ terminated: true });
      start = newline + 1;
    }
  }

  /** Flushes a last line that has no newline after it. */
  end(): void {
    if (this.pendingBytes > 0 || this.skipping) this.emit({ terminated: false });
  }

  /** The bytes of an unterminated last line, without emitting it (for callers that re-read later). */
  takePendingText(): { line: number; offset: number; text: string } | undefined {
    if (this.pendingBytes === 0 || this.skipping) return undefined;
    try {
      return { line: this.lineNumber, offset: this.lineStart, text: this.decoder.decode(Buffer.concat(this.pending)) };
    } catch {
      return undefined;
    }
  }

  private append(bytes: Buffer): void {
    this.offset += bytes.length;
    if (this.skipping || bytes.length === 0) return;
    if (this.pendingBytes + bytes.length > this.options.maxLineBytes) {
      this.skipping = true;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(Buffer.from(bytes));
    this.pendingBytes += bytes.length;
  }

  /** Emits the line ended here: `whole` when it lies in one chunk, else the pending bytes. */
  private emit({ terminated }: { terminated: boolean }, whole?: Buffer): void {
    const line = this.lineNumber;
    const startOffset = this.lineStart;
    let endOffset = terminated ? this.offset - 1 : this.offset;
    if (this.skipping) {
      const size = endOffset - startOffset;
      this.onProblem({
        line,
        severity: 'error',
        message: `line ${line} is ${formatBytes(size)}, over the ${formatBytes(this.options.maxLineBytes)} limit for one record; it was skipped. Split the record, or raise the limit with the CLI's --max-line-mb (the VS Code extension reads records of up to 16 MB).`,
      });
    } else {
      let bytes = whole ?? (this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending));
      let startAt = startOffset;
      if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) {
        bytes = bytes.subarray(0, bytes.length - 1);
        endOffset -= 1;
      }
      let text: string | undefined;
      let lead = 0;
      while (lead < bytes.length && bytes[lead] === 0) lead++;
      let trail = bytes.length;
      while (trail > lead && bytes[trail - 1] === 0) trail--;
      if (lead === bytes.length && lead > 0) {
        this.onProblem({
          line,
          severity: 'warning',
          message: `line ${line} holds only ${nulBytes(lead)}: zero padding, such as a crash or an interrupted write leaves; it was skipped. Records written before and after it are read.`,
        });
        bytes = bytes.subarray(0, 0);
      } else if (lead > 0 || trail < bytes.length) {
        const where =
          lead > 0 && trail < bytes.length
            ? `starts with ${nulBytes(lead)} and ends with ${nulBytes(bytes.length - trail)}`
            : lead > 0
              ? `starts with ${nulBytes(lead)}`
              : `ends with ${nulBytes(bytes.length - trail)}`;
        this.onProblem({
          line,
          severity: 'warning',
          message: `line ${line} ${where} (zero padding, such as a crash or an interrupted write leaves); they were ignored and the rest of the line was read.`,
        });
        endOffset -= bytes.length - trail;
        startAt += lead;
        bytes = bytes.subarray(lead, trail);
      }
      const paddingOnly = bytes.length === 0 && lead > 0;
      if (!paddingOnly) {
        try {
          text = this.decoder.decode(bytes);
        } catch {
          this.onProblem({
            line,
            severity: 'error',
            message: `line ${line} is not valid UTF-8 text (binary data or a different encoding); it was skipped. Re-save the transcript as UTF-8.`,
          });
        }
      }
      if (text !== undefined) this.onLine({ line, offset: startAt, endOffset, text, terminated });
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = false;
    this.lineNumber += 1;
    this.lineStart = this.offset;
  }
}
