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

  it('re-analyses a file rewritten whole with a turn more reusing the unchanged checkpoints, as a fresh load analyses it', async () => {
    const uri = copySample();
    const fresh = copySample();
    try {
      const entry = await api.store.load(uri);
      const before = entry.analysis.checkpoints;
      const turnsBefore = entry.file.transcript.turns;
      assert.ok(before.length > 0);
      const text = readFileSync(uri.fsPath, 'utf8');
      const first = JSON.parse(text.split('\n')[0]) as object;
      // The last turn (after the checkpoint) reworded, and a turn more: the file no longer begins with the bytes read.
      const reworded = text.replace('so I will start from scratch', 'so I will begin from scratch');
      assert.notEqual(reworded, text);
      const rewritten = `${reworded}${JSON.stringify({ ...first, id: 100_002, content: 'Rewritten: look at src/late_turn.ts' })}\n`;
      // A new file renamed over the old one: another inode, and other bytes, so the store reads it from its start.
      writeFileSync(`${uri.fsPath}.new`, rewritten);
      renameSync(`${uri.fsPath}.new`, uri.fsPath);
      await api.store.refresh(uri);
      const now = api.store.get(uri);
      assert.ok(now && now.analysis.turnCount === turnsBefore.length + 1);
      assert.notEqual(now.file.transcript.turns[0], turnsBefore[0], 'the turns were read anew');
      before.forEach((cp, i) => assert.equal(now.analysis.checkpoints[i], cp, `checkpoint ${i} is the same object`));

      writeFileSync(fresh.fsPath, rewritten);
      assert.deepEqual(now.analysis, (await api.store.load(fresh)).analysis);
    } finally {
      api.store.remove(uri);
      api.store.remove(fresh);
    }
  });

  it('reads on a file renamed over that begins with the bytes read: the turns kept, as a fresh load analyses it', async () => {
    const uri = copySample();
    const fresh = copySample();
    try {
      const entry = await api.store.load(uri);
      const before = entry.analysis.checkpoints;
      const turnsBefore = entry.file.transcript.turns;
      const text = readFileSync(uri.fsPath, 'utf8');
      const first = JSON.parse(text.split('\n')[0]) as object;
      const rewritten = `${text}${JSON.stringify({ ...first, id: 100_003, content: 'Renamed over: look at src/late_turn.ts' })}\n`;
      writeFileSync(`${uri.fsPath}.new`, rewritten);
      renameSync(`${uri.fsPath}.new`, uri.fsPath);
      await api.store.refresh(uri);
      const now = api.store.get(uri);
      assert.ok(now && now.analysis.turnCount === turnsBefore.length + 1);
      assert.equal(now.file.transcript.turns[0], turnsBefore[0], 'the turns read before are kept: only the new line was read');
      before.forEach((cp, i) => assert.equal(now.analysis.checkpoints[i], cp, `checkpoint ${i} is the same object`));
      writeFileSync(fresh.fsPath, rewritten);
      assert.deepEqual(now.analysis, (await api.store.load(fresh)).analysis);
    } finally {
      api.store.remove(uri);
      api.store.remove(fresh);
    }
  });
});
