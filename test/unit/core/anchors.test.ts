// Tests for src/core/anchors.ts: candidate extraction by kind, rarity ranking across a transcript, tolerant
// matching with offsets in the original summary, explicit anchors matched exactly, and the matching rules.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  AnchorIndex,
  checkAnchors,
  extractCandidates,
  normalizeAnchor,
  requiredMatches,
  SummaryMatcher,
} from '../../../src/core/anchors';
import { turn } from './transcripts';

function kinds(text: string): string[] {
  return extractCandidates(text).map((c) => `${c.kind}:${c.text}`);
}

describe('core/anchors: candidates', () => {
  it('finds paths, identifiers, numbers, error codes and quoted strings', () => {
    const got = kinds(
      'Fix ERR_LEDGER_4107 in src/core/ledger.ts: parseEntry() fails when amount > 1000; ' +
        'rustc says E0308, see "reconciliation mismatch" and v1.2.3 and std::vector and snake_case_name.',
    );
    for (const want of [
      'error-code:ERR_LEDGER_4107',
      'path:src/core/ledger.ts',
      'path:ledger.ts',
      'identifier:parseEntry',
      'number:1000',
      'error-code:E0308',
      'quoted:reconciliation mismatch',
      'number:v1.2.3',
      'identifier:std::vector',
      'identifier:snake_case_name',
    ]) {
      assert.ok(got.includes(want), `${want} in ${got.join(' | ')}`);
    }
  });

  it('finds dotted names, kebab names with digits, hashes, Windows paths, proper nouns', () => {
    const got = kinds(
      'Done with gqc.4 and spotter-dov.3 on gpt-4o; commit a1b2c3d4 touched C:\\Users\\me\\main.rs:42:5. ' +
        'We chose Postgres over ENOENT.',
    );
    for (const want of [
      'identifier:gqc.4',
      'identifier:spotter-dov.3',
      'identifier:gpt-4o',
      'identifier:a1b2c3d4',
      'path:C:\\Users\\me\\main.rs',
      'path:main.rs',
      'word:Postgres',
      'word:ENOENT',
    ]) {
      assert.ok(got.includes(want), `${want} in ${got.join(' | ')}`);
    }
  });

  it('finds nothing distinctive in chit-chat, prose, short numbers or apostrophes', () => {
    for (const text of [
      'ok, go ahead',
      'Sounds good, thanks!',
      'Yes, please do that and then run the tests.',
      'We need 2 or 3 more, i.e. a few, e.g. 42.',
      "don't worry, it's fine and that's that",
      'and/or',
      'This is great. That works.',
      '',
    ]) {
      assert.deepEqual(kinds(text), [], text);
    }
  });

  it('splits escapes in logged JSON instead of reading them as paths', () => {
    const got = kinds('{"content":"Exit code 1\\nerror[E0308]: mismatched types"}');
    assert.ok(got.includes('error-code:E0308'));
    assert.ok(!got.some((k) => k.startsWith('path:')), got.join(' | '));
  });

  it('skips code between quotes, escaped quotes of logged JSON and terminal colour codes', () => {
    const got = kinds(
      'run \\"bd list --status=open 2>/dev/null\\" then "font-size: 0.8em; color: #888;" and ' +
        '"<div id=x>" \u001b[0mWaiting for SELECT_V2\\nSELECT_V3 and a "plain phrase here"',
    );
    assert.ok(!got.some((k) => k.startsWith('quoted:') && k !== 'quoted:plain phrase here'), got.join(' | '));
    assert.ok(got.includes('quoted:plain phrase here'));
    assert.ok(!got.some((k) => k.includes('0mWaiting')), got.join(' | '));
    assert.ok(got.includes('error-code:SELECT_V3'), got.join(' | '));
    assert.ok(!got.some((k) => k.includes('nSELECT')), got.join(' | '));
  });

  it('name.ext is a path only for extension-like endings', () => {
    const got = kinds('see drop.php, config.yaml, liveSocket.connect and deps.compile');
    for (const want of ['path:drop.php', 'path:config.yaml', 'identifier:liveSocket.connect', 'identifier:deps.compile']) {
      assert.ok(got.includes(want), `${want} in ${got.join(' | ')}`);
    }
  });

  it('normalises to lowercase words joined by one space', () => {
    assert.equal(normalizeAnchor('ERR_LEDGER_4107'), 'err ledger 4107');
    assert.equal(normalizeAnchor('  src/Core/model.TS  '), 'src core model ts');
    assert.equal(normalizeAnchor('--'), '');
  });

  it('never throws and stays bounded on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        for (const c of extractCandidates(text)) {
          assert.ok(c.key.length > 0);
          assert.equal(c.key, normalizeAnchor(c.text));
          assert.ok(text.slice(c.at).startsWith(c.text) || c.kind === 'quoted');
        }
      }),
    );
  });
});

