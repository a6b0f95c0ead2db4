// Tests for mentionsOf and mentionsFrom (src/core/evidence.ts): the forms a turn names, each once in the order first
// named, with their hashes (the same for the same form), however many forms there are and however calls follow one
// another.
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

  it('keep every form once among thousands', () => {
    const forms = Array.from({ length: 9000 }, (_, i) => `form ${i % 4000}`);
    const mentions = mentionsFrom(forms);
    assert.deepEqual(mentions.forms, distinctInOrder(forms));
    assert.deepEqual(mentionsFrom(['form 7', 'form 7']).forms, ['form 7']);
  });

  it('agree with a Set for any forms, many or few, call after call', () => {
    const form = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constantFrom('a', 'b', 'src ledger', ''),
      fc.string({ maxLength: 12, unit: 'grapheme' }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(form, { maxLength: 3000, size: 'max' }), { minLength: 1, maxLength: 4 }), (calls) => {
        for (const forms of calls) {
          const mentions = mentionsFrom(forms);
          assert.deepEqual(mentions.forms, distinctInOrder(forms));
          const again = mentionsFrom(mentions.forms);
          assert.deepEqual(again.hashes, mentions.hashes);
          for (let k = 0; k < mentions.forms.length; k++) assert.ok(Number.isInteger(mentions.hashes[k]) && mentions.hashes[k] >= 0);
        }
      }),
      { seed: 13, numRuns: 60 },
    );
  });
});
