// Tests for src/node/memoryWatch.ts: the watch aborts its signal with a TranscriptTooLargeError once the heap
// it reads passes its share of the limit, and not before; the error is an UnusableTranscriptError (so the CLI and
// the extension show its message, never a crash). The CLI's use of it on a real, too-small heap is in
// test/unit/cli/cli.test.ts.
import * as assert from 'node:assert/strict';
import { LIVE_HEAP_SHARE, TranscriptTooLargeError, watchMemory } from '../../../src/node/memoryWatch';
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
});