describe('core/anchors: AnchorIndex (rarity across the transcript)', () => {
  it('keeps at most three anchors, rarest first, and drops what many turns share', () => {
    const turns = [
      turn(0, 'Edited src/app.ts and src/util.ts; ERR_PARSE_77 fixed; ticket JIRA-1234; build 20261113; see config.yaml'),
      ...Array.from({ length: 9 }, (_, i) => turn(i + 1, `Opened src/app.ts again (${i}) and ERR_PARSE_77 and config.yaml`)),
    ];
    const index = new AnchorIndex(turns);
    assert.equal(index.maxDf, 2);
    assert.equal(index.documentFrequency('src app ts'), 10);
    const anchors = index.anchorsFor(0);
    assert.equal(anchors.length, 3);
    assert.ok(anchors.every((a) => a.df === 1));
    // src/app.ts, ERR_PARSE_77 and config.yaml occur in 10 turns: never anchors.
    assert.ok(!anchors.some((a) => ['src/app.ts', 'ERR_PARSE_77', 'config.yaml'].includes(a.anchor)));
    // At equal rarity an error code outranks a path, a path outranks a number.
    assert.equal(anchors[0].anchor, 'JIRA-1234');
    assert.equal(anchors[0].kind, 'error-code');
    assert.deepEqual(anchors.slice(1).map((a) => a.kind), ['path', 'path']);
    assert.deepEqual(index.anchorsFor(3), []);
  });

  it('plain integers are weak: used only when strong anchors run out; shorter anchors first at equal rarity', () => {
    const index = new AnchorIndex([
      turn(0, 'lines 516 517 519 of /home/USER/projects/app/lib/app/message.ex and release v2.3.1'),
    ]);
    assert.deepEqual(index.anchorsFor(0).map((a) => a.anchor), ['message.ex', '/home/USER/projects/app/lib/app/message.ex', 'v2.3.1']);
    const pairs = new AnchorIndex([turn(0, 'the creation/loading step of lib/parser.ex')]);
    assert.deepEqual(pairs.anchorsFor(0).map((a) => a.anchor), ['parser.ex', 'lib/parser.ex', 'creation/loading']);
    assert.ok(!kinds('set it to "header" or "submit"').some((k) => k.startsWith('quoted:')));
    const numbersOnly = new AnchorIndex([turn(0, 'lines 516 and 517')]);
    assert.deepEqual(numbersOnly.anchorsFor(0).map((a) => a.anchor), ['516', '517']);
  });

  it('a turn with no distinctive content has no anchors', () => {
    const index = new AnchorIndex([turn(0, 'ok, go ahead'), turn(1, 'Fixed ERR_X_1 in lib/a.py')]);
    assert.deepEqual(index.anchorsFor(0), []);
    assert.ok(index.anchorsFor(1).length > 0);
  });

  it('proper nouns fill in only after structured anchors', () => {
    const index = new AnchorIndex([turn(0, 'We migrated to Postgres with schema_v2 tables.')]);
    assert.deepEqual(index.anchorsFor(0).map((a) => a.anchor), ['schema_v2', 'Postgres']);
  });

  it('allows up to 2% of turns to share an anchor in large transcripts', () => {
    const turns = Array.from({ length: 500 }, (_, i) => turn(i, i % 50 === 0 ? `touch shared_thing_x and id_${i}` : 'ok'));
    const index = new AnchorIndex(turns);
    assert.equal(index.maxDf, 10);
    assert.ok(index.anchorsFor(0).some((a) => a.anchor === 'shared_thing_x'));
  });
});

