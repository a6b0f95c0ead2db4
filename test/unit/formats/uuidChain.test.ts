// UuidChain (the Claude Code reader's index of record uuids, in columns) against a plain model of it: the records
// in a list and a Map of each uuid's first record, as the reader kept them before.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UuidChain, type ChainStep, type MessageRecord } from '../../../src/formats/uuidChain';

/** The first `most` steps of a walk back from `uuid`, to `until` (as the reader walks a preserved segment). */
function stepsFrom(chain: UuidChain, uuid: string, most: number, until?: string): ChainStep[] {
  const steps: ChainStep[] = [];
  chain.walkBack(uuid, (step) => steps.push(step) < most && !step.isUntil, until);
  return steps;
}

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

  /** The turns on the chain from `start`, each uuid once, until a boundary or a record past `horizon`. */
  walk(start: string, horizon: number): Set<number> {
    const turns = new Set<number>();
    const seen = new Set<string>();
    for (let u: string | undefined = start; u !== undefined && !seen.has(u); u = this.first.get(u)?.parent) {
      seen.add(u);
      const rec = this.first.get(u);
      if (rec === undefined || rec.line > horizon || rec.boundary) break;
      const t = this.turns.get(u);
      if (t !== undefined) turns.add(t);
    }
    return turns;
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
          assert.equal(chain.turnOf(u), model.turns.get(u), `turn of ${u}`);
          // A walk's first two steps: the uuid's first record, then its parent's.
          const [self, parent] = stepsFrom(chain, u, 2);
          assert.deepEqual(
            self,
            first && { turn: model.turns.get(u), line: first.line, boundary: first.boundary, isUntil: false },
            `first record of ${u}`,
          );
          const parentFirst = first?.parent === undefined ? undefined : model.first.get(first.parent);
          assert.equal(parent?.line, parentFirst?.line, `parent of ${u}`);
          // A claim's walk (to a boundary or past a horizon) gathers the turns a walk over the records does.
          for (const horizon of [line / 2, line + 1]) {
            const turns = new Set<number>();
            chain.walkBack(u, (step) => {
              if (step.line > horizon || step.boundary) return false;
              if (step.turn !== undefined) turns.add(step.turn);
              return true;
            });
            assert.deepEqual([...turns].sort(), [...model.walk(u, horizon)].sort(), `walk from ${u} within line ${horizon}`);
          }
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
    const lines = (uuid: string, until?: string): number[] => stepsFrom(chain, uuid, 10, until).map((step) => step.line);
    assert.deepEqual(lines('child'), [1, 2, 3]);
    assert.deepEqual(lines('other'), [4, 2, 3]);
    assert.deepEqual(lines('child', 'parent'), [1, 2], 'stops at `until`, which is visited');
    assert.deepEqual(
      stepsFrom(chain, 'grandparent', 10).map((step) => step.boundary),
      [true],
    );
  });

  it('walks each uuid of a cycle of parents once or twice, and stops', () => {
    const chain = new UuidChain();
    chain.addRecord('a', 1, 'c', false); // c comes later
    chain.addRecord('b', 2, 'a', false);
    chain.addRecord('c', 3, 'b', false);
    chain.setTurn('a', 0);
    chain.setTurn('b', 1);
    const turns = new Set<number | undefined>();
    let steps = 0;
    chain.walkBack('b', (step) => {
      turns.add(step.turn);
      return ++steps < 100;
    });
    assert.ok(steps <= 6, `${steps} steps`);
    assert.deepEqual([...turns].sort(), [0, 1, undefined]);
  });

  it('grows past its first columns', () => {
    const chain = new UuidChain();
    for (let i = 0; i < 5000; i++) chain.addRecord(`u${i}`, i + 1, i > 0 ? `u${i - 1}` : undefined, false);
    chain.setTurn('u4999', 7);
    assert.equal(chain.lineOf('u4321'), 4322);
    assert.deepEqual(
      stepsFrom(chain, 'u4321', 2).map((step) => step.line),
      [4322, 4321],
    );
    assert.deepEqual(chain.lastMessageBefore(6000, 8), { uuid: 'u4999', line: 5000 });
    assert.throws(() => chain.setTurn('absent', 1), /no record has the uuid absent/);
  });
});
