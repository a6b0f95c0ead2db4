// Tests for the pre-tokenizer scanner (src/core/tokenPieces.ts) and counting by pieces (tokenCounter.ts): the
// scanner cuts texts exactly where the encodings' own patterns cut them (run here as JavaScript regular
// expressions, with \s spelled as White_Space) for every BMP code unit in several surroundings, for random texts
// over an alphabet of every class the patterns tell apart, and for the corpus sessions' texts; counting by pieces
// gives tiktoken's count of the whole text, and its cache keeps no counted text alive; the pieces' lower bound stays
// under tiktoken's count with characters its Unicode tables lack; restartableParts' parts scan to the whole text's
// pieces.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { textsToCount } from '../../../src/core/analyze';
import { DEFAULT_SUMMARY_BUDGETS } from '../../../src/core/defaults';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import * as classes from '../../../src/core/pieceClasses';
import { plainPieceEnd } from '../../../src/core/plainPieces';
import { MAX_SURE_SCAN_CHARS, surePieceCount } from '../../../src/core/surePieces';
import {
  pieceLowerBound,
  piecesOf,
  restartableParts,
  scannedLowerBound,
  scannedPiecesOf,
  type PiecePattern,
} from '../../../src/core/tokenPieces';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { skipWithoutShared } from '../../sharedFolder';
import { heapKeptMb } from '../../heapKept';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus');
const SESSIONS = [
  'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz',
  'claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz',
  'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
].map((name) => resolve(CORPUS, name));

// The patterns as tiktoken gives them, with (?i:…) spelled out (Node 20 has no inline flags) and \s as Unicode's
// White_Space (Rust's \s: with U+0085, without U+FEFF).
const S = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const NOT_S = S.replace('[', '[^');
const OTHER = `(?:(?!${S})[^\\p{L}\\p{N}])`;
const CONTRACTION = "'[sS\\u017f]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]";
const UPPER = '[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]';
const LOWER = '[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]';
const PREFIX = '[^\\r\\n\\p{L}\\p{N}]?';
const SPACES = `${S}*[\\r\\n]+|${S}+(?!${NOT_S})|${S}+`;
const PATTERNS: Record<PiecePattern, RegExp> = {
  o200k: new RegExp(
    `${PREFIX}${UPPER}*${LOWER}+(?:${CONTRACTION})?|${PREFIX}${UPPER}+${LOWER}*(?:${CONTRACTION})?` +
      `|\\p{N}{1,3}| ?${OTHER}+[\\r\\n/]*|${SPACES}`,
    'gu',
  ),
  cl100k: new RegExp(`${CONTRACTION}|${PREFIX}\\p{L}+|\\p{N}{1,3}| ?${OTHER}+[\\r\\n]*|${SPACES}`, 'gu'),
};
const BOTH: PiecePattern[] = ['o200k', 'cl100k'];
/** The two ways of cutting: the plain-text path first (what counting uses), and the general scanner alone. */
const CUTS = [piecesOf, scannedPiecesOf];

/** The pattern's own split (a lone surrogate is "other" to it, as U+FFFD, which tiktoken is given, is). */
function patternPieces(text: string, pattern: PiecePattern): string[] {
  return [...text.matchAll(PATTERNS[pattern])].map((match) => match[0]);
}

