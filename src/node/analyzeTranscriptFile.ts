// One call to analyse a transcript file from a Node program (the library's entry for agent builders): opens it
// read-only, counts tokens in a token pool of its own that it ends before returning, and analyses with the
// defaults the CLI uses (R_low 5, the per-format assumed budgets). Returns the transcript too, so that a caller
// can route a reconstruction to the raw log (turn text by id).
import { DEFAULT_SUMMARY_BUDGETS } from '../core/defaults';
import type { Analysis, FormatId, Transcript } from '../core/model';
import { COMPRESSION_RATIO_LOW } from '../core/reference';
import { FORMATS } from '../formats/readers';
import { analyzeFile } from './analyzeFile';
import { DEFAULT_ENCODING, type EncodingName } from './tokenCounter';
import { TokenPool } from './tokenPool';

export interface TranscriptFileOptions {
  /** Read as this format instead of detecting it. */
  format?: FormatId;
  /** Summary budget (tokens) to assume, whatever the format, when the transcript records none. Default: per format. */
  summaryBudget?: number;
  /** tiktoken encoding for the token counts a transcript does not record. Default o200k_base. */
  encoding?: EncodingName;
  /** R_low, the compression-ratio floor. Default 5 (COMPRESSION_RATIO_LOW). */
  ratioFloor?: number;
  /** Weighted evidence a claimed turn needs found in its summary to count as covered. Default: the core's. */
  coverageThreshold?: number;
  signal?: AbortSignal;
  /** `fraction` runs from 0 to 1 over reading, counting and analysing. */
  onProgress?: (fraction: number, message: string) => void;
}

export interface TranscriptFileAnalysis {
  path: string;
  format: FormatId;
  /** The transcript as read: its turns are the raw log (`text` by `id`), its checkpoints the claims. */
  transcript: Transcript;
  analysis: Analysis;
}

/**
 * Reads and analyses the transcript at `path`. Rejects with UnusableTranscriptError (a message for the user)
 * when the file cannot be used at all, and with an AbortError when `signal` aborts.
 */
export async function analyzeTranscriptFile(path: string, options: TranscriptFileOptions = {}): Promise<TranscriptFileAnalysis> {
  const pool = new TokenPool();
  try {
    const { file, analysis } = await analyzeFile(
      path,
      { format: options.format, defaultBudgets: budgetsFor(options.summaryBudget) },
      pool,
      {
        encoding: options.encoding ?? DEFAULT_ENCODING,
        ratioFloor: options.ratioFloor ?? COMPRESSION_RATIO_LOW,
        coverageThreshold: options.coverageThreshold,
      },
      { signal: options.signal, onProgress: options.onProgress },
    );
    return { path, format: file.format, transcript: file.transcript, analysis };
  } finally {
    pool.dispose();
  }
}

function budgetsFor(summaryBudget: number | undefined): Partial<Record<FormatId, number>> {
  if (summaryBudget === undefined) return DEFAULT_SUMMARY_BUDGETS;
  return Object.fromEntries(FORMATS.map(({ id }) => [id, summaryBudget]));
}
