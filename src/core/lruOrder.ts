// The order of use of a cache's entries (EvidenceCache's), least recently used first, as a queue of records: each
// use of an entry adds one at the recent end with the use's number, and a record whose number is no longer its
// entry's (used again since) is stale, skipped when met and dropped when the queue is compacted. The cache's Map
// kept the order before, an entry moved to its end by a delete and a set at each use and the oldest found by
// iterating from its start; V8's Map made both cost time that grows with its size. Moving one key again and again
// took 2 µs a move in a Map of 1,000 keys, 23 µs in one of 50,000; the two tool calls that 25,000 turns of the
// generated 100k-turn Claude Code file hold between them spent 11.5 s there, of the 23 s profile of its analysis
// and re-analysis. Iterating from the start passes every key deleted before it (until V8 rehashes the table):
// 200,000 texts through a cache of 4M characters took 4.8 s against 0.9 s to work out their pieces
// (docs/performance-history.md, "The evidence cache's order as a queue"). Pure: no I/O.

/** What the order keeps of an entry: the number of its last use (set here), and whether the cache let it go. */
export interface OrderedEntry {
  used: number;
  evicted?: true;
}

/** Records LruOrder may hold beyond two an entry before it is compacted. */
const ORDER_SLACK = 1024;

export class LruOrder<T extends OrderedEntry> {
  private entries: T[] = [];
  /** The use number of each record. */
  private uses: number[] = [];
  /** The first record not yet taken. */
  private head = 0;
  private count = 0;

  /** Notes a use of `entry` (new or kept), `held` entries being in the cache. */
  use(entry: T, held: number): void {
    entry.used = ++this.count;
    this.entries.push(entry);
    this.uses.push(entry.used);
    // Stale and taken records are dropped once they could outnumber the live ones, so the queue holds at most two
    // records an entry held, plus ORDER_SLACK: a compaction copies at most `held` records, once in `held` uses or more.
    if (this.entries.length > 2 * held + ORDER_SLACK) this.compact();
  }

  /** Records in the queue, stale and taken ones included. */
  get length(): number {
    return this.entries.length;
  }

  /**
   * Takes the least recently used entry out of the order (the caller lets it go); undefined when none is left but
   * `keep`, which stays.
   */
  oldest(keep: T): T | undefined {
    for (; this.head < this.entries.length; this.head++) {
      const entry = this.entries[this.head];
      if (entry.evicted === true || entry.used !== this.uses[this.head]) continue; // stale
      if (entry === keep) return undefined;
      this.head++;
      return entry;
    }
    return undefined;
  }

  /** Keeps only each entry's latest record, in order. */
  private compact(): void {
    const entries: T[] = [];
    const uses: number[] = [];
    for (let k = this.head; k < this.entries.length; k++) {
      const entry = this.entries[k];
      if (entry.evicted === true || entry.used !== this.uses[k]) continue;
      entries.push(entry);
      uses.push(this.uses[k]);
    }
    this.entries = entries;
    this.uses = uses;
    this.head = 0;
  }

  /** Forgets every record. */
  clear(): void {
    this.entries = [];
    this.uses = [];
    this.head = 0;
  }
}
