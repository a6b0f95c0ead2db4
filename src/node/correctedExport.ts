// "Export Corrected Checkpoint" from Node, shared by the CLI and the extension: from a transcript's analysis,
// writes the sidecar document or (a canonical transcript, to a .jsonl name) its corrected copy, to a new file
// beside it by default, atomically, never over an existing file unless told, never over the transcript.
// See docs/corrected-checkpoint.md.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TextDecoder } from 'node:util';
import { correctedCheckpoints, correctedExportName, exportKindFor } from '../core/correctedCheckpoint';
import type { Analysis, CorrectedCheckpoints, CorrectedExportKind, FormatId } from '../core/model';
import { correctedCanonicalText } from '../formats/correctedCanonical';
import { sidecarText } from '../formats/correctedSidecar';
import { AtomicWriteError, writeFileAtomic, type AtomicWriteOptions } from './atomicWrite';
import { readDecompressedText } from './decompressedText';
import { textEncodingOf } from './inputKind';
import { isGzip, type InflateLimits } from './transcriptFile';

export interface CorrectedExportOptions {
  /** Where to write; default: beside the transcript, named by correctedExportName. */
  outputPath?: string;
  /** Replace an existing file. Default false. */
  overwrite?: boolean;
  /** Limits for decompressing a canonical .jsonl.gz (TranscriptFile's). */
  inflateLimits?: InflateLimits;
  /** Passed to the atomic writer (tests make a step fail). */
  fileSystem?: AtomicWriteOptions['fileSystem'];
}

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

/** The transcript's text, decoded as its reader decoded it (UTF-8, or UTF-16 with a byte-order mark; gzip inflated). */
async function transcriptText(path: string, limits: InflateLimits = {}): Promise<string> {
  const bytes = await readFile(path);
  if (!isGzip(bytes)) return new TextDecoder(textEncodingOf(bytes)).decode(bytes);
  const { text, stopped } = await readDecompressedText(path, limits);
  if (stopped !== undefined) throw new Error(`the transcript could not be read to its end (${stopped})`);
  return text;
}

/** The file's content for `kind`. */
async function exportText(
  kind: CorrectedExportKind,
  document: CorrectedCheckpoints,
  transcriptPath: string,
  options: CorrectedExportOptions,
): Promise<string> {
  if (kind === 'sidecar') return sidecarText(document);
  let text: string;
  try {
    text = await transcriptText(transcriptPath, options.inflateLimits);
  } catch (error) {
    throw new CorrectedExportError(
      `could not read ${transcriptPath} again to copy it: ${(error as Error).message}. Nothing was written.`,
      'unreadable',
    );
  }
  const corrected = correctedCanonicalText(text, document);
  if (corrected.text === undefined) {
    throw new CorrectedExportError(
      `${transcriptPath}: ${corrected.problems.map((problem) => problem.message).join(' ')} Nothing was written.`,
      'unreadable',
    );
  }
  return corrected.text;
}

/**
 * Writes the corrected checkpoints of `analysis` (the analysis of the file at `transcriptPath`). Rejects with a
 * CorrectedExportError, having written nothing, when the output exists (without `overwrite`), is the transcript,
 * is named .jsonl for a transcript that is not canonical, or cannot be written.
 */
export async function exportCorrectedCheckpoint(
  transcriptPath: string,
  analysis: Analysis,
  options: CorrectedExportOptions = {},
): Promise<CorrectedExport> {
  const outputPath = options.outputPath ?? defaultExportPath(transcriptPath, analysis.format);
  const decided = exportKindFor(analysis.format, outputPath);
  if ('error' in decided) throw new CorrectedExportError(decided.error, 'refused');
  const document = correctedCheckpoints(analysis, transcriptPath);
  const text = await exportText(decided.kind, document, transcriptPath, options);
  try {
    await writeFileAtomic(outputPath, text, {
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
