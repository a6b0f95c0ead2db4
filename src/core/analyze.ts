// analyze(transcript, options): the non-throwing checkpoint analysis (statuses, verdicts, safe sets).
// PLACEHOLDER SIGNATURE — being implemented by the core helper; do not ship as is.
import type { Analysis, AnalysisOptions, Transcript } from './model';

export function analyze(transcript: Transcript, options: AnalysisOptions): Analysis {
  void transcript;
  void options;
  throw new Error('analyze: not implemented yet');
}
