// Problems-panel flags on a transcript file: a truncated summary (on the summary record), a checkpoint
// whose verdict is not reversible, a checkpoint whose coverage could not be checked (one flag saying why,
// never one per turn), one flag per range of claimed-missing turns (on the checkpoint, with related
// information pointing at the turns), and the readers' parse problems at their lines. Turns with nothing to
// check are never flagged.
// Severities: truncated summary and claimed-missing = Warning; fail-closed = Error (the design note would
// raise CompactionReversibilityError: no coverage may be claimed); conditional = Warning; coverage not
// checkable = Information (the verdict's own flag carries the severity); parse problems keep their own.
// The flags go on the document the records are shown in: the file, or a .jsonl.gz's decompressed view.
import * as vscode from 'vscode';
import type { CheckpointAnalysis, Problem } from '../core/model';
import { decompressedUri } from './decompressedDocument';
import { describeRange, whyUnverifiable } from '../view/timelineData';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';

export const DIAGNOSTIC_SOURCE = 'Compaction Lens';

export const DiagnosticCode = {
  truncatedSummary: 'truncated-summary',
  failClosed: 'fail-closed',
  conditional: 'conditional',
  claimedMissing: 'claimed-missing',
  unverifiable: 'unverifiable',
  transcriptProblem: 'transcript-problem',
} as const;

/** Related-information entries listed per claimed-missing range (the rest are summarised in the message). */
const MAX_RELATED = 50;
/** Parse problems listed per file; a damaged file can have one per line. */
const MAX_PROBLEMS = 500;
/** End column used for lines of documents that are not open (the editor clamps it to the line). */
const LINE_END = 1_000_000;

export class TranscriptDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('compactionLens');
  private readonly disposables: vscode.Disposable[] = [];

  constructor(store: TranscriptStore) {
    this.disposables.push(
      this.collection,
      store.onDidChange((entry) => this.update(entry)),
      store.onDidRemove((uri) => {
        this.collection.delete(uri);
        this.collection.delete(decompressedUri(uri));
      }),
    );
    for (const entry of store.all()) this.update(entry);
  }

  update(entry: AnalysedTranscript): void {
    this.collection.set(entry.documentUri, diagnosticsFor(entry));
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}

function lines(startLine: number, endLine: number): vscode.Range {
  const start = Math.max(startLine - 1, 0);
  return new vscode.Range(start, 0, Math.max(endLine - 1, start), LINE_END);
}

function diagnostic(
  range: vscode.Range,
  message: string,
  severity: vscode.DiagnosticSeverity,
  code: string,
): vscode.Diagnostic {
  const result = new vscode.Diagnostic(range, message, severity);
  result.source = DIAGNOSTIC_SOURCE;
  result.code = code;
  return result;
}

export function diagnosticsFor(entry: AnalysedTranscript): vscode.Diagnostic[] {
  const result: vscode.Diagnostic[] = [];
  for (const checkpoint of entry.analysis.checkpoints) {
    const truncation = truncationDiagnostic(checkpoint);
    if (truncation) result.push(truncation);
    const verdict = verdictDiagnostic(checkpoint);
    if (verdict) result.push(verdict);
    const unverifiable = unverifiableDiagnostic(checkpoint);
    if (unverifiable) result.push(unverifiable);
    result.push(...claimedMissingDiagnostics(entry, checkpoint));
  }
  const problems = entry.analysis.problems;
  result.push(...problems.slice(0, MAX_PROBLEMS).map(problemDiagnostic));
  if (problems.length > MAX_PROBLEMS) {
    result.push(
      diagnostic(
        lines(problems[MAX_PROBLEMS].line || 1, problems[MAX_PROBLEMS].line || 1),
        `${problems.length - MAX_PROBLEMS} more problems in this transcript are not listed (the first ${MAX_PROBLEMS} are).`,
        vscode.DiagnosticSeverity.Information,
        DiagnosticCode.transcriptProblem,
      ),
    );
  }
  return result;
}

