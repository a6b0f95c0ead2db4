// Compresses a set of turn ids into ranges in log order ("380–419, 500"). Ranges follow positions in the turn
// list, not numeric adjacency: ids 7 and 9 are one range when no turn sits between them in the log.
import type { IdRange, TurnId } from './model';

/** Ranges of `subset` over `orderedIds` (every turn id in log order). Ids not in `orderedIds` are ignored. */
export function idRanges(orderedIds: readonly TurnId[], subset: Iterable<TurnId>): IdRange[] {
  return idRangesOf(orderedIds.length, (i) => orderedIds[i], subset);
}

/** idRanges over `count` ordered ids, each position's id given by `idAt` (no array of them all made). */
export function idRangesOf(count: number, idAt: (index: number) => TurnId, subset: Iterable<TurnId>): IdRange[] {
  const wanted = subset instanceof Set ? (subset as Set<TurnId>) : new Set<TurnId>(subset);
  return rangesFromIndexes(idAt, positionsOf(count, idAt, wanted));
}

/** The positions whose id is wanted, in order. */
function* positionsOf(count: number, idAt: (index: number) => TurnId, wanted: Set<TurnId>): Generator<number, void, void> {
  for (let i = 0; i < count; i++) if (wanted.has(idAt(i))) yield i;
}

/**
 * Ranges from positions (ascending) into the ordered ids, each position's id given by `idAt`; consecutive
 * positions form one range. (A function rather than an array: the analysis asks its turns, with no array of
 * millions of ids made for a few ranges.)
 */
export function rangesFromIndexes(idAt: (index: number) => TurnId, indexes: Iterable<number>): IdRange[] {
  const ranges: IdRange[] = [];
  let start = -1;
  let prev = -2;
  const close = (): void => {
    if (start >= 0) ranges.push({ from: idAt(start), to: idAt(prev), count: prev - start + 1 });
  };
  for (const i of indexes) {
    if (i === prev + 1) {
      prev = i;
      continue;
    }
    close();
    start = i;
    prev = i;
  }
  close();
  return ranges;
}

/** "380–419, 500": an en dash for a range, the id alone for a range of one; "" when there are none. */
export function formatRanges(ranges: readonly IdRange[]): string {
  return ranges.map((r) => (r.count === 1 ? String(r.from) : `${String(r.from)}–${String(r.to)}`)).join(', ');
}
