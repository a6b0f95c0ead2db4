// Tests for analyzeFile's caches and overlap (src/node/analyzeFile.ts, TokenPool.warm): on the incident sample
// and a real Claude Code session of the shared corpus, the analysis made with the evidence worked out while the
// tokens are counted equals the plain analysis (counted in this thread, no caches); a re-analysis with the
// file's kept caches is the same again and works out no evidence and counts no token again. A warmed pool
// counts as a cold one and takes its first job on the warmed worker. A one-shot analysis (the CLI's) and one
// whose evidence cache is far too small to hold the file's pieces (worked out again when let go) equal it too.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { analyzeFile, analyzeTranscript } from '../../../src/node/analyzeFile';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { TokenPool } from '../../../src/node/tokenPool';
import { skipOrFailInCi, skipWithoutShared } from '../../sharedFolder';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus/claude-code');
const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
const SETTINGS = { encoding: 'o200k_base', ratioFloor: 5 } as const;

async function checkCaches(path: string): Promise<void> {
  const pool = new TokenPool();
  try {
    const { file, analysis, tokenCache, evidenceCache } = await analyzeFile(path, {}, pool, SETTINGS);
    const plain = analyze(file.transcript, { countTokens: createTokenCounter('o200k_base'), ratioFloor: 5 });
    assert.deepEqual(analysis, plain);
    const { misses } = evidenceCache.stats;
    const counted = tokenCache.size;
    const again = await analyzeTranscript(file.transcript, { tokenCache, evidenceCache }, pool, SETTINGS);
    assert.deepEqual(again, plain);
    assert.equal(evidenceCache.stats.misses, misses, 'no evidence worked out again');
    assert.equal(tokenCache.size, counted, 'no token counted again');
    // One-shot: the same analysis, nothing kept for a re-analysis.
    const once = await analyzeFile(path, {}, pool, SETTINGS, { oneShot: true });
    assert.deepEqual(once.analysis, plain);
    assert.equal(once.evidenceCache.size, 0);
    assert.equal(once.checkpointMemo.kept(0), undefined);
    // A cache that holds a few turns' pieces at most: the rest are worked out again, with the same result.
    for (const maxChars of [0, 500]) {
      const small = new EvidenceCache({ maxChars });
      const bounded = await analyzeTranscript(file.transcript, { tokenCache: new Map(), evidenceCache: small }, pool, SETTINGS);
      assert.deepEqual(bounded, plain);
      assert.ok(small.size <= maxChars);
    }
  } finally {
    pool.dispose();
  }
}

describe('node/analyzeFile: caches and overlap', function () {
  this.timeout(60_000);

  it('analyses the incident sample as a plain analysis does, and again from its caches', async () => {
    await checkCaches(SAMPLE);
  });

  it('analyses a real Claude Code session as a plain analysis does, and again from its caches', async function () {
    skipWithoutShared(this, existsSync(CORPUS), `the corpus at ${CORPUS}`);
    const name = readdirSync(CORPUS)
      .filter((n) => n.endsWith('.jsonl.gz'))
      .sort()[0];
    if (!name) skipOrFailInCi(this, `no .jsonl.gz session in ${CORPUS}`);
    await checkCaches(join(CORPUS, name));
  });

  it('counts on a warmed pool as createTokenCounter does, the first job on the warmed worker', async () => {
    const pool = new TokenPool({ maxWorkers: 2 });
    try {
      pool.warm('o200k_base');
      assert.equal(pool.workerCount, 1);
      pool.warm('o200k_base');
      assert.equal(pool.workerCount, 1, 'a second warm-up starts no second worker');
      const texts = ['hello world', 'Posted LEDGER_ENTRY_1001 to src/ledger/batch_1.ts', ''];
      const counts = await pool.count(texts, 'o200k_base');
      const here = createTokenCounter('o200k_base');
      assert.deepEqual(
        counts,
        texts.map((t) => here(t)),
      );
      assert.equal(pool.workerCount, 1, 'a small job waits for the warmed worker rather than starting another');
    } finally {
      pool.dispose();
    }
  });
});
