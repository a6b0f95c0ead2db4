// Parses JSON Lines for the readers: one JSON value per line, bad lines turned into Problems. Keeps every parsed
// record with its RawLine so a reader can rebuild its transcript at any time; a line pushed again (same or lower
// number, e.g. a last line re-read once the agent finished writing it) replaces what was read from there on.
// A reader that reads only the parsed value has the line's text dropped and the fields it never reads left out,
// so a large transcript is not held twice (as text and as parsed records). A reader that reads a file once, from
// its start, may let the records it has read go (releaseRecords).
import type { Problem, RawLine } from '../core/model';

export interface JsonLine {
  line: RawLine;
  value: unknown;
}

export interface JsonLinesOptions {
  /** Keep each line's place but not its text (`text` is then ''), for a reader that reads only the parsed values. */
  dropText?: boolean;
  /**
   * What to keep of each parsed value (a reader drops the fields it never reads), or DROP_RECORD to keep no record
   * of the line (one the reader would pass over in silence). Default: all of it.
   */
  keep?: (value: unknown) => unknown;
}

export type JsonObject = Record<string, unknown>;

/** What JsonLinesOptions.keep returns for a record to keep nothing of: the line counts, but no record is kept. */
export const DROP_RECORD: unique symbol = Symbol('drop record');

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The problem for a line that is not valid JSON: a warning when it is an unterminated last line. */
export function invalidJsonProblem(line: RawLine, detail: string): Problem {
  if (!line.terminated) {
    return {
      line: line.line,
      severity: 'warning',
      message: `line ${line.line} is incomplete (the agent may still be writing): it is not valid JSON yet and was skipped; it is read once it is complete.`,
    };
  }
  return {
    line: line.line,
    severity: 'error',
    message: `line ${line.line} is not valid JSON (${detail}); it was skipped. Fix or remove the line to have it read.`,
  };
}

export class JsonLinesBuffer {
  private entries: JsonLine[] = [];
  private readonly lineProblems: Problem[] = [];
  private maxLine = 0;
  private pushed = 0;

  constructor(private readonly options: JsonLinesOptions = {}) {}

  /** Parses one line; returns the record, or undefined for a blank or bad line (a problem is kept). */
  push(line: RawLine): JsonLine | undefined {
    this.forgetFrom(line.line);
    this.maxLine = Math.max(this.maxLine, line.line);
    const text = line.text.trim();
    if (text === '') return undefined;
    try {
      const value = JSON.parse(text) as unknown;
      const { keep, dropText } = this.options;
      const kept = dropText
        ? { line: line.line, offset: line.offset, endOffset: line.endOffset, text: '', terminated: line.terminated }
        : line;
      const entry = { line: kept, value: keep ? keep(value) : value };
      if (entry.value === DROP_RECORD) return undefined;
      this.entries.push(entry);
      this.pushed++;
      return entry;
    } catch (error) {
      this.lineProblems.push(invalidJsonProblem(line, error instanceof Error ? error.message : String(error)));
      return undefined;
    }
  }

  /** The records kept: every one parsed, less those let go (releaseRecords) or forgotten (a line pushed again). */
  get records(): readonly JsonLine[] {
    return this.entries;
  }

  /** How many records were ever kept, the ones let go or forgotten since included: changes with every record kept. */
  get recordsPushed(): number {
    return this.pushed;
  }

  /**
   * Lets every record kept so far go: `records` is empty until the next one is parsed. For a reader whose lines are
   * pushed once each (ReaderContext.linesOnce), that has read them into what it keeps.
   */
  releaseRecords(): void {
    this.entries = [];
  }

  /** Problems of lines that could not be parsed. */
  get problems(): readonly Problem[] {
    return this.lineProblems;
  }

  get lineCount(): number {
    return this.maxLine;
  }

  private forgetFrom(lineNumber: number): void {
    if (lineNumber > this.maxLine) return;
    while (this.entries.length > 0 && this.entries[this.entries.length - 1].line.line >= lineNumber) this.entries.pop();
    for (let i = this.lineProblems.length - 1; i >= 0; i--) {
      if (this.lineProblems[i].line >= lineNumber) this.lineProblems.splice(i, 1);
    }
    this.maxLine = lineNumber - 1;
  }
}
