// Opens and analyses each file named on the command line, one at a time, turning every failure into a
// per-file error message (never a stack trace) so one bad file does not stop the others. Tokens are counted
// in worker threads (TokenPool, two on two cores) before each analysis. Every command that reads a transcript
// (`check`, `eval`, `export`, `find`, `bundle`) opens it here, with the command line's settings.
import { DEFAULT_SUMMARY_BUDGETS } from '../core/defaults';
import type { Analysis, CheckpointVerdict, FormatId, TurnSink } from '../core/model';
import { FORMATS } from '../formats/readers';
import { analyzeFile, type AnalysedFile, type ProgressOptions } from '../node/analyzeFile';
import { TokenPool } from '../node/tokenPool';
import { UnusableTranscriptError } from '../node/transcriptFile';
import type { AnalysisSettings } from './args';
import { collectGarbage } from './gcSettings';
import { shownName, STANDARD_INPUT, standardInputFile } from './standardInput';
import { terminalText } from './terminalText';
import type { TurnSpill } from './turnSpill';

export interface FileReport {
  path: string;
  format?: FormatId;
  analysis?: Analysis;
  /** Set when the file could not be used at all (exit status 2). */
  error?: string;
  /** More about the error, one line each (the formats tried, say). */
  details?: readonly string[];
  /** Where the turns' full results are, when the analysis kept them slimmed (turnsWritten); its reader disposes it. */
  spill?: TurnSpill;
}

/**
 * What a run keeps of each turn's result: all of it in the analysis ('kept': eval, export), each turn's JSON in a
 * TurnSpill (`spill`: check --json, which writes it), or only what the checkpoints' figures need ('figures':
 * the text and SARIF reports, which show no turn's evidence or reason).
 */
export type TurnsKept = 'kept' | { spill: () => TurnSpill } | 'figures';

/** A sink for turns nothing will show: the checkpoints keep their figures. */
const FIGURES_ONLY: TurnSink = { begin: () => undefined, turn: () => undefined };

/** The summary budget to assume per format: --budget for every format, else the per-format defaults. */
export function budgetsFor(options: AnalysisSettings): Partial<Record<FormatId, number>> {
  if (options.budget === undefined) return DEFAULT_SUMMARY_BUDGETS;
  const budgets: Partial<Record<FormatId, number>> = {};
  for (const { id } of FORMATS) budgets[id] = options.budget;
  return budgets;
}

/** What a run tells as it goes, per file. */
export interface FileProgress {
  /**
   * `fraction` from 0 to 1 of reading, counting and analysing the file, or of the command's own work after (a
   * bundle written); undefined for work whose end cannot be told (an export's bytes written). 1: the file is done.
   */
  progress(path: string, fraction: number | undefined, message: string): void;
  /** The file's verdicts, settled before its analysis is done (see analyzeFile's onVerdict). */
  verdict?(path: string, verdicts: readonly CheckpointVerdict[]): void;
}

/** The pool the CLI counts tokens in; a fallback to the main thread is said on stderr. */
export function cliTokenPool(): TokenPool {
  return new TokenPool({
    onFallback: (reason) => process.stderr.write(`compaction-lens: ${terminalText(reason)}; counting tokens in the main thread\n`),
  });
}

/** A file read and analysed with the command line's settings, or why it could not be (never a throw). */
export type OpenedFile = AnalysedFile | { error: string; details?: readonly string[] };

