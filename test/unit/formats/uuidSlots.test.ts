// Tests for src/formats/uuidSlots.ts: on random mixes of uuids in Claude Code's form and strings that are almost
// (upper case, a hyphen moved, a digit past f, one character more or less), UuidSlots numbers them as a Map
// would, and gives every uuid back equal to the string it was added with.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { UuidSlots } from '../../../src/formats/uuidSlots';

const hexDigits = (n: number) => fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((d) => d.join(''));
const canonical = fc.tuple(hexDigits(8), hexDigits(4), hexDigits(4), hexDigits(4), hexDigits(12)).map((groups) => groups.join('-'));
/** A uuid in Claude Code's form from a small pool of digits, so that the same one comes again. */
const repeated = fc.tuple(fc.constantFrom('0', 'f', 'a'), fc.nat(3)).map(([d, n]) => `${d.repeat(8)}-000${n}-4000-8000-${d.repeat(12)}`);
const almost = fc.oneof(
  canonical.map((u) => u.toUpperCase()),
  canonical.map((u) => u.slice(0, 8) + u.slice(9, 10) + '-' + u.slice(10)),
  canonical.map((u) => u.slice(0, 35) + 'g'),
  canonical.map((u) => u + '0'),
  canonical.map((u) => u.slice(1)),
  fc.string({ maxLength: 40 }),
);

describe('formats/uuidSlots', () => {
  it('numbers uuids as a Map would and gives each back as it was added (property, seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(canonical, repeated, almost), { maxLength: 300 }), (uuids) => {
        const slots = new UuidSlots();
        const model = new Map<string, number>();
        for (const uuid of uuids) {
          assert.equal(slots.get(uuid), model.get(uuid), uuid);
          if (!model.has(uuid)) {
            model.set(uuid, model.size);
            assert.equal(slots.add(uuid), model.get(uuid));
          }
        }
        assert.equal(slots.size, model.size);
        for (const [uuid, slot] of model) {
          assert.equal(slots.get(uuid), slot);
          assert.equal(slots.uuidAt(slot), uuid);
        }
        assert.equal(slots.get('ffffffff-ffff-ffff-ffff-fffffffffff0'), model.get('ffffffff-ffff-ffff-ffff-fffffffffff0'));
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  it('keeps many uuids through the table growing', () => {
    const slots = new UuidSlots();
    const uuid = (i: number): string => `${i.toString(16).padStart(8, '0')}-0001-4002-8000-${(i * 7).toString(16).padStart(12, '0')}`;
    for (let i = 0; i < 20_000; i++) assert.equal(slots.add(uuid(i)), i);
    for (let i = 0; i < 20_000; i += 97) {
      assert.equal(slots.get(uuid(i)), i);
      assert.equal(slots.uuidAt(i), uuid(i));
    }
    assert.equal(slots.get(uuid(20_000)), undefined);
  });
});
