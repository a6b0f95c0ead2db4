// `compaction-lens find FILE QUERY`: reads the query (plain text or a checked /regex/), opens and analyses the
// transcript (tokens counted in worker threads; on a terminal, its progress on stderr), keeping only the results
// of the turns the answer lists (core/keptTurns.ts), runs core/findFact and prints the answer as text or JSON.
// Every failure is a one-line message for exit status 2, never a stack trace.
import { findFact, matchingTurns, parseFactQuery } from '../core/findFact';
import { KeptTurns } from '../core/keptTurns';
import type { FactAnswer, Transcript } from '../core/model';
import type { FindCommandOptions } from './args';
import { cliTokenPool, type FileProgress, openErrorText, openForCli, progressFor } from './checkFiles';
import { findJson, findText } from './findReport';
import { shownName } from './standardInput';

export type FindOutcome = { kind: 'error'; message: string } | { kind: 'done'; output: string; status: number };

/** 0 found, none flagged; 1 a matching turn is claimed but not carried by a summary; 3 no turn holds it. */
export function findStatus(answer: FactAnswer): number {
  if (answer.matches.length === 0 && answer.omitted === 0) return 3;
  return answer.flagged > 0 ? 1 : 0;
}

/** `onProgress`: a terminal's progress line, for the analysis. */
export async function runFind(options: FindCommandOptions, onProgress?: FileProgress): Promise<FindOutcome> {
  const parsed = parseFactQuery(options.query);
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const name = shownName(options.file);
  const pool = cliTokenPool();
  // Only the results of the turns the answer lists are kept: the matching turns are found once the file is read.
  const kept = new KeptTurns();
  const onRead = (transcript: Transcript): void => {
    const wanted = new Set(matchingTurns(transcript, parsed.query));
    kept.keep((index) => wanted.has(index));
  };
  const opened = await openForCli(options.file, options, pool, { ...progressFor(name, onProgress), onRead }, kept).finally(() =>
    pool.disposeAndWait(),
  );
  if ('error' in opened) return { kind: 'error', message: openErrorText(opened) };
  const format = opened.file.format;
  const answer = findFact(opened.file.transcript, opened.analysis, parsed.query, { kept });
  const output = options.json ? findJson(name, format, answer) : findText(name, format, answer, { color: options.color });
  return { kind: 'done', output, status: findStatus(answer) };
}
