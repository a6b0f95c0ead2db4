// Tests for UnitForms and visitNewForms (src/core/unitForms.ts): each distinct form a unit's pieces name (key, share
// key, alternatives, parts) is visited once per unit, in the order first named, with its formHash, however many
// forms a unit has (the table grows) and however many units there are; with a filter, only the forms it may have
// seen twice.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { EvidencePiece } from '../../../src/core/evidence';
import { TwiceFilter } from '../../../src/core/twiceFilter';
import { formHash, UnitForms, visitNewForms } from '../../../src/core/unitForms';

function piece(key: string, shareKey: string, alt?: string[], parts?: string[]): EvidencePiece {
  return { text: key, kind: 'identifier', key, shareKey, ...(alt ? { alt } : {}), ...(parts ? { parts } : {}) };
}

/** The forms visited for a unit made of the given turns' pieces, with their hashes. */
function visited(met: UnitForms, turns: readonly EvidencePiece[][], filter?: TwiceFilter): { forms: string[]; hashes: number[] } {
  const forms: string[] = [];
  const hashes: number[] = [];
  met.begin();
  for (const pieces of turns) {
    visitNewForms(
      pieces,
      met,
      (form, hash) => {
        forms.push(form);
        hashes.push(hash);
      },
      filter,
    );
  }
  return { forms, hashes };
}

/** Every form the pieces name, repeats included, in the order named. */
function named(pieces: readonly EvidencePiece[]): string[] {
  return pieces.flatMap((p) => [p.key, p.shareKey, ...(p.alt ?? []), ...(p.parts ?? [])]);
}

describe('UnitForms and visitNewForms', () => {
  it('visit each form once, in the order first named, with its hash', () => {
    const met = new UnitForms();
    const { forms, hashes } = visited(met, [
      [piece('ledger ts', 'ledger ts', ['ledger'], ['src ledger', 'ledger ts']), piece('ledger', 'ledger')],
      [piece('payout', 'ledger ts', undefined, ['payout', 'src ledger'])],
    ]);
    assert.deepEqual(forms, ['ledger ts', 'ledger', 'src ledger', 'payout']);
    assert.deepEqual(hashes, forms.map(formHash));
  });

  it('start again with each unit', () => {
    const met = new UnitForms();
    assert.deepEqual(visited(met, [[piece('a', 'b')]]).forms, ['a', 'b']);
    assert.deepEqual(visited(met, [[piece('b', 'a')]]).forms, ['b', 'a']);
  });

  it('tell apart forms of the same hash', () => {
    // Two forms with one hash: found by search over short strings.
    const byHash = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let n = 0; pair === undefined; n++) {
      const form = n.toString(36);
      const other = byHash.get(formHash(form));
      if (other !== undefined) pair = [other, form];
      else byHash.set(formHash(form), form);
    }
    const met = new UnitForms();
    assert.deepEqual(visited(met, [[piece(pair[0], pair[1]), piece(pair[1], pair[0])]]).forms, pair);
  });

  it('visit only what the filter may have seen twice', () => {
    const filter = new TwiceFilter(100);
    filter.add(formHash('twice'));
    filter.add(formHash('twice'));
    filter.add(formHash('once'));
    const met = new UnitForms();
    assert.deepEqual(visited(met, [[piece('once', 'twice', ['twice'])]], filter).forms, ['twice']);
  });

  it('agree with the distinct forms for any units, few or thousands of forms each', () => {
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
    const unit = fc.array(fc.array(pieceArb, { maxLength: 800, size: 'max' }), { minLength: 1, maxLength: 3 });
    const met = new UnitForms(); // one table for every run: units one after another, as in the sharing counts
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 4 }), (units) => {
        for (const turns of units) {
          const { forms, hashes } = visited(met, turns);
          assert.deepEqual(forms, [...new Set(turns.flatMap(named))]);
          assert.deepEqual(hashes, forms.map(formHash));
          for (const h of hashes) assert.ok(Number.isInteger(h) && h >= 0 && h < 2 ** 30);
        }
      }),
      { seed: 13, numRuns: 40 },
    );
  });
});
