// Tests for src/core/evidenceText.ts: which salient names and facts extractPieces finds in a text and of what kind
// (paths and their shorter forms, name/arity, task/issue/PR references, counts, key=value, weak pieces), the one
// normal form wordsOf/keyOf (camelCase and snake_case spelt as words), and that pathological inputs of 200k
// characters go through in linear time (no timed assertion: mocha's per-test timeout is the guard).
import * as assert from 'node:assert/strict';
import { SummaryMatcher } from '../../../src/core/summaryMatcher';
import { extractPieces, keyOf, MAX_SCAN_CHARS, wordsOf, type Piece } from '../../../src/core/evidenceText';

/** The one piece of `text` spelt `spelt`. */
function pieceOf(text: string, spelt: string): Piece {
  const pieces = extractPieces(text);
  const p = pieces.find((x) => x.text === spelt);
  assert.ok(p, `“${spelt}” is a piece of “${text}”; pieces: ${JSON.stringify(pieces.map((x) => x.text))}`);
  return p;
}

/** 20,000 texts of 1 to `most` of `parts` in a row, drawn by a seeded generator (the same texts every run). */
function* textsOfParts(parts: readonly string[], most: number, seed: number): Generator<string> {
  let state = seed;
  const next = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  for (let round = 0; round < 20000; round++) {
    let text = '';
    const length = 1 + next(most);
    for (let k = 0; k < length; k++) text += parts[next(parts.length)];
    yield text;
  }
}

/** Whether a piece is found in a summary the way judge looks for it: its key, else one of its alternatives. */
function foundIn(p: Piece, summary: string): boolean {
  const m = new SummaryMatcher(summary);
  const strict = p.kind === 'path' || p.kind === 'identifier' || p.kind === 'reference';
  return [p.key, ...(p.alt ?? [])].some((k) => m.findSpan(k, strict) !== undefined);
}

