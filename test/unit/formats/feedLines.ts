// Test helper: splits bytes into RawLines with the same LineSplitter the CLI and the extension use, and reads
// them with a reader (at once, or in two parts as a file that grows), checks that the checkpoints a reader says are
// settled as it reads are the whole file's; also finds the shared corpus.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import type { RawLine, ReaderContext, TextKeeper, Transcript, TranscriptReader, Turn } from '../../../src/core/model';
import { LineSplitter } from '../../../src/node/lineSplitter';
import { skipWithoutShared } from '../../sharedFolder';

export function splitLines(bytes: Buffer): RawLine[] {
  const lines: RawLine[] = [];
  const splitter = new LineSplitter(
    { maxLineBytes: Number.MAX_SAFE_INTEGER },
    (line) => lines.push(line),
    () => undefined,
  );
  splitter.write(bytes);
  splitter.end();
  return lines;
}

/** Pushes every line of `input` into `reader` and returns what it read. */
export function feed(reader: TranscriptReader, input: Buffer | string): Transcript {
  for (const line of splitLines(typeof input === 'string' ? Buffer.from(input, 'utf8') : input)) reader.push(line);
  return reader.finish();
}

/**
 * Reads `input` as an agent still writing would leave it: the first `cut` lines, finish(), then the rest and
 * finish() again. Returns what the last finish() read, to compare with a read of the whole file at once.
 */
export function feedAppending(reader: TranscriptReader, input: string, cut: number): Transcript {
  const lines = splitLines(Buffer.from(input, 'utf8'));
  for (const line of lines.slice(0, cut)) reader.push(line);
  reader.finish();
  for (const line of lines.slice(cut)) reader.push(line);
  return reader.finish();
}

/** A TextKeeper of texts in an array (ReaderContext.textKeeper), for readers read as a large file is. */
class ArrayKeeper implements TextKeeper {
  private readonly texts: string[] = [];
  keepText(text: string): number {
    this.texts.push(text);
    return this.texts.length - 1;
  }
  keptText(at: number): string {
    return this.texts[at];
  }
  get size(): number {
    return this.texts.length;
  }
}

/** The records a reader's line buffer keeps (its private field `lines`, read for tests only). */
function recordsKept(reader: TranscriptReader): number {
  return (reader as unknown as { lines: { records: unknown[] } }).lines.records.length;
}

/**
 * For a reader that reads records as they are pushed (the Codex and pi readers): it gives `whole`, what a read of
 * the whole input gave, however it is fed — a batch at a time (1, 3 or 512 records), read once (no record kept once
 * read), with its turns handed over (each once, in order), or finished halfway and appended to (what the first
 * finish returned is left unchanged), its lines pushed once each or not (ReaderContext.linesOnce: no record kept). `make` gives a reader with these context fields and that read-ahead.
 */
export function assertReadAsPushed(
  name: string,
  input: string | Buffer,
  whole: Transcript,
  make: (extra: Partial<ReaderContext>, readAhead: number) => TranscriptReader,
): void {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const lines = splitLines(bytes);
  for (const readAhead of [1, 3, 512]) {
    const at = `${name}, read ahead ${readAhead}`;
    assert.deepEqual(feed(make({}, readAhead), bytes), whole, at);
    const once = make({ readOnce: true }, readAhead);
    assert.deepEqual(feed(once, bytes), whole, `${at}, read once`);
    assert.equal(recordsKept(once), 0, `${at}, read once: no record kept`);
    const handed: unknown[] = [];
    const keepTurn = (turn: Turn): Turn => {
      handed.push(turn.id);
      return { ...turn };
    };
    const keeper = new ArrayKeeper();
    assert.deepEqual(feed(make({ keepTurn, textKeeper: keeper }, readAhead), bytes), whole, `${at}, turns handed over`);
    if (whole.turns.some((turn) => turn.answers !== undefined)) assert.ok(keeper.size > 0, `${at}: the calls' texts kept by the keeper`);
    assert.deepEqual(
      handed,
      whole.turns.map((turn) => turn.id),
      `${at}: each turn handed over once`,
    );
    assertSettledAsWhole(at, lines, whole, make({ readOnce: true }, readAhead));
    for (const cut of new Set([1, Math.floor(lines.length / 3), Math.floor(lines.length / 2), lines.length - 1])) {
      // As TranscriptFile reads a file that grows, each line pushed once (no record kept once read), and as before.
      for (const extra of [{}, { linesOnce: true }]) {
        const reader = make(extra, readAhead);
        const where = `${at}, cut after line ${cut}${extra.linesOnce ? ', lines pushed once' : ''}`;
        for (const line of lines.slice(0, cut)) reader.push(line);
        const first = reader.finish();
        const asReturned = structuredClone(first);
        for (const line of lines.slice(cut)) reader.push(line);
        assert.deepEqual(reader.finish(), whole, where);
        assert.deepEqual(first, asReturned, `${where}: what the first finish returned is unchanged`);
        if (extra.linesOnce) assert.equal(recordsKept(reader), 0, `${where}: no record kept`);
      }
    }
  }
}

/**
 * Pushes `lines` into `reader` one at a time and, each time its settledCheckpoints grows, checks that the
 * checkpoints it says are settled (but for their notes, which a later line may add to), and the turns before each
 * one's turnsBefore, are as `whole` (the whole file read) has them. Returns how many it said were settled after
 * the last line (0 for a reader that cannot tell).
 */
export function assertSettledAsWhole(name: string, lines: readonly RawLine[], whole: Transcript, reader: TranscriptReader): number {
  let settled = 0;
  for (const line of lines) {
    reader.push(line);
    const now = reader.settledCheckpoints?.() ?? 0;
    if (now === settled) continue;
    assert.ok(now > settled, `${name}, line ${line.line}: settled went from ${settled} to ${now}`);
    settled = now;
    const read = reader.finish();
    read.checkpoints.slice(0, settled).forEach((cp, k) => {
      assert.deepStrictEqual({ ...whole.checkpoints[k], notes: [] }, { ...cp, notes: [] }, `${name}, line ${line.line}: checkpoint ${k}`);
      assert.deepStrictEqual(
        whole.turns.slice(0, cp.turnsBefore),
        read.turns.slice(0, cp.turnsBefore),
        `${name}, line ${line.line}: the turns before checkpoint ${k}`,
      );
    });
  }
  return settled;
}

/** The shared corpus folder (third-party files read in place, never copied), beside the project. */
export const CORPUS = join(__dirname, '..', '..', '..', '..', '..', 'shared', 'corpus');

export function corpusAvailable(): boolean {
  return existsSync(CORPUS);
}

/** Bytes of a corpus file, gunzipped when it ends in .gz. */
export function corpusBytes(relative: string): Buffer {
  const bytes = readFileSync(join(CORPUS, relative));
  return relative.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

/** Call in a before() hook: skips the suite, visibly, when the corpus is not beside the project. */
export function requireCorpus(context: Mocha.Context): void {
  skipWithoutShared(context, corpusAvailable(), `the shared corpus folder ${CORPUS}`);
}
