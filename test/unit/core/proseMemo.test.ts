// Tests for ProseMemo (src/core/proseMemo.ts) and verbatimPassageOfNumbers (src/core/summaryMatcher.ts): a turn's
// words numbered once give the passage verbatimPassage gives, summary after summary; a turn met once keeps nothing,
// and the words kept stay within the bound.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProseMemo } from '../../../src/core/proseMemo';
import { ProseWords, proseWordsOf, SummaryMatcher, verbatimPassage, verbatimPassageOfNumbers } from '../../../src/core/summaryMatcher';

const WORDS = ['the', 'ledger', 'retry', 'queue', 'worker', 'now', 'back', 'off', 'path', 'for', 'make', 'please', "don't", 'Zürich'];
const TOKENS = [...WORDS, 'Ledger', 'end.', '"quoted"', 'src/a.ts', '42', 'HTTPServer', '’s', '(paren)'];
const arbText = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom(' ', ' ', '\n', '  ')), { maxLength: 50 })
  .map((parts) => parts.map(([token, space]) => token + space).join(''));

describe('core/proseMemo', () => {
  it('property: numbered words give the passage verbatimPassage gives, for each of several summaries (seeded)', () => {
    fc.assert(
      fc.property(fc.array(arbText, { minLength: 1, maxLength: 6 }), fc.array(arbText, { minLength: 1, maxLength: 4 }), (texts, extra) => {
        // Each summary quotes a stretch of some text, so passages are found, and holds other words.
        const summaries = extra.map((e, k) => {
          const words = texts[k % texts.length].split(/\s+/).filter((w) => w !== '');
          return `${e}\n${words.slice(k, k + 12).join(' ')}\n${WORDS.join(' ')}`;
        });
        const table = new ProseWords();
        const numbered = texts.map((text) => table.numbersOf(proseWordsOf(text)));
        const memo = new ProseMemo(texts.length);
        for (const summary of summaries) {
          const matcher = new SummaryMatcher(summary);
          texts.forEach((text, i) => {
            const expected = verbatimPassage(text, matcher);
            assert.deepEqual(verbatimPassageOfNumbers(numbered[i], table, matcher), expected);
            assert.deepEqual(
              memo.passage(i, () => text, matcher),
              expected,
            );
          });
        }
      }),
      { seed: 20261204, numRuns: 500 },
    );
  });

  it('keeps a turn’s words from its second summary on, each made once, and no more words than its bound', () => {
    const text = 'please make the retry path back off for the ledger queue worker now';
    const matcher = new SummaryMatcher(`User asked: "${text}".`);
    let made = 0;
    const memo = new ProseMemo(3, 20);
    const read = () => {
      made++;
      return text;
    };
    assert.equal(memo.passage(0, read, matcher)?.key, text);
    assert.deepEqual(memo.stats, { turns: 0, words: 0, distinct: 0 }, 'a turn met once keeps nothing');
    for (let k = 0; k < 3; k++) assert.equal(memo.passage(0, read, matcher)?.key, text);
    assert.deepEqual(memo.stats, { turns: 1, words: 13, distinct: 12 });
    assert.equal(made, 2, 'the text is read once to look, once to keep');
    // A second turn would pass the bound of 20 words: its words are made each time, not kept, nor its new words.
    const other = `${text} and then also update every caller`;
    const quoting = new SummaryMatcher(`User asked: "${other}".`);
    for (let k = 0; k < 3; k++) assert.equal(memo.passage(1, () => other, quoting)?.key, other);
    assert.deepEqual(memo.stats, { turns: 1, words: 13, distinct: 12 });
  });
});
