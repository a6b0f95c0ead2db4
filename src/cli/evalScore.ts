// Scores one checkpoint's turn statuses against hand-made labels: picks the labelled checkpoint, matches each
// label to a turn by its first line, and computes the agreement, the confusion matrix, the silent false
// negatives (missing shown covered) and the no-content noise. Pure: no file system, no printing.
import { TURN_STATUSES, type Analysis, type CheckpointAnalysis, type TurnResult, type TurnStatus } from '../core/model';
import { LABEL_VALUES, type Label, type LabelSet, type LabelValue } from './labels';

/** How the checkpoint was found: its line is boundary_line, its records span it, or it is the first after it. */
export type PickedBy = 'at-boundary' | 'spans-boundary' | 'after-boundary';

export interface CheckpointPick {
  checkpoint: CheckpointAnalysis;
  pickedBy: PickedBy;
}

export interface LabelledTurn {
  label: Label;
  turn: TurnResult;
}

/** `count` of `of`; `rate` is undefined when `of` is 0 (nothing to measure). */
export interface Share {
  count: number;
  of: number;
  rate?: number;
}

export interface EvalScore {
  pick: CheckpointPick;
  /** The coverage threshold the analysis used. */
  threshold: number;
  labelCounts: Record<LabelValue, number>;
  matched: LabelledTurn[];
  /** Labels whose line is the first line of no turn before the checkpoint. */
  unmatched: Label[];
  /** Covered labels shown covered plus missing labels shown claimed-missing, of the matched covered/missing labels. */
  agreement: Share;
  confusion: Record<LabelValue, Record<TurnStatus, number>>;
  /** Missing labels shown covered: the silent false negative. */
  missingShownCovered: Share;
  /** No-content labels shown claimed-missing. */
  noContentNoise: Share;
  /** Covered/missing labels whose status disagrees, in line order. */
  disagreements: LabelledTurn[];
  /** No-content labels shown claimed-missing, in line order. */
  noise: LabelledTurn[];
}

const share = (count: number, of: number): Share => ({ count, of, rate: of > 0 ? count / of : undefined });

/** Whether a label and a status agree; undefined for no-content labels, which are not judged. */
export function agrees(label: LabelValue, status: TurnStatus): boolean | undefined {
  if (label === 'covered') return status === 'covered';
  if (label === 'missing') return status === 'claimed-missing';
  return undefined;
}

/** The checkpoint the labels judge, or a message saying why there is none. */
export function pickCheckpoint(analysis: Analysis, boundaryLine: number): CheckpointPick | string {
  const { checkpoints } = analysis;
  const at = checkpoints.find((cp) => cp.line === boundaryLine);
  if (at !== undefined) return { checkpoint: at, pickedBy: 'at-boundary' };
  const spanning = checkpoints.find((cp) => cp.line <= boundaryLine && boundaryLine <= cp.endLine);
  if (spanning !== undefined) return { checkpoint: spanning, pickedBy: 'spans-boundary' };
  const after = checkpoints.find((cp) => cp.line > boundaryLine);
  if (after !== undefined) return { checkpoint: after, pickedBy: 'after-boundary' };
  const lines = checkpoints.map((cp) => cp.line).join(', ');
  return checkpoints.length === 0
    ? 'the transcript has no compaction checkpoint'
    : `no checkpoint at or after boundary_line ${boundaryLine}; the transcript's checkpoints are at line${checkpoints.length === 1 ? '' : 's'} ${lines}`;
}

function emptyConfusion(): Record<LabelValue, Record<TurnStatus, number>> {
  const row = () => Object.fromEntries(TURN_STATUSES.map((status) => [status, 0])) as Record<TurnStatus, number>;
  return { covered: row(), missing: row(), 'no-content': row() };
}

export function scoreLabels(labels: LabelSet, pick: CheckpointPick, threshold: number): EvalScore {
  const turnAtLine = new Map(pick.checkpoint.turns.map((turn) => [turn.line, turn]));
  const matched: LabelledTurn[] = [];
  const unmatched: Label[] = [];
  for (const label of [...labels.labels].sort((a, b) => a.line - b.line)) {
    const turn = turnAtLine.get(label.line);
    if (turn === undefined) unmatched.push(label);
    else matched.push({ label, turn });
  }

  const labelCounts = Object.fromEntries(LABEL_VALUES.map((value) => [value, 0])) as Record<LabelValue, number>;
  for (const label of labels.labels) labelCounts[label.label] += 1;

  const confusion = emptyConfusion();
  for (const { label, turn } of matched) confusion[label.label][turn.status] += 1;

  const judged = matched.filter(({ label }) => label.label !== 'no-content');
  const disagreements = judged.filter(({ label, turn }) => agrees(label.label, turn.status) === false);
  const noContent = matched.filter(({ label }) => label.label === 'no-content');
  const noise = noContent.filter(({ turn }) => turn.status === 'claimed-missing');
  const missing = matched.filter(({ label }) => label.label === 'missing');

  return {
    pick,
    threshold,
    labelCounts,
    matched,
    unmatched,
    agreement: share(judged.length - disagreements.length, judged.length),
    confusion,
    missingShownCovered: share(missing.filter(({ turn }) => turn.status === 'covered').length, missing.length),
    noContentNoise: share(noise.length, noContent.length),
    disagreements,
    noise,
  };
}
