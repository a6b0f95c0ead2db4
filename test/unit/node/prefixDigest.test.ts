// Tests for src/node/prefixDigest.ts: the digest of the bytes a reader was given, pushed in chunks of any size (a
// chunk that starts before the bytes digested is digested from there on, one that leaves a gap is refused), tells a
// file that begins with those bytes from one that differs anywhere in them or is shorter.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { PREFIX_BLOCK_BYTES, PrefixDigest } from '../../../src/node/prefixDigest';

/** Bytes that differ from block to block (no two blocks alike). */
function bytes(length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + Math.floor(i / 251)) & 0xff;
  return out;
}

describe('node/prefixDigest', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-prefix-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, data: Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };

  it('tells a file that begins with the bytes digested from one that differs anywhere in them, or is shorter', async () => {
    const length = 2 * PREFIX_BLOCK_BYTES + 12_345;
    const data = bytes(length + 1000);
    const digest = new PrefixDigest();
    for (let at = 0; at < length; at += 300_000) assert.equal(digest.push(data.subarray(at, Math.min(length, at + 300_000)), at), true);
    assert.equal(digest.bytes, length);
    assert.equal(await digest.beginsFile(file('same.bin', data.subarray(0, length))), true);
    assert.equal(await digest.beginsFile(file('longer.bin', data)), true);
    assert.equal(await digest.beginsFile(file('shorter.bin', data.subarray(0, length - 1))), false);
    for (const at of [0, PREFIX_BLOCK_BYTES - 1, PREFIX_BLOCK_BYTES, 2 * PREFIX_BLOCK_BYTES + 5, length - 1]) {
      const changed = Buffer.from(data);
      changed[at] ^= 1;
      assert.equal(await digest.beginsFile(file(`changed-${at}.bin`, changed)), false, `a byte changed at ${at}`);
    }
    assert.equal(await new PrefixDigest().beginsFile(file('any.bin', data)), true, 'nothing digested: any file begins with it');
  });

  it('digests each byte once, in chunks that overlap what was digested, and refuses a gap (property)', async () => {
    const data = bytes(PREFIX_BLOCK_BYTES + 70_000);
    const whole = file('whole.bin', data);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(50_000), fc.integer({ min: 1, max: 400_000 })), { minLength: 1, maxLength: 12 }),
        async (steps) => {
          const digest = new PrefixDigest();
          for (const [back, size] of steps) {
            // A chunk from up to `back` bytes before the end of what was digested.
            const at = Math.max(0, digest.bytes - back);
            const end = Math.min(data.length, at + size);
            assert.equal(digest.push(data.subarray(at, end), at), true);
            assert.equal(digest.bytes, Math.max(end, digest.bytes));
          }
          assert.equal(digest.push(data.subarray(digest.bytes + 1, digest.bytes + 2), digest.bytes + 1), false, 'a gap');
          assert.equal(await digest.beginsFile(whole), true);
          const changed = Buffer.from(data);
          changed[digest.bytes - 1] ^= 0xff;
          assert.equal(await digest.beginsFile(file('changed.bin', changed)), false);
        },
      ),
      { seed: 77, numRuns: 25 },
    );
  });
});
