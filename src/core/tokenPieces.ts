// The pieces tiktoken cuts a text into before its BPE, found by a hand-written scanner instead of the encodings'
// regular expressions. tiktoken encodes each piece on its own (a piece that is a token is one token, any other is
// merged within itself), so a text's count is the sum of its pieces' counts, and tokenCounter.ts counts each
// distinct piece once. The scanner follows the o200k_base and cl100k_base patterns' leftmost-first alternatives
// (as tiktoken's fancy-regex runs them), including their backtracking, in time linear in the text: each
// alternative scans forward over one run of a character class, and no position's run is scanned more than a few
// times. Tests compare it with the patterns themselves and with tiktoken's counts. Each piece is at least one
// token, so a text's pieces bound its count from below (pieceLowerBound, for tokenBounds.ts). Pure.
//
// o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//             |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//             |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
// cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//             |\s*[\r\n]+|\s+(?!\S)|\s+
//
// \s is Unicode's White_Space, as Rust's regex crate reads it (with U+0085, without U+FEFF: not JavaScript's \s).
// A lone surrogate is taken as U+FFFD, which is what tiktoken is given for it (JavaScript strings reach it as
// UTF-8). Letters and numbers come from this Node's Unicode tables, which may be a version ahead of tiktoken's.

import { astralClass, bmpClass, LETTER, LOWER, NEWLINE, NUMBER, SPACE, UNASSIGNED, UPPER } from './pieceClasses';
import { plainPieceEnd } from './plainPieces';
import { surePieceCount } from './surePieces';

/** Which encoding's pattern: the two differ in how letters group and in what follows punctuation. */
export type PiecePattern = 'o200k' | 'cl100k';

/** The scan of one text: its code points' classes and widths, read at UTF-16 indexes. */
class Scanner {
  constructor(private readonly text: string) {}

  get length(): number {
    return this.text.length;
  }

  /** The class bits of the code point at index i (a lone surrogate is U+FFFD's: none). */
  classAt(i: number): number {
    const unit = this.text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) return bmpClass(unit);
    const codePoint = this.text.codePointAt(i) as number;
    return codePoint > 0xffff ? astralClass(codePoint) : 0;
  }

  /** How many UTF-16 units the code point at index i takes. */
  widthAt(i: number): number {
    const unit = this.text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdbff || i + 1 >= this.text.length) return 1;
    const next = this.text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }

  charAt(i: number): number {
    return this.text.charCodeAt(i);
  }

  /** The end of the run of code points from i that all have one of the bits. */
  runEnd(i: number, bits: number): number {
    let end = i;
    while (end < this.text.length && (this.classAt(end) & bits) !== 0) end += this.widthAt(end);
    return end;
  }
}

/** [^\r\n\p{L}\p{N}]: what may stand before a word. */
function isWordPrefix(classes: number): boolean {
  return (classes & (NEWLINE | LETTER | NUMBER)) === 0;
}

/** [^\s\p{L}\p{N}]: punctuation, symbols, marks and the rest. */
function isOther(classes: number): boolean {
  return (classes & (SPACE | LETTER | NUMBER)) === 0;
}

/** The end of a contraction ('s 't 're 've 'm 'll 'd, any case, ſ for s as Unicode folds it) at i, or -1. */
function contractionEnd(text: Scanner, i: number): number {
  if (i + 1 >= text.length || text.charAt(i) !== 0x27) return -1;
  const first = text.charAt(i + 1) | 0x20;
  if (first === 0x73 || first === 0x74 || first === 0x6d || first === 0x64 || text.charAt(i + 1) === 0x17f) {
    return i + 2; // s t m d ſ
  }
  if (i + 2 >= text.length) return -1;
  const second = text.charAt(i + 2) | 0x20;
  if ((first === 0x72 || first === 0x76) && second === 0x65) return i + 3; // re ve
  if (first === 0x6c && second === 0x6c) return i + 3; // ll
  return -1;
}

/** After a word ending at end, its optional contraction. */
function withContraction(text: Scanner, end: number): number {
  const contraction = contractionEnd(text, end);
  return contraction === -1 ? end : contraction;
}

/** o200k's [UPPER]*[LOWER]+ from j (with the backtracking of the greedy star): its end, or -1. */
function lowerWordEnd(text: Scanner, j: number): number {
  let k = j;
  let lastLowerEnd = -1;
  while (k < text.length) {
    const classes = text.classAt(k);
    if ((classes & UPPER) === 0) break;
    k += text.widthAt(k);
    if ((classes & LOWER) !== 0) lastLowerEnd = k;
  }
  if (k < text.length && (text.classAt(k) & LOWER) !== 0) return text.runEnd(k, LOWER);
  // The star gives back code points until one of them starts [LOWER]+; the code points after it are not LOWER.
  return lastLowerEnd;
}

