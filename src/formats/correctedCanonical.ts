// The corrected copy of a canonical transcript (docs/corrected-checkpoint.md): the same lines, byte for byte,
// except each analysed checkpoint's record, whose "covered" becomes its safe pointer set (an array of ids) and
// which gains a "compaction_lens" object holding the claimed "covered" and the turns moved to uncovered. The
// copy is itself a canonical transcript: read back, each checkpoint claims exactly its safe pointer set.
// Pure: the text a piece at a time (CanonicalCorrector, which node/correctedExport.ts streams the file through),
// or whole (correctedCanonicalText); either gives the problems that stop the copy (never a partial one).
import type { CorrectedCheckpoint, CorrectedCheckpoints, Problem } from '../core/model';
import { SIDECAR_SCHEMA, SIDECAR_VERSION } from './correctedSidecar';

/** The key a corrected checkpoint record carries its history under. */
export const CORRECTION_KEY = 'compaction_lens';

/** Whitespace, NUL padding and a byte-order mark around a record: kept as they are, left out of the parse. */
function isPadding(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x00 || code === 0xfeff || code === 0x0b || code === 0x0c;
}

/** The line split into what precedes the record, the record's text and what follows it (linear, no regex). */
function splitPadding(line: string): { before: string; record: string; after: string } {
  let start = 0;
  let end = line.length;
  while (start < end && isPadding(line.charCodeAt(start))) start++;
  while (end > start && isPadding(line.charCodeAt(end - 1))) end--;
  return { before: line.slice(0, start), record: line.slice(start, end), after: line.slice(end) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Entries of a corrected record's moved_to_uncovered written in one of its pieces. */
const MOVED_PER_PIECE = 256;

/**
 * Corrects a canonical transcript as its text comes, a piece at a time (node/correctedExport.ts streams a file
 * through it): each checkpoint's line is replaced, every other line is kept as it is. What to write comes back in
 * pieces, a corrected record's a few hundred moved turns at a time. The problems say which checkpoint lines are no
 * longer those checkpoints' records (the file changed since it was analysed); a copy with any problem must not be
 * kept.
 */
export class CanonicalCorrector {
  readonly problems: Problem[] = [];
  private readonly byLine = new Map<number, CorrectedCheckpoint>();
  /** The number (1-based) of the line the next piece goes on with; for a checkpoint's, what of it came before. */
  private number = 1;
  private rest = '';

  constructor(private readonly document: CorrectedCheckpoints) {
    if (document.format !== 'canonical') {
      this.problems.push({
        line: 0,
        severity: 'error',
        message: `a corrected JSONL can only be made of a canonical transcript, not ${document.format}.`,
      });
      return;
    }
    for (const checkpoint of document.checkpoints) this.byLine.set(checkpoint.line, checkpoint);
  }

  /**
   * The text's next piece (cut anywhere): what to write for it. Every line but a checkpoint's is given on as it
   * comes, never gathered (a long tool output's line is not held whole); a checkpoint's line is gathered until its
   * newline, then given corrected.
   */
  *write(piece: string): Generator<string, void, void> {
    /** Where the text not yet given starts in this piece, and where line `this.number` starts in it. */
    let from = 0;
    let lineStart = 0;
    for (let newline = piece.indexOf('\n'); newline >= 0; newline = piece.indexOf('\n', newline + 1)) {
      if (this.byLine.has(this.number)) {
        if (lineStart > from) yield piece.slice(from, lineStart);
        const line = this.rest + piece.slice(lineStart, newline);
        this.rest = '';
        yield* this.line(line, this.number);
        from = newline; // its newline goes with what follows
      }
      this.number++;
      lineStart = newline + 1;
    }
    if (!this.byLine.has(this.number)) {
      if (from < piece.length) yield piece.slice(from);
      return;
    }
    if (lineStart > from) yield piece.slice(from, lineStart);
    this.rest += piece.slice(lineStart);
  }

  /**
   * After the last piece: what to write for the last line (what follows the last newline: nothing when the text
   * ends with one, as text.split('\n') has it) when it is a checkpoint's. `problems` is then complete, with one for
   * each checkpoint whose line the text did not reach.
   */
  *end(): Generator<string, void, void> {
    if (this.byLine.has(this.number)) yield* this.line(this.rest, this.number);
    this.rest = '';
    for (const [line, checkpoint] of this.byLine)
      this.changed(line, `is past the end of the file, where checkpoint ${checkpoint.summaryId} was`);
    this.byLine.clear();
  }

  /** Checkpoint line `number`, without its newline, corrected (as it is, with a problem, when not its record). */
  private *line(text: string, number: number): Generator<string, void, void> {
    const checkpoint = this.byLine.get(number)!;
    this.byLine.delete(number);
    const { before, record: recordText, after } = splitPadding(text);
    let record: unknown;
    try {
      record = JSON.parse(recordText);
    } catch {
      record = undefined;
    }
    const summaryId = isObject(record) ? record.summary_id : undefined;
    if (
      !isObject(record) ||
      record.type !== 'checkpoint' ||
      (typeof summaryId === 'string' && summaryId !== '' && summaryId !== checkpoint.summaryId)
    ) {
      this.changed(number, `is no longer the record of checkpoint ${checkpoint.summaryId}`);
      yield text;
      return;
    }
    yield before;
    yield* this.correctedRecord(record, checkpoint);
    yield after;
  }

  private changed(line: number, what: string): void {
    this.problems.push({
      line,
      severity: 'error',
      message: `line ${line} ${what}: the transcript changed since it was analysed. Analyse it again, then export.`,
    });
  }

  /**
   * The record with its "covered" the safe pointer set and its history under CORRECTION_KEY, in pieces: joined, the
   * JSON.stringify of the whole record (moved_to_uncovered is the last member of the last member, so the record
   * is written with it empty and its entries put in before the three closing characters).
   */
  private *correctedRecord(record: Record<string, unknown>, checkpoint: CorrectedCheckpoint): Generator<string, void, void> {
    const corrected: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key === CORRECTION_KEY) continue;
      corrected[key] = key === 'covered' ? checkpoint.safeIds : value;
    }
    corrected[CORRECTION_KEY] = {
      schema: SIDECAR_SCHEMA,
      version: SIDECAR_VERSION,
      source: this.document.source,
      verdict: checkpoint.verdict,
      claimed_covered: record.covered,
      moved_to_uncovered: [],
    };
    const empty = JSON.stringify(corrected);
    yield empty.slice(0, -3);
    const { moved } = checkpoint;
    for (let from = 0; from < moved.length; from += MOVED_PER_PIECE) {
      const entries = moved
        .slice(from, from + MOVED_PER_PIECE)
        .map((turn) => JSON.stringify({ id: turn.id, status: turn.status, line: turn.line, reason: turn.reason }));
      yield `${from > 0 ? ',' : ''}${entries.join(',')}`;
    }
    yield empty.slice(-3);
  }
}

/**
 * The corrected canonical JSONL of `text` (the transcript the analysis behind `document` read). Fails, with a
 * problem on the checkpoint's line, when a checkpoint's line is no longer that checkpoint's record (the file
 * changed since it was analysed) or when the document is not of a canonical transcript.
 */
export function correctedCanonicalText(text: string, document: CorrectedCheckpoints): { text?: string; problems: Problem[] } {
  const corrector = new CanonicalCorrector(document);
  if (corrector.problems.length > 0) return { problems: corrector.problems };
  const written = [...corrector.write(text), ...corrector.end()].join('');
  if (corrector.problems.length > 0) return { problems: corrector.problems };
  return { text: written, problems: [] };
}
