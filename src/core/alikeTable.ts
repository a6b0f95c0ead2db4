// One object for values alike. An analysis keeps many small objects that are equal to others: the same piece of
// evidence in many turns' results, the same piece in many turns' cached evidence. A table of the values seen, by a
// string key, gives back the one seen before when a new value is the same by the caller's test, so the new one
// dies young instead of being copied and kept by the garbage collector. Only for values never modified once made.
// Bounded: a key keeps at most `variants` values (later ones are given back as they are, not kept), and past
// `values` values kept in all the table starts again, empty. A key's first value is kept on its own, not in an
// array: most keys have one, and an array each was 22 MB of the heap a 100k-turn analysis keeps (380 → 358 MB,
// docs/performance-history.md, "A collection after the read"). Pure: no I/O.

/** How much an AlikeTable keeps at most. */
export interface AlikeLimits {
  /** Values kept per key. */
  variants: number;
  /** Values kept in all, before the table starts again. */
  values: number;
}

export class AlikeTable<T> {
  /** Each key's first value: most keys have one, so it is kept without an array around it. */
  private firstOf = new Map<string, T>();
  /** A key's further values, for the few keys with more than one. */
  private moreOf = new Map<string, T[]>();
  private kept = 0;

  /** `same(a, b)`: whether two values under one key are alike (the same in every field). */
  constructor(
    private readonly same: (a: T, b: T) => boolean,
    private readonly limits: AlikeLimits,
  ) {}

  /** The value seen before under `key` that is the same as `value`, or `value` itself (kept for later). */
  alike(key: string, value: T): T {
    let first = this.firstOf.get(key);
    let more: T[] | undefined;
    if (first !== undefined) {
      if (this.same(first, value)) return first;
      more = this.moreOf.get(key);
      if (more !== undefined) for (let k = 0; k < more.length; k++) if (this.same(more[k], value)) return more[k];
      if (1 + (more?.length ?? 0) >= this.limits.variants) return value;
    }
    if (this.kept >= this.limits.values) {
      this.clear();
      first = undefined;
      more = undefined;
    }
    if (first === undefined) this.firstOf.set(key, value);
    else if (more !== undefined) more.push(value);
    else this.moreOf.set(key, [value]);
    this.kept++;
    return value;
  }

  /** Values kept now. */
  get size(): number {
    return this.kept;
  }

  /** Forgets every value. */
  clear(): void {
    this.firstOf = new Map();
    this.moreOf = new Map();
    this.kept = 0;
  }
}
