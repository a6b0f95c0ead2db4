// Tests for src/core/turnIdIndex.ts: on random sequences of turns appended and cut off (as CheckpointMemo indexes
// and unindexes them), with repeated, string, numeric and odd ids, TurnKeyIndex gives each id's first index as a
// fresh scan of the turns does, and ValuesById answers as a Map with the same keys does while its values move
// between the turns and the ids without one. TurnKeyIndex reads an id back from its turn only to confirm a match of
// its hash, never to grow.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { TurnId } from '../../../src/core/model';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import type { Turn } from '../../../src/core/model';
import { turn } from './transcripts';
import { TurnKeyIndex, ValuesById } from '../../../src/core/turnIdIndex';

const ID_POOL: TurnId[] = ['a', 'b', 'c', '', '5', 'a-long-uuid-like-id-0001', 'ü', '\ud800', 0, 5, -0, 1.5, 2 ** 40];

const idArb = fc.oneof(fc.constantFrom(...ID_POOL), fc.string({ maxLength: 6 }), fc.nat({ max: 300 }));
const opArb = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('push' as const), id: idArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), keep: fc.nat({ max: 400 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('set' as const), id: idArb, value: fc.nat({ max: 1000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: idArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reserve' as const), more: fc.nat({ max: 500 }) }) },
);

/** The first index of `id` in `turns`, as a scan finds it (a Map's key equality: -0 is 0). */
function firstIndex(turns: readonly TurnId[], id: TurnId): number | undefined {
  const at = turns.findIndex((t) => Object.is(t, id) || (t === 0 && id === 0));
  return at === -1 ? undefined : at;
}

describe('core/turnIdIndex', () => {
  it('gives first indexes and values as a scan and a Map do, as turns come and go', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 500 }), (ops) => {
        const turns: TurnId[] = [];
        const index = new TurnKeyIndex((at) => turns[at]);
        const values = new ValuesById(index);
        const model = new Map<TurnId, number>();
        for (const op of ops) {
          if (op.kind === 'push') {
            const at = turns.length;
            turns.push(op.id);
            if (!index.has(op.id)) {
              index.add(op.id, at);
              values.adopt(op.id, at);
            }
          } else if (op.kind === 'cut') {
            const keep = Math.min(op.keep, turns.length);
            for (let i = keep; i < turns.length; i++) {
              const at = index.get(turns[i]);
              if (at !== undefined && at >= keep) {
                values.release(turns[i], at);
                index.delete(turns[i]);
              }
            }
            turns.length = keep;
          } else if (op.kind === 'reserve') {
            index.reserve(op.more);
          } else if (op.kind === 'set') {
            values.set(op.id, op.value);
            model.set(op.id, op.value);
          } else {
            values.delete(op.id);
            model.delete(op.id);
          }
        }
        for (const id of [...ID_POOL, ...turns]) {
          assert.equal(index.get(id), firstIndex(turns, id), `first index of ${String(id)}`);
          assert.equal(values.get(id), model.get(id), `value of ${String(id)}`);
          assert.equal(values.has(id), model.has(id));
        }
        assert.equal(index.size, new Set(turns).size);
        turns.forEach((id, i) => {
          if (firstIndex(turns, id) === i) assert.equal(values.atTurn(i), model.get(id), `value at turn ${i}`);
        });
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  it('keeps every id of many turns, through growth and deletes in long runs, and forgets them all when cleared', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `id-${i % 3000}`);
    const index = new TurnKeyIndex((at) => ids[at]);
    for (let i = 0; i < ids.length; i++) if (!index.has(ids[i])) index.add(ids[i], i);
    assert.equal(index.size, 3000);
    for (let i = 0; i < ids.length; i++) assert.equal(index.get(ids[i]), i % 3000);
    for (let i = 1000; i < 3000; i++) index.delete(ids[i]);
    for (let i = 0; i < 3000; i++) assert.equal(index.get(ids[i]), i < 1000 ? i : undefined, ids[i]);
    assert.equal(index.size, 1000);
    index.clear();
    assert.equal(index.size, 0);
    assert.equal(index.get(ids[0]), undefined);
    index.add(ids[2], 2);
    assert.equal(index.get(ids[2]), 2);
  });

  it('makes room for many ids at once when asked, and the memo asks for the new string ids of a snapshot', () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `uuid-${i}`);
    const index = new TurnKeyIndex((at) => ids[at]);
    index.add(ids[0], 0);
    index.reserve(ids.length - 1);
    const capacity = index.capacity;
    assert.ok(capacity >= ids.length, String(capacity));
    for (let i = 1; i < ids.length; i++) index.add(ids[i], i);
    assert.equal(index.capacity, capacity, 'the table did not grow');
    ids.forEach((id, i) => assert.equal(index.get(id), i));
    // CheckpointMemo places the ids of 5,000 appended turns once, not once per doubling of its table.
    const prototype = TurnKeyIndex.prototype as unknown as { placeAll(length: number): void };
    const placeAll = prototype.placeAll;
    let placed = 0;
    prototype.placeAll = function (this: unknown, length: number) {
      placed++;
      placeAll.call(this, length);
    };
    try {
      const turns: Turn[] = Array.from({ length: 5000 }, (_, i) => turn(`turn-${i}`, 'x', {}, i + 1));
      const indexes = new CheckpointMemo().sync(turns, []);
      assert.equal(placed, 1);
      assert.equal(indexes.indexOfId.get('turn-4321'), 4321);
    } finally {
      prototype.placeAll = placeAll;
    }
  });

  it('reads an id back from its turn only to confirm a match, and grows without reading any', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `4362f811-3dbf-4002-8000-${String(i).padStart(12, '0')}`);
    let reads = 0;
    const index = new TurnKeyIndex((at) => {
      reads++;
      return ids[at];
    });
    // Adding 20,000 ids doubles the table nine times; only ids whose 32-bit hashes are alike are read (a few at most).
    for (let i = 0; i < ids.length; i++) index.add(ids[i], i);
    assert.ok(reads <= 5, `${reads} ids read back while adding`);
    reads = 0;
    for (let i = 0; i < ids.length; i += 7) assert.equal(index.get(ids[i]), i);
    assert.ok(reads <= Math.ceil(ids.length / 7) + 5, `${reads} ids read back for ${Math.ceil(ids.length / 7)} lookups`);
    reads = 0;
    assert.equal(index.get('not-an-id-held'), undefined);
    assert.ok(reads <= 1);
    // Cleared, it keeps its column of hashes: a turn added again has its new id's hash, and the old ids are gone.
    index.clear();
    for (let i = 0; i < ids.length; i += 2) ids[i] = `again-${i}`;
    for (let i = 0; i < ids.length; i += 2) index.add(ids[i], i);
    for (let i = 0; i < ids.length; i += 2) assert.equal(index.get(ids[i]), i);
    assert.equal(index.get('4362f811-3dbf-4002-8000-000000000001'), undefined);
    assert.equal(index.size, ids.length / 2);
  });
});