/** Reads and analyses one file with the command line's settings, counting in `pool`; `-` is standard input. */
export async function openForCli(
  path: string,
  options: AnalysisSettings,
  pool: TokenPool,
  progress: ProgressOptions = {},
  turnSink?: TurnSink,
): Promise<OpenedFile> {
  let source = path;
  try {
    if (path === STANDARD_INPUT) source = await standardInputFile();
    return await analyzeFile(
      source,
      {
        format: options.format,
        defaultBudgets: budgetsFor(options),
        maxLineBytes: options.maxLineBytes,
        maxInflatedBytes: options.maxInflatedBytes,
        maxInflateRatio: options.maxInflateRatio,
        limitNames: { maxInflatedBytes: '--max-inflated-mb', maxInflateRatio: '--max-inflate-ratio' },
      },
      pool,
      options,
      // Each command analyses a file once and lets it go: no memo or cache for a re-analysis.
      { ...progress, oneShot: true, turnSink, collectGarbage },
    );
  } catch (error) {
    // Standard input's temporary file is named as the user named it.
    const shown = (text: string): string => (source === path ? text : text.replaceAll(source, shownName(path)));
    if (error instanceof UnusableTranscriptError)
      return { error: shown(error.message), details: error.details.length > 0 ? error.details.map(shown) : undefined };
    return { error: shown(`${shownName(path)}: could not be analysed: ${(error as Error).message}`) };
  }
}

/** The analysis's progress and its verdicts settled early, for the file shown as `path`, told to `onProgress`. */
export function progressFor(path: string, onProgress: FileProgress | undefined): ProgressOptions {
  return {
    onProgress: onProgress && ((fraction: number, message: string) => onProgress.progress(path, fraction, message)),
    onVerdict: onProgress?.verdict && ((verdicts: readonly CheckpointVerdict[]) => onProgress.verdict?.(path, verdicts)),
  };
}

/** One line for an OpenedFile's error, its details indented below it. */
export function openErrorText(opened: { error: string; details?: readonly string[] }): string {
  return [opened.error, ...(opened.details ?? [])].join('\n  ');
}

/**
 * Each file's report as soon as it is analysed, one at a time (a caller that writes a report and lets it go
 * holds one file's analysis at a time). The token pool lives until the last report is taken or the loop stops.
 */
export async function* fileReports(
  files: readonly string[],
  options: AnalysisSettings,
  onProgress?: FileProgress,
  turns: TurnsKept = 'kept',
): AsyncGenerator<FileReport> {
  const pool = cliTokenPool();
  try {
    for (const file of files) {
      const path = shownName(file);
      const spill = typeof turns === 'object' ? turns.spill() : undefined;
      let opened: OpenedFile;
      try {
        opened = await openForCli(
          file,
          options,
          pool,
          progressFor(path, onProgress),
          spill ?? (turns === 'figures' ? FIGURES_ONLY : undefined),
        );
      } catch (error) {
        spill?.dispose();
        throw error;
      }
      if ('error' in opened) {
        spill?.dispose();
        yield { path, error: opened.error, details: opened.details };
      } else {
        yield { path, format: opened.file.format, analysis: opened.analysis, spill };
      }
    }
  } finally {
    await pool.disposeAndWait();
  }
}

/** Every file's report (fileReports, collected), with the turns kept in full or only for the figures. */
export async function checkFiles(
  files: string[],
  options: AnalysisSettings,
  onProgress?: FileProgress,
  turns: 'kept' | 'figures' = 'kept',
): Promise<FileReport[]> {
  const reports: FileReport[] = [];
  for await (const report of fileReports(files, options, onProgress, turns)) reports.push(report);
  return reports;
}

/**
 * 2 when a file was unusable, 1 when anything was found, 0 when every checkpoint is reversible and clean.
 * A checkpoint whose coverage could not be checked is fail-closed, so it gives 1.
 */
export function exitStatus(reports: FileReport[]): number {
  let status = 0;
  for (const report of reports) {
    if (report.error !== undefined || report.analysis === undefined) return 2;
    const { checkpoints, problems } = report.analysis;
    const findings =
      problems.some((problem) => problem.severity === 'error') ||
      checkpoints.some(
        (cp) => cp.verdict !== 'reversible' || cp.counts['claimed-missing'] > 0 || cp.counts.unverifiable > 0 || cp.truncation.truncated,
      );
    if (findings) status = 1;
  }
  return status;
}
