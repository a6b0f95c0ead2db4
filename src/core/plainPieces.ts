// Where a piece of tiktoken's pre-tokenizer ends in plain text: ASCII, and the punctuation and symbols of the BMP
// that this Node assigns (→ ─ — ✓ and the like, which Claude Code's tool output is full of). The fast path of
// pieceLowerBound (tokenPieces.ts), which scans a session's texts before the judging, on a cold V8. It follows the
// general scanner's rules restricted to plain text (there, o200k's two word alternatives come down to
// [A-Z]*[a-z]*, and every character is one UTF-16 unit) and gives up, returning -1, as soon as it would have to
// read anything else (a letter or digit outside ASCII, a mark, other whitespace, a surrogate): the caller then
// takes the general scanner. Tests hold its pieces to the general scanner's on random and corpus texts. Pure.

import { bmpClass, LETTER, LOWER, NEWLINE, NUMBER, SPACE, UPPER } from './pieceClasses';
import type { PiecePattern } from './tokenPieces';

/** Punctuation, symbols, control and format characters ([^\s\p{L}\p{N}], not a mark, assigned): no class bit. */
const OTHER = 0;
/** The class of a character that is not plain: no bit of pieceClasses', so every test of a bit on it fails. */
const NOT_PLAIN = 256;

/** Returned within this file when a character that is not plain had to be read (plainPieceEnd returns -1). */
const GIVE_UP = -2;
/** No match (a contraction that is not there). */
const NONE = -1;

/**
 * pieceClasses' bits of each ASCII code unit, a table read on the hot path instead of bmpClass's check. Filled on
 * the first piece, not when the module loads (classifying runs Unicode property tests: about 4 ms).
 */
let asciiClasses = new Uint8Array(0);

/** The class bits of the character at i (pieceClasses'), or NOT_PLAIN. */
function classAt(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  if (unit < 0x80) return asciiClasses[unit];
  if (unit >= 0xd800 && unit <= 0xdfff) return NOT_PLAIN;
  // Outside ASCII, only what has no class bit is plain (punctuation and symbols).
  return bmpClass(unit) === OTHER ? OTHER : NOT_PLAIN;
}

/**
 * The end of the piece that starts at i, when the piece and every character read to find its end are plain;
 * else -1. (pieceLowerBound keeps what this counts only for stretches that are plain throughout.)
 */
export function plainPieceEnd(text: string, i: number, pattern: PiecePattern): number {
  if (asciiClasses.length === 0) asciiClasses = Uint8Array.from({ length: 0x80 }, (_, unit) => bmpClass(unit));
  const end = pieceEnd(text, i, pattern);
  return end === GIVE_UP ? -1 : end;
}

function pieceEnd(text: string, i: number, pattern: PiecePattern): number {
  const n = text.length;
  const first = classAt(text, i); // when not plain, no test of a bit below holds on it, and spaceEnd gives up
  if (pattern === 'cl100k') {
    const contraction = contractionEnd(text, i);
    if (contraction !== NONE) return contraction;
  }
  // [^\r\n\p{L}\p{N}]? then the word: the prefix only when a letter follows it.
  let word = -1;
  if ((first & LETTER) !== 0) word = i;
  else if (first !== NOT_PLAIN && (first & (NEWLINE | LETTER | NUMBER)) === 0 && i + 1 < n) {
    // (A character that is not plain is no letter here: the run that reads it next gives up.)
    if ((classAt(text, i + 1) & LETTER) !== 0) word = i + 1;
  }
  if (word !== -1) {
    if (pattern === 'cl100k') return runEnd(text, word, LETTER);
    // o200k: [A-Z]*[a-z]+ or else [A-Z]+[a-z]*, the same end in ASCII (where UPPER and LOWER are A-Z and a-z);
    // then an optional contraction.
    const lowerStart = runEnd(text, word, UPPER);
    if (lowerStart === GIVE_UP) return GIVE_UP;
    const end = runEnd(text, lowerStart, LOWER);
    if (end === GIVE_UP) return GIVE_UP;
    const contraction = contractionEnd(text, end);
    return contraction === NONE ? end : contraction;
  }
  if ((first & NUMBER) !== 0) {
    // \p{N}{1,3}: a digit outside ASCII would continue it.
    let end = i + 1;
    while (end < n && end < i + 3) {
      const classes = classAt(text, end);
      if (classes === NOT_PLAIN) return GIVE_UP;
      if ((classes & NUMBER) === 0) break;
      end += 1;
    }
    return end;
  }
  // ` ?[^\s\p{L}\p{N}]+` then [\r\n/]* (o200k) or [\r\n]* (cl100k).
  let start = i;
  if (text.charCodeAt(i) === 0x20 && i + 1 < n && classAt(text, i + 1) === OTHER) start = i + 1;
  if (classAt(text, start) === OTHER) {
    let end = start + 1;
    for (; end < n; end++) {
      const classes = classAt(text, end);
      if (classes === NOT_PLAIN) return GIVE_UP;
      if (classes !== OTHER) break;
    }
    for (;;) {
      const unit = text.charCodeAt(end);
      if (end < n && (unit === 0x0a || unit === 0x0d || (pattern === 'o200k' && unit === 0x2f))) end += 1;
      else return end;
    }
  }
  return spaceEnd(text, i);
}

/** The end of the run of characters with one of the bits from i, or GIVE_UP when a character that is not plain ends it. */
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
    if ((classes & SPACE) === 0) break;
    if ((classes & NEWLINE) !== 0) lastNewlineEnd = end + 1;
  }
  if (lastNewlineEnd !== -1) return lastNewlineEnd;
  if (end === text.length || end - i < 2) return end;
  return end - 1;
}
