// Finding evidence in one summary: both sides reduced to their words (evidenceText.wordsOf), a piece's words
// matched in a row, never across a line break, at name boundaries when asked; plain-word stems for terms; and
// the longest passage of prose a turn shares word for word with the summary. Built once per summary, linear.
import { eachWord, MAX_SCAN_CHARS, stemOf, wordEnd, wordStart, type Piece } from './evidenceText';

/** SummaryMatcher.idOfNumber: a word not looked up yet. */
const UNKNOWN = -2;

/**
 * Finds pieces in one summary: both sides are reduced to their words (wordsOf), and a piece's words must
 * appear consecutively. Offsets returned are in the original summary string.
 */
export class SummaryMatcher {
  private readonly words: string[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly positions = new Map<string, number[]>();
  /** Each distinct word's number (its order of first appearance), for trigrams packed in one number. */
  private readonly wordIds = new Map<string, number>();
  private trigrams?: Set<number | string>;
  private stems?: Map<string, number>;
  private stemPositions?: Map<string, number[]>;
  /** The summary's numbers of a ProseWords table's words (UNKNOWN: not looked up yet). */
  private tableIds?: { table: ProseWords; ids: Int32Array };
  /** The summary's words of letters a–z alone, by a hash of their letters (idOfLetters), made when first asked. */
  private letterWords?: { ids: Int32Array; words: string[] };

  constructor(readonly summary: string) {
    const text = typeof summary === 'string' ? summary : '';
    // A line break between two words is kept as a break word, so a piece never matches across lines.
    let previousEnd = 0;
    eachWord(text, (start, end) => {
      if (this.words.length > 0 && text.slice(previousEnd, start).includes('\n')) {
        this.words.push('\n');
        this.starts.push(previousEnd);
        this.ends.push(previousEnd);
      }
      const w = text.slice(start, end).toLowerCase();
      const list = this.positions.get(w);
      if (list) list.push(this.words.length);
      else {
        this.positions.set(w, [this.words.length]);
        this.wordIds.set(w, this.wordIds.size);
      }
      this.words.push(w);
      this.starts.push(start);
      this.ends.push(end);
      previousEnd = end;
    });
  }

  /** Where a word with this stem (see stemOf) first appears in the summary, or undefined. */
  findStem(stem: string): { at: number; end: number } | undefined {
    if (!this.stems) {
      this.stems = new Map();
      this.words.forEach((w, i) => {
        if (w === '\n') return;
        const s = stemOf(w);
        if (!this.stems!.has(s)) this.stems!.set(s, i);
      });
    }
    const i = this.stems.get(stem);
    return i === undefined ? undefined : { at: this.starts[i], end: this.ends[i] };
  }

  /**
   * Where words with the stems of `key`'s words appear in a row ("enter plan mode" finds "Entered plan mode"),
   * at name boundaries, or undefined. For names spelt as words, which a summary writes as prose.
   */
  findStemSpan(key: string): { at: number; end: number } | undefined {
    if (key.length === 0) return undefined;
    if (!this.stemPositions) {
      const map = new Map<string, number[]>();
      this.words.forEach((w, i) => {
        if (w === '\n') return;
        const s = stemOf(w);
        const list = map.get(s);
        if (list) list.push(i);
        else map.set(s, [i]);
      });
      this.stemPositions = map;
    }
    const needle = key.split(' ').map(stemOf);
    for (const p of this.stemPositions.get(needle[0]) ?? []) {
      if (p + needle.length > this.words.length) continue;
      let ok = true;
      for (let j = 1; ok && j < needle.length; j++) ok = this.words[p + j] !== '\n' && stemOf(this.words[p + j]) === needle[j];
      if (!ok) continue;
      const span = { at: this.starts[p], end: this.ends[p + needle.length - 1] };
      if (isBoundary(this.summary, span.at - 1) && isBoundary(this.summary, span.end)) return span;
    }
    return undefined;
  }

  /** A word's number in this summary, or -1 when the summary does not have it (line breaks have none). */
  wordId(word: string): number {
    return this.wordIds.get(word) ?? -1;
  }

  /**
   * The number (wordId) of the word whose letters are text[start, end), ASCII letters only, in lower case; -1 when
   * the summary does not have it. No string is made: the letters are hashed and compared where they are.
   */
  idOfLetters(text: string, start: number, end: number): number {
    const table = this.letterWords ?? this.makeLetterWords();
    const mask = table.ids.length - 1;
    const length = end - start;
    for (let slot = hashLetters(text, start, end) & mask; ; slot = (slot + 1) & mask) {
      const id = table.ids[slot];
      if (id < 0) return -1;
      const word = table.words[slot];
      if (word.length === length && sameLetters(word, text, start)) return id;
    }
  }

  private makeLetterWords(): { ids: Int32Array; words: string[] } {
    const letterWords: string[] = [];
    for (const word of this.wordIds.keys()) if (isLowerLetters(word)) letterWords.push(word);
    // A power of two at least twice the words, so a probe meets an empty slot soon.
    let size = 16;
    while (size < 2 * letterWords.length) size *= 2;
    const table = { ids: new Int32Array(size).fill(-1), words: new Array<string>(size).fill('') };
    for (const word of letterWords) {
      let slot = hashLetters(word, 0, word.length) & (size - 1);
      while (table.ids[slot] >= 0) slot = (slot + 1) & (size - 1);
      table.ids[slot] = this.wordIds.get(word)!;
      table.words[slot] = word;
    }
    this.letterWords = table;
    return table;
  }

  /** The summary's number (wordId) of the word numbered `n` in `table`; each word is looked up once. */
  idOfNumber(table: ProseWords, n: number): number {
    let kept = this.tableIds;
    if (kept === undefined || kept.table !== table) {
      kept = { table, ids: new Int32Array(Math.max(64, table.words.length)).fill(UNKNOWN) };
      this.tableIds = kept;
    }
    if (n >= kept.ids.length) {
      const grown = new Int32Array(Math.max(n + 1, kept.ids.length * 2)).fill(UNKNOWN);
      grown.set(kept.ids);
      kept.ids = grown;
    }
    let id = kept.ids[n];
    if (id === UNKNOWN) {
      id = this.wordId(table.words[n]);
      kept.ids[n] = id;
    }
    return id;
  }

  /** Whether the summary has three words in a row, given by their numbers (wordId); -1 is never found. */
  hasTrigram(a: number, b: number, c: number): boolean {
    if (a < 0 || b < 0 || c < 0) return false;
    if (!this.trigrams) {
      this.trigrams = new Set();
      for (let i = 0; i + 2 < this.words.length; i++) {
        const x = this.wordId(this.words[i]);
        const y = this.wordId(this.words[i + 1]);
        const z = this.wordId(this.words[i + 2]);
        if (x >= 0 && y >= 0 && z >= 0) this.trigrams.add(this.trigramKey(x, y, z));
      }
    }
    return this.trigrams.has(this.trigramKey(a, b, c));
  }

  /**
   * Three word numbers in one number, exact while the summary has fewer than 2^17 distinct words (2^51 < 2^53);
   * past that (no real summary), a string of the three.
   */
  private trigramKey(a: number, b: number, c: number): number | string {
    const base = this.wordIds.size + 1;
    return base < 2 ** 17 ? (a * base + b) * base + c : `${a} ${b} ${c}`;
  }

  /** Offset of the exact (case-sensitive) substring, as Python's `in` finds it; "" is found at 0. */
  findExact(anchor: string): number | undefined {
    const at = this.summary.indexOf(anchor);
    return at >= 0 ? at : undefined;
  }

  /** Offset where the words of `key` (a normal form, see keyOf) appear in a row, or undefined. */
  findKey(key: string): number | undefined {
    return this.findSpan(key)?.at;
  }

  /**
   * Where the words of `key` appear in a row: start offset and the end of the last word (exclusive). `strict`:
   * only where the match is not part of a longer name (no letter, digit, - or _ right before or after it).
   */
  findSpan(key: string, strict = false): { at: number; end: number } | undefined {
    if (key.length === 0) return undefined;
    if (!key.includes(' ')) return this.findWord(key, strict);
    // Every word must be in the summary: looked up one at a time (most keys stop at their first word), and the
    // rarest one's occurrences are where the key is tried.
    const needle: string[] = [];
    let pivot = 0;
    let occurrences: number[] | undefined;
    for (let start = 0; start <= key.length;) {
      let end = key.indexOf(' ', start);
      if (end < 0) end = key.length;
      const word = key.slice(start, end);
      const list = this.positions.get(word);
      if (!list) return undefined;
      if (!occurrences || list.length < occurrences.length) {
        occurrences = list;
        pivot = needle.length;
      }
      needle.push(word);
      start = end + 1;
    }
    for (const q of occurrences ?? []) {
      const p = q - pivot;
      if (p < 0 || p + needle.length > this.words.length) continue;
      let ok = true;
      for (let j = 0; ok && j < needle.length; j++) ok = j === pivot || this.words[p + j] === needle[j];
      if (ok) {
        const last = p + needle.length - 1;
        const span = { at: this.starts[p], end: this.ends[last] };
        if (!strict || (isBoundary(this.summary, span.at - 1) && isBoundary(this.summary, span.end))) return span;
      }
    }
    return undefined;
  }

  /** findSpan for a key of one word: where the word first appears (strict: not as part of a longer name). */
  private findWord(word: string, strict: boolean): { at: number; end: number } | undefined {
    for (const p of this.positions.get(word) ?? []) {
      const span = { at: this.starts[p], end: this.ends[p] };
      if (!strict || (isBoundary(this.summary, span.at - 1) && isBoundary(this.summary, span.end))) return span;
    }
    return undefined;
  }
}

/** Whether the character at `i` may border a name (not a letter, digit, - or _). */
function isBoundary(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return true;
  const c = text.charCodeAt(i);
  if (c === 45 || c === 95) return false;
  if (c >= 48 && c <= 57) return false;
  if ((c | 32) >= 97 && (c | 32) <= 122) return false;
  return c < 128 || !/[\p{L}\p{N}]/u.test(text[i]);
}

/** A passage must be at least this many words long to count as carried word for word. */
export const PASSAGE_WORDS = 8;

/**
 * The longest passage of prose (PASSAGE_WORDS words or more, mostly plain words) that the summary repeats word
 * for word, as a piece: a task title, a request quoted back. One pass over the text's first MAX_SCAN_CHARS
 * characters that makes no string for a word (each is looked up by its letters: SummaryMatcher.idOfLetters); only
 * the passage's own words are made. The same as verbatimPassageOfWords of its proseWordsOf.
 */
export function verbatimPassage(text: string, matcher: SummaryMatcher): Piece | undefined {
  const scanned = typeof text === 'string' ? text : '';
  const count = scanProse(scanned, Math.min(scanned.length, MAX_SCAN_CHARS));
  const { starts, ends, ids } = prose;
  for (let k = 0; k < count; k++) ids[k] = starts[k] < 0 ? -1 : matcher.idOfLetters(scanned, starts[k], ends[k]);
  return passageOf(ids, count, (i) => scanned.slice(starts[i], ends[i]).toLowerCase(), matcher);
}

/** verbatimPassage of a text whose prose words (proseWordsOf) are `words`. */
export function verbatimPassageOfWords(words: readonly string[], matcher: SummaryMatcher): Piece | undefined {
  // Each word's number in the summary (-1: not there, or a break), so a trigram is looked up without a string.
  const ids = words.map((w) => (w === '\n' ? -1 : matcher.wordId(w)));
  return passageOf(ids, ids.length, (i) => words[i], matcher);
}

/**
 * verbatimPassage of a text whose prose words were numbered in `table` (ProseWords.numbersOf): the same piece,
 * with no word of the text made again (a turn claimed by many checkpoints, one summary after another).
 */
export function verbatimPassageOfNumbers(numbers: Int32Array, table: ProseWords, matcher: SummaryMatcher): Piece | undefined {
  const ids = new Int32Array(numbers.length);
  for (let i = 0; i < numbers.length; i++) ids[i] = numbers[i] < 0 ? -1 : matcher.idOfNumber(table, numbers[i]);
  return passageOf(ids, ids.length, (i) => table.words[numbers[i]], matcher);
}

/** The longest run of the summary's trigrams in the words' numbers (`ids`, the first `count`), as a piece when long enough. */
function passageOf(ids: ArrayLike<number>, count: number, wordAt: (i: number) => string, matcher: SummaryMatcher): Piece | undefined {
  let bestStart = 0;
  let bestLength = 0;
  let runStart = -1;
  for (let i = 0; i + 2 < count; i++) {
    if (matcher.hasTrigram(ids[i], ids[i + 1], ids[i + 2])) {
      if (runStart < 0) runStart = i;
      const length = i + 3 - runStart;
      if (length > bestLength) {
        bestLength = length;
        bestStart = runStart;
      }
    } else {
      runStart = -1;
    }
  }
  if (bestLength < PASSAGE_WORDS) return undefined;
  const words: string[] = [];
  for (let i = bestStart; i < bestStart + Math.min(bestLength, 40); i++) words.push(wordAt(i));
  const key = words.join(' ');
  return { text: key, kind: 'quoted', key, shareKey: key };
}

/** The prose words of the text that verbatimPassage scans (its first MAX_SCAN_CHARS characters); "\n": a break. */
export function proseWordsOf(text: string): string[] {
  return proseWords(typeof text === 'string' ? text.slice(0, MAX_SCAN_CHARS) : '');
}

/**
 * Prose words by number, for texts whose passages are looked for in more than one summary: each text's words are
 * made once (numbersOf) and each summary looks each distinct word up once (SummaryMatcher.idOfNumber).
 */
export class ProseWords {
  /** Each word, by its number. */
  readonly words: string[] = [];
  private readonly numbers = new Map<string, number>();

