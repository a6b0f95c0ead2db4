// Tests for src/core/alikeTable.ts: a value alike by the caller's test is given back as the one seen before, under
// its key only; a key keeps at most `variants` values (later ones given back as they are, not kept); past `values`
// values kept in all the table starts again, empty; clear forgets everything.
import * as assert from 'node:assert/strict';
import { AlikeTable } from '../../../src/core/alikeTable';

interface Value {
  name: string;
  n: number;
}
const sameValue = (a: Value, b: Value): boolean => a.name === b.name && a.n === b.n;

describe('core/AlikeTable', () => {
  it('gives back the value seen before for one alike, under the same key only', () => {
    const table = new AlikeTable(sameValue, { variants: 4, values: 100 });
    const first = { name: 'a', n: 1 };
    assert.equal(table.alike('k', first), first);
    assert.equal(table.alike('k', { name: 'a', n: 1 }), first);
    const other = { name: 'a', n: 2 };
    assert.equal(table.alike('k', other), other);
    assert.equal(table.alike('k', { name: 'a', n: 2 }), other, 'a second variant is kept too');
    const elsewhere = { name: 'a', n: 1 };
    assert.equal(table.alike('j', elsewhere), elsewhere, 'another key is another table');
    assert.equal(table.size, 3, 'values kept: two under k, one under j');
  });

  it('keeps at most `variants` values a key', () => {
    const table = new AlikeTable(sameValue, { variants: 3, values: 100 });
    const kept = [0, 1, 2].map((n) => table.alike('k', { name: 'v', n }));
    kept.forEach((v, n) => assert.equal(table.alike('k', { name: 'v', n }), v));
    const extra = { name: 'v', n: 3 };
    assert.equal(table.alike('k', extra), extra);
    const again = { name: 'v', n: 3 };
    assert.equal(table.alike('k', again), again, 'not kept');
  });

  it('starts again, empty, past `values` values kept in all; clear forgets everything', () => {
    const table = new AlikeTable(sameValue, { variants: 3, values: 1000 });
    const first = table.alike('k0', { name: 'x', n: 0 });
    // Three variants a key: the bound counts values, not keys.
    for (let k = 1; k < 1000; k++) table.alike(`k${k % 334}`, { name: 'x', n: k });
    assert.equal(table.size, 1000);
    assert.equal(table.alike('k0', { name: 'x', n: 0 }), first, 'still held at the bound');
    const capped = { name: 'z', n: 0 };
    assert.equal(table.alike('k0', capped), capped, 'a fourth variant is not kept');
    assert.equal(table.size, 1000);
    const past = { name: 'y', n: 0 };
    assert.equal(table.alike('one more', past), past);
    assert.equal(table.size, 1, 'started again with the value past the bound');
    assert.equal(table.alike('one more', { name: 'y', n: 0 }), past);
    const fresh = { name: 'x', n: 0 };
    assert.equal(table.alike('k0', fresh), fresh, 'forgotten');
    table.clear();
    assert.equal(table.size, 0);
    const cleared = { name: 'y', n: 0 };
    assert.equal(table.alike('one more', cleared), cleared);
  });
  it('keeps the value that starts the table again, under a key that had values before', () => {
    const table = new AlikeTable(sameValue, { variants: 3, values: 10 });
    for (let k = 0; k < 8; k++) table.alike(`k${k}`, { name: 'x', n: k });
    table.alike('k8', { name: 'x', n: 8 });
    table.alike('k8', { name: 'x', n: 9 });
    assert.equal(table.size, 10);
    const third = { name: 'x', n: 10 };
    assert.equal(table.alike('k8', third), third);
    assert.equal(table.size, 1);
    assert.equal(table.alike('k8', { name: 'x', n: 10 }), third);
  });
});
