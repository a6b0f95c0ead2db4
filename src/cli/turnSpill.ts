// Where `check --json` puts each turn's JSON as the analysis judges it (the core's TurnSink), so that the
// analysis need not hold every turn's evidence and reason until the report is written: a temporary folder with
// one file per checkpoint. Each file holds the bytes the report writes between its turns array's brackets: each
// turn's text as `render` makes it, `separator` between two. The report copies them out as they are (no
// decoding: the text is UTF-8 once, as stdout would have made it). dispose deletes the folder; nothing is
// created on disk until the first checkpoint begins.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TurnResult, TurnSink } from '../core/model';

/** Characters of turns' text gathered before they are written to the file. */
const WRITE_CHARS = 1 << 20;
/** Bytes read back at a time. */
const READ_BYTES = 1 << 20;

export class TurnSpill implements TurnSink {
  private dir: string | undefined;
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  /** How many turns each checkpoint's file holds, by checkpoint index. */
  private readonly counts = new Map<number, number>();
  private current = -1;

  /** `render` makes the text written for one turn; `separator` goes between two turns' texts. */
  constructor(
    private readonly render: (result: TurnResult) => string,
    private readonly separator: string,
  ) {}

  begin(index: number): void {
    this.close();
    this.dir ??= mkdtempSync(join(tmpdir(), 'compaction-lens-turns-'));
    // 'w' empties what an earlier begin of the same checkpoint wrote.
    this.fd = openSync(this.fileOf(index), 'w');
    this.current = index;
    this.counts.set(index, 0);
  }

  turn(result: TurnResult): void {
    if (this.fd === undefined) throw new Error('a turn came before its checkpoint began');
    const count = this.counts.get(this.current) ?? 0;
    if (count > 0) this.pending.push(this.separator);
    const text = this.render(result);
    this.pending.push(text);
    this.pendingChars += text.length + this.separator.length;
    this.counts.set(this.current, count + 1);
    if (this.pendingChars >= WRITE_CHARS) this.flush();
  }

  /** How many turns checkpoint `index` has here (0 when none came). */
  countOf(index: number): number {
    return this.counts.get(index) ?? 0;
  }

  /** The UTF-8 bytes of checkpoint `index`'s turns, separated, in chunks (each a Buffer of its own). */
  *bytes(index: number): Generator<Buffer> {
    if (this.countOf(index) === 0 || this.dir === undefined) return;
    if (index === this.current) this.close();
    const fd = openSync(this.fileOf(index), 'r');
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

  /** Deletes the folder and everything in it. */
  dispose(): void {
    this.close();
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.counts.clear();
  }

  private fileOf(index: number): string {
    return join(this.dir ?? '', `checkpoint-${index}.json`);
  }

  private flush(): void {
    if (this.fd === undefined || this.pendingChars === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  private close(): void {
    if (this.fd === undefined) return;
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
    this.current = -1;
  }
}
