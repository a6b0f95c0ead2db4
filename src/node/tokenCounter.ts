// Exact token counts with tiktoken, loaded lazily on the first count (never at activation or start-up). Texts are
// counted piece by piece (the encoding's pre-tokenizer pieces), each distinct piece encoded once per thread.

import type { TokenCounter } from '../core/model';
import { forEachPiece, type PiecePattern } from '../core/tokenPieces';

export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];
export const DEFAULT_ENCODING: EncodingName = 'o200k_base';

/** Pieces longer than this are counted in parts of this size: BPE time grows with a piece's square. */
const PART_CHARS = 100;
/** Pieces up to this length keep their counts (longer ones are mostly one-off: hashes, long runs). */
const CACHED_PIECE_CHARS = 64;
/** Most pieces kept per encoding; the cache starts again when it is full, which bounds its memory (~10 MB). */
const MAX_CACHED_PIECES = 200_000;

interface Encoder {
  encode_ordinary(text: string): Uint32Array;
}

const encoders = new Map<EncodingName, Encoder>();

function encoderFor(encoding: EncodingName): Encoder {
  let encoder = encoders.get(encoding);
  if (encoder === undefined) {
    // Required here, not at the top: loading the wasm and the ranks costs ~0.5 s.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tiktoken = require('tiktoken') as { get_encoding(name: EncodingName): Encoder };
    encoder = tiktoken.get_encoding(encoding);
    encoders.set(encoding, encoder);
  }
  return encoder;
}

export function isEncodingName(value: string): value is EncodingName {
  return (ENCODINGS as readonly string[]).includes(value);
}

/** Each encoding's counts of the pieces met so far, shared by its counters in this thread. */
const pieceCounts = new Map<EncodingName, Map<string, number>>();

function countsFor(encoding: EncodingName): Map<string, number> {
  let counts = pieceCounts.get(encoding);
  if (counts === undefined) {
    counts = new Map();
    pieceCounts.set(encoding, counts);
  }
  return counts;
}

/** tiktoken's count of one piece; a piece longer than PART_CHARS is counted in parts (never splitting a pair). */
function countPiece(encoder: Encoder, piece: string): number {
  if (piece.length <= PART_CHARS) return encoder.encode_ordinary(piece).length;
  let total = 0;
  for (let start = 0; start < piece.length;) {
    let end = Math.min(piece.length, start + PART_CHARS);
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    total += encoder.encode_ordinary(piece.slice(start, end)).length;
    start = end;
  }
  return total;
}

/**
 * Counts a text's tokens as tiktoken would, piece by piece: the text is cut into the encoding's pieces
 * (tokenPieces.ts), and each distinct piece is encoded once per thread, so a large transcript's repeated words
 * cost a map lookup. The total equals encode_ordinary's on the whole text, but for pieces over PART_CHARS (long
 * runs without a break), counted in parts, which may differ by about a token per part.
 */
export function createTokenCounter(encoding: EncodingName = DEFAULT_ENCODING): TokenCounter {
  const pattern = piecePatternOf(encoding);
  return (text: string) => {
    if (text === '') return 0;
    const encoder = encoderFor(encoding);
    const counts = countsFor(encoding);
    let total = 0;
    forEachPiece(text, pattern, (start, end) => {
      if (end - start > CACHED_PIECE_CHARS) {
        total += countPiece(encoder, text.slice(start, end));
        return;
      }
      const piece = text.slice(start, end);
      let count = counts.get(piece);
      if (count === undefined) {
        count = countPiece(encoder, piece);
        if (counts.size >= MAX_CACHED_PIECES) counts.clear();
        counts.set(ownCopy(piece), count);
      }
      total += count;
    });
    return total;
  };
}

/**
 * A copy of a piece that does not hold on to the text it was cut from. V8 makes a slice of 13 characters or more
 * a view into its text, so a cached piece would keep every text that brought a new piece alive (a worker
 * counting 60 KB tool outputs would keep them all); prefixing a character makes V8 copy the characters, and the
 * slice after it is a view into that small copy.
 */
function ownCopy(piece: string): string {
  return ` ${piece}`.slice(1);
}

/** The pre-tokenizer pattern an encoding uses. */
export function piecePatternOf(encoding: EncodingName): PiecePattern {
  return encoding === 'cl100k_base' ? 'cl100k' : 'o200k';
}