describe('core/evidenceText: wordsOf and keyOf', () => {
  it('splits camelCase, PascalCase runs, snake_case, kebab-case and dots into lower-case words', () => {
    assert.deepEqual(wordsOf('agentId'), ['agent', 'id']);
    assert.deepEqual(wordsOf('HTMLParser'), ['html', 'parser']);
    assert.deepEqual(wordsOf('agent_id'), ['agent', 'id']);
    assert.deepEqual(wordsOf('agent-id'), ['agent', 'id']);
    assert.deepEqual(wordsOf('src/core/analyze.ts'), ['src', 'core', 'analyze', 'ts']);
    assert.deepEqual(wordsOf('  '), []);
    assert.equal(keyOf('parseEntry'), 'parse entry');
    assert.equal(keyOf('ERR_LEDGER_4107'), 'err ledger 4107');
    assert.equal(keyOf('err-ledger-4107'), 'err ledger 4107');
  });

  it('keeps non-ASCII letters inside words', () => {
    assert.deepEqual(wordsOf('café résumé'), ['café', 'résumé']);
    assert.deepEqual(wordsOf('naïveRésumé'), ['naïve', 'résumé']);
  });

  it('keyOf is wordsOf joined by one space, for texts whose words stand one space apart and for others', () => {
    // Pieces of every sort keyOf tells apart: words one space apart (made in one piece), other separators,
    // camelCase and upper-case runs (split with no gap), and letters whose lower case depends on their neighbours
    // (Greek capital sigma) or is longer (İ), with combining marks, digits, CJK and an emoji.
    const parts = [
      'a',
      'Ab',
      'ΟΔΟΣ',
      'Σ',
      'İx',
      'e\u0301',
      '42',
      'x9',
      '字',
      '😀',
      'HTMLParser',
      'fooBar',
      ' ',
      ' ',
      '  ',
      '_',
      '-',
      '.',
      '/',
      '\n',
      '\t',
      'ς',
    ];
    for (const text of textsOfParts(parts, 8, 7)) assert.equal(keyOf(text), wordsOf(text).join(' '), JSON.stringify(text));
    assert.equal(keyOf('ΟΔΟΣ ΣΑΣ'), 'οδος σας');
    assert.equal(keyOf('Build the Ledger'), 'build the ledger');
    assert.equal(keyOf('build  the ledger'), 'build the ledger');
  });

  it('wordsOf splits as a plain model of its rule does, code unit by code unit', () => {
    // The rule, written with regular expressions over single code units: a word is a run of ASCII letters and
    // digits and non-ASCII letters and marks, split before an upper-case unit that follows a lower-case letter,
    // or that follows an upper-case one and precedes an ASCII lower-case letter, two units or more into the word.
    const letter = (u: string): boolean => /[\p{L}\p{M}]/u.test(u);
    const alnum = (u: string): boolean => (u.charCodeAt(0) < 128 ? /[A-Za-z0-9]/.test(u) : letter(u));
    const upper = (u: string): boolean => (u.charCodeAt(0) < 128 ? /[A-Z]/.test(u) : u !== u.toLowerCase() && u === u.toUpperCase());
    const lower = (u: string): boolean => (u.charCodeAt(0) < 128 ? /[a-z]/.test(u) : !upper(u) && letter(u));
    const model = (text: string): string[] => {
      const words: string[] = [];
      let start = -1;
      for (let j = 0; j <= text.length; j++) {
        const u = j < text.length ? text[j] : ' ';
        if (start < 0) {
          if (alnum(u)) start = j;
          continue;
        }
        const split =
          !alnum(u) || (upper(u) && (lower(text[j - 1]) || (upper(text[j - 1]) && /[a-z]/.test(text[j + 1] ?? '') && j - start >= 2)));
        if (!split) continue;
        words.push(text.slice(start, j).toLowerCase());
        start = alnum(u) ? j : -1;
      }
      return words;
    };
    // Upper-case units that are not letters (Ⅻ, a Roman numeral), a lower-case letter with no upper case (ß),
    // title-case (ǅ), and runs of ASCII lower case and digits (keyOf's own key, as it is).
    const parts = ['abc', 'a1', '7', 'B', 'CD', 'Ef', 'gH', 'Σ', 'ς', 'İ', 'Ⅻ', 'ß', 'ǅ', 'é', 'e\u0301', '字', '😀', ' ', '_', '.', '-'];
    for (const text of textsOfParts(parts, 7, 11)) {
      assert.deepEqual(wordsOf(text), model(text), JSON.stringify(text));
      assert.equal(keyOf(text), model(text).join(' '), JSON.stringify(text));
    }
  });
});