/** o200k's [UPPER]+[LOWER]* from j: its end, or -1. */
function upperWordEnd(text: Scanner, j: number): number {
  const k = text.runEnd(j, UPPER);
  return k === j ? -1 : text.runEnd(k, LOWER);
}

/** cl100k's \p{L}+ from j: its end, or -1. */
function letterRunEnd(text: Scanner, j: number): number {
  const k = text.runEnd(j, LETTER);
  return k === j ? -1 : k;
}

/** [^\r\n\p{L}\p{N}]?WORD at i: with the prefix if it may be one and the word follows it, else without. */
function prefixedWordEnd(text: Scanner, i: number, word: (text: Scanner, j: number) => number): number {
  if (isWordPrefix(text.classAt(i))) {
    const end = word(text, i + text.widthAt(i));
    if (end !== -1) return end;
  }
  return word(text, i);
}

/** \p{N}{1,3} at i, or -1. */
function numberEnd(text: Scanner, i: number): number {
  let end = i;
  for (let n = 0; n < 3 && end < text.length && (text.classAt(end) & NUMBER) !== 0; n++) end += text.widthAt(end);
  return end === i ? -1 : end;
}

/** ` ?[^\s\p{L}\p{N}]+` then the trailing characters the pattern allows ([\r\n/]* or [\r\n]*), at i, or -1. */
function punctuationEnd(text: Scanner, i: number, slashTrails: boolean): number {
  let j = i;
  if (text.charAt(i) === 0x20 && i + 1 < text.length && isOther(text.classAt(i + 1))) j = i + 1;
  let end = j;
  while (end < text.length && isOther(text.classAt(end))) end += text.widthAt(end);
  if (end === j) return -1;
  for (;;) {
    const unit = text.charAt(end);
    if (end < text.length && (unit === 0x0a || unit === 0x0d || (slashTrails && unit === 0x2f))) end += 1;
    else return end;
  }
}

/** \s*[\r\n]+ | \s+(?!\S) | \s+ at i (a whitespace code point). */
function spaceEnd(text: Scanner, i: number): number {
  let end = i;
  let lastNewlineEnd = -1;
  while (end < text.length) {
    const classes = text.classAt(end);
    if ((classes & SPACE) === 0) break;
    end += 1; // White_Space is all in the BMP
    if ((classes & NEWLINE) !== 0) lastNewlineEnd = end;
  }
  // \s*[\r\n]+: the star gives back to the run's last newline, which [\r\n]+ takes alone.
  if (lastNewlineEnd !== -1) return lastNewlineEnd;
  // \s+(?!\S): the whole run at the end of the text, else all of it but its last space (which goes with what
  // follows), if that leaves one.
  if (end === text.length || end - i < 2) return end;
  return end - 1;
}

/** The end of the piece that starts at i (i < text's length), as the encoding's pattern matches it. */
function pieceEnd(text: Scanner, i: number, pattern: PiecePattern): number {
  const classes = text.classAt(i);
  let end: number;
  if (pattern === 'o200k') {
    end = prefixedWordEnd(text, i, lowerWordEnd);
    if (end !== -1) return withContraction(text, end);
    end = prefixedWordEnd(text, i, upperWordEnd);
    if (end !== -1) return withContraction(text, end);
  } else {
    end = contractionEnd(text, i);
    if (end !== -1) return end;
    end = prefixedWordEnd(text, i, letterRunEnd);
    if (end !== -1) return end;
  }
  end = numberEnd(text, i);
  if (end !== -1) return end;
  end = punctuationEnd(text, i, pattern === 'o200k');
  if (end !== -1) return end;
  if ((classes & SPACE) !== 0) return spaceEnd(text, i);
  // Unreachable: every code point is a letter, a number, whitespace or "other". Kept so the scan always moves.
  return i + text.widthAt(i);
}

/**
 * Calls visit(start, end) for each piece of text, in order; the pieces join to the whole text. A piece of plain
 * text is found by plainPieceEnd, any other by the general scanner: the same ends (tests compare both with the
 * patterns).
 */
export function forEachPiece(text: string, pattern: PiecePattern, visit: (start: number, end: number) => void): void {
  const scanner = new Scanner(text);
  for (let start = 0; start < text.length;) {
    let end = plainPieceEnd(text, start, pattern);
    if (end === -1) end = pieceEnd(scanner, start, pattern);
    visit(start, end);
    start = end;
  }
}

/** forEachPiece by the general scanner alone. */
function forEachScannedPiece(text: string, pattern: PiecePattern, visit: (start: number, end: number) => void): void {
  const scanner = new Scanner(text);
  for (let start = 0; start < text.length;) {
    const end = pieceEnd(scanner, start, pattern);
    visit(start, end);
    start = end;
  }
}

