// Columns of numbers for the turns whose texts are on disk (turnTextsOnDisk.ts): each grows a chunk of CHUNK
// entries at a time and is never copied. Column keeps one typed array's numbers; OffsetColumn keeps byte offsets
// in 4 bytes where they come back equal, in 8 where they would not. Pure: no I/O.

/** Entries per chunk of a column: columns grow a chunk at a time, never copied. */
const CHUNK_BITS = 16;
export const CHUNK = 1 << CHUNK_BITS;

/** A column of numbers that grows a chunk at a time, read and written by index. */
export class Column<T extends Int32Array | Uint32Array | Uint16Array | Uint8Array> {
  private readonly chunks: T[] = [];

  constructor(private readonly make: (length: number) => T) {}

  get(at: number): number {
    return this.chunks[at >>> CHUNK_BITS][at & (CHUNK - 1)];
  }

  set(at: number, value: number): void {
    const chunk = at >>> CHUNK_BITS;
    while (this.chunks.length <= chunk) this.chunks.push(this.make(CHUNK));
    this.chunks[chunk][at & (CHUNK - 1)] = value;
  }

  /** Bytes the chunks take (none for a column never written). */
  get bytes(): number {
    return bytesOf(this.chunks);
  }
}

/**
 * A column of byte offsets, 4 bytes each where it can: a chunk keeps the offset it was made for (its base) and
 * each offset as a 32-bit amount past it. A chunk is kept as 64-bit numbers instead once an offset does not come
 * back equal that way (one below the base or 2^32 or more past it, a fraction, -0), so every offset read is the
 * one written. Offsets written in order, a chunk of turns at a time, are within 4 GB of their chunk's first.
 */
export class OffsetColumn {
  private readonly chunks: (Uint32Array | Float64Array)[] = [];
  private readonly bases: number[] = [];

  get(at: number): number {
    const chunk = this.chunks[at >>> CHUNK_BITS];
    const value = chunk[at & (CHUNK - 1)];
    return chunk instanceof Float64Array ? value : this.bases[at >>> CHUNK_BITS] + value;
  }

  set(at: number, value: number): void {
    const index = at >>> CHUNK_BITS;
    while (this.chunks.length <= index) {
      this.chunks.push(new Uint32Array(CHUNK));
      this.bases.push(value);
    }
    const chunk = this.chunks[index];
    const past = value - this.bases[index];
    if (
      chunk instanceof Uint32Array &&
      past >= 0 &&
      past <= 0xffff_ffff &&
      Number.isInteger(past) &&
      Object.is(this.bases[index] + past, value)
    ) {
      chunk[at & (CHUNK - 1)] = past;
      return;
    }
    this.wide(index)[at & (CHUNK - 1)] = value;
  }

  /** Bytes the chunks take: 4 an entry in a chunk of 32-bit amounts, 8 in a widened one. */
  get bytes(): number {
    return bytesOf(this.chunks);
  }

  /** Chunk `index` as 64-bit numbers, each offset in it as it was written. */
  private wide(index: number): Float64Array {
    const chunk = this.chunks[index];
    if (chunk instanceof Float64Array) return chunk;
    const wide = new Float64Array(CHUNK);
    for (let i = 0; i < CHUNK; i++) wide[i] = this.bases[index] + chunk[i];
    this.chunks[index] = wide;
    return wide;
  }
}

/** Bytes a column's chunks take. */
function bytesOf(chunks: readonly ArrayBufferView[]): number {
  let bytes = 0;
  for (const chunk of chunks) bytes += chunk.byteLength;
  return bytes;
}
