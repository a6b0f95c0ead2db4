// Tests for src/core/findFact.ts: the note's incident read from samples/incident.jsonl (the fact of turn N−12 is
// claimed by the checkpoint but absent from its summary: raw log, flagged), every route of the note's
// `reconstruct` on a transcript with two checkpoints, queries as text and as checked regular expressions, caps,
// and no match.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import { findFact, parseFactQuery } from '../../../src/core/findFact';
import type { AnalysisOptions, FactAnswer, FactQuery, Transcript } from '../../../src/core/model';
import { CanonicalReader } from '../../../src/formats/canonical';
import { feed } from '../formats/feedLines';
import { checkpoint, span, transcript, turn } from './transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words };

function query(input: string): FactQuery {
  const parsed = parseFactQuery(input);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.query;
}

function find(t: Transcript, input: string): FactAnswer {
  return findFact(t, analyze(t, OPTS), query(input));
}

describe("core/findFact: the note's incident (samples/incident.jsonl)", () => {
  const sample = feed(new CanonicalReader(), readFileSync(resolve(__dirname, '../../../../samples/incident.jsonl')));

  it('the fact of turn N−12 (408) is claimed by the checkpoint but absent from its summary: raw log, flagged', () => {
    const answer = find(sample, 'ERR_LEDGER_4107');
    assert.equal(answer.matches.length, 1);
    const match = answer.matches[0];
    assert.equal(match.turnId, 408);
    assert.equal(match.line, 409);
    assert.equal(match.occurrences, 1);
    assert.equal(match.matched, 'ERR_LEDGER_4107');
    assert.match(match.excerpt.before, /the nightly reconcile fails with $/);
    assert.equal(match.routes.length, 1);
    const route = match.routes[0];
    assert.equal(route.status, 'claimed-missing');
    assert.equal(route.claimed, true);
    assert.equal(route.compacted, true);
    assert.equal(route.summaryHasText, false);
    assert.deepEqual(route.evidenceFound, []);
    assert.equal(route.route, 'raw-log');
    assert.equal(route.line, 409);
    assert.equal(route.flagged, true);
    const id = sample.checkpoints[0].summaryId;
    assert.equal(`${route.why}; ${route.says}`, `claimed by ${id} but absent from its summary; raw log line 409`);
    assert.equal(answer.flagged, 1);
    assert.deepEqual(answer.summaryMentions, []);
  });

  it('a fact of an early turn is routed to the summary, which holds the text itself', () => {
    const answer = find(sample, 'invoice_1007');
    assert.equal(answer.matches.length, 1);
    const route = answer.matches[0].routes[0];
    assert.equal(answer.matches[0].turnId, 1);
    assert.equal(route.status, 'covered');
    assert.equal(route.route, 'summary');
    assert.equal(route.summaryHasText, true);
    assert.equal(route.flagged, false);
    assert.equal(route.says, `from summary ${sample.checkpoints[0].summaryId}`);
    assert.equal(route.line, undefined);
    assert.equal(answer.flagged, 0);
    assert.equal(answer.summaryMentions.length, 1, 'the summary lists INVOICE_1007 itself');
  });

  it('the question asked after the checkpoint is not compacted by it', () => {
    const answer = find(sample, 'keep failing');
    assert.equal(answer.matches.length, 1);
    assert.equal(answer.matches[0].turnId, 420);
    const route = answer.matches[0].routes[0];
    assert.equal(route.compacted, false);
    assert.equal(route.route, 'not-compacted');
    assert.equal(route.status, undefined);
    assert.equal(route.flagged, false);
  });

  it('a regex finds every turn of a kind; flagged counts the claimed-missing ones', () => {
    const answer = find(sample, '/WEBHOOK_3[0-9]{3}\\b/');
    const ids = answer.matches.map((m) => m.turnId);
    assert.ok(ids.length > 5);
    for (const m of answer.matches) {
      const route = m.routes[0];
      assert.equal(route.flagged, route.status === 'claimed-missing');
      assert.equal(route.route, route.status === 'covered' ? 'summary' : 'raw-log');
    }
    assert.equal(answer.flagged, answer.matches.filter((m) => m.routes[0].flagged).length);
    assert.ok(answer.flagged > 0 && answer.flagged < ids.length);
  });
});

