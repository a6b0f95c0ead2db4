// Where a piece of tiktoken's pre-tokenizer ends in plain text: ASCII, and the punctuation and symbols of the BMP
// that this Node assigns (→ ─ — ✓ and the like, which Claude Code's tool output is full of). The fast path of
// pieceLowerBound (tokenPieces.ts), which scans a session's texts before the judging, on a cold V8. It follows the
// general scanner's rules restricted to plain text (there, o200k's two word alternatives come down to
// [A-Z]*[a-z]*, and every character is one UTF-16 unit) and gives up, returning -1, as soon as it would have to
// read anything else (a letter or digit outside ASCII, a mark, other whitespace, a surrogate): the caller then
// takes the general scanner. Tests hold its pieces to the general scanner's on random and corpus texts. Pure.

import { bmpClass } from './pieceClasses';
import type { PiecePattern } from './tokenPieces';

/** A-Z */
const UPPER = 1;
/** a-z */
const LOWER = 2;
/** 0-9 */
const DIGIT = 4;
/** Tab, vertical tab, form feed, space: White_Space other than \r and \n. */
const SPACE = 8;
/** \r or \n */
const NEWLINE = 16;
/** Punctuation, symbols, control and format characters ([^\s\p{L}\p{N}], and not a mark or unassigned). */
const OTHER = 32;
const LETTER = UPPER | LOWER;

/** The class of each ASCII code unit. */
const CLASSES = new Uint8Array(128).map((_, unit) => {
  if (unit >= 0x41 && unit <= 0x5a) return UPPER;
  if (unit >= 0x61 && unit <= 0x7a) return LOWER;
  if (unit >= 0x30 && unit <= 0x39) return DIGIT;
  if (unit === 0x0a || unit === 0x0d) return NEWLINE;
  if (unit === 0x09 || unit === 0x0b || unit === 0x0c || unit === 0x20) return SPACE;
  return OTHER;
});

/** Returned within this file when a character that is not plain had to be read (plainPieceEnd returns -1). */
const GIVE_UP = -2;
/** No match (a contraction that is not there). */
const NONE = -1;
/** The class of a character that is not plain, no class bit: every class test on it fails, and a run gives up. */
const NOT_PLAIN = 64;

function classAt(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  if (unit < 0x80) return CLASSES[unit];
  if (unit >= 0xd800 && unit <= 0xdfff) return NOT_PLAIN;
  // None of the general classes' bits: not a letter, number, mark, whitespace or unassigned code point.
  return bmpClass(unit) === 0 ? OTHER : NOT_PLAIN;
}

/**
 * The end of the piece that starts at i, when the piece and every character read to find its end are plain;
 * else -1. (pieceLowerBound keeps what this counts only for stretches that are plain throughout.)
 */
export function plainPieceEnd(text: string, i: number, pattern: PiecePattern): number {
  const end = pieceEnd(text, i, pattern);
  return end === GIVE_UP ? -1 : end;
}

function pieceEnd(text: string, i: number, pattern: PiecePattern): number {
  const n = text.length;
  const first = classAt(text, i); // when not plain, no test below holds on it, and spaceEnd gives up
  if (pattern === 'cl100k') {
    const contraction = contractionEnd(text, i);
    if (contraction !== NONE) return contraction;
  }
  // [^\r\n\p{L}\p{N}]? then the word: the prefix only when a letter follows it.
  let word = -1;
  if ((first & LETTER) !== 0) word = i;
  else if ((first & (SPACE | OTHER)) !== 0 && i + 1 < n) {
    // (A character that is not plain is no letter here: the run that reads it next gives up.)
    if ((classAt(text, i + 1) & LETTER) !== 0) word = i + 1;
  }
  if (word !== -1) {
    if (pattern === 'cl100k') return runEnd(text, word, LETTER);
    // o200k: [A-Z]*[a-z]+ or else [A-Z]+[a-z]*, the same end in ASCII; then an optional contraction.
    const lowerStart = runEnd(text, word, UPPER);
    if (lowerStart === GIVE_UP) return GIVE_UP;
    const end = runEnd(text, lowerStart, LOWER);
    if (end === GIVE_UP) return GIVE_UP;
    const contraction = contractionEnd(text, end);
    return contraction === NONE ? end : contraction;
  }
  if ((first & DIGIT) !== 0) {
    // \p{N}{1,3}: a digit outside ASCII would continue it.
    let end = i + 1;
    while (end < n && end < i + 3) {
      const classes = classAt(text, end);
      if (classes === NOT_PLAIN) return GIVE_UP;
      if ((classes & DIGIT) === 0) break;
      end += 1;
    }
    return end;
  }
  // ` ?[^\s\p{L}\p{N}]+` then [\r\n/]* (o200k) or [\r\n]* (cl100k).
  let start = i;
  if (text.charCodeAt(i) === 0x20 && i + 1 < n && classAt(text, i + 1) === OTHER) start = i + 1;
  if (classAt(text, start) === OTHER) {
    let end = runEnd(text, start, OTHER);
    if (end === GIVE_UP) return GIVE_UP;
    for (;;) {
      const unit = text.charCodeAt(end);
      if (end < n && (unit === 0x0a || unit === 0x0d || (pattern === 'o200k' && unit === 0x2f))) end += 1;
      else return end;
    }
  }
  return spaceEnd(text, i);
}

/** The end of the run of characters of the class from i, or GIVE_UP when a character that is not plain ends it. */
function runEnd(text: string, i: number, bits: number): number {
  let end = i;
  for (; end < text.length; end++) {
    const classes = classAt(text, end);
    if (classes === NOT_PLAIN) return GIVE_UP;
    if ((classes & bits) === 0) break;
  }
  return end;
}

/** The end of a contraction ('s 't 're 've 'm 'll 'd, any case) at i, NONE, or GIVE_UP ('ſ). */
function contractionEnd(text: string, i: number): number {
  if (i + 1 >= text.length || text.charCodeAt(i) !== 0x27) return NONE;
  const second = text.charCodeAt(i + 1);
  // ſ (U+017F) is an s to the patterns, and a letter: the piece is not plain.
  if (second === 0x17f) return GIVE_UP;
  const first = second | 0x20;
  if (first === 0x73 || first === 0x74 || first === 0x6d || first === 0x64) return i + 2; // s t m d
  if (i + 2 >= text.length) return NONE;
  const third = text.charCodeAt(i + 2) | 0x20;
  if ((first === 0x72 || first === 0x76) && third === 0x65) return i + 3; // re ve
  if (first === 0x6c && third === 0x6c) return i + 3; // ll
  return NONE;
}

/** \s*[\r\n]+ | \s+(?!\S) | \s+ at i (a whitespace character), as the general scanner's spaceEnd. */
function spaceEnd(text: string, i: number): number {
  let end = i;
  let lastNewlineEnd = -1;
  for (; end < text.length; end++) {
    const classes = classAt(text, end);
    // U+0085, U+00A0 and others are whitespace too.
    if (classes === NOT_PLAIN) return GIVE_UP;
    if ((classes & (SPACE | NEWLINE)) === 0) break;
    if (classes === NEWLINE) lastNewlineEnd = end + 1;
  }
  if (lastNewlineEnd !== -1) return lastNewlineEnd;
  if (end === text.length || end - i < 2) return end;
  return end - 1;
}
