// The seam of a read: the last bytes of a file that were given to its reader, kept so that a later read can tell
// an append (those bytes are still there, and the file only grew past them) from a rewrite in place (a file
// truncated and written again, `cp` over it, an editor's save), which must be read anew. A file whose size grew
// used to be taken for an append on its size alone, so a rewrite that left it longer than before was read from
// the old offset on: the old turns kept, the new ones read from the middle of a line. Comparing the seam costs
// one small read, so it is what an append is checked by; it cannot see an edit that leaves the seam's bytes as
// they were. A file written at the same size, or written anew, is compared whole, with the digest of every byte
// read (prefixDigest.ts), when that digest is known.
import { open as openFile } from 'node:fs/promises';

/** How many bytes before where a read stopped are kept and compared. */
export const SEAM_BYTES = 4096;

/**
 * How far back from the end of a read its seam may end and still be known: the read's last line may be left for
 * the next read (an agent still writing it), and the seam ends before that line. A longer unfinished line leaves
 * the seam unknown, and the next read starts from the beginning.
 */
export const SEAM_WINDOW_BYTES = SEAM_BYTES + 1024 * 1024;

/** The last bytes of a stream as it is read (at least SEAM_WINDOW_BYTES of them once there are that many). */
export class SeamWindow {
  private readonly parts: Buffer[] = [];
  private held = 0;
  private end: number;

  /** A window over a stream read from file offset `start`, with `before` the known bytes that end there. */
  constructor(start: number, before?: Buffer) {
    this.end = start;
    if (before !== undefined && before.length > 0) {
      this.parts.push(before);
      this.held = before.length;
    }
  }

  /** The next bytes of the stream. The window keeps a reference to them (no copy) until enough follow. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.parts.push(chunk);
    this.held += chunk.length;
    this.end += chunk.length;
    while (this.parts.length > 1 && this.held - this.parts[0].length >= SEAM_WINDOW_BYTES) {
      this.held -= this.parts[0].length;
      this.parts.shift();
    }
  }

  /**
   * A copy of the SEAM_BYTES bytes that end at file offset `offset` (fewer when the file has fewer before it);
   * undefined when the window no longer holds them all.
   */
  seamAt(offset: number): Buffer | undefined {
    const from = this.end - this.held;
    const start = Math.max(0, offset - SEAM_BYTES);
    if (offset > this.end || start < from) return undefined;
    const seam = Buffer.alloc(offset - start);
    let at = from;
    for (const part of this.parts) {
      const partEnd = at + part.length;
      if (partEnd > start && at < offset) {
        const copyFrom = Math.max(start, at) - at;
        const copyTo = Math.min(offset, partEnd) - at;
        part.copy(seam, Math.max(start, at) - start, copyFrom, copyTo);
      }
      at = partEnd;
    }
    return seam;
  }
}

/**
 * Reads the file's bytes that end at `offset`, as many as `seam` holds, and the `extra` bytes after them: whether
 * they are the seam's bytes, and those after it (fewer when the file ends sooner).
 */
export async function checkSeam(path: string, seam: Buffer, offset: number, extra: number): Promise<{ holds: boolean; after: Buffer }> {
  const start = offset - seam.length;
  const bytes = Buffer.alloc(seam.length + extra);
  const handle = await openFile(path, 'r');
  let got = 0;
  try {
    while (got < bytes.length) {
      const { bytesRead } = await handle.read(bytes, got, bytes.length - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
  } finally {
    await handle.close();
  }
  if (got < seam.length) return { holds: false, after: Buffer.alloc(0) };
  return { holds: bytes.subarray(0, seam.length).equals(seam), after: bytes.subarray(seam.length, got) };
}

/** The seam once `bytes` follow it: its last SEAM_BYTES bytes with them (undefined stays unknown). */
export function seamAfter(seam: Buffer | undefined, bytes: Buffer): Buffer | undefined {
  if (seam === undefined) return undefined;
  const joined = Buffer.concat([seam, bytes]);
  return joined.length > SEAM_BYTES ? Buffer.from(joined.subarray(joined.length - SEAM_BYTES)) : joined;
}
