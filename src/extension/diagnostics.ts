// Problems-panel flags on a transcript file, few and in plain words (src/view/problemsModel.ts says what each
// one says):
//  - one per checkpoint that is not reversible, or whose coverage could not be checked, on its line: the verdict,
//    the claimed turns' counts and the main reason (fail-closed = Error, conditional = Warning, coverage not
//    checkable = Information, the verdict following from that alone);
//  - one per run of claimed-missing turns, on the turns' own lines, naming those lines (never record ids), with
//    related information on each turn; its severity comes from the settings `problems.conversationSeverity` and
//    `problems.toolOutputSeverity` (the more severe when a run holds both; `off` drops that kind); at most
//    MAX_MISSING_RUNS per checkpoint (fewer in a file of many checkpoints, so VS Code keeps every flag), the most
//    severe first, and one more flag that counts the rest;
//  - one for a truncated summary, on the summary's line (Warning);
//  - the readers' problems at their lines, each run of alike ones collapsed into one, at most MAX_PROBLEM_RUNS.
// Turns with nothing to check are never flagged. The flags go on the document the records are shown in: the
// file, or a .jsonl.gz's decompressed view (`documentUri`). A change of the problems.* severities re-renders them,
// reading again, one at a time, the files the store let go.
import * as vscode from 'vscode';
import { Disposable } from './dispose';
import type { CheckpointAnalysis, Problem } from '../core/model';
import {
  checkpointProblem,
  claimedMissingRuns,
  collapseProblems,
  listedMissingRuns,
  missingRunMessage,
  missingRunsPerCheckpoint,
  missingTurnNote,
  truncationProblem,
  unlistedRunsMessage,
  type KindSeverities,
  type ProblemSeverity,
} from '../view/problemsModel';
import { decompressedUri } from './decompressedDocument';
import { readSettings, SECTION } from './settings';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';

export const DIAGNOSTIC_SOURCE = 'Compaction Lens';

export const DiagnosticCode = {
  truncatedSummary: 'truncated-summary',
  failClosed: 'fail-closed',
  conditional: 'conditional',
  claimedMissing: 'claimed-missing',
  unlistedClaimedMissing: 'claimed-missing-unlisted',
  unverifiable: 'unverifiable',
  transcriptProblem: 'transcript-problem',
} as const;

/** Related-information entries listed per claimed-missing run (the turns' lines are the diagnostic's own range). */
const MAX_RELATED = 50;
/**
 * Related-information entries listed per checkpoint, over all its runs: a checkpoint with hundreds of missing runs
 * would otherwise keep thousands of notes per file in the Problems panel (and in memory, even for files the
 * store has let go). Later runs still name their lines in their own message.
 */
export const MAX_RELATED_PER_CHECKPOINT = 300;
/** End column used for lines of documents that are not open (the editor clamps it to the line). */
const LINE_END = 1_000_000;

/** Settings whose change re-renders the flags. */
const SEVERITY_SETTINGS = [`${SECTION}.problems.conversationSeverity`, `${SECTION}.problems.toolOutputSeverity`];

/** One checkpoint's flags, with what they were made for. */
interface MadeFlags {
  documentUri: string;
  severities: KindSeverities;
  /** Runs of claimed-missing turns flagged one by one at most (missingRunsPerCheckpoint). */
  maxRuns: number;
  diagnostics: vscode.Diagnostic[];
}

