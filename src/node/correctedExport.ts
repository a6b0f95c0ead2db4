// "Export Corrected Checkpoint" from Node, shared by the CLI and the extension: from a transcript's analysis,
// writes the sidecar document or (a canonical transcript, to a .jsonl name) its corrected copy, to a new file
// beside it by default, atomically, never over an existing file unless told, never over the transcript.
// Worked out in time slices and written as it is made (the transcript read again a piece at a time), so that a
// large transcript's export neither holds the thread for long nor holds the transcript or its copy whole.
// See docs/corrected-checkpoint.md.
import { dirname, join } from 'node:path';
import { correctedCheckpointsInSteps, correctedExportName, exportKindFor } from '../core/correctedCheckpoint';
import type { Analysis, CorrectedCheckpoints, CorrectedExportKind, FormatId } from '../core/model';
import { CanonicalCorrector } from '../formats/correctedCanonical';
import { sidecarPieces } from '../formats/correctedSidecar';
import { AtomicWriteError, writeFileAtomic, type AtomicWriteOptions } from './atomicWrite';
import { DecodedText, isGzipFile } from './decompressedText';
import { abortError, inSlices } from './inSlices';
import type { InflateLimits } from './transcriptFile';

export interface CorrectedExportOptions {
  /** Where to write; default: beside the transcript, named by correctedExportName. */
  outputPath?: string;
  /** Replace an existing file. Default false. */
  overwrite?: boolean;
  /** Limits for decompressing a canonical .jsonl.gz (TranscriptFile's). */
  inflateLimits?: InflateLimits;
  /** Passed to the atomic writer (tests make a step fail). */
  fileSystem?: AtomicWriteOptions['fileSystem'];
  /** Stops the export: it then rejects with an AbortError, having written nothing. */
  signal?: AbortSignal;
  /** Told as the export goes: as it works out the corrections, then after each write (the bytes written so far). */
  onProgress?: (progress: CorrectedExportProgress) => void;
}

/** Where an export stands. */
export type CorrectedExportProgress = { step: 'correcting' } | { step: 'writing'; bytes: number };

export interface CorrectedExport {
  outputPath: string;
  kind: CorrectedExportKind;
  document: CorrectedCheckpoints;
}

/** An export that could not be made; the message is for the user, and nothing was written. */
export class CorrectedExportError extends Error {
  constructor(
    message: string,
    /** `exists` and `protected` come from the writer; `refused` is a wrong output name; `unreadable` the transcript. */
    readonly reason: 'exists' | 'protected' | 'not-a-file' | 'failed' | 'refused' | 'unreadable',
  ) {
    super(message);
    this.name = 'CorrectedExportError';
  }
}

/** Where an export goes when no output is named: beside the transcript. */
export function defaultExportPath(transcriptPath: string, format: FormatId): string {
  return join(dirname(transcriptPath), correctedExportName(transcriptPath, format));
}

/** Characters of the output gathered into one write; each write lets the event loop run (the extension host's). */
const WRITE_CHARS = 256 * 1024;

/**
 * The transcript's text a piece at a time, decoded as its reader decoded it (UTF-8, or UTF-16 with a byte-order
 * mark; gzip inflated within the limits). Throws when it cannot be read to its end.
 */
async function* transcriptPieces(path: string, limits: InflateLimits): AsyncGenerator<string, void, void> {
  const text = new DecodedText(path, await isGzipFile(path), limits);
  yield* text.pieces();
  if (text.stopped !== undefined) throw new Error(`the transcript could not be read to its end (${text.stopped})`);
}

/** Pieces of text gathered into writes of about WRITE_CHARS characters. */
class Gathered {
  private pieces: string[] = [];
  private chars = 0;

  /** Adds a piece: true when a write's worth is gathered. */
  add(piece: string): boolean {
    this.pieces.push(piece);
    this.chars += piece.length;
    return this.chars >= WRITE_CHARS;
  }

