// Tests for verbatimPassage (src/core/summaryMatcher.ts): it finds the same passage as the plain version it
// replaced (regular expressions for a token's punctuation and trigrams looked up as joined strings), on random
// texts and summaries of words, punctuation, apostrophes, camelCase, capitals, digits and line breaks. Since
// verbatimPassage scans a text's words by their offsets and looks each up by its letters (no string per word), the
// tokens also hold capitals before an apostrophe, capitalised words run together and a Kelvin sign.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { eachWord, MAX_SCAN_CHARS, wordsOf } from '../../../src/core/evidenceText';
import { PASSAGE_WORDS, SummaryMatcher, verbatimPassage } from '../../../src/core/summaryMatcher';

/** The summary's trigrams as joined strings, over its words and line breaks, as the plain version kept them. */
function plainTrigrams(summary: string): Set<string> {
  const words: string[] = [];
  let previousEnd = 0;
  eachWord(summary, (start, end) => {
    if (words.length > 0 && summary.slice(previousEnd, start).includes('\n')) words.push('\n');
    words.push(summary.slice(start, end).toLowerCase());
    previousEnd = end;
  });
  const out = new Set<string>();
  for (let i = 0; i + 2 < words.length; i++) out.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}

/** verbatimPassage as it was: regular expressions per token, trigrams as strings. */
function plainPassage(text: string, trigrams: Set<string>): string | undefined {
  const words: string[] = [];
  const src = text.slice(0, MAX_SCAN_CHARS);
  for (const raw of src.split(/[ \n\t\r]+/)) {
    if (raw === '') continue;
    const token = raw.replace(/^["'`([*]+/, '').replace(/(?<!["'`)\],.;:!?*])["'`)\],.;:!?*]+$/, '');
    if (/^[a-z]+(?:['’][a-z]+)?$/i.test(token)) words.push(...wordsOf(token));
    else if (words.length > 0 && words[words.length - 1] !== '\n') words.push('\n');
  }
  let bestStart = 0;
  let bestLength = 0;
  let runStart = -1;
  for (let i = 0; i + 2 < words.length; i++) {
    const joined = words[i] !== '\n' && words[i + 1] !== '\n' && words[i + 2] !== '\n';
    if (joined && trigrams.has(`${words[i]} ${words[i + 1]} ${words[i + 2]}`)) {
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
  return words.slice(bestStart, bestStart + Math.min(bestLength, 40)).join(' ');
}

const WORDS = [
  'the',
  'ledger',
  'fixed',
  'a',
  'retry',
  'path',
  'now',
  'backs',
  'off',
  'queue',
  'worker',
  'test',
  'key',
  'abc',
  'http',
  'xml',
];
const TOKENS = [
  ...WORDS,
  'Ledger',
  'retryPath',
  "don't",
  'O’Brien',
  "it's'",
  '"quoted"',
  '(paren)',
  'end.',
  'why?!',
  '*bold*',
  'src/a.ts',
  '42',
  'x1',
  'Zürich',
  "'",
  '’s',
  'HTTPServer',
  // Capitals before an apostrophe or a capitalised word, and a Kelvin sign, which lower-cases to an ASCII k.
  'ABC’s',
  "HTTP's",
  'XMLHttp',
  'iOSApp',
  'AbC',
  'aB',
  '\u212Aey',
];

const arbProse = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom(' ', ' ', ' ', '\n', '\t', '  ')), { maxLength: 60 })
  .map((parts) => parts.map(([token, space]) => token + space).join(''));

describe('core/summaryMatcher: verbatimPassage', () => {
  it('finds what the plain version found', () => {
    fc.assert(
      fc.property(arbProse, fc.array(fc.constantFrom(...WORDS), { minLength: 8, maxLength: 40 }), (text, summaryWords) => {
        // The summary repeats a stretch of the text, word for word, and other words.
        const textWords = text.split(/\s+/).filter((w) => w !== '');
        const start = Math.min(textWords.length, summaryWords.length % 7);
        const summary = `${summaryWords.join(' ')}\n${textWords.slice(start, start + 14).join(' ')}\n${summaryWords.reverse().join(' ')}`;
        const found = verbatimPassage(text, new SummaryMatcher(summary));
        assert.equal(found?.key, plainPassage(text, plainTrigrams(summary)));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a request quoted back, and nothing in a text the summary does not repeat', () => {
    const request = 'please make the retry path back off for the ledger queue worker now';
    const matcher = new SummaryMatcher(`User asked: "${request}". Done.`);
    assert.equal(verbatimPassage(`Hi! ${request}, thanks`, matcher)?.key, request);
    assert.equal(verbatimPassage('nothing of this is in the summary at all, not one bit of it', matcher), undefined);
  });
});
