// `compaction-lens find FILE QUERY`: reads the query (plain text or a checked /regex/), opens and analyses the
// transcript (tokens counted in worker threads), runs core/findFact and prints the answer as text or JSON. Every
// failure is a one-line message for exit status 2, never a stack trace.
import { findFact, parseFactQuery } from '../core/findFact';
import type { FactAnswer, FormatId } from '../core/model';
import { analyzeFile } from '../node/analyzeFile';
import { TokenPool } from '../node/tokenPool';
import { UnusableTranscriptError } from '../node/transcriptFile';
import type { FindCommandOptions } from './args';
import { budgetsFor } from './checkFiles';
import { findJson, findText } from './findReport';
import { terminalText } from './terminalText';

export type FindOutcome = { kind: 'error'; message: string } | { kind: 'done'; output: string; status: number };

/** 0 found, none flagged; 1 a matching turn is claimed but not carried by a summary; 3 no turn holds it. */
export function findStatus(answer: FactAnswer): number {
  if (answer.matches.length === 0 && answer.omitted === 0) return 3;
  return answer.flagged > 0 ? 1 : 0;
}

export async function runFind(options: FindCommandOptions): Promise<FindOutcome> {
  const parsed = parseFactQuery(options.query);
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const pool = new TokenPool({
    onFallback: (reason) => process.stderr.write(`compaction-lens: ${terminalText(reason)}; counting tokens in the main thread\n`),
  });
  let format: FormatId;
  let answer: FactAnswer;
  try {
    const { file, analysis } = await analyzeFile(
      options.file,
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
    );
    format = file.format;
    answer = findFact(file.transcript, analysis, parsed.query);
  } catch (error) {
    if (error instanceof UnusableTranscriptError) {
      return { kind: 'error', message: [error.message, ...error.details].join('\n  ') };
    }
    return { kind: 'error', message: `${options.file}: could not be searched: ${(error as Error).message}` };
  } finally {
    pool.dispose();
  }
  const output = options.json ? findJson(options.file, format, answer) : findText(options.file, format, answer, { color: options.color });
  return { kind: 'done', output, status: findStatus(answer) };
}
