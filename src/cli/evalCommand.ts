// `compaction-lens eval LABELS.json [TRANSCRIPT]`: reads the labels, analyses the transcript, scores the
// labelled checkpoint and prints the result. A measurement, not a gate: it exits 0 unless --min-agreement is
// given and not met (1), or the labels or the transcript cannot be used (2, with a message naming the field).
import { DEFAULT_COVERAGE_THRESHOLD } from '../core/evidence';
import type { EvalOptions } from './args';
import { checkFiles } from './checkFiles';
import { evalJson, evalText, passes, type EvalRun } from './evalReport';
import { pickCheckpoint, scoreLabels } from './evalScore';
import { LabelsError, readLabels, transcriptOf, type LabelSet } from './labels';

export type EvalOutcome = { kind: 'done'; output: string; status: number } | { kind: 'error'; message: string };

export async function runEval(options: EvalOptions): Promise<EvalOutcome> {
  let labels: LabelSet;
  let transcriptPath: string;
  try {
    labels = await readLabels(options.labelsPath);
    transcriptPath = options.transcriptPath ?? transcriptOf(labels);
  } catch (error) {
    if (error instanceof LabelsError) return { kind: 'error', message: error.message };
    throw error;
  }

  const [report] = await checkFiles([transcriptPath], options);
  if (report.analysis === undefined || report.format === undefined) {
    return { kind: 'error', message: report.error ?? `${transcriptPath}: could not be analysed` };
  }
  const pick = pickCheckpoint(report.analysis, labels.boundaryLine);
  if (typeof pick === 'string') return { kind: 'error', message: `${transcriptPath}: ${pick} (from ${labels.path})` };

  const score = scoreLabels(labels, pick, options.coverageThreshold ?? DEFAULT_COVERAGE_THRESHOLD);
  const run: EvalRun = {
    labelsPath: options.labelsPath,
    transcriptPath,
    format: report.format,
    boundaryLine: labels.boundaryLine,
    score,
    minAgreement: options.minAgreement,
  };
  return { kind: 'done', output: options.json ? evalJson(run) : evalText(run), status: passes(run) ? 0 : 1 };
}