describe('core/anchors: matching', () => {
  it('matches derived anchors tolerant of case and punctuation, at word boundaries', () => {
    const summary = 'We fixed Err-Ledger 4107 in SRC/CORE/LEDGER.TS, and 41070 others.';
    const m = new SummaryMatcher(summary);
    assert.equal(m.findTolerant('ERR_LEDGER_4107'), summary.indexOf('Err-Ledger'));
    assert.equal(m.findTolerant('src/core/ledger.ts'), summary.indexOf('SRC'));
    assert.equal(m.findTolerant('ledger.ts'), summary.indexOf('LEDGER.TS'));
    assert.equal(m.findTolerant('4107'), summary.indexOf('4107'));
    assert.equal(m.findTolerant('1070'), undefined); // not at a word boundary
    assert.equal(m.findTolerant('ledger 4107 in src core x'), undefined);
    assert.equal(m.findTolerant('...'), undefined);
  });

  it('a long path also matches by its last directory and file name', () => {
    const t = turn(0, 'Edited /home/USER/projects/app/lib/spotter/transcripts/message.ex');
    const index = new AnchorIndex([t, turn(1, 'message.ex'), turn(2, 'message.ex')]);
    const derived = index.anchorsFor(0);
    assert.deepEqual(derived.map((a) => a.anchor), ['/home/USER/projects/app/lib/spotter/transcripts/message.ex']);
    const summary = 'We changed transcripts/message.ex to add refs.';
    const check = checkAnchors(t, derived, new SummaryMatcher(summary), 'any');
    assert.equal(check.outcome, 'found');
    assert.equal(check.anchors[0].at, summary.indexOf('transcripts/'));
    assert.equal(checkAnchors(t, derived, new SummaryMatcher('We changed message.ex.'), 'any').outcome, 'absent');
  });

  it('reports offsets in the original string even when lowercasing changes lengths', () => {
    const summary = 'İİİ — then `Überweisung_Fehler_42` failed';
    const m = new SummaryMatcher(summary);
    const at = m.findTolerant('überweisung-fehler-42');
    assert.equal(at, summary.indexOf('Überweisung'));
  });

  it('explicit anchors are exact substrings (case-sensitive; "" is always present)', () => {
    const m = new SummaryMatcher('the Ledger balance');
    const hit = checkAnchors(turn(0, 'x', { anchor: 'Ledger' }), [], m, 'any');
    assert.deepEqual(hit.anchors, [{ anchor: 'Ledger', kind: 'explicit', found: true, at: 4 }]);
    assert.equal(hit.outcome, 'found');
    const miss = checkAnchors(turn(0, 'x', { anchor: 'ledger' }), [], m, 'any');
    assert.equal(miss.outcome, 'absent');
    assert.deepEqual(miss.anchors, [{ anchor: 'ledger', kind: 'explicit', found: false }]);
    assert.equal(checkAnchors(turn(0, 'x', { anchor: '' }), [], m, 'all').outcome, 'found');
  });

  it('the matching rule decides how many derived anchors must be found', () => {
    assert.deepEqual([1, 2, 3, 4].map((n) => requiredMatches(n, 'any')), [1, 1, 1, 1]);
    assert.deepEqual([1, 2, 3, 4].map((n) => requiredMatches(n, 'majority')), [1, 2, 2, 3]);
    assert.deepEqual([1, 2, 3, 4].map((n) => requiredMatches(n, 'all')), [1, 2, 3, 4]);
    const t = turn(0, 'ALPHA_1 BETA_2 GAMMA_3');
    const index = new AnchorIndex([t]);
    const derived = index.anchorsFor(0);
    assert.equal(derived.length, 3);
    const m = new SummaryMatcher('alpha 1 and beta-2 only');
    assert.equal(checkAnchors(t, derived, m, 'any').outcome, 'found');
    assert.equal(checkAnchors(t, derived, m, 'majority').outcome, 'found');
    const all = checkAnchors(t, derived, m, 'all');
    assert.equal(all.outcome, 'absent');
    assert.equal(all.found, 2);
    assert.equal(all.required, 3);
    assert.equal(checkAnchors(t, derived, new SummaryMatcher('alpha 1'), 'majority').outcome, 'absent');
    assert.equal(checkAnchors(t, [], m, 'all').outcome, 'none');
  });

  it('a found derived anchor really occurs at its offset (normalised)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('ERR_A_1', 'src/x.ts', 'Foo::bar', 'v2.0.1', '—', ' ', ',', 'lorem', 'x.ts'), { maxLength: 12 }),
        fc.constantFrom('ERR_A_1', 'src/x.ts', 'x.ts', 'Foo::bar', 'v2.0.1'),
        (parts, anchor) => {
          const summary = parts.join(' ');
          const at = new SummaryMatcher(summary).findTolerant(anchor);
          const present = ` ${normalizeAnchor(summary)} `.includes(` ${normalizeAnchor(anchor)} `);
          assert.equal(at !== undefined, present);
          if (at !== undefined) assert.ok(normalizeAnchor(summary.slice(at)).startsWith(normalizeAnchor(anchor)));
        },
      ),
    );
  });
});
