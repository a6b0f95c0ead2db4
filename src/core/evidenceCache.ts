// The evidence of turns, memoised by what it is computed from (the turn's text, role, the call it answers, its
// error flag and reasoning, and whether its calls are answered separately), so a re-analysis — the same file
// read again, or grown by appended lines — costs about its parse: turnPieces runs once per distinct turn, as a
// text is tokenized once (TokenCache). Kept by whoever keeps a file's token cache (the extension's
// TranscriptStore, per file, dropped with it), bounded by the characters it keys on (least recently used first
// out; a pass over more text than that keeps none of the texts it computes, piecesInLongPass, but those several turns
// hold while they fit, with several checkpoints: piecesAt). Cached results are shared between analyses and never
// modified, so a hit gives exactly what turnPieces would. Pieces alike across turns are one object (pieceTable.ts),
// which keeps the cache a third of the objects it would be.
import { turnPieces, type TurnPieces } from './evidence';
import type { Turn } from './model';
import { LruOrder } from './lruOrder';
import { pieceTable, sharePieces, type PieceTable } from './pieceTable';
import { hashOfText } from './turnIdIndex';

/** Default bound on the characters of the texts the cache keys on (the cached pieces grow with them). */
export const DEFAULT_EVIDENCE_CACHE_CHARS = 32 * 1024 * 1024;

/** Slots of the table of texts met in long passes (RepeatedTexts): a power of two, 2 MB in all. */
export const REPEAT_SLOTS = 1 << 18;

interface Entry {
  /** The turn's text ('' once evicted). */
  text: string;
  /** The first variant of that text (role, call answered, flags, reasoning: variantKey) and its pieces. */
  variant: string;
  pieces: TurnPieces;
  /** Let go of: no longer in the cache, its texts and pieces released (an EvidenceSlots entry may still name it). */
  evicted?: true;
  /**
   * Any further variants and their pieces. Most texts have one variant, so the map is made only for a second:
   * an empty map for each of 100k texts was some 20 MB.
   */
  more?: Map<string, TurnPieces>;
  /** The characters this entry holds keys of. */
  chars: number;
  /** The number of its last use (EvidenceCache's count of uses): its latest record in the cache's order. */
  used: number;
}

/**
 * Where each turn of one transcript had its pieces found (EvidenceCache.piecesAt), by the turn's index: a turn
 * asked for again, by the next checkpoint's sharing counts and judging, is answered from its entry with no text read
 * (from disk, for a large file) or hashed and no variant made. A file of 78 condensations, each claiming every
 * turn before it, spent 10 of its 33 s in the lookups. Eight bytes and one a turn; an evicted entry keeps nothing
 * but its small object.
 */
export class EvidenceSlots {
  readonly entries: (Entry | undefined)[];
  /** Whether the entry was found with the turn's calls answered separately (1) or not (0). */
  readonly separately: Uint8Array;

  constructor(turns: number) {
    this.entries = new Array<Entry | undefined>(turns).fill(undefined);
    this.separately = new Uint8Array(turns);
  }
}

export class EvidenceCache {
  /** Each text's entry. The Map is only looked in: its own order is not the eviction order (lruOrder.ts says why). */
  private readonly entries = new Map<string, Entry>();
  private readonly order = new LruOrder<Entry>();
  /** The pieces the cached turns hold alike, one object each (bounded on its own). */
  private readonly table: PieceTable;
  private readonly maxChars: number;
  private chars = 0;
  private hitCount = 0;
  private missCount = 0;
  /** Characters of text whose pieces were worked out, not answered from the cache, since it was made. */
  private workedChars = 0;
  /** The texts a long pass met, to keep one met again at another turn (made at the first long pass's miss). */
  private repeats: RepeatedTexts | undefined;

  /** `maxChars` bounds the characters of the keys kept (texts, calls answered, reasoning). */
  constructor(options: { maxChars?: number } = {}) {
    const max = options.maxChars;
    this.maxChars = typeof max === 'number' && Number.isFinite(max) && max >= 0 ? max : DEFAULT_EVIDENCE_CACHE_CHARS;
    this.table = pieceTable(this.maxChars);
  }

  /** turnPieces(turn, answeredSeparately), computed once per distinct input while it stays cached. */
  piecesOf(turn: Turn, answeredSeparately: boolean): TurnPieces {
    return this.lookUp(turn, answeredSeparately, true);
  }

