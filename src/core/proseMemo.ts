// Each turn's prose words, numbered, kept by the turn's index once a second checkpoint looks for a passage of the
// turn in its summary (verbatimPassage). A file of many compactions, each claiming every turn before it, split every
// turn's prose into words again for each summary: 19 of the 54 s of a CPU profile of `check` on a 104 MB OpenHands
// file with 78 condensations. A turn met once (a file of one checkpoint, or of summaries that each claim the turns
// since the last) keeps nothing. Bounded: MAX_KEPT_WORDS numbers in all, and the distinct words among them; past
// that, a turn's words are made each time.
import type { Piece } from './evidenceText';
import {
  ProseWords,
  proseWordsOf,
  verbatimPassage,
  verbatimPassageOfNumbers,
  verbatimPassageOfWords,
  type SummaryMatcher,
} from './summaryMatcher';

/** At most this many word numbers are kept (four bytes each), with the distinct words among them. */
export const MAX_KEPT_WORDS = 8 * 1024 * 1024;

const UNSEEN = 0;
const ONCE = 1;
const NOT_KEPT = 2;

export class ProseMemo {
  private readonly table = new ProseWords();
  /** By index: whether a turn's passage was looked for (UNSEEN, ONCE), or its words did not fit (NOT_KEPT). */
  private readonly seen: Uint8Array;
  private readonly kept = new Map<number, Int32Array>();
  private words = 0;

  /** `turns`: how many turns the transcript has; `maxWords`: how many word numbers may be kept. */
  constructor(
    turns: number,
    private readonly maxWords = MAX_KEPT_WORDS,
  ) {
    this.seen = new Uint8Array(turns);
  }

  /** verbatimPassage of the turn at `index` (its text given by `text`) in the summary `matcher` holds. */
  passage(index: number, text: () => string, matcher: SummaryMatcher): Piece | undefined {
    const numbers = this.kept.get(index);
    if (numbers !== undefined) return verbatimPassageOfNumbers(numbers, this.table, matcher);
    const seen = this.seen[index];
    if (seen !== ONCE || this.words >= this.maxWords) {
      if (seen === UNSEEN) this.seen[index] = ONCE;
      return verbatimPassage(text(), matcher);
    }
    const words = proseWordsOf(text());
    if (this.words + words.length > this.maxWords) {
      // Past the bound: not numbered, so the table of words grows only with the words kept.
      this.seen[index] = NOT_KEPT;
      return verbatimPassageOfWords(words, matcher);
    }
    const made = this.table.numbersOf(words);
    this.kept.set(index, made);
    this.words += made.length;
    return verbatimPassageOfNumbers(made, this.table, matcher);
  }

  /** Turns whose words are kept, the word numbers kept in all, and the distinct words among them. */
  get stats(): { turns: number; words: number; distinct: number } {
    return { turns: this.kept.size, words: this.words, distinct: this.table.words.length };
  }
}
