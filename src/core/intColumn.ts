// A column of 32-bit integers by index, for indexes kept per turn or per record in typed arrays rather than in
// objects or Maps (issue 13); an index never written reads as 0. It is made of chunks of CHUNK integers: the first
// one grows by doubling from a small length (a small transcript's columns stay small), the others are allocated
// whole as they are reached, so a large column is never copied to grow, nor holds much more than it was written.
// Pure: no I/O.

/** Integers a chunk holds once the column passes its first one (256 KB). */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const IN_CHUNK = CHUNK - 1;

export class IntColumn {
  /** chunks[0] grows up to CHUNK (independently of the others); every later chunk is CHUNK long. */
  private readonly chunks: Int32Array[];

  constructor(firstLength = 64) {
    this.chunks = [new Int32Array(Math.min(CHUNK, firstLength))];
  }

  get(at: number): number {
    const chunk = this.chunks[at >>> CHUNK_BITS];
    return chunk !== undefined && (at & IN_CHUNK) < chunk.length ? chunk[at & IN_CHUNK] : 0;
  }

  set(at: number, value: number): void {
    const index = at >>> CHUNK_BITS;
    if (index === 0 && at >= this.chunks[0].length) {
      let length = this.chunks[0].length * 2;
      while (length <= at) length *= 2;
      const grown = new Int32Array(Math.min(CHUNK, length));
      grown.set(this.chunks[0]);
      this.chunks[0] = grown;
    }
    while (this.chunks.length <= index) this.chunks.push(new Int32Array(CHUNK));
    this.chunks[index][at & IN_CHUNK] = value;
  }
}
