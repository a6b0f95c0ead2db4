// The one open → count → analyse sequence, shared by the CLI and the extension: open a transcript file
// (TranscriptFile), count what the analysis will count in the token pool's worker threads (warmTokenCache), then
// analyse without tokenizing. Progress is one fraction from 0 to 1 with a short message.
import { analyze } from '../core/analyze';
import type { Analysis, TokenCache, Transcript } from '../core/model';
import type { EncodingName } from './tokenCounter';
import type { TokenPool } from './tokenPool';
import { TranscriptFile, type OpenOptions } from './transcriptFile';
import { warmTokenCache } from './warmTokenCache';

/** What steers an analysis (the file's reading options aside). */
export interface AnalysisOptions {
  encoding: EncodingName;
  ratioFloor: number;
  /** undefined = the core's default threshold. */
  coverageThreshold?: number;
}

export interface ProgressOptions {
  signal?: AbortSignal;
  /** `fraction` runs from 0 to 1 over the whole job. */
  onProgress?: (fraction: number, message: string) => void;
}

export interface AnalysedFile {
  file: TranscriptFile;
  analysis: Analysis;
  /** The counts made for this file, for the next analysis of a grown snapshot. */
  tokenCache: TokenCache;
}

/** Share of the progress given to reading the file; counting tokens takes the rest. */
const READING_SHARE = 0.4;

/**
 * Counts, in `pool`'s workers, what the analysis of `transcript` will count (into `tokenCache`), then analyses
 * synchronously, without tokenizing. Rejects only when `signal` aborts or the pool is disposed meanwhile.
 */
export async function analyzeTranscript(
  transcript: Transcript,
  tokenCache: TokenCache,
  pool: TokenPool,
  options: AnalysisOptions,
  progress: ProgressOptions = {},
): Promise<Analysis> {
  const { onProgress } = progress;
  const countTokens = await warmTokenCache(
    transcript,
    tokenCache,
    pool,
    options.encoding,
    onProgress &&
      ((done, total) =>
        onProgress(total > 0 ? done / total : 1, `counting tokens… ${total > 0 ? Math.floor((done / total) * 100) : 100}%`)),
    progress.signal,
  );
  return analyze(transcript, { countTokens, tokenCache, ratioFloor: options.ratioFloor, coverageThreshold: options.coverageThreshold });
}

/**
 * Opens `path` and analyses it. Throws UnusableTranscriptError when the file cannot be used at all, and an
 * AbortError when `signal` aborts.
 */
export async function analyzeFile(
  path: string,
  open: Omit<OpenOptions, 'signal' | 'onProgress'>,
  pool: TokenPool,
  options: AnalysisOptions,
  progress: ProgressOptions = {},
): Promise<AnalysedFile> {
  const { onProgress, signal } = progress;
  const file = await TranscriptFile.open(path, {
    ...open,
    signal,
    onProgress: onProgress && ((read, total) => onProgress(total > 0 ? (READING_SHARE * read) / total : 0, 'reading…')),
  });
  onProgress?.(READING_SHARE, 'counting tokens…');
  const tokenCache: TokenCache = new Map();
  const analysis = await analyzeTranscript(file.transcript, tokenCache, pool, options, {
    signal,
    onProgress: onProgress && ((fraction, message) => onProgress(READING_SHARE + (1 - READING_SHARE) * fraction, message)),
  });
  onProgress?.(1, 'done');
  return { file, analysis, tokenCache };
}
