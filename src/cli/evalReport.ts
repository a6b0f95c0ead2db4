// Prints an eval score (see evalScore.ts) as text or as one JSON document: the figures, the confusion matrix
// label × status, labels that match no turn, and each disagreement with its label's why, the turn's reason,
// its evidence found / not found with weights, and its score against the threshold.
import { TURN_STATUSES, type Evidence, type FormatId } from '../core/model';
import type { EvalScore, LabelledTurn, Share } from './evalScore';
import { turnJson } from './jsonReport';
import { LABEL_VALUES, type Label } from './labels';
import { jsonText, terminalText } from './terminalText';
import { turnReason } from '../core/reweigh';

export interface EvalRun {
  labelsPath: string;
  transcriptPath: string;
  format: FormatId;
  boundaryLine: number;
  score: EvalScore;
  /** The --min-agreement gate, when one was given. */
  minAgreement?: number;
}

/** True when no gate was asked for, or the agreement reaches it. */
export function passes(run: EvalRun): boolean {
  if (run.minAgreement === undefined) return true;
  const { rate } = run.score.agreement;
  return rate !== undefined && rate >= run.minAgreement;
}

/** At most this many pieces of evidence are listed per side (found / not found) in text; --json has them all. */
const MAX_EVIDENCE = 8;
const MAX_EVIDENCE_TEXT = 60;

