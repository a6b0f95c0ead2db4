// A digest of every byte a file's reader was given, kept as the bytes are read, so that a file written anew can be
// told to begin with them: renamed over by a writer that writes a new file whole, saved from an editor, or written
// again with the same bytes. Such a file is then read on from where the reader stopped, as an append, instead of
// from its start. The seam (readSeam.ts) compares only the last 4 KB, which is enough for a file that grew in
// place; a file that is another inode, or saved, may differ anywhere, so the whole prefix is compared. The bytes
// are digested in blocks, each on its own, so a comparison stops at the first block that differs, and a file
// changed near its start costs little more than one block's read.
import { createHash, type Hash } from 'node:crypto';
import { open as openFile } from 'node:fs/promises';

/** Bytes digested on their own: a comparison reads and digests one block at a time. */
export const PREFIX_BLOCK_BYTES = 1024 * 1024;

export class PrefixDigest {
  /** The digest of each whole block, in order. */
  private readonly blocks: Buffer[] = [];
  /** The digest under way of the block after them. */
  private current: Hash = createHash('sha256');
  /** Bytes digested: the file's bytes [0, length). */
  private length = 0;

  /** How many bytes, from the file's start, were digested. */
  get bytes(): number {
    return this.length;
  }

  /**
   * Digests `chunk`, the file's bytes from `offset` on. Bytes before `bytes` are not digested again (a read resumes
   * from where the reader stopped, which may be before where the last read's bytes ended). A chunk that starts past
   * `bytes` would leave a gap: false, and nothing is digested.
   */
  push(chunk: Buffer, offset: number): boolean {
    if (offset > this.length) return false;
    let data = chunk.subarray(this.length - offset);
    while (data.length > 0) {
      const take = Math.min(data.length, PREFIX_BLOCK_BYTES - (this.length % PREFIX_BLOCK_BYTES));
      this.current.update(data.subarray(0, take));
      this.length += take;
      data = data.subarray(take);
      if (this.length % PREFIX_BLOCK_BYTES === 0) {
        this.blocks.push(this.current.digest());
        this.current = createHash('sha256');
      }
    }
    return true;
  }

  /** Whether the file at `path` begins with the bytes digested: read a block at a time, up to the first that differs. */
  async beginsFile(path: string): Promise<boolean> {
    const handle = await openFile(path, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(PREFIX_BLOCK_BYTES, Math.max(1, this.length)));
      for (let block = 0; block * PREFIX_BLOCK_BYTES < this.length; block++) {
        const start = block * PREFIX_BLOCK_BYTES;
        const size = Math.min(PREFIX_BLOCK_BYTES, this.length - start);
        let got = 0;
        while (got < size) {
          const { bytesRead } = await handle.read(buffer, got, size - got, start + got);
          if (bytesRead === 0) return false; // the file is shorter than the bytes digested
          got += bytesRead;
        }
        const digest = createHash('sha256').update(buffer.subarray(0, size)).digest();
        const expected = block < this.blocks.length ? this.blocks[block] : this.current.copy().digest();
        if (!digest.equals(expected)) return false;
      }
      return true;
    } finally {
      await handle.close();
    }
  }
}