  /** The numbers of a text's prose words (proseWordsOf); -1 for a break. */
  numbersOf(words: readonly string[]): Int32Array {
    const out = new Int32Array(words.length);
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (w === '\n') {
        out[i] = -1;
        continue;
      }
      let n = this.numbers.get(w);
      if (n === undefined) {
        n = this.words.length;
        this.words.push(w);
        this.numbers.set(w, n);
      }
      out[i] = n;
    }
    return out;
  }
}

/**
 * The plain words of a text's prose, lower case, in order: whitespace-separated tokens that are words once
 * their surrounding punctuation is dropped. Anything else (a path, code, a number) becomes a break ("\n"),
 * so a passage never runs through it.
 */
function proseWords(text: string): string[] {
  const count = scanProse(text, text.length);
  const { starts, ends } = prose;
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    if (starts[k] >= 0) out.push(text.slice(starts[k], ends[k]).toLowerCase());
    else if (out.length > 0 && out[out.length - 1] !== '\n') out.push('\n');
  }
  return out;
}

/**
 * Where scanProse puts the words it finds (each one's offsets; a break has a start of -1), and where
 * verbatimPassage puts their numbers. Reused from scan to scan (the core runs in one thread, and each scan is
 * read before the next); grown to the longest text scanned, at most MAX_SCAN_CHARS characters (scanProse cuts
 * there): under 800 KB.
 */