describe('core/findFact: every route, two checkpoints', () => {
  // S1 compacts turns 0–3 (claims 0–2; its summary carries turn 0 only). S2 compacts 0–6 and claims 3–5 with an
  // encrypted summary. Turn 2 is an acknowledgement with nothing to check.
  const turns = [
    turn(0, 'Deploy uses the key vault-prod-7 in region eu-west-3.', { anchor: 'vault-prod-7' }),
    turn(1, 'The flaky test is test_refund_rounding in tests/refund_test.py.', { anchor: 'test_refund_rounding' }),
    turn(2, 'ok', { role: 'assistant' }),
    turn(3, 'Unclaimed note: the vault-prod-7 key rotates on Fridays.'),
    turn(4, 'More work on vault-prod-7.'),
    turn(5, 'Still more.'),
    turn(6, 'Tail mentions vault-prod-7 once more.'),
  ];
  const s1 = checkpoint({
    summaryId: 'S1',
    summary: 'The deploy uses key vault-prod-7.',
    summaryBudget: 4096,
    claimedIds: [0, 1, 2],
    turnsBefore: 4,
    span: span(20),
  });
  const s2 = checkpoint({
    summaryId: 'S2',
    summary: '',
    opaque: true,
    summaryBudget: 4096,
    claimedIds: [3, 4, 5],
    turnsBefore: 7,
    span: span(21),
  });
  const t = transcript(turns, [s1, s2]);

  it('covered → summary; after S1 → not compacted; claimed by an encrypted S2 → raw log, saying why', () => {
    const answer = find(t, 'VAULT-PROD-7');
    assert.deepEqual(
      answer.matches.map((m) => m.turnId),
      [0, 3, 4, 6],
    );
    const [t0, t3, t4, t6] = answer.matches;
    assert.deepEqual(
      t0.routes.map((r) => [r.summaryId, r.status, r.route]),
      [
        ['S1', 'covered', 'summary'],
        ['S2', 'uncovered', 'raw-log'],
      ],
    );
    assert.equal(t0.routes[0].why, 'claimed by S1, whose summary holds the text itself');
    assert.equal(t0.routes[1].why, 'not claimed by S2');
    assert.equal(t0.routes[1].says, 'raw log line 1');
    assert.deepEqual(
      t3.routes.map((r) => [r.status, r.route, r.claimed]),
      [
        ['uncovered', 'raw-log', false],
        ['unverifiable', 'raw-log', true],
      ],
    );
    assert.match(t3.routes[1].why, /^claimed by S2, but the summary is encrypted/);
    assert.equal(t3.routes[1].summaryHasText, false, 'an encrypted summary holds nothing readable');
    assert.deepEqual(
      t4.routes.map((r) => r.route),
      ['not-compacted', 'raw-log'],
    );
    assert.deepEqual(
      t6.routes.map((r) => [r.route, r.status]),
      [
        ['not-compacted', undefined],
        ['raw-log', 'uncovered'],
      ],
    );
    assert.equal(answer.flagged, 0);
    assert.deepEqual(
      answer.summaryMentions.map((m) => m.summaryId),
      ['S1'],
    );
  });

  it('claimed-missing → raw log, flagged; nothing-to-check → raw log, saying why', () => {
    const missing = find(t, 'test_refund_rounding');
    assert.equal(missing.matches.length, 1);
    assert.equal(missing.matches[0].routes[0].status, 'claimed-missing');
    assert.equal(missing.matches[0].routes[0].flagged, true);
    assert.equal(
      `${missing.matches[0].routes[0].why}; ${missing.matches[0].routes[0].says}`,
      'claimed by S1 but absent from its summary; raw log line 2',
    );
    assert.equal(missing.flagged, 1);

    const ack = find(t, '/^ok$/');
    assert.equal(ack.matches.length, 1);
    const route = ack.matches[0].routes[0];
    assert.equal(route.status, 'nothing-to-check');
    assert.equal(route.route, 'raw-log');
    assert.match(route.why, /^claimed by S1, but nothing worth carrying/);
    assert.equal(route.flagged, false);
  });

  it('covered by its evidence but not the text: says what the summary carries instead', () => {
    const answer = find(t, 'eu-west-3');
    const route = answer.matches[0].routes[0];
    assert.equal(route.status, 'covered');
    assert.equal(route.summaryHasText, false);
    assert.deepEqual(route.evidenceFound, ['vault-prod-7']);
    assert.equal(route.why, 'claimed by S1, whose summary carries “vault-prod-7” but not the text itself');
  });

  it('no match: an empty answer, and the summaries do not mention it either', () => {
    const answer = find(t, 'nowhere-to-be-found');
    assert.deepEqual(answer, { query: 'nowhere-to-be-found', matches: [], omitted: 0, flagged: 0, summaryMentions: [] });
  });

  it('caps the turns listed and the matches counted in one turn', () => {
    const many = transcript(
      Array.from({ length: 30 }, (_, i) => turn(i, 'x '.repeat(500))),
      [],
    );
    const answer = findFact(many, analyze(many, OPTS), query('x'), { maxMatches: 10, maxPerTurn: 7 });
    assert.equal(answer.matches.length, 10);
    assert.equal(answer.omitted, 20);
    assert.equal(answer.matches[0].occurrences, 7);
    assert.equal(answer.matches[0].more, true);
  });

  it('text is matched literally and case-insensitively, excerpts stay on one line', () => {
    const t2 = transcript([turn(0, 'line one\n\nA.B*C (x)\nline three')], []);
    const answer = find(t2, 'a.b*c (X)');
    assert.equal(answer.matches.length, 1);
    assert.deepEqual(answer.matches[0].excerpt, { before: 'line one ', match: 'A.B*C (x)', after: ' line three' });
    assert.equal(find(t2, 'a.b').matches.length, 1);
    assert.equal(find(t2, 'aXb').matches.length, 0, 'a dot is a dot');
  });
});

