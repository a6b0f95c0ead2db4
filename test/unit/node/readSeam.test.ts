// Tests for the seam of a read (readSeam.ts): the window gives exactly the bytes that end at an offset, over any
// split of the stream into chunks and any known bytes before it, or says it no longer holds them; checkSeam
// compares them with the file's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { checkSeam, SEAM_BYTES, SEAM_WINDOW_BYTES, seamAfter, SeamWindow } from '../../../src/node/readSeam';

/** Deterministic bytes: byte i of the stream is a function of i, so any slice is known. */
const streamBytes = (from: number, to: number) => Buffer.from(Array.from({ length: to - from }, (_, k) => ((from + k) * 31 + 7) % 251));

describe('SeamWindow', () => {
  it('gives the bytes that end at an offset, over any chunks and known bytes before the read, while it holds them', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 3 * SEAM_BYTES }),
        fc.array(fc.integer({ min: 0, max: 3 * SEAM_BYTES }), { maxLength: 8 }),
        fc.nat(),
        (start, sizes, pick) => {
          const before = streamBytes(Math.max(0, start - SEAM_BYTES), start);
          const window = new SeamWindow(start, start === 0 ? undefined : before);
          let end = start;
          for (const size of sizes) {
            window.push(streamBytes(end, end + size));
            end += size;
          }
          const offset = start + (pick % (end - start + 1));
          const seam = window.seamAt(offset);
          // Everything from the known bytes on is held: these windows are far smaller than SEAM_WINDOW_BYTES.
          assert.ok(seam !== undefined);
          assert.deepEqual(seam, streamBytes(Math.max(0, offset - SEAM_BYTES), offset));
          assert.equal(window.seamAt(end + 1), undefined, 'past what was read');
        },
      ),
      { seed: 29, numRuns: 300 },
    );
  });

  it('lets go of the chunks it no longer needs, and then says so for an offset far back', () => {
    const window = new SeamWindow(0);
    const chunk = 512 * 1024;
    for (let at = 0; at < 8 * chunk; at += chunk) window.push(streamBytes(at, at + chunk));
    const end = 8 * chunk;
    assert.deepEqual(window.seamAt(end), streamBytes(end - SEAM_BYTES, end));
    assert.deepEqual(
      window.seamAt(end - SEAM_WINDOW_BYTES + SEAM_BYTES),
      streamBytes(end - SEAM_WINDOW_BYTES, end - SEAM_WINDOW_BYTES + SEAM_BYTES),
    );
    assert.equal(window.seamAt(SEAM_BYTES), undefined);
  });

  it('seamAfter keeps the last SEAM_BYTES bytes, and an unknown seam stays unknown', () => {
    assert.deepEqual(seamAfter(Buffer.from('ab'), Buffer.from('\n')), Buffer.from('ab\n'));
    const full = streamBytes(0, SEAM_BYTES);
    assert.deepEqual(seamAfter(full, Buffer.from('\n')), Buffer.concat([full.subarray(1), Buffer.from('\n')]));
    assert.equal(seamAfter(undefined, Buffer.from('\n')), undefined);
  });
});

describe('checkSeam', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-seam-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds only when the bytes before the offset are the seam, and gives those after it', async () => {
    const path = join(dir, 'f');
    writeFileSync(path, 'hello world\nmore');
    assert.deepEqual(await checkSeam(path, Buffer.from('world\n'), 12, 2), { holds: true, after: Buffer.from('mo') });
    assert.equal((await checkSeam(path, Buffer.from('World\n'), 12, 0)).holds, false);
    assert.deepEqual(await checkSeam(path, Buffer.from('more'), 16, 1), { holds: true, after: Buffer.alloc(0) });
    // A file now shorter than the seam's end.
    assert.equal((await checkSeam(path, Buffer.from('more!'), 17, 0)).holds, false);
  });
});