describe('core/evidenceText: extractPieces', () => {
  it('a path: its file name and its last two segments count as found too', () => {
    const p = pieceOf('Edited lib/spotter_web/live/dashboard_live.ex today.', 'lib/spotter_web/live/dashboard_live.ex');
    assert.equal(p.kind, 'path');
    assert.equal(p.key, 'lib spotter web live dashboard live ex');
    assert.deepEqual(p.alt, ['dashboard live ex', 'live dashboard live ex']);
    assert.equal(p.shareKey, 'dashboard live ex', 'sharing is counted on the file name');
    assert.ok(foundIn(p, 'We changed dashboard_live.ex.'), 'file name alone');
    assert.ok(foundIn(p, 'We changed live/dashboard_live.ex.'), 'last two segments');
    assert.ok(foundIn(p, 'We changed lib/spotter_web/live/dashboard_live.ex.'), 'full path');
    assert.ok(!foundIn(p, 'We changed the live dashboard.'), 'words of the path, not the file');
    assert.ok(!foundIn(p, 'We changed my_dashboard_live.ex.'), 'a longer name that contains it');
  });

  it('an absolute path, and a path with a line and column', () => {
    const abs = pieceOf('Read /home/u/proj/src/core/analyze.ts', '/home/u/proj/src/core/analyze.ts');
    assert.equal(abs.kind, 'path');
    assert.deepEqual(abs.alt, ['analyze ts', 'core analyze ts']);
    const withLine = extractPieces('failed at src/core/evidence.ts:42:5 again');
    assert.ok(
      withLine.some((p) => p.kind === 'path' && p.key === 'src core evidence ts'),
      JSON.stringify(withLine),
    );
  });

  it('a plain file name is a path; two words joined by a slash are not', () => {
    assert.equal(pieceOf('see config.yaml', 'config.yaml').kind, 'path');
    assert.deepEqual(extractPieces('creation/loading and Elixir/Phoenix and and/or'), []);
  });

  it('`render/2` is an identifier (name/arity)', () => {
    const p = pieceOf('call render/2 now', 'render/2');
    assert.equal(p.kind, 'identifier');
    assert.equal(p.key, 'render 2');
  });

  it('`spotter-fum.1`, `#1234` and `PR #8021` are references', () => {
    const task = pieceOf('closed spotter-fum.1 today', 'spotter-fum.1');
    assert.equal(task.kind, 'reference');
    assert.equal(task.key, 'spotter fum 1');
    const issue = pieceOf('see #1234', '#1234');
    assert.equal(issue.kind, 'reference');
    assert.equal(issue.key, '1234');
    const pr = pieceOf('merged PR #8021 this morning', '#8021');
    assert.equal(pr.kind, 'reference');
    assert.ok(foundIn(pr, 'PR #8021 merged'));
    assert.ok(foundIn(pr, 'pull request 8021 merged'));
    assert.ok(!foundIn(pr, 'PR #80210 merged'), 'a longer number is another reference');
    assert.ok(!foundIn(task, 'closed spotter-fum.12'), 'another task of the same name');
    assert.equal(pieceOf('ticket JIRA-881 is open', 'JIRA-881').kind, 'reference');
  });

  it('`49 tests` is a count (a number with its noun); a number before a function word is not', () => {
    const p = pieceOf('all 49 tests pass', '49 tests');
    assert.equal(p.kind, 'count');
    assert.equal(p.key, '49 tests');
    const twin = pieceOf('ran 12 migrations', '12 migrations');
    assert.deepEqual(twin.alt, ['12 migration'], 'singular and plural of a noun both count');
    assert.ok(foundIn(p, 'the 49 tests passed'));
    assert.ok(!foundIn(p, 'the 48 tests passed'));
    assert.deepEqual(extractPieces('3 of them'), []);
  });

  it('`--status=in_progress` is key-value: the value is required, the key alone is not found', () => {
    const p = pieceOf('ran bd update --status=in_progress', 'status=in_progress');
    assert.equal(p.kind, 'key-value');
    assert.equal(p.key, 'status in progress');
    assert.deepEqual(p.alt, ['in progress']);
    assert.ok(foundIn(p, 'moved it to in_progress'), 'the value alone');
    assert.ok(foundIn(p, 'status=in_progress'));
    assert.ok(foundIn(p, 'set the status to in progress'), 'the value spelt as words');
    assert.ok(!foundIn(p, 'updated the status'), 'the key alone is not the fact');
    assert.ok(!foundIn(p, 'updated --status'), 'the key alone is not the fact');
  });

  it('`PORT=8080` is key-value: the value is required, the key alone is not found', () => {
    const p = pieceOf('set PORT=8080 for the dev server', 'PORT=8080');
    assert.equal(p.kind, 'key-value');
    assert.ok(foundIn(p, 'the server listens on 8080'));
    assert.ok(!foundIn(p, 'set the PORT'));
  });

  it('hex colours, UUIDs, timestamps, dates, durations and hashes are weak', () => {
    const cases: [string, string][] = [
      ['colour #ff00aa here', '#ff00aa'],
      ['colour #fa0 here', '#fa0'],
      ['id 123e4567-e89b-12d3-a456-426614174000 here', '123e4567-e89b-12d3-a456-426614174000'],
      ['at 2026-02-10T21:54:53.209Z here', '2026-02-10T21:54:53.209Z'],
      ['at 21:54:53 here', '21:54:53'],
      ['on 2026-02-11 here', '2026-02-11'],
      ['commit a1b2c3d4e5f6 here', 'a1b2c3d4e5f6'],
      ['Finished in (0.04s async, 0.26s sync)', '0.04s'],
      ['took 12ms', '12ms'],
      ['ran 250µs', '250µs'],
      ['waited 1.5min', '1.5min'],
      ['real\t0m12.09s', '0m12.09s'],
      ['up 1h2m3s', '1h2m3s'],
    ];
    for (const [text, spelt] of cases) assert.equal(pieceOf(text, spelt).kind, 'weak', spelt);
    // A name that only starts like a duration is not one.
    assert.equal(pieceOf('decoded the mp3s here', 'mp3s').kind, 'identifier');
    // Minutes are "m" only beside another unit: 4m2 (no unit after the 2) is no duration.
    assert.ok(extractPieces('a 4m2 b').every((p) => p.kind !== 'weak'));
  });

  it('camelCase and snake_case are identifiers found “spelt as words”', () => {
    const camel = pieceOf('fixed agentId in the record', 'agentId');
    assert.equal(camel.kind, 'identifier');
    assert.ok(foundIn(camel, 'the agent id is fixed'));
    assert.ok(foundIn(camel, 'the agent_id is fixed'));
    assert.ok(!foundIn(camel, 'the agent is fixed'));
    assert.ok(!foundIn(camel, 'the subagent id is fixed'), 'part of a longer word');
    const snake = pieceOf('renamed ledger_sync_job', 'ledger_sync_job');
    assert.equal(snake.kind, 'identifier');
    assert.ok(foundIn(snake, 'the ledgerSyncJob was renamed'));
    assert.ok(foundIn(snake, 'the ledger sync job was renamed'));
  });

  it('error codes, URLs, versions, quoted phrases and proper nouns', () => {
    assert.equal(pieceOf('E0308 and TS2345', 'E0308').kind, 'error-code');
    assert.equal(pieceOf('failed with ERR_LEDGER_4107', 'ERR_LEDGER_4107').kind, 'error-code');
    const url = pieceOf('see https://example.com/docs/page for more', 'https://example.com/docs/page');
    assert.equal(url.kind, 'url');
    assert.equal(url.key, 'example com docs page');
    assert.equal(pieceOf('bumped to v4.17.21', 'v4.17.21').kind, 'number');
    assert.equal(pieceOf('she said "reconciliation mismatch on shard" today', 'reconciliation mismatch on shard').kind, 'quoted');
    assert.equal(pieceOf('we moved to Postgres last week', 'Postgres').kind, 'name');
    assert.deepEqual(extractPieces('Postgres is next.'), [], 'a capitalised word that starts a sentence is not a name');
  });

  it('plain prose, acknowledgements and apostrophes hold nothing', () => {
    assert.deepEqual(extractPieces('ok, sounds good, go ahead'), []);
    assert.deepEqual(extractPieces("it's done and we don't need more"), []);
    assert.deepEqual(extractPieces(''), []);
  });

  it('sentences of a prompt are pieces only when asked for', () => {
    const text = 'Please make the nightly reconcile job retry twice before it pages anyone.';
    assert.deepEqual(extractPieces(text), []);
    const withSentences = extractPieces(text, { sentences: true });
    assert.equal(withSentences.length, 1);
    assert.equal(withSentences[0].kind, 'quoted');
  });

  it('a sentence is prose when three in four of its words are letters a–z once lower-cased (the Kelvin sign is k)', () => {
    const sentence = (first: string) => `${first}alpha ${first}beta ${first}gamma ${first}delta ${first}epsilon ${first}zeta 1234 5678.`;
    const quoted = (text: string) => extractPieces(text, { sentences: true }).filter((p) => p.kind === 'quoted');
    // Six words of letters and two numbers: prose. A Kelvin sign lower-cases to an ASCII k, so it still is.
    assert.equal(quoted(sentence('K')).length, 1);
    assert.equal(quoted(sentence('\u212A')).length, 1);
    assert.equal(quoted(sentence('\u212A'))[0].key, 'kalpha kbeta kgamma kdelta kepsilon kzeta 1234 5678');
    // An accented letter stays non-ASCII lower-cased: six such words of eight are not plain words.
    assert.deepEqual(quoted(sentence('É')), []);
    // Seven words of letters and a word of letters and digits: prose; five of eight: not.
    assert.equal(quoted('Please rename every handler in the ledger module2 today.').length, 1);
    assert.deepEqual(quoted('Please x1 rename y2 every z3 handler here today.'), []);
  });

  it('pieces are de-duplicated by key and kept in text order', () => {
    const pieces = extractPieces('ERR_A_10 then src/a/b_c.ts then ERR_A_10 again and err-a-10');
    assert.deepEqual(
      pieces.map((p) => p.text),
      ['ERR_A_10', 'src/a/b_c.ts'],
    );
  });

  it('a quoted phrase and a sentence are found, each as the text spells it', () => {
    const text =
      'First line here.\n  The reviewer asked us to rename every handler in the ledger module today.\nHe said " closed the bead and committed " then left.';
    const pieces = extractPieces(text, { sentences: true });
    const quoted = pieces.filter((p) => p.kind === 'quoted');
    assert.deepEqual(
      quoted.map((p) => p.text),
      [
        'closed the bead and committed',
        'The reviewer asked us to rename every handler in the ledger module today',
        'He said " closed the bead and committed " then left',
      ],
    );
    for (const p of quoted) assert.ok(text.includes(p.text), p.text);
  });

  it('only the first MAX_SCAN_CHARS of a text are scanned', () => {
    const text = `${'word '.repeat(MAX_SCAN_CHARS / 5)} ERR_LATE_1`;
    assert.deepEqual(extractPieces(text), []);
    assert.deepEqual(
      extractPieces(`ERR_EARLY_1 ${text}`).map((p) => p.text),
      ['ERR_EARLY_1'],
    );
  });
});

