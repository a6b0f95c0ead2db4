// The extension's evidence caches (TranscriptStore, issue 13) in a real extension host: each analysed file keeps
// its turns' evidence, so re-analysing it after an append works out only the appended turns' evidence and gives
// what a fresh load gives; only the EVIDENCE_CACHED_FILES most recently analysed files keep theirs, and a
// dropped file's cache goes with it.
import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import type { CompactionLensApi } from '../../src/extension/extension';
import { EVIDENCE_CACHED_FILES } from '../../src/extension/transcriptStore';
import { copySample, extensionApi } from './helpers';

describe('evidence caches in the transcript store', function () {
  this.timeout(120_000);
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  it('keeps a file’s evidence for its re-analysis, and only for the most recently analysed files', async () => {
    const uris = Array.from({ length: EVIDENCE_CACHED_FILES + 1 }, () => copySample());
    try {
      const entries = [];
      for (const uri of uris) entries.push(await api.store.load(uri));
      const [oldest, ...kept] = entries;
      assert.equal(oldest.evidenceCache.texts, 0, 'the least recently analysed file keeps no evidence');
      for (const entry of kept) assert.ok(entry.evidenceCache.texts > 0, `${entry.name} keeps its evidence`);

      // An appended turn: the re-analysis works out its evidence only, and equals a fresh load's analysis.
      const last = kept[kept.length - 1];
      const lines = readFileSync(last.uri.fsPath, 'utf8').trimEnd().split('\n');
      const turn = JSON.parse(lines[0]) as { id: number; content?: string };
      appendFileSync(last.uri.fsPath, `${JSON.stringify({ ...turn, id: 100_000, content: 'Appended src/late_turn.ts fix' })}\n`);
      const { misses } = last.evidenceCache.stats;
      await api.store.refresh(last.uri);
      assert.ok(last.evidenceCache.stats.misses - misses <= 2, `worked out ${last.evidenceCache.stats.misses - misses} turns again`);
      const fresh = copySample();
      appendFileSync(fresh.fsPath, `${JSON.stringify({ ...turn, id: 100_000, content: 'Appended src/late_turn.ts fix' })}\n`);
      const freshEntry = await api.store.load(fresh);
      assert.deepEqual(last.analysis.checkpoints, freshEntry.analysis.checkpoints);
      uris.push(fresh);

      // Dropped with its file.
      api.store.remove(last.uri);
      assert.equal(api.store.get(last.uri), undefined);
    } finally {
      for (const uri of uris) api.store.remove(uri);
    }
  });
});
