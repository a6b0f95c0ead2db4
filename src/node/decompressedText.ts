// The text of a gzip-compressed transcript, decompressed for the editor's read-only view of it
// (extension/decompressedDocument.ts), with the same lines as the reader sees: line n of the text is line n of
// the records' SourceSpans. Decompression stops at the same limits as TranscriptFile's (inflationLimitProblem,
// maxInflatedBytes and maxInflateRatio), at the same line, and the text then ends with one line saying why.
// Never writes to the file; keeps one copy of the text (decoded chunk by chunk, joined once). DecodedText gives
// the same text a piece at a time, of a gzip file or a plain one, for a reader that does not keep it
// (node/correctedExport.ts).

import { groupDigits } from '../core/displayText';
import { constants as bufferConstants } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import { textEncodingOf } from './inputKind';
import { inflationLimitProblem, isGzip, type InflateLimits } from './transcriptFile';

export interface DecompressedText {
  text: string;
  /** Why the text stops before the end of the archive (a limit, a damaged archive); its last line says so too. */
  stopped?: string;
}

/** Longest text returned: a JavaScript string cannot be longer (about 512 M characters in V8), whatever the limits. */
const MAX_TEXT_CHARS = bufferConstants.MAX_STRING_LENGTH - 4096;

function newlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** Whether the file at `path` begins as a gzip file does. */
export async function isGzipFile(path: string): Promise<boolean> {
  const handle = await openFile(path, 'r');
  try {
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    return isGzip(head);
  } finally {
    await handle.close();
  }
}

/**
 * The text of a transcript file a piece at a time (UTF-8, or UTF-16 announced by a byte-order mark, which is
 * dropped). A gzip file (`gzip`) is decompressed with the same streams and limits as TranscriptFile's read of it (so
 * the chunks, and a limit's line, are the same): `line` is the line the next piece starts in, and `stopped` says why
 * the pieces ended before the archive's end (a limit). A damaged archive throws from `pieces()`. Never writes to
 * the file.
 */
export class DecodedText {
  /** The line (1-based) the next piece starts in: the first line not yet complete. */
  line = 1;
  stopped: string | undefined;

  constructor(
    private readonly path: string,
    private readonly gzip: boolean,
    private readonly limits: InflateLimits & { signal?: AbortSignal },
  ) {}

  async *pieces(): AsyncGenerator<string, void, void> {
    const raw = createReadStream(this.path);
    const gunzip = this.gzip ? createGunzip() : undefined;
    const stream = gunzip ? raw.pipe(gunzip) : raw;
    let decoder: TextDecoder | undefined;
    let inflated = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (this.limits.signal?.aborted) throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
        inflated += chunk.length;
        const limit = gunzip && inflationLimitProblem(this.path, inflated, gunzip.bytesWritten, this.line, this.limits);
        if (limit) {
          this.stopped = limit.message;
          return;
        }
        decoder ??= new TextDecoder(textEncodingOf(chunk));
        const piece = decoder.decode(chunk, { stream: true });
        yield piece;
        this.line += newlines(piece);
      }
      const last = decoder?.decode() ?? '';
      if (last !== '') yield last;
    } finally {
      raw.destroy();
      stream.destroy();
    }
  }
}

/**
 * Decompresses the gzip file at `path` to text (UTF-8, or UTF-16 announced by a byte-order mark; a byte-order
 * mark is dropped, as the editor drops it from files). Throws when the file is not gzip-compressed or cannot be
 * read at all; a limit or damage past the start gives the lines before and a last line saying why.
 */
export async function readDecompressedText(path: string, limits: InflateLimits & { signal?: AbortSignal }): Promise<DecompressedText> {
  if (!(await isGzipFile(path))) throw new Error(`${path} is not gzip-compressed`);
  const inflated = new DecodedText(path, true, limits);
  const pieces: string[] = [];
  let chars = 0;
  let stopped: string | undefined;
  try {
    for await (const piece of inflated.pieces()) {
      if (chars + piece.length > MAX_TEXT_CHARS) {
        stopped = `the view stops at line ${inflated.line}: the decompressed text is longer than an editor document can hold here (${groupDigits(MAX_TEXT_CHARS)} characters). Decompress the file (gunzip -k) to see the rest.`;
        break;
      }
      pieces.push(piece);
      chars += piece.length;
    }
    stopped ??= inflated.stopped;
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    stopped = `reading stopped at line ${inflated.line}: ${(error as Error).message}. The file may be damaged; the lines before are shown.`;
  }
  let text = pieces.join('');
  pieces.length = 0;
  if (stopped === undefined) return { text };
  // The line being decompressed was cut: it is left out, as the reader leaves it out, and the note takes its place.
  text = text.slice(0, text.lastIndexOf('\n') + 1);
  return { text: `${text}[Compaction Lens] ${stopped}\n`, stopped };
}