export class TranscriptDiagnostics extends Disposable {
  readonly collection = this.register(vscode.languages.createDiagnosticCollection('compactionLens'));
  private severities: KindSeverities = readSettings().problemSeverities;
  /**
   * The flags of files the store let go (demoted to their digest) were made with the old severities, and making
   * them again needs the turns: each is read again, one at a time, and its load re-renders its flags (onDidChange).
   * A file that can no longer be read keeps its flags until the store drops it.
   */
  private async reloadDemoted(): Promise<void> {
    const run = ++this.reloadRun; // a later change of the settings takes over from this one
    const demoted = this.store.digests().filter((digest) => this.store.isDemoted(digest.uri));
    if (demoted.length === 0) return;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Compaction Lens: updating problems' },
      async (progress) => {
        for (const [position, { uri }] of demoted.entries()) {
          if (this.isDisposed || run !== this.reloadRun) return;
          if (!this.store.isDemoted(uri)) continue;
          progress.report({ message: `${position + 1}/${demoted.length}` });
          try {
            await this.store.load(uri);
          } catch {
            // unreadable now: the store reports and drops it on its own terms
          }
        }
      },
    );
  }

  /** Bumped by each reloadDemoted, so only the latest runs on. */
  private reloadRun = 0;

  /**
   * Each checkpoint's flags, kept with the checkpoint analysis they were made from: a re-analysis after an
   * append gives back the same CheckpointAnalysis for a checkpoint the append cannot change, and its flags (a
   * walk over every claimed turn, a diagnostic per run of claimed-missing turns) are not made again.
   */
  private readonly made = new WeakMap<CheckpointAnalysis, MadeFlags>();
  /** What each document was last given (by its URI), so that an update changing nothing sends nothing. */
  private readonly shown = new Map<string, { all: vscode.Diagnostic[]; problems: vscode.Diagnostic[] }>();

  constructor(private readonly store: TranscriptStore) {
    super();
    this.register(store.onDidChange((entry) => this.update(entry)));
    this.register(
      store.onDidRemove((uri) => {
        this.collection.delete(uri);
        this.collection.delete(decompressedUri(uri));
        this.shown.delete(uri.toString());
        this.shown.delete(decompressedUri(uri).toString());
      }),
    );
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!SEVERITY_SETTINGS.some((name) => event.affectsConfiguration(name))) return;
        this.severities = readSettings().problemSeverities;
        for (const entry of this.store.all()) this.update(entry);
        void this.reloadDemoted();
      }),
    );
    for (const entry of store.all()) this.update(entry);
  }

  /**
   * Flags the entry's document: the flags of its checkpoints (those of a checkpoint analysis already flagged
   * reused as they were), then its reader problems (the previous objects again when they say the same). Sends
   * nothing when every flag is the one the document already has.
   */
  update(entry: AnalysedTranscript): void {
    const key = entry.documentUri.toString();
    const severities = this.severities;
    const maxRuns = missingRunsPerCheckpoint(entry.analysis.checkpoints.length);
    const next: vscode.Diagnostic[] = [];
    for (const checkpoint of entry.analysis.checkpoints) {
      let made = this.made.get(checkpoint);
      if (!made || made.documentUri !== key || made.severities !== severities || made.maxRuns !== maxRuns) {
        made = { documentUri: key, severities, maxRuns, diagnostics: checkpointDiagnostics(entry, checkpoint, severities, maxRuns) };
        this.made.set(checkpoint, made);
      }
      for (const diagnostic of made.diagnostics) next.push(diagnostic);
    }
    const previous = this.shown.get(key);
    let problems = problemDiagnostics(entry.analysis.problems);
    if (
      previous &&
      previous.problems.length === problems.length &&
      problems.every((problem, index) => sameDiagnostic(problem, previous.problems[index]))
    ) {
      problems = previous.problems;
    }
    for (const problem of problems) next.push(problem);
    if (previous && previous.all.length === next.length && next.every((diagnostic, index) => diagnostic === previous.all[index])) return;
    this.shown.set(key, { all: next, problems });
    this.collection.set(entry.documentUri, next);
  }
}

/** True when two reader-problem flags say the same at the same place. */
function sameDiagnostic(a: vscode.Diagnostic, b: vscode.Diagnostic): boolean {
  return a.message === b.message && a.severity === b.severity && a.code === b.code && a.range.isEqual(b.range);
}

function lines(startLine: number, endLine: number): vscode.Range {
  const start = Math.max(startLine - 1, 0);
  return new vscode.Range(start, 0, Math.max(endLine - 1, start), LINE_END);
}

function diagnostic(range: vscode.Range, message: string, severity: vscode.DiagnosticSeverity, code: string): vscode.Diagnostic {
  const result = new vscode.Diagnostic(range, message, severity);
  result.source = DIAGNOSTIC_SOURCE;
  result.code = code;
  return result;
}