  /**
   * piecesOf for a pass over more text than the cache holds (a large file's checkpoint, met turn by turn, pass
   * after pass): a cached text is answered from the cache, and any other is computed and not kept. Least
   * recently used first out, such a pass let each text go before the next pass met it again, and paid to make its
   * pieces one with those alike and to keep them, for no later hit. Keeping the first texts met while there was
   * room made V8 pretenure the extraction's allocation sites (most of their objects lived, at first), so every
   * later text's pieces, garbage at once, were made in the old generation: 300k generated turns analysed with a
   * cache of 32M characters took 55.0 s least recently used first out, 28.5 s keeping the first texts, and 22.4 s
   * keeping none (docs/performance-history.md, "A long pass through the evidence cache").
   */
  piecesInLongPass(turn: Turn, answeredSeparately: boolean): TurnPieces {
    return this.lookUp(turn, answeredSeparately, false);
  }

  /**
   * piecesOf (`keep`) or piecesInLongPass of the turn at `index` of the transcript `slots` are for: answered from
   * the entry it was last found in while that is cached, else looked up and its entry noted. In a long pass, a text
   * another turn held in a long pass before is kept too, if it fits without letting another go (RepeatedTexts).
   */
  piecesAt(slots: EvidenceSlots, index: number, turn: Turn, answeredSeparately: boolean, keep: boolean): TurnPieces {
    const entry = slots.entries[index];
    if (entry !== undefined && entry.evicted !== true && slots.separately[index] === (answeredSeparately ? 1 : 0)) {
      this.touch(entry);
      this.hitCount++;
      return entry.pieces;
    }
    return this.lookUp(turn, answeredSeparately, keep || this.keptAgain(turn, answeredSeparately, index), slots, index);
  }

  /** The cached pieces of the turn, or turnPieces computed (and kept when `keep`); its entry noted in `slots`. */
  private lookUp(turn: Turn, answeredSeparately: boolean, keep: boolean, slots?: EvidenceSlots, index = 0): TurnPieces {
    const text = typeof turn.text === 'string' ? turn.text : '';
    const variant = variantKey(turn, answeredSeparately);
    const entry = this.entries.get(text);
    if (entry) {
      const first = entry.variant === variant;
      const hit = first ? entry.pieces : entry.more?.get(variant);
      this.touch(entry);
      if (hit) {
        this.hitCount++;
        // Only an entry's first variant is noted: a slot is answered by entry.pieces.
        if (first && slots) note(slots, index, entry, answeredSeparately);
        return hit;
      }
    }
    this.missCount++;
    this.workedChars += text.length;
    const made = turnPieces(turn, answeredSeparately);
    if (!keep) return made;
    const pieces = sharePieces(this.table, made);
    const stored = this.store(text, variant, pieces, entry);
    if (stored !== undefined && stored.variant === variant && slots) note(slots, index, stored, answeredSeparately);
    return pieces;
  }

  /**
   * Whether a long pass keeps the pieces of the turn at `index`: its text is one another turn held in a long pass
   * before it (RepeatedTexts), and it fits in the cache as it is. Letting other texts go for it would churn: a file
   * with more such texts than the cache holds would keep each, and let it go before it was met again. (Decided here,
   * not in lookUp: a branch there that a long pass of one checkpoint never took made that pass's `check` of a 1 GB
   * file 60% slower, 238 → 387 s in paired runs, and peak 32 MB higher.)
   */
  private keptAgain(turn: Turn, answeredSeparately: boolean, index: number): boolean {
    const text = typeof turn.text === 'string' ? turn.text : '';
    const variant = variantKey(turn, answeredSeparately);
    const entry = this.entries.get(text);
    if (this.chars + variant.length + (entry ? 0 : text.length) > this.maxChars) return false;
    this.repeats ??= new RepeatedTexts();
    return this.repeats.metElsewhere(text, index);
  }

  /** Most recently used last. */
  private touch(entry: Entry): void {
    this.order.use(entry, this.entries.size);
  }

  /** The bound on the characters of the keys held (maxChars). */
  get limit(): number {
    return this.maxChars;
  }

  /** Characters of the keys held now (at most maxChars). */
  get size(): number {
    return this.chars;
  }

  /** Distinct texts held now. */
  get texts(): number {
    return this.entries.size;
  }

  /** Records of use kept to order the texts (at most two a text held, plus 1,024). */
  get orderRecords(): number {
    return this.order.length;
  }

  /** Characters of text whose pieces were worked out (lookups not answered from the cache) since it was made. */
  get charsWorked(): number {
    return this.workedChars;
  }

  /** Lookups answered from the cache, and computed, since it was made. */
  get stats(): { hits: number; misses: number } {
    return { hits: this.hitCount, misses: this.missCount };
  }

  /** Forgets everything. */
  clear(): void {
    for (const entry of this.entries.values()) release(entry);
    this.entries.clear();
    this.order.clear();
    this.table.clear();
    this.chars = 0;
  }