/** Code points of every class the patterns tell apart, and the characters they name. */
const ALPHABET = [
  'a',
  'z',
  'A',
  'Z',
  's',
  'S',
  't',
  'r',
  'e',
  'v',
  'm',
  'l',
  'L',
  'd',
  'D',
  '\u017f', // letters, contraction letters
  '\u01c5',
  '\u02b0',
  '\u05d0',
  '\u4e2d',
  '\u00e9',
  '\u0301',
  '\u0903',
  '\u20dd', // Lt, Lm, Lo, Lo, Ll, Mn, Mc, Me
  '0',
  '7',
  '\u0663',
  '\u2167',
  '\u00bd', // Nd, Nd, Nl, No
  "'",
  '/',
  '.',
  '-',
  '_',
  '"',
  '(',
  '\u00a7',
  '\u2014',
  '\u00ad',
  '\u200b',
  '\u2060', // other
  ' ',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u0085',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u2028',
  '\ufeff',
  '\u180e', // spaces
  '\ud835\udc00',
  '\ud835\udfce',
  '\ud83d\ude80',
  '\ud83c\udffd',
  '\ud800',
  '\udc00', // astral L, N, So, Sk; lone
];

const arbText = fc
  .array(fc.oneof(fc.constantFrom(...ALPHABET), fc.constantFrom("'s", "'LL", "'Re", ' \n', '\r\n', '  ')), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

async function corpusTexts(): Promise<string[]> {
  const texts: string[] = [];
  for (const path of SESSIONS) {
    const opened = await TranscriptFile.open(path, { defaultBudgets: DEFAULT_SUMMARY_BUDGETS });
    const { turns, summaries } = textsToCount(opened.transcript);
    texts.push(...new Set([...turns.map((turn) => turn.text), ...summaries]));
  }
  return texts;
}

describe('node/tokenPieces: the encodings’ pieces, scanned', function () {
  this.timeout(120_000);

  it('cuts as the patterns do with every BMP code unit in several surroundings, with and without the plain-text path', () => {
    const around = ['a#b', 'A#b', ' #', '#\n', "x#'s", ' ##z', '1#2'];
    for (const pattern of BOTH) {
      for (let c = 0; c < 0x10000; c++) {
        const char = String.fromCharCode(c);
        for (const shape of around) {
          const text = shape.replaceAll('#', char);
          const expected = patternPieces(text, pattern);
          for (const cut of CUTS) assert.deepEqual(cut(text, pattern), expected, `${cut.name} ${pattern} ${JSON.stringify(text)}`);
        }
      }
    }
  });

  it('cuts random texts of every class as the patterns do, with and without the plain-text path', () => {
    for (const pattern of BOTH) {
      fc.assert(
        fc.property(arbText, (text) => CUTS.forEach((cut) => assert.deepEqual(cut(text, pattern), patternPieces(text, pattern), cut.name))),
        { numRuns: 3000 },
      );
    }
  });

  it('cuts the corpus sessions’ texts as the patterns do, with and without the plain-text path', async function () {
    skipWithoutShared(this, SESSIONS.every(existsSync), 'the corpus sessions in ../shared/corpus');
    const texts = await corpusTexts();
    for (const pattern of BOTH) {
      for (const text of texts) {
        const expected = patternPieces(text, pattern);
        for (const cut of CUTS) assert.deepEqual(cut(text, pattern), expected, cut.name);
      }
    }
  });

  it('counts by pieces as tiktoken counts the whole text, for both encodings', async function () {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tiktoken = require('tiktoken') as typeof import('tiktoken');
    const cases: [ReturnType<typeof createTokenCounter>, { encode_ordinary(text: string): Uint32Array }][] = [
      [createTokenCounter('o200k_base'), tiktoken.get_encoding('o200k_base')],
      [createTokenCounter('cl100k_base'), tiktoken.get_encoding('cl100k_base')],
    ];
    const words = fc.constantFrom('the ', 'ledger', "don't ", 'HTTPServer', 'Zürich ', '東京', ' 12345', '\n\n  ', '🚀');
    const arbCounted = fc.array(fc.oneof(arbText, words), { maxLength: 8 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(arbCounted, (text) => {
        for (const [count, encoder] of cases) assert.equal(count(text), encoder.encode_ordinary(text).length);
      }),
      { numRuns: 1500 },
    );
    if (!SESSIONS.every(existsSync)) return skipWithoutShared(this, false, 'the corpus sessions in ../shared/corpus');
    for (const text of await corpusTexts()) {
      // Pieces over 100 characters are counted in parts, which may differ from counting them whole.
      if (piecesOf(text, 'o200k').some((piece) => piece.length > 100)) continue;
      const [count, encoder] = cases[0];
      assert.equal(count(text), encoder.encode_ordinary(text).length);
    }
  });

  it('bounds the count from below by the pieces it is sure of, whatever Unicode tables tiktoken reads', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tiktoken = require('tiktoken') as typeof import('tiktoken');
    const encoders = { o200k: tiktoken.get_encoding('o200k_base'), cl100k: tiktoken.get_encoding('cl100k_base') };
    // Letters and digits new in Unicode 17 (this Node's tables have them, tiktoken's do not), an old letter, symbols.
    const newer = ['\u{10940}', '\u{11DE0}', '\u088f', '\ua7ce', '\u{16FF4}'];
    const chars = fc.constantFrom(...newer, 'é', '東', '—', '→', '✓', '\u{1F680}', '\u0301', '(', ')', '.', "'", 's', 'x', '1', ' ', '\n');
    const arbMixed = fc
      .array(fc.oneof(chars, fc.constantFrom('abc', 'Def', ' the', '12345', "'s")), { maxLength: 30 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(arbMixed, (text) => {
        for (const pattern of BOTH) {
          const bound = pieceLowerBound(text, pattern);
          assert.ok(bound <= piecesOf(text, pattern).length);
          const count = encoders[pattern].encode_ordinary(text).length;
          assert.ok(bound <= count, `${pattern}: bound ${bound} over tiktoken's ${count} for ${JSON.stringify(text)}`);
        }
      }),
      { numRuns: 3000 },
    );
    // Sure of every piece: ASCII, and punctuation and symbols outside it.
    const plain = 'Fixed src/a.ts — tests pass → ✓ (42 of 42) 🚀';
    assert.equal(pieceLowerBound(plain, 'o200k'), piecesOf(plain, 'o200k').length);
    // Pieces "abc", ".def\u{10940}ghi", ".jkl", " mno": unsure from the new letter's piece on, the stretch's rest
    // counts one; the next stretch (after the space) is sure again.
    assert.equal(pieceLowerBound('abc.def\u{10940}ghi.jkl mno', 'o200k'), 1 + 1 + 1);
  });

  it('ends plain pieces where the general scanner does, and bounds as it does', async function () {
    // Plain text (ASCII, the BMP's punctuation and symbols) beside everything else the patterns tell apart.
    const plain = fc.constantFrom('→', '─', '✓', '·', '€', 'ab', 'Cd', 'EF', "'ll", "x's", '1234', ' (', ')\n/', '  ', '\t', '\n ');
    // Where plain text meets the rest: ſ is an s in a contraction, é continues a word, U+00A0 a run of spaces.
    const edges = fc.constantFrom("x'\u017f", "'\u017f", 'abé', '12\u0663', ' \u00a0', '\n\u0085', 'a\u0301');
    const arbPlainMixed = fc.array(fc.oneof(plain, edges, arbText), { maxLength: 12 }).map((parts) => parts.join(''));
    const samePieces = (text: string, pattern: PiecePattern): void => {
      let start = 0;
      for (const piece of scannedPiecesOf(text, pattern)) {
        const end = plainPieceEnd(text, start, pattern);
        // (The message is built only on a failure: building it for every piece made this test quadratic.)
        if (end !== -1 && end !== start + piece.length) assert.fail(`${pattern} ${JSON.stringify(text)} at ${start}: ${end}`);
        start += piece.length;
      }
      assert.equal(pieceLowerBound(text, pattern), scannedLowerBound(text, pattern), `${pattern} ${JSON.stringify(text)}`);
    };
    fc.assert(
      fc.property(arbPlainMixed, (text) => BOTH.forEach((pattern) => samePieces(text, pattern))),
      { numRuns: 3000 },
    );
    // In plain text it never gives up: every piece is its own.
    const arbPlain = fc.array(plain, { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(arbPlain, (text) => {
        for (const pattern of BOTH) {
          for (let start = 0; start < text.length;) {
            const end = plainPieceEnd(text, start, pattern);
            if (end === -1) assert.fail(`${pattern} ${JSON.stringify(text)} at ${start}`);
            start = end;
          }
        }
      }),
      { numRuns: 1000 },
    );
    if (!SESSIONS.every(existsSync)) return skipWithoutShared(this, false, 'the corpus sessions in ../shared/corpus');
    for (const text of await corpusTexts()) BOTH.forEach((pattern) => samePieces(text, pattern));
  });

  it('counts the pieces of sure text with its regular expressions as the patterns cut them, and no other text', async function () {
    // Every class of sure character the patterns tell apart: cases, contraction letters, digits, whitespace in
    // and outside ASCII (\v \f, NEL, no-break), controls, '/', punctuation and symbols in and outside the BMP, a
    // lone surrogate (U+FFFD to tiktoken); runs that meet at edges.
    const sureChars = fc.constantFrom(
      ...'aAzZsStTmMdDrReEvVlL0179',
      "'",
      '/',
      '.',
      '-',
      '(',
      '"',
      '\x1c',
      '\x00',
      '\x7f',
      '→',
      '─',
      '✓',
      '€',
      '\u00ad',
      '\u200b',
      '\u{1F680}',
      '\u{1F4CB}',
      '\ud800',
      ' ',
      '\t',
      '\n',
      '\r',
      '\v',
      '\f',
      '\u0085',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\u2028',
    );
    const pieces = fc.constantFrom("'s", "'LL", "'Re", "'ve", ' \n', '\r\n', '  ', '\n  ', '.\n/', 'abCD', '12345', ' (', ' \u00a0x');
    const arbSure = fc.array(fc.oneof(sureChars, pieces), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(arbSure, (text) => {
        for (const pattern of BOTH) {
          const count = surePieceCount(text, pattern);
          const expected = patternPieces(text, pattern).length;
          if (count !== expected) assert.fail(`${pattern} ${JSON.stringify(text)}: ${count} pieces, the pattern cuts ${expected}`);
          assert.equal(count, scannedPiecesOf(text, pattern).length);
          assert.equal(count, scannedLowerBound(text, pattern));
        }
      }),
      { numRuns: 5000 },
    );
    // Text that is not sure throughout (a letter, number or mark outside ASCII, an unassigned code point) is left
    // to the scanners, wherever it is.
    const unsure = fc.constantFrom('é', '東', '\u0301', '\u0663', '\u017f', '\u0378', '\u{10940}', '\u{1D400}');
    fc.assert(
      fc.property(arbSure, unsure, arbSure, (before, odd, after) => {
        for (const pattern of BOTH) assert.equal(surePieceCount(before + odd + after, pattern), undefined);
      }),
      { numRuns: 2000 },
    );
    // Every BMP code unit between two letters: counted when sure, as the patterns cut it.
    const UNSURE = classes.UPPER | classes.LOWER | classes.LETTER | classes.NUMBER | classes.UNASSIGNED;
    for (let unit = 0; unit <= 0xffff; unit++) {
      const text = `a${String.fromCharCode(unit)}b`;
      const sure = unit < 0x80 || (classes.bmpClass(unit) & UNSURE) === 0;
      for (const pattern of BOTH) {
        const count = surePieceCount(text, pattern);
        if (sure ? count !== patternPieces(text, pattern).length : count !== undefined) {
          assert.fail(`${pattern} U+${unit.toString(16)}: ${count}`);
        }
      }
    }
    if (!SESSIONS.every(existsSync)) return skipWithoutShared(this, false, 'the corpus sessions in ../shared/corpus');
    let counted = 0;
    const texts = await corpusTexts();
    for (const text of texts) {
      for (const pattern of BOTH) {
        const count = surePieceCount(text, pattern);
        if (count === undefined) continue;
        counted += 1;
        if (count !== scannedPiecesOf(text, pattern).length) assert.fail(`${pattern}: ${text.slice(0, 200)}`);
      }
    }
    assert.ok(counted > texts.length, `most corpus texts are sure: ${counted} of ${2 * texts.length} counted`);
  });

  it('counts runs of millions of one kind of character in sure text, without running out of stack', () => {
    // The engine keeps a backtracking entry per repeat of a group, and per symbol outside the BMP in a run: its
    // stack holds a few million. Texts up to MAX_SURE_SCAN_CHARS are counted whatever they hold; longer ones are
    // left to the scanners.
    const N = MAX_SURE_SCAN_CHARS;
    const runs: [string, number, number][] = [
      // text, o200k pieces, cl100k pieces
      [' '.repeat(N - 1) + 'x', 2, 2],
      ['\u00a0'.repeat(N), 1, 1],
      ['\n '.repeat(N / 2 - 1) + 'x', 2, 2],
      ['\n'.repeat(N), 1, 1],
      ['.'.repeat(N), 1, 1],
      ['→'.repeat(N), 1, 1],
      ['\u{1F680}'.repeat(N / 2), 1, 1],
      ['a'.repeat(N), 1, 1],
      ['Ab'.repeat(N / 2), N / 2, 1],
      ['1'.repeat(3 * (N / 4)), N / 4, N / 4],
      ['\t \t'.repeat(N / 4) + '\n', 1, 1],
    ];
    for (const [text, o200k, cl100k] of runs) {
      assert.ok(text.length <= N);
      assert.equal(surePieceCount(text, 'o200k'), o200k, JSON.stringify(text.slice(0, 6)));
      assert.equal(surePieceCount(text, 'cl100k'), cl100k, JSON.stringify(text.slice(0, 6)));
    }
    assert.equal(surePieceCount(' '.repeat(N + 1), 'o200k'), undefined);
  });

  it('keeps no counted text alive through its cache of pieces', () => {
    // 40 texts of 1 MB, each with a word of its own long enough for V8 to slice it as a view into the text.
    const module = resolve(__dirname, '../../../src/node/tokenCounter.js');
    const keptMb = heapKeptMb(
      `const { createTokenCounter } = require(${JSON.stringify(module)});
      const count = createTokenCounter('o200k_base');
      count('warm');`,
      `const letters = (n) => [...String(n).padStart(4, '0')].map((d) => String.fromCharCode(97 + Number(d))).join('');
      for (let i = 0; i < 40; i++) count(Buffer.from('word '.repeat(200000) + ' uniqueidentifier' + letters(i)).toString());`,
    );
    assert.ok(keptMb < 10, `${keptMb} MB of counted texts kept (40 MB would be every text)`);
  });

  it('cuts long texts into parts whose pieces are the whole text’s', () => {
    const arbLong = fc
      .array(fc.oneof(arbText, fc.constantFrom('word ', 'a.b ', ' ', '  x', '\n ', 'y'.repeat(30))), { maxLength: 60 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(arbLong, fc.integer({ min: 1, max: 40 }), (text, size) => {
        const parts = restartableParts(text, size);
        assert.equal(parts.join(''), text);
        for (const pattern of BOTH) {
          assert.deepEqual(
            parts.flatMap((part) => piecesOf(part, pattern)),
            piecesOf(text, pattern),
          );
        }
      }),
      { numRuns: 2000 },
    );
    assert.deepEqual(restartableParts('aaaa bbbb cccc', 3), ['aaaa', ' bbbb', ' cccc']);
    assert.deepEqual(restartableParts('x'.repeat(10), 3), ['x'.repeat(10)]);
  });
});
