// JSON Lines records read as they are pushed, a batch at a time (the Claude Code, Codex and pi readers): the line
// buffer, the lines pushed again (a rewind: what a reader read from there on is void), when a batch is due, the key
// of what was pushed, and letting the records go once read when none is read again (no line is pushed twice, as
// TranscriptFile pushes them; or the file is read once, or its turns are handed over). Reading them as they come
// means the finish after a long file has little left to do, and the thread is not held for seconds at the end of
// the read.
import type { RawLine, ReaderContext } from '../core/model';
import { JsonLinesBuffer, type JsonLinesOptions } from './jsonLines';

/** How many pushed records wait before they are read. */
export const READ_AHEAD_RECORDS = 512;

export class PushedRecords {
  readonly lines: JsonLinesBuffer;
  /** How many lines were pushed again (a line number already pushed). */
  private rewinds = 0;

  /** `readAhead`: how many pushed records wait before a batch is due (tests vary it). */
  constructor(
    options: JsonLinesOptions,
    private readonly readAhead = READ_AHEAD_RECORDS,
  ) {
    this.lines = new JsonLinesBuffer(options);
  }

  /** Pushes a line. True when its number was pushed before: the reader starts its state again. */
  push(line: RawLine): boolean {
    const again = line.line <= this.lines.lineCount;
    if (again) this.rewinds++;
    this.lines.push(line);
    return again;
  }

  /** Whether a batch waits to be read, when `read` of the records were. */
  due(read: number): boolean {
    return this.lines.records.length - read >= this.readAhead;
  }

  /** What was pushed (rewinds, lines, records, problems): the reader's state key. */
  key(): string {
    return `${this.rewinds}:${this.lines.lineCount}:${this.lines.recordsPushed}:${this.lines.problems.length}`;
  }

  /**
   * After a read: lets the records go when none is read again (ReaderContext.linesOnce or readOnce, or keepTurn:
   * the turns are handed over). True when it did: the reader's count of records read starts again at 0.
   */
  letGo(context: ReaderContext): boolean {
    if (context.linesOnce !== true && context.readOnce !== true && context.keepTurn === undefined) return false;
    this.lines.releaseRecords();
    return true;
  }
}