const SEVERITY: Record<Exclude<ProblemSeverity, 'off'>, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** One checkpoint's flags: its verdict, its truncated summary, its runs of claimed-missing turns. */
function checkpointDiagnostics(
  entry: AnalysedTranscript,
  checkpoint: CheckpointAnalysis,
  severities: KindSeverities,
  maxRuns: number,
): vscode.Diagnostic[] {
  const result: vscode.Diagnostic[] = [];
  const verdict = checkpointDiagnostic(checkpoint);
  if (verdict) result.push(verdict);
  const truncation = truncationProblem(checkpoint);
  if (truncation) {
    result.push(
      diagnostic(
        lines(truncation.line, truncation.line),
        truncation.message,
        vscode.DiagnosticSeverity.Warning,
        DiagnosticCode.truncatedSummary,
      ),
    );
  }
  for (const flag of claimedMissingDiagnostics(entry, checkpoint, severities, maxRuns)) result.push(flag);
  return result;
}

function checkpointDiagnostic(checkpoint: CheckpointAnalysis): vscode.Diagnostic | undefined {
  const problem = checkpointProblem(checkpoint);
  if (!problem) return undefined;
  const severity =
    problem.kind === 'fail-closed'
      ? vscode.DiagnosticSeverity.Error
      : problem.kind === 'conditional'
        ? vscode.DiagnosticSeverity.Warning
        : vscode.DiagnosticSeverity.Information;
  return diagnostic(
    lines(problem.line, problem.line),
    problem.message,
    severity,
    DiagnosticCode[problem.kind === 'fail-closed' ? 'failClosed' : problem.kind],
  );
}

function claimedMissingDiagnostics(
  entry: AnalysedTranscript,
  checkpoint: CheckpointAnalysis,
  severities: KindSeverities,
  maxRuns: number,
): vscode.Diagnostic[] {
  let relatedLeft = MAX_RELATED_PER_CHECKPOINT;
  const { listed, unlisted } = listedMissingRuns(claimedMissingRuns(checkpoint, entry.transcript, severities), maxRuns);
  const result = listed.map((run) => {
    const flag = diagnostic(
      lines(run.startLine, run.endLine),
      missingRunMessage(run, checkpoint),
      SEVERITY[run.severity],
      DiagnosticCode.claimedMissing,
    );
    const related: vscode.DiagnosticRelatedInformation[] = [];
    for (const index of run.turnIndexes.slice(0, Math.min(MAX_RELATED, relatedLeft))) {
      const turn = entry.transcript.turns[index];
      const turnResult = checkpoint.turns[index];
      if (!turn || !turnResult) continue;
      related.push(
        new vscode.DiagnosticRelatedInformation(
          new vscode.Location(entry.documentUri, lines(turn.span.startLine, turn.span.endLine)),
          missingTurnNote(turnResult, turn),
        ),
      );
    }
    relatedLeft -= related.length;
    if (related.length > 0) flag.relatedInformation = related;
    return flag;
  });
  if (unlisted) {
    // On the first unlisted run's first line only: its lines can be far apart from the others'.
    const rest = diagnostic(
      lines(unlisted.startLine, unlisted.startLine),
      unlistedRunsMessage(unlisted, checkpoint),
      SEVERITY[unlisted.severity],
      DiagnosticCode.unlistedClaimedMissing,
    );
    result.push(rest);
  }
  return result;
}

function problemDiagnostics(problems: readonly Problem[]): vscode.Diagnostic[] {
  return collapseProblems(problems).map((run) => {
    const severity =
      run.severity === 'error'
        ? vscode.DiagnosticSeverity.Error
        : run.severity === 'warning'
          ? vscode.DiagnosticSeverity.Warning
          : vscode.DiagnosticSeverity.Information;
    return diagnostic(lines(Math.max(run.startLine, 1), Math.max(run.endLine, 1)), run.message, severity, DiagnosticCode.transcriptProblem);
  });
}