/** "summary appears cut off: ends mid-clause, no closing section; 4093 of 4096 tokens" */
export function truncationMessage(checkpoint: CheckpointAnalysis): string {
  const reasons = checkpoint.truncation.reasons.length > 0 ? checkpoint.truncation.reasons.join('; ') : 'it ends abruptly';
  let size = `${checkpoint.summaryTokens} tokens`;
  if (checkpoint.summaryBudget !== undefined) {
    size = `${checkpoint.summaryTokens} of ${checkpoint.summaryBudget} tokens`;
    if (reasons.includes(size)) return `${checkpoint.summaryId}: summary appears cut off: ${reasons}${checkpoint.budgetAssumed ? ' (assumed budget)' : ''}`;
    if (checkpoint.budgetAssumed) size += ' (assumed budget)';
  }
  return `${checkpoint.summaryId}: summary appears cut off: ${reasons}; ${size}`;
}

function truncationDiagnostic(checkpoint: CheckpointAnalysis): vscode.Diagnostic | undefined {
  if (!checkpoint.truncation.truncated) return undefined;
  return diagnostic(
    lines(checkpoint.line, checkpoint.endLine),
    truncationMessage(checkpoint),
    vscode.DiagnosticSeverity.Warning,
    DiagnosticCode.truncatedSummary,
  );
}

function verdictDiagnostic(checkpoint: CheckpointAnalysis): vscode.Diagnostic | undefined {
  if (checkpoint.verdict === 'reversible') return undefined;
  const reasons = checkpoint.reasons.slice(0, 2).join('; ');
  const failClosed = checkpoint.verdict === 'fail-closed';
  const message = failClosed
    ? `${checkpoint.summaryId} is not reversible (fail-closed): ${reasons}`
    : `${checkpoint.summaryId} is only conditionally reversible: ${reasons}`;
  return diagnostic(
    lines(checkpoint.line, checkpoint.line),
    message,
    failClosed ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
    failClosed ? DiagnosticCode.failClosed : DiagnosticCode.conditional,
  );
}

function unverifiableDiagnostic(checkpoint: CheckpointAnalysis): vscode.Diagnostic | undefined {
  const why = whyUnverifiable(checkpoint);
  if (why === undefined) return undefined;
  const turns = checkpoint.counts.unverifiable;
  const which = turns > 0 ? ` for its ${turns} claimed turn${turns === 1 ? '' : 's'}` : '';
  return diagnostic(
    lines(checkpoint.line, checkpoint.line),
    `${checkpoint.summaryId}: coverage could not be checked${which}: ${why}`,
    vscode.DiagnosticSeverity.Information,
    DiagnosticCode.unverifiable,
  );
}

function claimedMissingDiagnostics(entry: AnalysedTranscript, checkpoint: CheckpointAnalysis): vscode.Diagnostic[] {
  return checkpoint.claimedMissingRanges.map((range) => {
    const what = describeRange(range.from, range.to, range.count);
    const message =
      `${checkpoint.summaryId} claims ${what} (${range.count}) but its summary does not cover ` +
      `${range.count === 1 ? 'it' : 'them'}: route ${range.count === 1 ? 'it' : 'them'} to the raw log`;
    const result = diagnostic(
      lines(checkpoint.line, checkpoint.line),
      message,
      vscode.DiagnosticSeverity.Warning,
      DiagnosticCode.claimedMissing,
    );
    const first = entry.turnIndexOfId(range.from);
    const last = entry.turnIndexOfId(range.to);
    if (first !== undefined && last !== undefined) {
      const related: vscode.DiagnosticRelatedInformation[] = [];
      for (let index = first; index <= last && related.length < MAX_RELATED; index++) {
        const turnResult = checkpoint.turns[index];
        const turn = entry.transcript.turns[index];
        if (!turn || (turnResult && turnResult.status !== 'claimed-missing')) continue;
        related.push(
          new vscode.DiagnosticRelatedInformation(
            new vscode.Location(entry.documentUri, lines(turn.span.startLine, turn.span.endLine)),
            `turn ${String(turn.id)}: ${turnResult?.reason ?? 'claimed but not covered'}`,
          ),
        );
      }
      result.relatedInformation = related;
    }
    return result;
  });
}

function problemDiagnostic(problem: Problem): vscode.Diagnostic {
  const severity =
    problem.severity === 'error'
      ? vscode.DiagnosticSeverity.Error
      : problem.severity === 'warning'
        ? vscode.DiagnosticSeverity.Warning
        : vscode.DiagnosticSeverity.Information;
  const line = Math.max(problem.line, 1);
  return diagnostic(lines(line, line), problem.message, severity, DiagnosticCode.transcriptProblem);
}
