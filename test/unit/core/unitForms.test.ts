// Tests for UnitForms, addNewHashes and visitFormsLetThrough (src/core/unitForms.ts), sharing's two passes over a
// unit: the first adds each form's hash to the filter once per unit, however often the unit names it; the second
// visits each distinct form the filter lets through once per unit, in the order first named, however many forms a
// unit has (the table grows) and however many units there are.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { EvidencePiece } from '../../../src/core/evidence';
import { TwiceFilter } from '../../../src/core/twiceFilter';
import { addNewHashes, formHash, UnitForms, visitFormsLetThrough } from '../../../src/core/unitForms';

function piece(key: string, shareKey: string, alt?: string[], parts?: string[]): EvidencePiece {
  return { text: key, kind: 'identifier', key, shareKey, ...(alt ? { alt } : {}), ...(parts ? { parts } : {}) };
}

/** The forms the second pass visits for a unit made of the given turns' pieces. */
function visited(met: UnitForms, turns: readonly EvidencePiece[][], filter: TwiceFilter): string[] {
  const forms: string[] = [];
  met.begin();
  for (const pieces of turns) visitFormsLetThrough(pieces, met, filter, (form) => forms.push(form));
  return forms;
}

/** A filter that lets every form through (each hash added twice). */
function lettingAllThrough(turns: readonly EvidencePiece[][]): TwiceFilter {
  const filter = new TwiceFilter(1000);
  for (const form of turns.flatMap(named)) {
    filter.add(formHash(form));
    filter.add(formHash(form));
  }
  return filter;
}

/** The first pass over units, each a list of turns' pieces, into a new filter. */
function firstPass(met: UnitForms, units: readonly EvidencePiece[][][]): TwiceFilter {
  const filter = new TwiceFilter(1000);
  for (const turns of units) {
    met.begin();
    for (const pieces of turns) addNewHashes(pieces, met, filter);
  }
  return filter;
}

/** Every form the pieces name, repeats included, in the order named. */
function named(pieces: readonly EvidencePiece[]): string[] {
  return pieces.flatMap((p) => [p.key, p.shareKey, ...(p.alt ?? []), ...(p.parts ?? [])]);
}

/** Two different forms with one formHash, found by search over short strings. */
function sameHashPair(): [string, string] {
  const byHash = new Map<number, string>();
  for (let n = 0; ; n++) {
    const form = n.toString(36);
    const other = byHash.get(formHash(form));
    if (other !== undefined) return [other, form];
    byHash.set(formHash(form), form);
  }
}

describe('UnitForms, addNewHashes and visitFormsLetThrough', () => {
  it('the first pass adds a form once per unit, so only a form two units name may be twice', () => {
    const met = new UnitForms();
    // "ledger ts" is named three times by the first unit (key, share key, part), once by the second; "ledger" twice
    // by the first unit alone (an alternative, then a key in its other turn).
    const filter = firstPass(met, [
      [[piece('ledger ts', 'ledger ts', ['ledger'], ['src ledger', 'ledger ts'])], [piece('payout', 'payout'), piece('ledger', 'ledger')]],
      [[piece('ledger ts', 'ledger ts')]],
    ]);
    assert.equal(filter.maybeTwice(formHash('ledger ts')), true);
    for (const once of ['ledger', 'src ledger', 'payout']) assert.equal(filter.maybeTwice(formHash(once)), false, once);
  });

  it('the first pass starts again with each unit', () => {
    const met = new UnitForms();
    const filter = firstPass(met, [[[piece('a', 'b')]], [[piece('b', 'a')]]]);
    assert.equal(filter.maybeTwice(formHash('a')), true);
    assert.equal(filter.maybeTwice(formHash('b')), true);
  });

  it('the second pass visits each form once, in the order first named', () => {
    const turns = [
      [piece('ledger ts', 'ledger ts', ['ledger'], ['src ledger', 'ledger ts']), piece('ledger', 'ledger')],
      [piece('payout', 'ledger ts', undefined, ['payout', 'src ledger'])],
    ];
    assert.deepEqual(visited(new UnitForms(), turns, lettingAllThrough(turns)), ['ledger ts', 'ledger', 'src ledger', 'payout']);
  });

  it('the second pass visits only what the filter may have seen twice', () => {
    const filter = new TwiceFilter(100);
    filter.add(formHash('twice'));
    filter.add(formHash('twice'));
    filter.add(formHash('once'));
    assert.deepEqual(visited(new UnitForms(), [[piece('once', 'twice', ['twice'])]], filter), ['twice']);
  });

  it('the second pass tells apart forms of the same hash', () => {
    const pair = sameHashPair();
    const turns = [[piece(pair[0], pair[1]), piece(pair[1], pair[0])]];
    assert.deepEqual(visited(new UnitForms(), turns, lettingAllThrough(turns)), pair);
  });

  it('agree with the distinct forms for any units, few or thousands of forms each', function () {
    this.timeout(20_000);
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
        // The second pass: every distinct form of each unit, in order.
        for (const turns of units) {
          assert.deepEqual(visited(met, turns, lettingAllThrough(turns)), [...new Set(turns.flatMap(named))]);
        }
        // The first pass: a form is let through when two units name it, and one unit naming it often is not enough
        // unless another form's hash shares its places (the filter's own false positives, which its tests bound).
        const filter = firstPass(met, units);
        const unitsNaming = new Map<string, number>();
        for (const turns of units) for (const f of new Set(turns.flatMap(named))) unitsNaming.set(f, (unitsNaming.get(f) ?? 0) + 1);
        for (const [f, n] of unitsNaming) if (n >= 2) assert.ok(filter.maybeTwice(formHash(f)), f);
      }),
      { seed: 13, numRuns: 40 },
    );
  });
});
