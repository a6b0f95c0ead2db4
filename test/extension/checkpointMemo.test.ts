// The transcript store's checkpoint memo (core/checkpointMemo.ts, issue 13) in a real extension host: after a turn
// is appended to a live file, its re-analysis hands on each unchanged checkpoint's analysis as the same object,
// and the analysis equals what a fresh load of the grown file gives.
import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
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
});
