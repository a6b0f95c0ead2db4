// Counting the pieces of a text that is sure throughout, in native code: what pieceLowerBound (tokenPieces.ts)
// takes first for the lower bounds worked out before the judging. Sure, as there: ASCII, and what is neither a
// letter, a number, a mark nor unassigned in this Node's Unicode tables (punctuation, symbols, emoji, spaces).
// Each encoding's pattern, restricted to such text, is one sticky regular expression; V8 compiles a regular
// expression to native code once it has run, where a scan in JavaScript runs interpreted for its first tens of
// milliseconds on a cold V8. Tests hold it to the patterns on random texts and on every BMP code unit. Pure.
import type { PiecePattern } from './tokenPieces';

/** [^\s\p{L}\p{N}] within sure text: neither a letter, a number, a mark, whitespace nor unassigned. */
const OTHER = String.raw`[^\p{L}\p{N}\p{M}\p{White_Space}\p{Cn}]`;
/** [^\r\n\p{L}\p{N}] within sure text: a word's prefix. */
const PREFIX = String.raw`(?:${OTHER}|[^\P{White_Space}\r\n])`;
/** Contractions, any case ('ſ: ſ is a letter outside ASCII, not sure). */
const CONTRACTION = String.raw`'(?:[sStTmMdD]|[rRvV][eE]|[lL][lL])`;
/**
 * \s*[\r\n]+ | \s+(?!\S) | \s+: to the run's last newline (stepping back from the run's end); else all of the run
 * when it ends the text; else every space but its last (one step back); else one. Only loops over one class of
 * BMP characters, which V8 steps back through without a backtracking stack (a repeated group would overflow it
 * on a long run).
 */
const SPACES = String.raw`\p{White_Space}*[\r\n]|\p{White_Space}+$|\p{White_Space}+(?=\p{White_Space})|\p{White_Space}`;

/**
 * Each encoding's pattern restricted to sure text, for a sticky expression: one match a piece, tried only where
 * the last one ended, so a text is scanned once, a whitespace run at most four times (each alternative that reads
 * it steps back once at most): linear. No alternative takes a character that is not sure, so the scan stops at the first one.
 * Sure letters and digits are ASCII's, where o200k's two word alternatives end alike: [A-Z]+[a-z]* or [a-z]+.
 * (scripts/check-regex.mjs reads only patterns written out whole; tokenPieces.test.ts runs these on runs of
 * millions of each kind of character.)
 */
const SURE_PIECES: Record<PiecePattern, string> = {
  o200k: `${PREFIX}?(?:[A-Z]+[a-z]*|[a-z]+)(?:${CONTRACTION})?|[0-9]{1,3}| ?${OTHER}+(?:[\\r\\n][\\r\\n/]*)?|${SPACES}`,
  cl100k: `${CONTRACTION}|${PREFIX}?[A-Za-z]+|[0-9]{1,3}| ?${OTHER}+[\\r\\n]*|${SPACES}`,
};

/** Each encoding's expression, made when first used (making one takes a few ms: its classes are large). */
const made: Partial<Record<PiecePattern, RegExp>> = {};

/**
 * Texts longer than this are left to the scanners. A run of symbols outside the BMP (two code units each) costs the
 * engine a backtracking entry per symbol, and its stack holds a few million.
 */
export const MAX_SURE_SCAN_CHARS = 1 << 21;

/** The number of pieces of text when it is sure throughout (and not over MAX_SURE_SCAN_CHARS), else undefined. */
export function surePieceCount(text: string, pattern: PiecePattern): number | undefined {
  if (text.length > MAX_SURE_SCAN_CHARS) return undefined;
  const pieces = (made[pattern] ??= new RegExp(SURE_PIECES[pattern], 'uy'));
  let count = 0;
  for (let at = 0; at < text.length; count++) {
    pieces.lastIndex = at;
    if (!pieces.test(text)) return undefined;
    at = pieces.lastIndex;
  }
  return count;
}

/**
 * Makes the encoding's expression and has V8 compile it (it runs a regular expression once interpreted, then as
 * native code): analyzeFile calls this while the file's first bytes are awaited, so the first bound does not.
 */
export function prepareSurePieces(pattern: PiecePattern): void {
  surePieceCount('Ab 1.', pattern);
  surePieceCount('Ab 1.', pattern);
}
