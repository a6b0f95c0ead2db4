// The transcript store's checkpoint memo (core/checkpointMemo.ts, issue 13) in a real extension host: after a turn
// is appended to a live file, its re-analysis hands on each unchanged checkpoint's analysis as the same object,
// and the analysis equals what a fresh load of the grown file gives. So does a file rewritten whole with a turn more
// (a new file renamed over it, as agents that save their whole document do): read anew, when a byte read before
// changed, or read on from the bytes read, when it begins with them (node/prefixDigest.ts).
import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { CompactionLensApi } from '../../src/extension/extension';
import { copySample, extensionApi } from './helpers';

describe('checkpoint memo in the transcript store', function () {
  this.timeout(120_000);
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  it('re-analyses an appended turn reusing the unchanged checkpoints, as a fresh load analyses it', async () => {
    const uri = copySample();
    const fresh = copySample();
    try {
      const entry = await api.store.load(uri);
      const before = entry.analysis.checkpoints;
      assert.ok(before.length > 0);
      const first = JSON.parse(readFileSync(uri.fsPath, 'utf8').split('\n')[0]) as object;
      const line = `${JSON.stringify({ ...first, id: 100_001, content: 'Appended: look at src/late_turn.ts' })}\n`;
      appendFileSync(uri.fsPath, line);
      await api.store.refresh(uri);
      const after = api.store.get(uri)?.analysis;
      assert.ok(after && after.turnCount === entry.file.transcript.turns.length);
      before.forEach((cp, i) => assert.equal(after.checkpoints[i], cp, `checkpoint ${i} is the same object`));

      appendFileSync(fresh.fsPath, line);
      assert.deepEqual(after, (await api.store.load(fresh)).analysis);
    } finally {
      api.store.remove(uri);
      api.store.remove(fresh);
    }
  });

  /**
   * A copy of the sample loaded, then a new file renamed over it (another inode) with its text, `change`d, and a
   * turn more; the store refreshed. Checks that each checkpoint is the same object and that the analysis equals a
   * fresh load's, and says whether the first turn is the object read before.
   */
  async function renamedOver(change: (text: string) => string, id: number): Promise<{ turnsKept: boolean }> {
    const uri = copySample();
    const fresh = copySample();
    try {
      const entry = await api.store.load(uri);
      const before = entry.analysis.checkpoints;
      const turnsBefore = entry.file.transcript.turns;
      assert.ok(before.length > 0);
      const text = readFileSync(uri.fsPath, 'utf8');
      const first = JSON.parse(text.split('\n')[0]) as object;
      const rewritten = `${change(text)}${JSON.stringify({ ...first, id, content: 'Rewritten: look at src/late_turn.ts' })}\n`;
      writeFileSync(`${uri.fsPath}.new`, rewritten);
      renameSync(`${uri.fsPath}.new`, uri.fsPath);
      await api.store.refresh(uri);
      const now = api.store.get(uri);
      assert.ok(now && now.analysis.turnCount === turnsBefore.length + 1);
      before.forEach((cp, i) => assert.equal(now.analysis.checkpoints[i], cp, `checkpoint ${i} is the same object`));
      writeFileSync(fresh.fsPath, rewritten);
      assert.deepEqual(now.analysis, (await api.store.load(fresh)).analysis);
      return { turnsKept: now.file.transcript.turns[0] === turnsBefore[0] };
    } finally {
      api.store.remove(uri);
      api.store.remove(fresh);
    }
  }

  it('re-analyses a file rewritten whole with a turn more reusing the unchanged checkpoints, as a fresh load analyses it', async () => {
    // The last turn (after the checkpoint) reworded: the file no longer begins with the bytes read, so it is read anew.
    const reword = (text: string) => {
      const reworded = text.replace('so I will start from scratch', 'so I will begin from scratch');
      assert.notEqual(reworded, text);
      return reworded;
    };
    assert.equal((await renamedOver(reword, 100_002)).turnsKept, false, 'the turns were read anew');
  });

  it('reads on a file renamed over that begins with the bytes read: the turns kept, as a fresh load analyses it', async () => {
    assert.equal((await renamedOver((text) => text, 100_003)).turnsKept, true, 'only the new line was read');
  });
});
