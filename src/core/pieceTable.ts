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

/** Whether two values of a piece's field are the same: equal, or arrays of equal strings. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether two pieces have the same fields with the same values (whatever fields pieces come to have). */
function samePiece(a: EvidencePiece, b: EvidencePiece): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  let fields = 0;
  for (const name in x) {
    if (!sameValue(x[name], y[name])) return false;
    fields++;
  }
  for (const _name in y) fields--;
  return fields === 0;
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
