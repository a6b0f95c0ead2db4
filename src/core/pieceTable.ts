// One object for each distinct piece of evidence among the turns an EvidenceCache holds. Turns name the same
// things over and over (a file, a function, a term), and each turn's extraction makes its own pieces for them: at
// 100k generated turns, 1.17M pieces were 439k distinct ones. The cache keeps a turn's pieces for the whole
// analysis and between analyses, so it keeps the one object found here rather than the turn's own, which then
// dies young instead of being copied and kept by the garbage collector. Pieces are never modified once made, so
// sharing them changes nothing. Bounded: a key keeps at most MAX_PIECE_VARIANTS pieces, and past MAX_TABLE_KEYS
// keys the table starts again, empty.
import type { EvidencePiece, TurnPieces } from './evidence';

/** Keys the table holds at most before it starts again. */
export const MAX_TABLE_KEYS = 1 << 19;

/** Pieces kept per key at most (a key's pieces differ in kind, alternatives or flags). */
export const MAX_PIECE_VARIANTS = 8;

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
function samePiece(a: EvidencePiece, b: EvidencePiece): boolean {
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

export class PieceTable {
  private byKey = new Map<string, EvidencePiece[]>();

  /** The piece like `p` seen before, or `p` (kept for later). */
  shared(p: EvidencePiece): EvidencePiece {
    const variants = this.byKey.get(p.key);
    if (variants === undefined) {
      if (this.byKey.size >= MAX_TABLE_KEYS) this.byKey = new Map();
      this.byKey.set(p.key, [p]);
      return p;
    }
    for (let k = 0; k < variants.length; k++) if (samePiece(variants[k], p)) return variants[k];
    if (variants.length < MAX_PIECE_VARIANTS) variants.push(p);
    return p;
  }

  /**
   * `made`, just made by turnPieces and seen by no one else, with each of its pieces replaced by the one like it
   * seen before (in place).
   */
  share(made: TurnPieces): TurnPieces {
    const pieces = made.pieces;
    for (let k = 0; k < pieces.length; k++) pieces[k] = this.shared(pieces[k]);
    return made;
  }

  /** Distinct keys held now. */
  get size(): number {
    return this.byKey.size;
  }

  /** Forgets every piece. */
  clear(): void {
    this.byKey = new Map();
  }
}
