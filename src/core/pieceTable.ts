// Pieces alike, one object. Turns name the same things over and over (a file, a function, a term), and each turn's
// extraction makes its own pieces for them: at 100k generated turns, 1.17M pieces were 439k distinct ones. The
// evidence cache keeps a turn's pieces for the whole analysis and between analyses, so it keeps the piece found in
// its AlikeTable (keyed by the piece's key) rather than the turn's own. Pieces are never modified once made.
import { AlikeTable, type AlikeLimits } from './alikeTable';
import type { EvidencePiece, TurnPieces } from './evidence';

/**
 * Every field a piece may have. `satisfies` makes the compiler ask for a field added to EvidencePiece here, and
 * the tests change each field listed and expect the piece told apart, so samePiece cannot fall behind.
 */
export const PIECE_FIELDS = {
  text: true,
  kind: true,
  key: true,
  shareKey: true,
  alt: true,
  parts: true,
  file: true,
  introduced: true,
  fromCall: true,
  fromReasoning: true,
  toolName: true,
} as const satisfies Record<keyof EvidencePiece, true>;

/** Whether two lists of strings (or their absence) are the same. */
function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether two pieces have the same value in every field of PIECE_FIELDS (an absent field as undefined). */
export function samePiece(a: EvidencePiece, b: EvidencePiece): boolean {
  return (
    a.text === b.text &&
    a.kind === b.kind &&
    a.key === b.key &&
    a.shareKey === b.shareKey &&
    a.file === b.file &&
    a.introduced === b.introduced &&
    a.fromCall === b.fromCall &&
    a.fromReasoning === b.fromReasoning &&
    a.toolName === b.toolName &&
    sameStrings(a.alt, b.alt) &&
    sameStrings(a.parts, b.parts)
  );
}

/** Variants kept per key (a key's pieces differ in kind, alternatives or flags), and pieces kept in all. */
export const PIECE_LIMITS: AlikeLimits = { variants: 8, values: 1 << 19 };

/** A table of the pieces a cache's turns hold alike, keyed by the piece's key. */
export type PieceTable = AlikeTable<EvidencePiece>;

/**
 * Characters of text per distinct piece, at the fewest measured (100k generated turns: 24M characters, 439k
 * distinct pieces, one in 55): a cache keyed on `n` characters of text holds about n / 64 distinct pieces at most.
 */
const CHARS_PER_DISTINCT_PIECE = 64;

/**
 * A new, empty PieceTable for a cache keyed on at most `cachedChars` characters of text: it keeps no more
 * distinct pieces than such a cache can hold (PIECE_LIMITS.values at most). A larger table would keep pieces the
 * cache has let go: a small cache (a large file read once) with a full-size table kept some 100 MB more.
 */
export function pieceTable(cachedChars = Infinity): PieceTable {
  const values = Math.max(1024, Math.min(PIECE_LIMITS.values, Math.ceil(cachedChars / CHARS_PER_DISTINCT_PIECE)));
  return new AlikeTable(samePiece, { variants: PIECE_LIMITS.variants, values });
}

/**
 * `made`, just made by turnPieces and seen by no one else, with each of its pieces replaced by the one alike in
 * `table` (in place).
 */
export function sharePieces(table: PieceTable, made: TurnPieces): TurnPieces {
  const pieces = made.pieces;
  for (let k = 0; k < pieces.length; k++) pieces[k] = table.alike(pieces[k].key, pieces[k]);
  return made;
}
