// Tests for analyzeAgain (src/node/analyzeFile.ts), the extension store's re-read and re-analysis of a live file:
// it reads what the file gained and analyses the new snapshot, unless the file is unchanged or no longer wanted (and
// with judgeWorker, judges in a worker what the memo does not hold); and when the file has grown too large for the
// heap, it stops with a TranscriptTooLargeError instead of V8's fatal out-of-memory crash, which in the extension
// would take the whole extension host down. That case runs in a child process on a 64 MB heap.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { analyzeAgain, analyzeFile } from '../../../src/node/analyzeFile';
import { TokenPool } from '../../../src/node/tokenPool';

const SETTINGS = { encoding: 'o200k_base', ratioFloor: 5 } as const;

/** `count` canonical turns from `first` on, each naming things of its own, as JSON lines. */
function turns(first: number, count: number): string {
  const lines: string[] = [];
  for (let id = first; id < first + count; id++) {
    const content = `Turn ${id}: fixed LEDGER_${id} in src/flow_${id % 977}/handler_${id}.ts after checking invoice ${id * 7} and retry_${id}`;
    lines.push(JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'assistant', content }));
  }
  return `${lines.join('\n')}\n`;
}

function checkpoint(id: string, to: number): string {
  const summary = 'Fixed LEDGER_1 and LEDGER_2 in src/flow_1/handler_1.ts.';
  return `${JSON.stringify({ type: 'checkpoint', summary_id: id, summary, summary_budget: 500, covered: { from: 0, to } })}\n`;
}

describe('node/analyzeAgain', function () {
  this.timeout(120000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-again-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads what a live file gained and analyses the new snapshot; an unchanged or let-go file is not analysed', async () => {
    const path = join(dir, 'live.jsonl');
    writeFileSync(path, turns(0, 4) + checkpoint('S1', 3));
    const pool = new TokenPool();
    try {
      const { file, analysis, tokenCache, evidenceCache, checkpointMemo } = await analyzeFile(path, {}, pool, SETTINGS);
      assert.equal(analysis.checkpoints.length, 1);
      const caches = { tokenCache, evidenceCache, checkpointMemo };
      const unchanged = await analyzeAgain(file, caches, pool, SETTINGS, true);
      assert.equal(unchanged.change, 'unchanged');
      assert.equal(unchanged.analysis, undefined);
      appendFileSync(path, turns(4, 4) + checkpoint('S2', 7));
      const grown = await analyzeAgain(file, caches, pool, SETTINGS, true);
      assert.equal(grown.change, 'appended');
      assert.equal(grown.transcript.turns.length, 8);
      assert.deepEqual(
        grown.analysis?.checkpoints.map((c) => c.summaryId),
        ['S1', 'S2'],
      );
      const asItIs = await analyzeAgain(file, caches, pool, SETTINGS, false);
      assert.equal(asItIs.change, 'not-read');
      assert.deepEqual(asItIs.analysis, grown.analysis);
      // New settings, judged in a worker: the same analysis, and no turn judged here.
      const stricter = { ...SETTINGS, coverageThreshold: 2 };
      const here = await analyzeAgain(
        file,
        { tokenCache, evidenceCache: new EvidenceCache(), checkpointMemo: new CheckpointMemo() },
        pool,
        stricter,
        false,
      );
      const workerEvidence = new EvidenceCache();
      const inWorker = await analyzeAgain(
        file,
        { tokenCache, evidenceCache: workerEvidence, checkpointMemo: new CheckpointMemo() },
        pool,
        stricter,
        false,
        undefined,
        { minTurns: 0, onFallback: (why) => assert.fail(why) },
      );
      assert.deepEqual(inWorker.analysis, here.analysis);
      assert.notDeepEqual(inWorker.analysis, grown.analysis, 'the stricter threshold changes the analysis');
      assert.equal(workerEvidence.stats.misses, 0, 'no turn judged here');
      // Let go while it was read (the store dropped it): read, not analysed.
      appendFileSync(path, turns(8, 2));
      const letGo = await analyzeAgain(file, caches, pool, SETTINGS, true, () => false);
      assert.equal(letGo.change, 'appended');
      assert.equal(letGo.transcript.turns.length, 10);
      assert.equal(letGo.analysis, undefined);
    } finally {
      pool.dispose();
    }
  });

  it("stops a file that grew too large for the heap with a TranscriptTooLargeError, not V8's crash (child process)", () => {
    const path = join(dir, 'growing.jsonl');
    writeFileSync(path, turns(0, 4) + checkpoint('S1', 3));
    const more = join(dir, 'more.jsonl');
    writeFileSync(more, turns(4, 30000) + checkpoint('S2', 30003));
    // The child opens the small file, then the file gains 30,000 turns: their analysis needs far more than 64 MB.
    const script = `
      const { appendFileSync, readFileSync } = require('node:fs');
      const { analyzeAgain, analyzeFile } = require(${JSON.stringify(require.resolve('../../../src/node/analyzeFile'))});
      const { TokenPool } = require(${JSON.stringify(require.resolve('../../../src/node/tokenPool'))});
      const settings = ${JSON.stringify(SETTINGS)};
      (async () => {
        const pool = new TokenPool();
        try {
          const { file, tokenCache, evidenceCache, checkpointMemo } = await analyzeFile(${JSON.stringify(path)}, {}, pool, settings);
          appendFileSync(${JSON.stringify(path)}, readFileSync(${JSON.stringify(more)}));
          await analyzeAgain(file, { tokenCache, evidenceCache, checkpointMemo }, pool, settings, true);
          console.log('analysed');
        } catch (error) {
          console.log(error.name + ': ' + error.message);
        } finally {
          pool.dispose();
        }
      })();
    `;
    const result = spawnSync(process.execPath, ['--max-old-space-size=64', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const output = result.stdout + result.stderr;
    assert.doesNotMatch(output, /FATAL ERROR|JavaScript heap out of memory|Native stack trace/);
    assert.equal(result.status, 0, output);
    assert.match(result.stdout, /^TranscriptTooLargeError: growing\.jsonl is too large to analyse in the memory this process has/);
  });
});