describe('core/evidenceText and SummaryMatcher: pathological inputs go through in linear time', () => {
  // No timed assertion: a quadratic scan of 200k characters would take far beyond mocha's 2 s per test; a linear
  // one takes a few milliseconds. Each input goes through extractPieces (with sentences), wordsOf and the matcher.
  const N = 200_000;
  const inputs: [string, string][] = [
    ['dashes', '-'.repeat(N)],
    ['apostrophes', "'".repeat(N)],
    ['double quotes', '"'.repeat(N)],
    ['slashes', '/'.repeat(N)],
    ['backslash escapes', '\\n'.repeat(N / 2)],
    ['spaces', ' '.repeat(N)],
    ['newlines', '\n'.repeat(N)],
    ['x, dashes, x', `x${'-'.repeat(N - 2)}x`],
    ['x, slashes, x', `x${'/'.repeat(N - 2)}x`],
    ['one long word', 'a'.repeat(N)],
    ['camel humps', 'aA'.repeat(N / 2)],
    ['dotted', 'a.'.repeat(N / 2)],
    ['colons', 'a:'.repeat(N / 2)],
    ['hashes', '#1'.repeat(N / 2)],
    ['equals', 'a='.repeat(N / 2)],
    ['apostrophe words', "it's ".repeat(N / 5)],
    ['open quotes', "'a ".repeat(N / 3)],
    ['short words', 'ab '.repeat(N / 3)],
    ['digits', '1 '.repeat(N / 2)],
    ['non-ASCII letters', 'é'.repeat(N)],
  ];
  for (const [name, text] of inputs) {
    it(`${name} (${text.length} characters)`, () => {
      assert.ok(Array.isArray(extractPieces(text, { sentences: true })));
      assert.ok(Array.isArray(wordsOf(text)));
      const m = new SummaryMatcher(text);
      m.findSpan('a b');
      m.findSpan('a', true);
      m.findSpan('x x x', true);
      m.findExact('x-');
    });
  }

  it('a run of “İ ” (a letter whose lower case is longer) goes through too', () => {
    const m = new SummaryMatcher('İ '.repeat(20_000));
    assert.equal(m.findSpan('x'), undefined);
  });
});
