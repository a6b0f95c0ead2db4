// Where `check --json` puts each turn's JSON as the analysis judges it (the core's TurnSink), so that the
// analysis need not hold every turn's evidence and reason until the report is written: a temporary folder with
// one file per checkpoint. Each file holds the bytes the report writes between its turns array's brackets: each
// turn's text as `render` makes it, `separator` between two. The report copies them out as they are (no
// decoding: the text is UTF-8 once, as stdout would have made it). dispose deletes the folder; nothing is
// created on disk until the first checkpoint begins. When the folder cannot be made or written (no room, no
// rights), what could not be written is kept in memory instead, as before the spill, and `onFallback` says why
// (once): the report is the same either way. The folders of spills not yet disposed are deleted by
// disposeLiveSpills, which the CLI calls when it is interrupted (Ctrl-C).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TurnResult, TurnSink } from '../core/model';

/** Characters of turns' text gathered before they are written to the file. */
const WRITE_CHARS = 1 << 20;
/** Bytes read back at a time. */
const READ_BYTES = 1 << 20;

/** One checkpoint's turns: a file holding the first of them, and in memory what could not be written. */
interface Kept {
  /** How many turns came. */
  count: number;
  /** The file, when it could be made; `fd` while it is written. */
  path?: string;
  fd?: number;
  /** What could not be written to the file, in order after what it holds. */
  inMemory: Buffer[];
}

/** The spills whose folders are not deleted yet. */
const live = new Set<TurnSpill>();

/** Deletes the folder of every spill not yet disposed (the process is being stopped). */
export function disposeLiveSpills(): void {
  for (const spill of [...live]) spill.dispose();
}

export class TurnSpill implements TurnSink {
  private dir: string | undefined;
  private readonly kept = new Map<number, Kept>();
  private current: Kept | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  private fellBack = false;

  /**
   * `render` makes the text written for one turn; `separator` goes between two turns' texts. `onFallback` is told
   * why, the first time the temporary folder cannot be made or written.
   */
  constructor(
    private readonly render: (result: TurnResult) => string,
    private readonly separator: string,
    private readonly onFallback: (why: string) => void = () => undefined,
  ) {}

  begin(index: number): void {
    this.close();
    // A checkpoint begun again starts empty: its file is truncated ('w'), its memory dropped.
    const kept: Kept = { count: 0, inMemory: [] };
    this.kept.set(index, kept);
    this.current = kept;
    if (this.fellBack) return;
    try {
      if (this.dir === undefined) {
        this.dir = mkdtempSync(join(tmpdir(), 'compaction-lens-turns-'));
        live.add(this);
      }
      const path = join(this.dir, `checkpoint-${index}.json`);
      kept.fd = openSync(path, 'w');
      kept.path = path;
    } catch (error) {
      this.fallBack(error);
    }
  }

  turn(result: TurnResult): void {
    const kept = this.current;
    if (!kept) throw new Error('a turn came before its checkpoint began');
    if (kept.count > 0) this.pending.push(this.separator);
    const text = this.render(result);
    this.pending.push(text);
    this.pendingChars += text.length + this.separator.length;
    kept.count++;
    if (this.pendingChars >= WRITE_CHARS) this.flush();
  }

  /** How many turns checkpoint `index` has here (0 when none came). */
  countOf(index: number): number {
    return this.kept.get(index)?.count ?? 0;
  }

  /** The UTF-8 bytes of checkpoint `index`'s turns, separated, in chunks (each a Buffer of its own). */
  *bytes(index: number): Generator<Buffer> {
    const kept = this.kept.get(index);
    if (!kept) return;
    if (kept === this.current) this.close();
    if (kept.path !== undefined) {
      const fd = openSync(kept.path, 'r');
      try {
        for (;;) {
          // A new Buffer each time: a stream may still hold the one it was given.
          const buffer = Buffer.allocUnsafe(READ_BYTES);
          const read = readSync(fd, buffer, 0, READ_BYTES, null);
          if (read === 0) break;
          yield buffer.subarray(0, read);
        }
      } finally {
        closeSync(fd);
      }
    }
    yield* kept.inMemory;
  }

  /** Deletes the folder and everything in it. */
  dispose(): void {
    this.close();
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    live.delete(this);
    this.kept.clear();
  }

  /** Writes the pending text to the current checkpoint's file; what cannot be written is kept in memory. */
  private flush(): void {
    const kept = this.current;
    if (!kept || this.pendingChars === 0) return;
    const bytes = utf8Of(this.pending, this.pendingChars);
    this.pending = [];
    this.pendingChars = 0;
    let written = 0;
    if (kept.fd !== undefined) {
      try {
        while (written < bytes.length) written += writeSync(kept.fd, bytes, written, bytes.length - written);
      } catch (error) {
        this.stopWriting(kept);
        this.fallBack(error);
      }
    }
    if (written < bytes.length) kept.inMemory.push(bytes.subarray(written));
  }

  private close(): void {
    const kept = this.current;
    if (!kept) return;
    this.flush();
    this.stopWriting(kept);
    this.current = undefined;
  }

  /** Closes the checkpoint's file, which keeps what was written to it. */
  private stopWriting(kept: Kept): void {
    if (kept.fd === undefined) return;
    const fd = kept.fd;
    kept.fd = undefined;
    try {
      closeSync(fd);
    } catch (error) {
      this.fallBack(error);
    }
  }

  /** From now on, every checkpoint's turns are kept in memory; said once. */
  private fallBack(error: unknown): void {
    if (this.fellBack) return;
    this.fellBack = true;
    const why = error instanceof Error ? error.message : String(error);
    this.onFallback(`could not keep the turns' JSON in a temporary folder under ${tmpdir()} (${why}); they are kept in memory instead`);
  }
}

/**
 * The UTF-8 bytes of `texts` one after another (`chars` code units in all), each encoded into one Buffer where it
 * goes. Joined first, the texts made one string of two-byte characters whenever one of them held a character past
 * Latin-1 (most turns' reasons quote with “ ”), and encoding that took 2.3 s for the 326 MB a 100k-turn `check
 * --json` writes, against 0.15 s a text at a time (docs/performance-history.md).
 */
function utf8Of(texts: readonly string[], chars: number): Buffer {
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4). A turn's JSON holds no lone
  // surrogate (JSON.stringify escapes one), so no pair is split between two texts.
  const bytes = Buffer.allocUnsafe(3 * chars);
  let length = 0;
  for (const text of texts) length += bytes.write(text, length, 'utf8');
  return bytes.subarray(0, length);
}
