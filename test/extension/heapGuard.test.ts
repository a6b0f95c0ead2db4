// A live transcript that grows too large for the extension host's heap, in a real extension host: the store's
// re-read and re-analysis stop under the heap watch (node/memoryWatch.ts) and the file is dropped (its tree
// items, marks and panels go through onDidRemove), instead of V8 ending the whole extension host. The test
// brings the host's heap near the watch's share of its limit with a filler of its own (the host's limit is
// several GB, and VS Code passes no NODE_OPTIONS to it) once the store is at rest, appends many turns, makes major
// collections while they are read and analysed (the watch looks after each), and lets the filler go afterwards;
// the host then goes on analysing other files.
import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CompactionLensApi } from '../../src/extension/extension';
import { LIVE_HEAP_SHARE } from '../../src/node/memoryWatch';
import { copySample, extensionApi, writeTranscript } from './helpers';

const MB = 1024 * 1024;
/** One filler block: a JS array of doubles lives on the V8 heap (a typed array's bytes would not). */
const BLOCK_ELEMENTS = MB;
const BLOCK_BYTES = 8 * BLOCK_ELEMENTS;

/** A full (major) garbage collection, on demand: what `node --expose-gc` gives, enabled at run time. */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** `count` canonical turns from `first` on, each naming things of its own, as JSON lines. */
function turns(first: number, count: number): string {
  const lines: string[] = [];
  for (let id = first; id < first + count; id++) {
    const content = `Turn ${id}: fixed LEDGER_${id} in src/flow_${id % 977}/handler_${id}.ts after checking invoice ${id * 7}`;
    lines.push(JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'assistant', content }));
  }
  return `${lines.join('\n')}\n`;
}

/** Resolves once the store has loaded, re-read and applied settings to nothing for `ms` in a row. */
async function storeQuiet(api: CompactionLensApi, ms = 300): Promise<void> {
  const deadline = Date.now() + 90_000;
  let quietSince = Date.now();
  for (;;) {
    if (api.store.working) quietSince = Date.now();
    else if (Date.now() - quietSince >= ms) return;
    if (Date.now() > deadline) throw new Error('the transcript store was still at work after 90 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a live transcript that grows too large for the heap', function () {
  this.timeout(180_000);
  let api: CompactionLensApi;
  let collect: () => void;

  before(async () => {
    api = await extensionApi();
    collect = fullCollection();
  });

  it('is dropped with its analysis stopped, and the extension host goes on', async () => {
    const uri = writeTranscript('growing.jsonl', [
      { type: 'turn', id: 0, role: 'user', content: 'Fix LEDGER_0 in src/flow_0/handler_0.ts.' },
      { type: 'turn', id: 1, role: 'assistant', content: 'Fixed LEDGER_0 in src/flow_0/handler_0.ts.' },
      { type: 'checkpoint', summary_id: 'S1', summary: 'Fixed LEDGER_0.', summary_budget: 500, covered: { from: 0, to: 1 } },
    ]);
    await api.store.load(uri);
    let removed = false;
    const listening = api.store.onDidRemove((gone) => {
      if (gone.toString() === uri.toString()) removed = true;
    });
    const filler: number[][] = [];
    try {
      // Past the watch's share of the old generation's limit (as memoryWatch reads it) by a little: the real limit
      // stays about (1 - LIVE_HEAP_SHARE) of it above, so the host itself never runs out. The watch looks after
      // each major collection, which V8 makes when it needs to; the test makes them while the file is re-read and
      // re-analysed, so the stop does not wait for V8's timing.
      // Nothing else at work first: a change of settings in an earlier test reads every listed file again, and a
      // large one read while the heap is filled could take the host past its limit before the watch looks.
      await storeQuiet(api);
      collect();
      const stats = getHeapStatistics();
      const limit = Math.max(stats.heap_size_limit / 2, stats.heap_size_limit - 48 * MB);
      const fill = LIVE_HEAP_SHARE * limit - stats.used_heap_size + 32 * MB;
      for (let bytes = 0; bytes < fill; bytes += BLOCK_BYTES) filler.push(new Array<number>(BLOCK_ELEMENTS).fill(0.5));
      appendFileSync(uri.fsPath, turns(2, 30_000));
      // Often: the re-read and re-analysis take well under a second, and end unwatched if no collection comes
      // while they run (every 100 ms, this test failed now and then, and more often once reading got faster).
      const collecting = setInterval(collect, 5);
      try {
        await api.store.refresh(uri);
      } finally {
        clearInterval(collecting);
      }
      assert.ok(removed, 'the file was dropped (onDidRemove)');
      assert.ok(!api.store.all().some((entry) => entry.uri.toString() === uri.toString()), 'no full entry is kept');
    } finally {
      filler.length = 0; // let the filler go…
      collect(); // …now, before the next file's analysis is watched
      listening.dispose();
    }
    // The host goes on: another transcript is read and analysed.
    const other = await api.store.load(copySample());
    assert.ok(other.analysis.checkpoints.length > 0);
  });
});
