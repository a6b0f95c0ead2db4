// Tests for src/core/sealedRecord.ts: a sealed record is frozen through and through (changing it throws), and
// isSealed knows it; a record nested too deeply or holding other than plain data is not marked; and the checkpoint
// memo (core/checkpointMemo.ts) tells a sealed record given again by identity, without reading its fields, while
// an unsealed one is still compared field by field.
import * as assert from 'node:assert/strict';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import type { Checkpoint } from '../../../src/core/model';
import { isSealed, sealRecord } from '../../../src/core/sealedRecord';
import { checkpoint, turn } from './transcripts';

describe('core/sealedRecord', () => {
  it('freezes a record through and through and marks it', () => {
    const record = { summary: 'S', claimedIds: [1, 2], span: { startLine: 3 }, hints: { closings: ['Please continue'] } };
    assert.equal(sealRecord(record), record);
    assert.ok(isSealed(record));
    assert.throws(() => {
      record.claimedIds.push(3);
    }, TypeError);
    assert.throws(() => {
      (record.span as { startLine: number }).startLine = 4;
    }, TypeError);
    assert.throws(() => {
      record.hints.closings[0] = 'x';
    }, TypeError);
    assert.deepEqual(record.claimedIds, [1, 2]);
  });

  it('marks nothing else: plain objects, primitives, records too deep or holding a Map', () => {
    assert.equal(isSealed({ summary: 'S' }), false);
    assert.equal(isSealed(Object.freeze({ summary: 'S' })), false, 'frozen is not sealed: its insides may not be');
    assert.equal(isSealed('S'), false);
    assert.equal(isSealed(null), false);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 8; i++) deep = { deep };
    assert.equal(isSealed(sealRecord(deep)), false);
    assert.equal(isSealed(sealRecord({ notes: new Map([['a', 1]]) })), false);
    // Read through an array too (arrays are walked by index, not copied by Object.values).
    const inList = sealRecord({ lists: [[1], [new Map([['a', 1]])]] });
    assert.equal(isSealed(inList), false);
    assert.ok(Object.isFrozen(inList.lists[0]), 'what it could freeze is frozen');
    let deepList: unknown[] = [1];
    for (let i = 0; i < 8; i++) deepList = [deepList];
    assert.equal(isSealed(sealRecord({ deepList })), false);
  });

  it('lets the checkpoint memo tell a sealed checkpoint given again by identity, without reading it', () => {
    const turns = [turn(1, 'Fixed FACT-1 in src/a.ts'), turn(2, 'Fixed FACT-2 in src/b.ts')];
    // A checkpoint whose claimed ids count their reads: comparing it field by field reads them.
    const counted = (sealed: boolean): { cp: Checkpoint; reads: () => number } => {
      let reads = 0;
      const cp: Checkpoint = checkpoint({ summary: 'Fixed FACT-1 and FACT-2.', claimedIds: [1, 2], turnsBefore: 2 });
      const ids = cp.claimedIds;
      Object.defineProperty(cp, 'claimedIds', {
        enumerable: true,
        get: () => {
          reads++;
          return ids;
        },
      });
      return { cp: sealed ? sealRecord(cp) : cp, reads: () => reads };
    };
    const sealed = counted(true);
    const plain = counted(false);
    for (const { cp, reads } of [sealed, plain]) {
      const memo = new CheckpointMemo();
      memo.sync(turns, [cp]);
      const before = reads();
      memo.sync([...turns, turn(3, 'later')], [cp]);
      if (cp === sealed.cp) assert.equal(reads(), before, 'a sealed checkpoint given again is not read');
      else assert.ok(reads() > before, 'an unsealed checkpoint is compared field by field');
    }
  });
});