const prose = { starts: new Int32Array(1024), ends: new Int32Array(1024), ids: new Int32Array(1024) };

/**
 * Scans text[0, n) for its prose words (proseWords), n being `upTo` and never more than MAX_SCAN_CHARS (so `prose`
 * stays bounded): whitespace-separated tokens that are words once their leading ("'`([*) and trailing
 * ("'`)],.;:!?*) punctuation is dropped, split as wordsOf splits them (at an apostrophe, and camelCase); any other
 * token is a break. Fills prose.starts and prose.ends and returns how many entries it made (at most n + 1). Every
 * word it gives is ASCII letters alone.
 */
function scanProse(text: string, upTo: number): number {
  const n = Math.min(upTo, MAX_SCAN_CHARS);
  if (prose.starts.length < n + 1) {
    const size = Math.max(n + 1, 2 * prose.starts.length);
    prose.starts = new Int32Array(size);
    prose.ends = new Int32Array(size);
    prose.ids = new Int32Array(size);
  }
  const { starts, ends } = prose;
  let count = 0;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    let j = i;
    while (j < n && !isSpace(text.charCodeAt(j))) j++;
    if (j > i) {
      let start = i;
      let end = j;
      while (start < end && isLeading(text.charCodeAt(start))) start++;
      while (end > start && isTrailing(text.charCodeAt(end - 1))) end--;
      const kind = proseWordKind(text, start, end);
      if (kind === 'lower') {
        starts[count] = start;
        ends[count++] = end;
      } else if (kind === 'word') {
        // The token's words as wordsOf splits it (at its apostrophe, retryPath, HTTPServer → HTTP|Server).
        for (let s = wordStart(text, start, end); s < end; s = wordStart(text, ends[count - 1], end)) {
          starts[count] = s;
          ends[count++] = wordEnd(text, s, end);
        }
      } else {
        starts[count] = -1;
        ends[count++] = -1;
      }
    }
    i = j;
  }
  return count;
}