  /** What was gathered, as one text; nothing is gathered after. */
  take(): string {
    const text = this.pieces.join('');
    this.pieces = [];
    this.chars = 0;
    return text;
  }
}

/**
 * The corrected canonical copy of the transcript, in writes: the transcript read again as it is written out, each
 * line kept as it is but the checkpoints' records (CanonicalCorrector), so that neither the transcript nor its
 * copy is held whole. Throws a CorrectedExportError when the transcript cannot be read again or changed since it
 * was analysed; the writer then keeps nothing of what it wrote.
 */
async function* correctedCanonicalWrites(
  transcriptPath: string,
  document: CorrectedCheckpoints,
  limits: InflateLimits,
): AsyncGenerator<string, void, void> {
  const corrector = new CanonicalCorrector(document);
  const refuse = () =>
    new CorrectedExportError(
      `${transcriptPath}: ${corrector.problems.map((problem) => problem.message).join(' ')} Nothing was written.`,
      'unreadable',
    );
  if (corrector.problems.length > 0) throw refuse();
  const gathered = new Gathered();
  const pieces = transcriptPieces(transcriptPath, limits);
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = await pieces.next();
    } catch (error) {
      throw new CorrectedExportError(
        `could not read ${transcriptPath} again to copy it: ${(error as Error).message}. Nothing was written.`,
        'unreadable',
      );
    }
    if (next.done) break;
    for (const written of corrector.write(next.value)) if (gathered.add(written)) yield gathered.take();
  }
  for (const written of corrector.end()) if (gathered.add(written)) yield gathered.take();
  if (corrector.problems.length > 0) throw refuse();
  yield gathered.take();
}

/** The sidecar document, in writes. */
function* sidecarWrites(document: CorrectedCheckpoints): Generator<string, void, void> {
  const gathered = new Gathered();
  for (const piece of sidecarPieces(document)) if (gathered.add(piece)) yield gathered.take();
  yield gathered.take();
}

/** The writes as they are made, each told to onProgress once written; an AbortError before the next when aborted. */
async function* watchedWrites(
  pieces: Iterable<string> | AsyncIterable<string>,
  { signal, onProgress }: CorrectedExportOptions,
): AsyncGenerator<string, void, void> {
  let bytes = 0;
  for await (const piece of pieces) {
    if (signal?.aborted) throw abortError();
    yield piece;
    bytes += Buffer.byteLength(piece);
    onProgress?.({ step: 'writing', bytes });
  }
}

/**
 * Writes the corrected checkpoints of `analysis` (the analysis of the file at `transcriptPath`). Rejects with a
 * CorrectedExportError, having written nothing, when the output exists (without `overwrite`), is the transcript,
 * is named .jsonl for a transcript that is not canonical, or cannot be written; with an AbortError, having written
 * nothing, when `options.signal` aborts.
 */
export async function exportCorrectedCheckpoint(
  transcriptPath: string,
  analysis: Analysis,
  options: CorrectedExportOptions = {},
): Promise<CorrectedExport> {
  const outputPath = options.outputPath ?? defaultExportPath(transcriptPath, analysis.format);
  const decided = exportKindFor(analysis.format, outputPath);
  if ('error' in decided) throw new CorrectedExportError(decided.error, 'refused');
  // Worked out and written in time slices: a checkpoint claiming 90,000 turns takes seconds to write.
  options.onProgress?.({ step: 'correcting' });
  const document = await inSlices(correctedCheckpointsInSteps(analysis, transcriptPath), options.signal);
  const pieces =
    decided.kind === 'sidecar' ? sidecarWrites(document) : correctedCanonicalWrites(transcriptPath, document, options.inflateLimits ?? {});
  try {
    await writeFileAtomic(outputPath, watchedWrites(pieces, options), {
      overwrite: options.overwrite,
      protectedPaths: [transcriptPath],
      fileSystem: options.fileSystem,
    });
  } catch (error) {
    if (error instanceof AtomicWriteError) throw new CorrectedExportError(error.message, error.reason);
    throw error;
  }
  return { outputPath, kind: decided.kind, document };
}
