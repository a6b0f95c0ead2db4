// Test helper: splits bytes into RawLines (1-based numbers, byte offsets, a trailing "\r" dropped, the last line
// marked unterminated when no newline follows it) and reads them with a reader; also finds the shared corpus.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { RawLine, Transcript, TranscriptReader } from '../../../src/core/model';

export function splitLines(bytes: Buffer): RawLine[] {
  const lines: RawLine[] = [];
  let start = 0;
  let number = 1;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const terminated = newline !== -1;
    let end = terminated ? newline : bytes.length;
    if (end > start && bytes[end - 1] === 0x0d) end -= 1;
    lines.push({ line: number, offset: start, endOffset: end, text: bytes.subarray(start, end).toString('utf8'), terminated });
    number += 1;
    start = terminated ? newline + 1 : bytes.length;
  }
  return lines;
}

/** Pushes every line of `input` into `reader` and returns what it read. */
export function feed(reader: TranscriptReader, input: Buffer | string): Transcript {
  for (const line of splitLines(typeof input === 'string' ? Buffer.from(input, 'utf8') : input)) reader.push(line);
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
  if (!corpusAvailable()) {
    console.log(`    (skipped: the shared corpus folder ${CORPUS} is absent; these tests read real transcripts in place)`);
    context.skip();
  }
}
