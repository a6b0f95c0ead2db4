// When the loops that may work out turns' evidence yield (core/analyze.ts: the sharing counts' two passes and the
// judging of a checkpoint's turns): after a step of a few units' work, not after every unit. A yield there passes
// through every generator that delegates to the loop, down to the shell's runner: yielding after each unit took
// about 6% of the judging's instructions (docs/performance-history.md, "The judging's steps paced by their work"). A step
// ends after STEP_UNITS units, or sooner once its units met STEP_PIECES pieces of evidence or had STEP_CHARS
// characters of text worked out or read through, so a large tool output is a step of its own. The bounds are small
// because a step's time also depends on what the counts cannot see (code V8 has not optimised yet, a core shared
// with the token worker): with four times these bounds, the host's longest stall on a real session went from
// 35–84 ms to 61–128 ms; with these it stays as it was. Pure: no I/O.

/** Units (a turn, or a call with its results) in a step at most. */
export const STEP_UNITS = 8;
/** Pieces of evidence met (asked of the evidence cache) that end a step: each is looked for and weighed. */
export const STEP_PIECES = 256;
/** Characters of text whose evidence was worked out (not answered from the cache), or read through, that end a step. */
export const STEP_CHARS = 4096;

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
   * After a unit, given the running totals now (pieces met; characters worked out or read through): whether the
   * loop yields here. When it does, the next step is counted from here.
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
