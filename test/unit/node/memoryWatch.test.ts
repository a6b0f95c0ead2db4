// Tests for src/node/memoryWatch.ts: the watch aborts its signal with a TranscriptTooLargeError once the heap
// it reads passes its share of the limit, and not before; the error is an UnusableTranscriptError (so the CLI and
// the extension show its message, never a crash); with several works watched at once only the heaviest is
// stopped, the others only past the emergency share while it unwinds (readings given, and on a real 64 MB heap in
// a child process: a growing work is stopped, a small one beside it finishes); a .gz file weighs what its trailer
// says. The CLI's use of it on a real, too-small heap is in test/unit/cli/cli.test.ts.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EMERGENCY_HEAP_SHARE, fileWeight, LIVE_HEAP_SHARE, TranscriptTooLargeError, watchMemory } from '../../../src/node/memoryWatch';
import { UnusableTranscriptError } from '../../../src/node/transcriptFile';

const MB = 1024 * 1024;

describe('node/memoryWatch', () => {
  it('aborts with a TranscriptTooLargeError once the heap passes its share of the limit, and not before', () => {
    let used = 100 * MB;
    const watch = watchMemory('/logs/session.jsonl', LIVE_HEAP_SHARE, () => ({ used, limit: 1000 * MB }));
    try {
      watch.check();
      assert.equal(watch.signal.aborted, false);
      used = LIVE_HEAP_SHARE * 1000 * MB; // at the share: not past it
      watch.check();
      assert.equal(watch.signal.aborted, false);
      used += MB;
      watch.check();
      assert.equal(watch.signal.aborted, true);
      const reason = watch.signal.reason as TranscriptTooLargeError;
      assert.ok(reason instanceof TranscriptTooLargeError);
      assert.ok(reason instanceof UnusableTranscriptError, 'shown as unusable input, not as a crash');
      assert.equal(reason.path, '/logs/session.jsonl');
      assert.match(reason.message, /^session\.jsonl is too large to analyse .* 801 MB of the 1000 MB/);
      assert.ok(reason.details.some((line) => line.includes('--max-old-space-size')));
      // Later readings change nothing: the first reason stays.
      used = 999 * MB;
      watch.check();
      assert.match((watch.signal.reason as Error).message, /801 MB/);
    } finally {
      watch.dispose();
    }
  });

  it('reads the real heap without aborting an ordinary process', () => {
    const watch = watchMemory('/logs/session.jsonl');
    try {
      watch.check();
      assert.equal(watch.signal.aborted, false);
    } finally {
      watch.dispose();
    }
  });

  it('stops only the heaviest of several works, and another only past the emergency share while it unwinds', () => {
    let used = 100 * MB;
    const heap = () => ({ used, limit: 1000 * MB });
    const live = watchMemory('/logs/live.jsonl', LIVE_HEAP_SHARE, heap, () => 10 * MB);
    const huge = watchMemory('/logs/huge.jsonl', LIVE_HEAP_SHARE, heap, () => 900 * MB);
    try {
      live.check(); // a reading below the share: no stopped work's memory is awaited
      used = 850 * MB;
      live.check(); // any watch's check chooses: the huge file's work is stopped, not the one checking
      assert.equal(huge.signal.aborted, true);
      assert.equal((huge.signal.reason as TranscriptTooLargeError).path, '/logs/huge.jsonl');
      assert.equal(live.signal.aborted, false);
      used = EMERGENCY_HEAP_SHARE * 1000 * MB; // the huge work is unwinding: wait for its memory
      live.check();
      huge.check();
      assert.equal(live.signal.aborted, false);
      huge.dispose(); // it has ended; the next collection may still count its memory (marked before it ended)
      live.check();
      assert.equal(live.signal.aborted, false);
      used = 300 * MB; // a reading below the share: its memory is let go
      live.check();
      assert.equal(live.signal.aborted, false);
      used = 850 * MB; // and the live file's work alone fills it: now it is the heaviest
      live.check();
      assert.equal(live.signal.aborted, true);
    } finally {
      live.dispose();
      huge.dispose();
    }
  });

  it('stops a second work when the heap passes the emergency share before the first has let its memory go', () => {
    let used = 100 * MB;
    const heap = () => ({ used, limit: 1000 * MB });
    const a = watchMemory('/logs/a.jsonl', LIVE_HEAP_SHARE, heap, () => 2 * MB);
    const b = watchMemory('/logs/b.jsonl', LIVE_HEAP_SHARE, heap, () => 1 * MB);
    try {
      b.check();
      used = 850 * MB;
      b.check();
      assert.deepEqual([a.signal.aborted, b.signal.aborted], [true, false]);
      used = 930 * MB;
      b.check();
      assert.deepEqual([a.signal.aborted, b.signal.aborted], [true, true]);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('weighs a file by its bytes, a .gz by the size its trailer records', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-weight-'));
    try {
      const text = 'x'.repeat(100_000);
      writeFileSync(join(dir, 'a.jsonl'), text);
      writeFileSync(join(dir, 'a.jsonl.gz'), gzipSync(text));
      assert.equal(fileWeight(join(dir, 'a.jsonl')), 100_000);
      assert.equal(fileWeight(join(dir, 'a.jsonl.gz')), 100_000);
      assert.equal(fileWeight(join(dir, 'absent.jsonl')), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on a real 64 MB heap, stops the work that fills it and lets a small one beside it finish', function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'cl-two-works-'));
    try {
      writeFileSync(join(dir, 'huge.jsonl'), 'x'.repeat(1_000_000));
      writeFileSync(join(dir, 'live.jsonl'), 'x'.repeat(1_000));
      const module = resolve(__dirname, '../../../src/node/memoryWatch.js');
      const script = `
        const { underMemoryWatch } = require(${JSON.stringify(module)});
        const tick = () => new Promise((r) => setImmediate(r));
        const huge = underMemoryWatch(${JSON.stringify(join(dir, 'huge.jsonl'))}, undefined, async (signal) => {
          const held = [];
          while (!signal.aborted) { held.push(new Array(100_000).fill(held.length + 0.5)); await tick(); }
          throw Object.assign(new Error('stopped'), { name: 'AbortError' });
        });
        const live = underMemoryWatch(${JSON.stringify(join(dir, 'live.jsonl'))}, undefined, async (signal) => {
          const held = [];
          for (let i = 0; i < 400; i++) {
            if (signal.aborted) throw Object.assign(new Error('stopped'), { name: 'AbortError' });
            held.push(new Array(1_000).fill(i + 0.5));
            await tick();
          }
          return 'live finished';
        });
        Promise.allSettled([huge, live]).then(([h, l]) => {
          console.log(h.status === 'rejected' ? h.reason.name + ': ' + h.reason.message : 'huge finished');
          console.log(l.status === 'fulfilled' ? l.value : l.reason.name + ': ' + l.reason.message);
        });`;
      const result = spawnSync(process.execPath, ['--max-old-space-size=64', '-e', script], { encoding: 'utf8' });
      const output = result.stdout + result.stderr;
      assert.doesNotMatch(output, /FATAL ERROR|JavaScript heap out of memory/);
      assert.equal(result.status, 0, output);
      const [huge, live] = result.stdout.trim().split('\n');
      assert.match(huge, /^TranscriptTooLargeError: huge\.jsonl is too large to analyse/);
      assert.equal(live, 'live finished');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
