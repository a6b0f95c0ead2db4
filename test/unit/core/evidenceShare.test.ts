// Tests for src/core/evidenceShare.ts: evidence alike is one object, evidence that differs in any field is not,
// the objects have the fields and the property order of evidence made anew, a text keeps at most MAX_VARIANTS
// objects, and judge weighs the same with the checkpoint's share as without it; analyze shares a piece that
// several turns name.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { judge, type Sharing } from '../../../src/core/evidence';
import { EvidenceShare, makeEvidence, MAX_VARIANTS, type EvidenceFields } from '../../../src/core/evidenceShare';
import { extractPieces } from '../../../src/core/evidenceText';
import { SummaryMatcher } from '../../../src/core/summaryMatcher';
import { checkpoint, transcript, turn } from './transcripts';

const BASE: EvidenceFields = {
  text: 'src/ledger/post.ts',
  kind: 'path',
  found: true,
  weight: 0.5,
  sharedBy: 6,
  at: 10,
  length: 7,
  matched: 'post.ts',
  fromCall: true,
  fromReasoning: false,
};

describe('core/evidenceShare', () => {
  it('gives one object for evidence alike, and another when any field differs', () => {
    const share = new EvidenceShare();
    const first = share.evidence({ ...BASE });
    assert.equal(share.evidence({ ...BASE }), first);
    const changes: Partial<EvidenceFields>[] = [
      { kind: 'name' },
      { found: false, at: undefined, length: undefined, matched: undefined },
      { weight: 0.25 },
      { sharedBy: 7 },
      { at: 11 },
      { length: 8 },
      { matched: undefined },
      { fromCall: false },
      { fromReasoning: true },
    ];
    for (const change of changes) {
      const share = new EvidenceShare();
      const first = share.evidence({ ...BASE });
      const fields = { ...BASE, ...change };
      const e = share.evidence(fields);
      assert.notEqual(e, first, JSON.stringify(change));
      assert.deepEqual(e, makeEvidence(fields));
      assert.equal(share.evidence({ ...fields }), e, `the variant ${JSON.stringify(change)} is kept too`);
    }
    assert.notEqual(share.evidence({ ...BASE, text: 'src/ledger/other.ts' }), first);
  });

  it('makes evidence with the properties in the order JSON shows them, and no flag that is not set', () => {
    assert.equal(
      JSON.stringify(makeEvidence(BASE)),
      '{"text":"src/ledger/post.ts","kind":"path","found":true,"weight":0.5,"sharedBy":6,"at":10,"length":7,"matched":"post.ts","fromCall":true}',
    );
    const absent = makeEvidence({ ...BASE, found: false, at: undefined, length: undefined, matched: undefined, fromCall: false });
    assert.deepEqual(Object.keys(absent), ['text', 'kind', 'found', 'weight', 'sharedBy']);
  });

  it(`keeps at most ${MAX_VARIANTS} objects a text, and still gives the right evidence past them`, () => {
    const share = new EvidenceShare();
    const kept = Array.from({ length: MAX_VARIANTS }, (_, k) => share.evidence({ ...BASE, sharedBy: k + 2 }));
    kept.forEach((e, k) => assert.equal(share.evidence({ ...BASE, sharedBy: k + 2 }), e));
    const extra = share.evidence({ ...BASE, sharedBy: 99 });
    assert.equal(extra.sharedBy, 99);
    assert.notEqual(share.evidence({ ...BASE, sharedBy: 99 }), extra, 'not kept');
  });

  it('judge weighs the same with a share as without, however the sharing falls', () => {
    const text = 'Edited src/ledger/post.ts and lib/core/queue.ex for ERR_LEDGER_4107; ran `mix test`, 49 tests pass; see JIRA-881';
    const pieces = extractPieces(text, { terms: true });
    const matcher = new SummaryMatcher('We edited post.ts for err-ledger-4107 and 49 tests; JIRA-881 is done.');
    const share = new EvidenceShare();
    let seed = 3;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const counts = new Map(pieces.flatMap((p) => [p.key, p.shareKey, ...(p.alt ?? [])]).map((form) => [form, 1 + next(9)]));
      const sharedBy = (form: string): Sharing => ({ count: counts.get(form) ?? 1, first: next(4) === 0 });
      const seedBefore = seed;
      const alone = judge(pieces, matcher, sharedBy, 1);
      seed = seedBefore; // the same sharing again
      const shared = judge(pieces, matcher, sharedBy, 1, { share });
      assert.deepEqual(shared, alone);
    }
  });

  it('analyze gives turns that name the same shared piece one evidence object', () => {
    const turns = [0, 1, 2, 3, 4].map((i) =>
      turn(i, `Step ${i}: edited src/ledger/post.ts again (pass ${i * 7 + 3}).`, { role: 'assistant' }),
    );
    const summary = 'We edited post.ts several times.';
    const t = transcript(turns, [checkpoint({ summary, claimedIds: [0, 1, 2, 3, 4], turnsBefore: 5 })]);
    const [cp] = analyze(t, { countTokens: (s) => s.length }).checkpoints;
    const pathOf = (k: number) => cp.turns[k].evidence.find((e) => e.text === 'src/ledger/post.ts');
    assert.ok(pathOf(1) && pathOf(1)?.sharedBy === 5, JSON.stringify(cp.turns[1].evidence));
    assert.equal(pathOf(2), pathOf(1), 'the same object for the second and third turn');
    assert.equal(pathOf(4), pathOf(1));
  });
});
