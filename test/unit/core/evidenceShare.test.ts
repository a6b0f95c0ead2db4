// Tests for src/core/evidenceShare.ts: sameEvidence tells apart evidence that differs in any field (each field
// EVIDENCE_FIELDS lists), judge weighs the same with the checkpoint's table as without it, and analyze gives turns
// that name the same shared piece one evidence object.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import { judge, type Sharing } from '../../../src/core/evidence';
import { EVIDENCE_FIELDS, evidenceTable, sameEvidence } from '../../../src/core/evidenceShare';
import { extractPieces } from '../../../src/core/evidenceText';
import type { Evidence } from '../../../src/core/model';
import { SummaryMatcher } from '../../../src/core/summaryMatcher';
import { checkpoint, transcript, turn } from './transcripts';

const FOUND: Evidence = {
  text: 'src/ledger/post.ts',
  kind: 'path',
  found: true,
  weight: 0.5,
  sharedBy: 6,
  at: 10,
  length: 7,
  matched: 'post.ts',
  fromCall: true,
};

describe('core/evidenceShare', () => {
  it('sameEvidence: evidence alike, and evidence that differs in any field', () => {
    assert.ok(sameEvidence(FOUND, { ...FOUND }));
    const changes: Record<string, unknown>[] = [
      // Every field evidence may have, changed (EVIDENCE_FIELDS lists them, and the compiler keeps the list whole).
      ...Object.keys(EVIDENCE_FIELDS).map((name) => ({ [name]: ['changed'] })),
      { kind: 'name' },
      { found: false, at: undefined, length: undefined, matched: undefined },
      { weight: 0.25 },
      { sharedBy: 7 },
      { at: 11 },
      { length: 8 },
      { matched: undefined },
      { fromCall: undefined },
      { fromReasoning: true },
    ];
    for (const change of changes) {
      const other = { ...FOUND, ...change } as Evidence;
      assert.ok(!sameEvidence(FOUND, other), JSON.stringify(change));
      assert.ok(!sameEvidence(other, FOUND), JSON.stringify(change));
    }
  });

  it('judge weighs the same with a table as without, however the sharing falls', () => {
    const text = 'Edited src/ledger/post.ts and lib/core/queue.ex for ERR_LEDGER_4107; ran `mix test`, 49 tests pass; see JIRA-881';
    const pieces = extractPieces(text, { terms: true });
    const matcher = new SummaryMatcher('We edited post.ts for err-ledger-4107 and 49 tests; JIRA-881 is done.');
    const alike = evidenceTable();
    let seed = 3;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let sharedObjects = 0;
    const seen = new Set<Evidence>();
    for (let round = 0; round < 200; round++) {
      const counts = new Map(pieces.flatMap((p) => [p.key, p.shareKey, ...(p.alt ?? [])]).map((form) => [form, 1 + next(9)]));
      const sharedBy = (form: string): Sharing => ({ count: counts.get(form) ?? 1, first: next(4) === 0 });
      const seedBefore = seed;
      const alone = judge(pieces, matcher, sharedBy);
      seed = seedBefore; // the same sharing again
      const withTable = judge(pieces, matcher, sharedBy, { alike });
      assert.deepEqual(withTable, alone);
      for (const e of withTable.evidence) {
        if (seen.has(e)) sharedObjects++;
        seen.add(e);
      }
    }
    assert.ok(sharedObjects > 0, 'some evidence came from the table');
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