function isLeading(c: number): boolean {
  return c === 34 || c === 39 || c === 96 || c === 40 || c === 91 || c === 42;
}

function isTrailing(c: number): boolean {
  return (
    c === 34 ||
    c === 39 ||
    c === 96 ||
    c === 41 ||
    c === 93 ||
    c === 44 ||
    c === 46 ||
    c === 59 ||
    c === 58 ||
    c === 33 ||
    c === 63 ||
    c === 42
  );
}

/**
 * Whether text[start, end) is a word of prose: letters a–z (any case), with at most one apostrophe (' or ’)
 * between letters (don't, O’Brien). 'lower' when it is lower-case letters only, its own one word; 'word' when
 * wordsOf must split it; undefined when it is not a word.
 */
function proseWordKind(text: string, start: number, end: number): 'lower' | 'word' | undefined {
  if (start >= end) return undefined;
  let lower = true;
  let apostrophe = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 97 && c <= 122) continue;
    lower = false;
    if (c >= 65 && c <= 90) continue;
    const quote = c === 39 || c === 0x2019;
    if (!quote || apostrophe || k === start || k === end - 1) return undefined;
    apostrophe = true;
  }
  return lower ? 'lower' : 'word';
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** FNV-1a of text[start, end)'s letters in lower case (ASCII letters: a letter's code | 32). */
function hashLetters(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ (text.charCodeAt(k) | 32), 0x01000193);
  return h;
}

/** Whether text, from `start`, holds `word`'s letters (a–z) in any case. */
function sameLetters(word: string, text: string, start: number): boolean {
  for (let k = 0; k < word.length; k++) if ((text.charCodeAt(start + k) | 32) !== word.charCodeAt(k)) return false;
  return true;
}

/** Whether a word is letters a–z alone (the only words idOfLetters can be asked for). */
function isLowerLetters(word: string): boolean {
  if (word.length === 0) return false;
  for (let k = 0; k < word.length; k++) {
    const c = word.charCodeAt(k);
    if (c < 97 || c > 122) return false;
  }
  return true;
}
