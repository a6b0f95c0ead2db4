// The classes of code points that tiktoken's pre-tokenizer patterns tell apart (letters of either case, numbers,
// White_Space, newlines, unassigned), as bits, read from this Node's Unicode property escapes and kept in a table
// filled as code points are met. Shared by the general scanner (tokenPieces.ts) and its plain-text fast path
// (plainPieces.ts). Pure.

// Class bits of a code point.
/** [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]: o200k's leading letters. */
export const UPPER = 1;
/** [\p{Ll}\p{Lm}\p{Lo}\p{M}]: o200k's trailing letters. */
export const LOWER = 2;
/** \p{L} */
export const LETTER = 4;
/** \p{N} */
export const NUMBER = 8;
/** \s (White_Space) */
export const SPACE = 16;
/** \r or \n */
export const NEWLINE = 32;
/** Unassigned in this Node's Unicode tables (\p{Cn}). */
export const UNASSIGNED = 64;

/** Not classified yet (a bit no class uses). */
const UNKNOWN = 128;

/** The class bits of each BMP code point, each classified when first met (most texts use a few hundred). */
const bmpClasses = new Uint8Array(0x10000).fill(UNKNOWN);
const astralClasses = new Map<number, number>();

const CLASS_TESTS: readonly [RegExp, number][] = [
  [/[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u, UPPER],
  [/[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u, LOWER],
  [/\p{L}/u, LETTER],
  [/\p{N}/u, NUMBER],
];

/** Unicode's White_Space code points (all in the BMP). */
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009,
  0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** The class bits of a code point, from the Unicode property escapes (a lone surrogate has none, as U+FFFD). */
function classify(codePoint: number): number {
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return 0;
  const char = String.fromCodePoint(codePoint);
  let classes = 0;
  for (const [test, bit] of CLASS_TESTS) if (test.test(char)) classes |= bit;
  if (WHITE_SPACE.has(codePoint)) classes |= SPACE;
  if (codePoint === 0x0a || codePoint === 0x0d) classes |= NEWLINE;
  if (UNASSIGNED_TEST.test(char)) classes |= UNASSIGNED;
  return classes;
}

const UNASSIGNED_TEST = /\p{Cn}/u;

/** The class bits of a BMP code unit (a surrogate's are none: callers read pairs through astralClass). */
export function bmpClass(unit: number): number {
  let classes = bmpClasses[unit];
  if (classes === UNKNOWN) {
    classes = classify(unit);
    bmpClasses[unit] = classes;
  }
  return classes;
}

export function astralClass(codePoint: number): number {
  let classes = astralClasses.get(codePoint);
  if (classes === undefined) {
    classes = classify(codePoint);
    astralClasses.set(codePoint, classes);
  }
  return classes;
}
