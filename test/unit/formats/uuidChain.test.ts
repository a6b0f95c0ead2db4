// UuidChain (the Claude Code reader's index of record uuids, in columns) against a plain model of it: the records
// in a list and a Map of each uuid's first record, as the reader kept them before.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UuidChain, type MessageRecord } from '../../../src/formats/uuidChain';

interface Rec {
  uuid: string;
  line: number;
  parent?: string;
  boundary: boolean;
}

/** What the reader read from a Map of first records and the list of records. */
class PlainModel {
  readonly records: Rec[] = [];
  readonly first = new Map<string, Rec>();
  readonly turns = new Map<string, number>();

  add(rec: Rec): void {
    this.records.push(rec);
    if (!this.first.has(rec.uuid)) this.first.set(rec.uuid, rec);
  }

  lastMessageBefore(lineNumber: number, limit: number): MessageRecord | undefined {
    let found: MessageRecord | undefined;
    for (const rec of this.records) {
      if (rec.line >= lineNumber) break;
      const t = this.turns.get(rec.uuid);
      if (t !== undefined && t < limit) found = { uuid: rec.uuid, line: rec.line };
    }
    return found;
  }
}

const UUIDS = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'];

describe('formats/uuidChain', () => {
  it('answers as a Map of first records and a list of records do, whatever the order (property, seeded)', () => {
    const step = fc.record({
      uuid: fc.constantFrom(...UUIDS),
      parent: fc.option(fc.constantFrom(...UUIDS), { nil: undefined }),
      boundary: fc.boolean(),
      gap: fc.integer({ min: 1, max: 3 }),
      turn: fc.option(fc.nat(20), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const chain = new UuidChain();
        const model = new PlainModel();
        let line = 0;
        for (const s of steps) {
          line += s.gap;
          chain.addRecord(s.uuid, line, s.parent, s.boundary);
          model.add({ uuid: s.uuid, line, parent: s.parent, boundary: s.boundary });
          // As the reader does: a uuid is read into a turn once.
          if (s.turn !== undefined && !model.turns.has(s.uuid)) {
            chain.setTurn(s.uuid, s.turn);
            model.turns.set(s.uuid, s.turn);
          }
        }
        for (const u of [...UUIDS, 'absent']) {
          const first = model.first.get(u);
          assert.equal(chain.lineOf(u), first?.line, `line of ${u}`);
          assert.equal(chain.parentOf(u), first?.parent, `parent of ${u}`);
          assert.equal(chain.isBoundary(u), first?.boundary === true, `boundary ${u}`);
          assert.equal(chain.turnOf(u), model.turns.get(u), `turn of ${u}`);
        }
        for (let at = 0; at <= line + 1; at++) {
          for (const limit of [0, 5, 21]) {
            assert.deepEqual(chain.lastMessageBefore(at, limit), model.lastMessageBefore(at, limit), `before ${at}, limit ${limit}`);
          }
        }
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('keeps a parent named before its own record as text, and one named after as its slot', () => {
    const chain = new UuidChain();
    chain.addRecord('child', 1, 'parent', false);
    chain.addRecord('parent', 2, 'grandparent', false);
    chain.addRecord('grandparent', 3, undefined, true);
    chain.addRecord('other', 4, 'parent', false);
    assert.equal(chain.parentOf('child'), 'parent');
    assert.equal(chain.parentOf('parent'), 'grandparent');
    assert.equal(chain.parentOf('grandparent'), undefined);
    assert.equal(chain.parentOf('other'), 'parent');
    assert.equal(chain.isBoundary('grandparent'), true);
  });

  it('grows past its first columns', () => {
    const chain = new UuidChain();
    for (let i = 0; i < 5000; i++) chain.addRecord(`u${i}`, i + 1, i > 0 ? `u${i - 1}` : undefined, false);
    chain.setTurn('u4999', 7);
    assert.equal(chain.lineOf('u4321'), 4322);
    assert.equal(chain.parentOf('u4321'), 'u4320');
    assert.deepEqual(chain.lastMessageBefore(6000, 8), { uuid: 'u4999', line: 5000 });
    assert.throws(() => chain.setTurn('absent', 1), /no record has the uuid absent/);
  });
});