/** The pieces of text (for tests and tools; counting uses forEachPiece). */
export function piecesOf(text: string, pattern: PiecePattern): string[] {
  const pieces: string[] = [];
  forEachPiece(text, pattern, (start, end) => pieces.push(text.slice(start, end)));
  return pieces;
}

/** The pieces of text by the general scanner alone (tests hold both ways of cutting to the patterns). */
export function scannedPiecesOf(text: string, pattern: PiecePattern): string[] {
  const pieces: string[] = [];
  forEachScannedPiece(text, pattern, (start, end) => pieces.push(text.slice(start, end)));
  return pieces;
}

/**
 * Cuts text into parts of about partChars (longer where no cut can be made) whose pieces, scanned part by part,
 * are the whole text's. Each cut is at a hard boundary (isHardBoundary): no piece spans it (the whitespace starts
 * the next one, as its prefix or as whitespace), and no alternative looks back across it or ahead past it.
 */
export function restartableParts(text: string, partChars: number): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let cut = start + partChars; cut < text.length; cut++) {
    if (!isHardBoundary(text, cut)) continue;
    parts.push(text.slice(start, cut));
    start = cut;
    cut = start + partChars - 1;
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * A lower bound of text's token count in the pattern's encoding, from its pieces, that holds whatever Unicode
 * version tiktoken reads letters and numbers in. The text is cut at its hard boundaries (whitespace other than
 * \r or \n after a character that is not whitespace), which every reading of the patterns cuts at and restarts
 * from. Within a stretch between two of them, the pieces before its first unsure character (each ending before
 * a sure one, which decided where it ends) are tiktoken's pieces too, a token or more each; the rest of the
 * stretch counts one (it is a piece or more). Sure: ASCII, and the punctuation, symbols and spaces this Node
 * assigns (a symbol new to tiktoken is unassigned there, which the patterns read as a symbol too). Unsure: any
 * other letter, number or mark, and what this Node leaves unassigned: those two tables may read them apart.
 *
 * This bound is worked out before the judging, on a cold V8. A text that is sure throughout (most) is counted
 * by surePieceCount's regular expressions, in native code. In any other text, pieces of plain text (ASCII and
 * assigned punctuation and symbols) are found by plainPieceEnd, without the general scanner's alternatives, and a
 * stretch where it meets anything else is bounded again by the general scanner (scannedLowerBound). All give the
 * same bound: tests compare them.
 */
export function pieceLowerBound(text: string, pattern: PiecePattern): number {
  const sure = surePieceCount(text, pattern);
  if (sure !== undefined) return sure;
  let bound = 0;
  let stretchStart = 0;
  let boundBeforeStretch = 0;
  for (let start = 0; start < text.length;) {
    if (start > 0 && isHardBoundary(text, start)) {
      stretchStart = start;
      boundBeforeStretch = bound;
    }
    const end = plainPieceEnd(text, start, pattern);
    if (end !== -1) {
      bound += 1;
      start = end;
      continue;
    }
    // Not all plain: this whole stretch is the general scanner's (a stretch's pieces are the whole text's there).
    let stretchEnd = start + 1;
    while (stretchEnd < text.length && !isHardBoundary(text, stretchEnd)) stretchEnd += 1;
    bound = boundBeforeStretch + scannedLowerBound(text.slice(stretchStart, stretchEnd), pattern);
    stretchStart = stretchEnd;
    boundBeforeStretch = bound;
    start = stretchEnd;
  }
  return bound;
}

/** pieceLowerBound by the general scanner alone (the reference its fast path is tested against). */
export function scannedLowerBound(text: string, pattern: PiecePattern): number {
  let bound = 0;
  let unsure = false; // the stretch has met an unsure character: its rest counts one, already added
  forEachScannedPiece(text, pattern, (start, end) => {
    if (start > 0 && isHardBoundary(text, start)) unsure = false;
    if (unsure) return;
    bound += 1;
    // The piece's characters and the one after it (which ended it) must all be sure.
    for (let i = start; i <= end && i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit <= 0x7f) continue;
      const codePoint = text.codePointAt(i) as number;
      if (codePoint > 0xffff) i++;
      const classes = codePoint > 0xffff ? astralClass(codePoint) : bmpClass(unit);
      if ((classes & (UPPER | LOWER | LETTER | NUMBER | UNASSIGNED)) !== 0) {
        unsure = true;
        return;
      }
    }
  });
  return bound;
}

/**
 * Whitespace other than \r or \n at i, after a character that is not whitespace (i > 0; a surrogate before it is
 * part of a code point that is not whitespace): every reading of the patterns ends a piece before it.
 */
function isHardBoundary(text: string, i: number): boolean {
  const unit = text.charCodeAt(i);
  if (unit === 0x0a || unit === 0x0d || (bmpClass(unit) & SPACE) === 0) return false;
  const before = text.charCodeAt(i - 1);
  return (before >= 0xd800 && before <= 0xdfff) || (bmpClass(before) & SPACE) === 0;
}
