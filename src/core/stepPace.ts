// When the loops that may work out turns' evidence yield (core/analyze.ts: the sharing counts' two passes and the
// judging of a checkpoint's turns): after a step of about a millisecond of work, not after every unit. A yield there
// passes through every generator that delegates to the loop, down to the shell's runner; after each unit, that was
// about 6% of the judging's instructions at 100k turns (docs/performance.md, "The judging's steps paced by their
// work"). A step ends after STEP_UNITS units, or sooner once its units met STEP_PIECES pieces of evidence or had
// STEP_CHARS characters of text worked out (a large tool output is a step of its own). Pure: no I/O.

/** Units (a turn, or a call with its results) in a step at most. */
export const STEP_UNITS = 32;
/** Pieces of evidence met (asked of the evidence cache) that end a step: each is looked for and weighed. */
export const STEP_PIECES = 1024;
/** Characters of text whose evidence was worked out (not answered from the cache) that end a step. */
export const STEP_CHARS = 16_384;

/**
 * A loop's count of the work done since it last yielded. The work is read from two running totals the caller
 * keeps (pieces met, characters worked out), so nothing is counted twice when loops follow each other.
 */
export class StepPace {
  private units = 0;
  private piecesAt: number;
  private charsAt: number;

  constructor(piecesMet: number, charsWorked: number) {
    this.piecesAt = piecesMet;
    this.charsAt = charsWorked;
  }

  /**
   * After a unit, given the running totals now: whether the loop yields here. When it does, the next step is
   * counted from here.
   */
  due(piecesMet: number, charsWorked: number): boolean {
    this.units++;
    if (this.units < STEP_UNITS && piecesMet - this.piecesAt < STEP_PIECES && charsWorked - this.charsAt < STEP_CHARS) return false;
    this.units = 0;
    this.piecesAt = piecesMet;
    this.charsAt = charsWorked;
    return true;
  }
}
