// Tests for mentionsOf and mentionsFrom (src/core/evidence.ts): the forms a turn's pieces name (key, shareKey,
// alternatives and parts), each once in the order first named, with their hashes (the same for the same form),
// however many there are.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { mentionsFrom, mentionsOf, type EvidencePiece } from '../../../src/core/evidence';

/** The distinct forms in the order first given. */
function distinctInOrder(forms: readonly string[]): string[] {
  return [...new Set(forms)];
}

function piece(key: string, shareKey: string, alt?: string[], parts?: string[]): EvidencePiece {
  return { text: key, kind: 'identifier', key, shareKey, ...(alt ? { alt } : {}), ...(parts ? { parts } : {}) };
}

describe('mentionsOf and mentionsFrom', () => {
  it('give each form once, in the order first named, with the same hash for the same form', () => {
    const mentions = mentionsOf([
      piece('ledger ts', 'ledger ts', ['ledger'], ['src ledger', 'ledger ts']),
      piece('ledger', 'ledger'),
      piece('payout', 'ledger ts', undefined, ['payout', 'src ledger']),
    ]);
    assert.deepEqual(mentions.forms, ['ledger ts', 'ledger', 'src ledger', 'payout']);
    assert.equal(mentions.hashes.length, 4);
    assert.equal(mentionsFrom(['payout']).hashes[0], mentions.hashes[3]);
    assert.equal(new Set(mentions.hashes).size, 4);
  });

  it('agree with the distinct forms for any pieces, few or thousands', () => {
    const form = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constantFrom('a', 'b', 'src ledger', ''),
      fc.string({ maxLength: 12, unit: 'grapheme' }),
    );
    const pieceArb = fc
      .tuple(
        form,
        form,
        fc.option(fc.array(form, { maxLength: 3 }), { nil: undefined }),
        fc.option(fc.array(form, { maxLength: 3 }), { nil: undefined }),
      )
      .map(([key, shareKey, alt, parts]) => piece(key, shareKey, alt, parts));
    fc.assert(
      fc.property(fc.array(pieceArb, { maxLength: 1500, size: 'max' }), (pieces) => {
        const named = pieces.flatMap((p) => [p.key, p.shareKey, ...(p.alt ?? []), ...(p.parts ?? [])]);
        const mentions = mentionsOf(pieces);
        assert.deepEqual(mentions.forms, distinctInOrder(named));
        assert.deepEqual(mentionsFrom(mentions.forms).hashes, mentions.hashes);
        for (const h of mentions.hashes) assert.ok(Number.isInteger(h) && h >= 0);
      }),
      { seed: 13, numRuns: 40 },
    );
  });
});
