// Where `check --json` puts each turn's JSON as the analysis judges it (the core's TurnSink), so that the
// analysis need not hold every turn's evidence and reason until the report is written: a temporary folder with
// one file per checkpoint. Each turn is kept as the text the report writes for it, the turns separated by a NUL
// character, which JSON text never holds raw (JSON escapes every control character). The report reads them
// back, in order, when it writes that checkpoint's turns. dispose deletes the folder; nothing is written until
// the first turn comes.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { TurnResult, TurnSink } from '../core/model';

/** Characters of turns' text gathered before they are written to the file. */
const WRITE_CHARS = 1 << 20;
/** Bytes read back at a time. */
const READ_BYTES = 1 << 20;
const SEPARATOR = '\u0000';

export class TurnSpill implements TurnSink {
  private dir: string | undefined;
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  /** How many turns each checkpoint's file holds, by checkpoint index. */
  private readonly counts = new Map<number, number>();
  private current = -1;

  /** `render` makes the text the report writes for one turn. */
  constructor(private readonly render: (result: TurnResult) => string) {}

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
    const text = this.render(result);
    const piece = count === 0 ? text : SEPARATOR + text;
    this.pending.push(piece);
    this.pendingChars += piece.length;
    this.counts.set(this.current, count + 1);
    if (this.pendingChars >= WRITE_CHARS) this.flush();
  }

  /** How many turns checkpoint `index` has here (0 when none came). */
  countOf(index: number): number {
    return this.counts.get(index) ?? 0;
  }

  /** The text of each turn of checkpoint `index`, in the order they came. */
  *texts(index: number): Generator<string> {
    if (this.countOf(index) === 0 || this.dir === undefined) return;
    if (index === this.current) this.close();
    const fd = openSync(this.fileOf(index), 'r');
    try {
      const decoder = new StringDecoder('utf8');
      const buffer = Buffer.allocUnsafe(READ_BYTES);
      let rest = '';
      for (;;) {
        const read = readSync(fd, buffer, 0, READ_BYTES, null);
        if (read === 0) break;
        const parts = (rest + decoder.write(buffer.subarray(0, read))).split(SEPARATOR);
        rest = parts.pop() ?? '';
        yield* parts;
      }
      yield rest + decoder.end();
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