/** One line of text: whitespace runs (newlines in evidence or reasons) shown as one space. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const percent = (rate: number | undefined) => (rate === undefined ? 'n/a' : `${(rate * 100).toFixed(1)}%`);
const decimal = (n: number) => String(Number(n.toFixed(2)));
const shareText = (s: Share) => `${s.count} of ${s.of} (${percent(s.rate)})`;

function pickText(run: EvalRun): string {
  const { checkpoint, pickedBy } = run.score.pick;
  const where =
    pickedBy === 'at-boundary'
      ? `at boundary_line ${run.boundaryLine}`
      : pickedBy === 'spans-boundary'
        ? `lines ${checkpoint.line}–${checkpoint.endLine}, which span boundary_line ${run.boundaryLine}`
        : `line ${checkpoint.line}, the first checkpoint after boundary_line ${run.boundaryLine}`;
  return `checkpoint ${checkpoint.summaryId} (${where}) · ${checkpoint.verdict} · Path ${checkpoint.path} · threshold ${decimal(run.score.threshold)}`;
}

function matrixLines(score: EvalScore): string[] {
  const header = ['label \\ status', ...TURN_STATUSES];
  const rows = LABEL_VALUES.map((label) => [label, ...TURN_STATUSES.map((status) => String(score.confusion[label][status]))]);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column].length)));
  const format = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [format(header), ...rows.map(format)].map((line) => `    ${line}`);
}

function evidenceText(evidence: Evidence): string {
  const whole = oneLine(evidence.text);
  const text = whole.length > MAX_EVIDENCE_TEXT ? `${whole.slice(0, MAX_EVIDENCE_TEXT - 1)}…` : whole;
  const details = [evidence.kind, decimal(evidence.weight)];
  if (evidence.sharedBy > 1) details.push(`shared by ${evidence.sharedBy}`);
  if (evidence.fromCall) details.push('from its call');
  if (evidence.fromReasoning) details.push('from its reasoning');
  if (evidence.matched !== undefined && evidence.matched !== evidence.text) details.push(`as “${oneLine(evidence.matched)}”`);
  return `“${text}” (${details.join(', ')})`;
}

function evidenceLine(title: string, evidence: Evidence[]): string {
  if (evidence.length === 0) return `      ${title}: none`;
  const shown = evidence.slice(0, MAX_EVIDENCE).map(evidenceText);
  const more = evidence.length > MAX_EVIDENCE ? ` · … ${evidence.length - MAX_EVIDENCE} more (--json lists all)` : '';
  return `      ${title}: ${shown.join(' · ')}${more}`;
}

function turnLines({ label, turn }: LabelledTurn): string[] {
  const index = label.turnIndex !== undefined ? `  turn ${label.turnIndex}` : '';
  const score =
    turn.score !== undefined && turn.threshold !== undefined
      ? ` · score ${decimal(turn.score)} ${turn.score >= turn.threshold ? '≥' : '<'} threshold ${decimal(turn.threshold)}`
      : ' · no score';
  const lines = [`    line ${label.line}${index}  labelled ${label.label}, shown ${turn.status}${score}`];
  if (label.why !== undefined) lines.push(`      why: ${oneLine(label.why)}`);
  lines.push(`      reason: ${oneLine(turnReason(turn))}`);
  lines.push(
    evidenceLine(
      'found',
      turn.evidence.filter((e) => e.found),
    ),
  );
  lines.push(
    evidenceLine(
      'not found',
      turn.evidence.filter((e) => !e.found),
    ),
  );
  return lines;
}

function unmatchedText(label: Label): string {
  return `line ${label.line} (labels[${label.position}], ${label.label})`;
}

export function evalText(run: EvalRun): string {
  const { score } = run;
  const counts = LABEL_VALUES.map((value) => `${score.labelCounts[value]} ${value}`).join(' · ');
  const total = score.matched.length + score.unmatched.length;
  const out = [
    run.labelsPath,
    `  transcript ${run.transcriptPath} (${run.format})`,
    `  ${pickText(run)}`,
    `  labels: ${total} (${counts}); ${score.matched.length} matched to a turn by line`,
    `  agreement: ${shareText(score.agreement)} covered/missing labels agree (covered↔covered, missing↔claimed-missing)`,
    `  missing shown covered: ${shareText(score.missingShownCovered)} missing labels (the silent false negative)`,
    `  no-content noise: ${shareText(score.noContentNoise)} no-content labels shown claimed-missing`,
  ];
  if (run.minAgreement !== undefined) {
    out.push(`  --min-agreement ${run.minAgreement}: ${passes(run) ? 'met' : 'NOT met'}`);
  }
  out.push('', '  confusion (label × status):', ...matrixLines(score));
  if (score.unmatched.length > 0) {
    out.push(
      '',
      `  labels that match no turn before the checkpoint (${score.unmatched.length}): ${score.unmatched.map(unmatchedText).join(', ')}`,
    );
  }
  if (score.disagreements.length > 0) {
    out.push('', `  disagreements (${score.disagreements.length}):`);
    for (const labelled of score.disagreements) out.push(...turnLines(labelled));
  }
  if (score.noise.length > 0) {
    out.push('', `  no-content shown claimed-missing (${score.noise.length}):`);
    for (const labelled of score.noise) out.push(...turnLines(labelled));
  }
  // Summary ids, reasons, evidence, labels' why and paths come from files: their control characters show escaped.
  return out.map(terminalText).join('\n');
}

function labelledJson({ label, turn }: LabelledTurn) {
  return { turn_index: label.turnIndex ?? null, label: label.label, why: label.why ?? null, ...turnJson(turn) };
}

const shareJson = (s: Share) => ({ count: s.count, of: s.of, rate: s.rate ?? null });

export function evalJson(run: EvalRun): string {
  const { score } = run;
  const { checkpoint } = score.pick;
  return jsonText(
    JSON.stringify(
      {
        labels: run.labelsPath,
        transcript: run.transcriptPath,
        format: run.format,
        checkpoint: {
          summary_id: checkpoint.summaryId,
          line: checkpoint.line,
          boundary_line: run.boundaryLine,
          picked_by: score.pick.pickedBy,
          verdict: checkpoint.verdict,
          path: checkpoint.path,
        },
        threshold: score.threshold,
        label_counts: score.labelCounts,
        matched: score.matched.length,
        unmatched: score.unmatched.map((label) => ({
          line: label.line,
          label: label.label,
          turn_index: label.turnIndex ?? null,
          position: label.position,
        })),
        agreement: shareJson(score.agreement),
        missing_shown_covered: shareJson(score.missingShownCovered),
        no_content_noise: shareJson(score.noContentNoise),
        confusion: score.confusion,
        min_agreement: run.minAgreement ?? null,
        passed: passes(run),
        disagreements: score.disagreements.map(labelledJson),
        noise: score.noise.map(labelledJson),
      },
      null,
      2,
    ),
  );
}
