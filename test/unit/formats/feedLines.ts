// Test helper: splits bytes into RawLines with the same LineSplitter the CLI and the extension use, and reads
// them with a reader (at once, or in two parts as a file that grows); also finds the shared corpus.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { RawLine, Transcript, TranscriptReader } from '../../../src/core/model';
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