  /** Keeps the pieces of a text's variant; the entry that holds them, or undefined when they are not kept. */
  private store(text: string, variant: string, pieces: TurnPieces, existing: Entry | undefined): Entry | undefined {
    const cost = variant.length + (existing ? 0 : text.length);
    // An entry that would outgrow the whole cache on its own is not kept: it is computed each time.
    if ((existing?.chars ?? 0) + cost > this.maxChars) return undefined;
    let entry = existing;
    if (entry) {
      entry.more ??= new Map<string, TurnPieces>();
      entry.more.set(variant, pieces);
      entry.chars += variant.length;
    } else {
      entry = { text, variant, pieces, chars: text.length + variant.length, used: 0 };
      this.entries.set(text, entry);
      this.order.use(entry, this.entries.size);
    }
    this.chars += cost;
    this.evict(entry);
    return entry;
  }

  /** Drops least recently used texts until the cache is within its bound again (never `keep`, just stored). */
  private evict(keep: Entry): void {
    while (this.chars > this.maxChars) {
      const entry = this.order.oldest(keep);
      if (entry === undefined) return;
      this.entries.delete(entry.text);
      this.chars -= entry.chars;
      release(entry);
    }
  }
}

/**
 * The texts long passes of an analysis of several checkpoints met (EvidenceCache.piecesAt), by a hash, each with the
 * turn it was last met at: a text met again at another turn is one that several turns hold, and a long pass keeps it
 * while it fits. A long pass keeps none of the texts it computes, as the cache cannot hold them all, and so kept none
 * of those either: a file of many checkpoints, each claiming every turn before it, worked out the same texts' pieces
 * again for every turn that held them, in every pass. An OpenHands file
 * of 520 MB whose 78 condensations each claim more text than the cache holds (`repeatCorpus.mjs`, whose turns repeat
 * the corpus's few texts) spent 101 of the first 150 s of its `check` in turnPieces, where one of 312 MB, whose first
 * condensation's pass was short enough to keep its texts, took 48 s in all. Texts each turn holds alone are never
 * kept, as before: a turn met again in the next pass is at the same index. One hash and one index a slot, the last
 * met there: a slot another text took only loses a text to keep, and a hash alike only keeps a text more (the
 * cache is still keyed by the text itself). A file of one checkpoint keeps none, as before: kept in its long passes,
 * the texts a generated 1 GB canonical file repeats made its `check` take 426 s instead of 261, and 27 MB more.
 */
class RepeatedTexts {
  private readonly hashes = new Int32Array(REPEAT_SLOTS);
  /** The turn index plus one of the text last met in each slot (0: none). */
  private readonly turns = new Int32Array(REPEAT_SLOTS);

  /** Whether `text` was last met at a turn other than `index`; notes it at `index`. */
  metElsewhere(text: string, index: number): boolean {
    const hash = hashOfText(text) | 0;
    const slot = hash & (REPEAT_SLOTS - 1);
    const at = this.turns[slot];
    const again = at !== 0 && at !== index + 1 && this.hashes[slot] === hash;
    this.hashes[slot] = hash;
    this.turns[slot] = index + 1;
    return again;
  }
}

/** Notes in `slots` that the turn at `index` has its pieces in `entry`'s first variant. */
function note(slots: EvidenceSlots, index: number, entry: Entry, answeredSeparately: boolean): void {
  slots.entries[index] = entry;
  slots.separately[index] = answeredSeparately ? 1 : 0;
}

/** Marks an entry let go of and drops what it held, so a slot that still names it keeps only its small object. */
function release(entry: Entry): void {
  entry.evicted = true;
  entry.text = '';
  entry.variant = '';
  entry.pieces = RELEASED;
  entry.more = undefined;
}

/** The pieces of an entry let go of: never given out (piecesAt checks `evicted` first). */
const RELEASED: TurnPieces = { pieces: [] };

/**
 * Everything but the text that turnPieces reads of a turn: whether its calls are answered separately, its error
 * flag, its role, its reasoning and the call it answers (non-string values count as absent, as there). Lengths
 * prefix the parts, so no two turns share a key whatever their texts hold.
 */
function variantKey(turn: Turn, answeredSeparately: boolean): string {
  const role = typeof turn.role === 'string' ? turn.role : '';
  const reasoning = typeof turn.reasoning === 'string' ? `${turn.reasoning.length}:${turn.reasoning}` : '-';
  const answers = turn.answers;
  const callText = answers && typeof answers.callText === 'string' ? `:${answers.callText}` : '-';
  return `${answeredSeparately ? 1 : 0}${turn.error === true ? 1 : 0}${role.length}:${role}${reasoning}${callText}`;
}