describe('core/findFact: queries', () => {
  it('plain text, and /regex/flags', () => {
    assert.deepEqual(parseFactQuery('ERR_LEDGER_4107'), { query: { kind: 'text', text: 'ERR_LEDGER_4107' } });
    assert.deepEqual(parseFactQuery('/err_[a-z]+_\\d+/i'), { query: { kind: 'regex', source: 'err_[a-z]+_\\d+', flags: 'i' } });
    assert.deepEqual(parseFactQuery('a/b'), { query: { kind: 'text', text: 'a/b' } });
    assert.deepEqual(parseFactQuery('/'), { query: { kind: 'text', text: '/' } });
    assert.deepEqual(parseFactQuery('/src/x.ts'), { query: { kind: 'text', text: '/src/x.ts' } }, 'a path is text: its tail is no flags');
  });

  it('refuses empty and over-long text', () => {
    assert.ok('error' in parseFactQuery('   '));
    assert.ok('error' in parseFactQuery('x'.repeat(1001)));
  });

  /** Patterns that backtrack super-linearly (or could), and what else find refuses. */
  const REFUSED: [string, RegExp][] = [
    ['/(a+)+$/', /holds a repeat of its own/],
    ['/(\\w*)*x/', /holds a repeat of its own/],
    ['/(?:\\d{1,3})+x/', /holds a repeat of its own/],
    ['/(a|ab)*c/', /alternatives .* can start with the same character/],
    ['/(a|a){1,50}b/', /alternatives .* can start with the same character/],
    ['/(a|ab)(a|ab)(a|ab)(a|ab)(a|ab)(a|ab)(a|ab)z/', /too many of its alternatives/],
    ['/.*.*x/', /can take the same characters/],
    ['/x\\s*:?\\s*y/', /can take the same characters/],
    ['/a?a?a?a?a?aaaaa/', /can take the same characters/],
    ['/\\w+\\d+x/', /can take the same characters/],
    ['/\\s+$/', /retried from every position/],
    ['/error.*timeout/', /retried from every position/],
    ['/(foo|bar)+baz/', /retried from every position/],
    ['/ledger.+rotated/s', /retried from every position/],
    ['/(\\w+)=\\1/', /backreferences/],
    ['/(?=a)b/', /lookarounds/],
    ['/(?<!a)b/', /lookarounds/],
    ['/a{1,5000}/', /repeat count above 100/],
    ['/x*/', /matches empty text/],
    ['/[/', /not a valid regular expression/],
    ['/abc/y', /unsupported flag y/],
    ['/abc/ii', /repeated/],
  ];
  for (const [input, why] of REFUSED) {
    it(`refuses ${input}, suggesting plain text`, () => {
      const parsed = parseFactQuery(input);
      assert.ok('error' in parsed, `${input} should be refused`);
      assert.match(parsed.error, why);
      assert.match(parsed.error, /Search for plain text instead/);
    });
  }

  const ACCEPTED = [
    '/ERR_[A-Z]+_\\d+/',
    '/\\bport \\d{2,5}\\b/i',
    '/colou?r/',
    '/x(foo|bar)+baz/',
    '/^Found it/m',
    '/error[^\\n]{0,80}timeout/',
    '/https?:\\/\\/example\\.com/',
    '/\\p{Lu}{3}_\\d+/u',
  ];
  for (const input of ACCEPTED) {
    it(`accepts ${input}`, () => {
      assert.ok('query' in parseFactQuery(input), JSON.stringify(parseFactQuery(input)));
    });
  }

  it('findFact refuses an unchecked regex query instead of running it', () => {
    const t = transcript([turn(0, 'aaaa')], []);
    assert.throws(() => findFact(t, analyze(t, OPTS), { kind: 'regex', source: '(a+)+$', flags: '' }), RangeError);
  });
});
