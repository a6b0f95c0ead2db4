// One object for values alike. An analysis keeps many small objects that are equal to others: the same piece of
// evidence in many turns' results, the same piece in many turns' cached evidence. A table of the values seen, by a
// string key, gives back the one seen before when a new value is the same by the caller's test, so the new one
// dies young instead of being copied and kept by the garbage collector. Only for values never modified once made.
// Bounded: a key keeps at most `variants` values (later ones are given back as they are, not kept), and past
// `values` values kept in all the table starts again, empty. Pure: no I/O.

/** How much an AlikeTable keeps at most. */
export interface AlikeLimits {
  /** Values kept per key. */
  variants: number;
  /** Values kept in all, before the table starts again. */
  values: number;
}

export class AlikeTable<T> {
  private byKey = new Map<string, T[]>();
  private kept = 0;

  /** `same(a, b)`: whether two values under one key are alike (the same in every field). */
  constructor(
    private readonly same: (a: T, b: T) => boolean,
    private readonly limits: AlikeLimits,
  ) {}

  /** The value seen before under `key` that is the same as `value`, or `value` itself (kept for later). */
  alike(key: string, value: T): T {
    let variants = this.byKey.get(key);
    if (variants !== undefined) {
      for (let k = 0; k < variants.length; k++) if (this.same(variants[k], value)) return variants[k];
      if (variants.length >= this.limits.variants) return value;
    }
    if (this.kept >= this.limits.values) {
      this.clear();
      variants = undefined;
    }
    if (variants) variants.push(value);
    else this.byKey.set(key, [value]);
    this.kept++;
    return value;
  }

  /** Values kept now. */
  get size(): number {
    return this.kept;
  }

  /** Forgets every value. */
  clear(): void {
    this.byKey = new Map();
    this.kept = 0;
  }
}
