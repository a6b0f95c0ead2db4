// DigestTokenCache (token counts keyed by a digest of the text) answers as a Map keyed by the text does.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DigestTokenCache } from '../../../src/node/digestTokenCache';

describe('node/digestTokenCache', () => {
  it('answers as a Map keyed by the text, on texts with any code units (property, seeded)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('a', ' ', '\uD800', '\uDC00', '\uFFFD', 'é'), maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.nat(1000)), { maxLength: 40 }), fc.array(text, { maxLength: 20 }), (sets, asked) => {
        const cache = new DigestTokenCache();
        const model = new Map<string, number>();
        for (const [t, n] of sets) {
          cache.set(t, n);
          model.set(t, n);
        }
        assert.equal(cache.size, model.size);
        for (const t of [...asked, ...model.keys()]) {
          assert.equal(cache.get(t), model.get(t), JSON.stringify(t));
          assert.equal(cache.has(t), model.has(t), JSON.stringify(t));
        }
      }),
      { seed: 3, numRuns: 300 },
    );
  });

  it('tells apart texts that differ only in a lone surrogate, which UTF-8 would make one', () => {
    const cache = new DigestTokenCache();
    cache.set('a\uD800', 1);
    cache.set('a\uD801', 2);
    cache.set('a\uFFFD', 3);
    assert.deepEqual(
      ['a\uD800', 'a\uD801', 'a\uFFFD', 'a\uDC00'].map((t) => cache.get(t)),
      [1, 2, 3, undefined],
    );
    assert.equal(cache.size, 3);
  });
});
