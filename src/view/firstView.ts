// Where the timeline starts: the checkpoint it shows first and the turn it scrolls to, or the view state it
// restores, and the rows in that view. The webview starts there; the host sends those rows with `init`, so the first
// rows are drawn without a round trip to ask for them. Both sides take the rule from here (and the list's geometry
// from timelineGeometry.ts), so they agree. Pure and small (the webview bundles it): no vscode, no DOM.
import type { CheckpointHeader, ViewState } from '../protocol';
import { bandBoundaries, OVERSCAN, rowIndexAt } from './timelineGeometry';

/** Rows in one page of the webview's row cache; the host sends whole pages with `init`. */
export const ROW_PAGE_SIZE = 100;

/** Rows above the first turn shown that the timeline scrolls into view (it starts three rows above it). */
export const ROWS_SHOWN_ABOVE = 3;

/** Rows a view holds at most, for the rows sent: 120 rows of 24 px are 2,880 px, a panel taller than any screen. */
const VIEW_ROWS = 120;

/** What firstRowsRange needs of each checkpoint's header. */
type HeaderPart = Pick<CheckpointHeader, 'verdict' | 'claimedMissingIndexes' | 'turnsBefore' | 'safeBoundaryIndex'>;

/** The first checkpoint that is not reversible (what needs attention), else the first; -1 when there is none. */
export function defaultCheckpoint(checkpoints: readonly Pick<CheckpointHeader, 'verdict'>[]): number {
  if (checkpoints.length === 0) return -1;
  const worst = checkpoints.findIndex((checkpoint) => checkpoint.verdict !== 'reversible');
  return worst >= 0 ? worst : 0;
}

/** The turn the timeline selects and scrolls to first on a checkpoint: its first claimed-missing turn, if any. */
export function firstTurnShown(checkpoint: Pick<CheckpointHeader, 'claimedMissingIndexes'> | undefined): number | undefined {
  return checkpoint?.claimedMissingIndexes[0];
}

/**
 * The checkpoint the timeline shows when it opens: the one of the view state it restores, when that checkpoint
 * exists, else the default one.
 */
export function checkpointShown(
  checkpoints: readonly Pick<CheckpointHeader, 'verdict'>[],
  restore?: Pick<ViewState, 'checkpointIndex'>,
): number {
  return restore && checkpoints[restore.checkpointIndex] ? restore.checkpointIndex : defaultCheckpoint(checkpoints);
}

/**
 * The rows to send with `init`: the checkpoint the timeline shows when it opens (-1 when there is none) and the
 * whole pages of rows in its view, with the list's overscan. The view is the one `restore` scrolled to, or, without
 * one, the one that starts a few rows above the first claimed-missing turn (at the top when there is none). Near
 * the end, the rows a view taller than what is left would show are sent too (the list cannot scroll past its end).
 * Undefined for a transcript with no turns.
 */
export function firstRowsRange(
  checkpoints: readonly HeaderPart[],
  turnCount: number,
  restore?: Pick<ViewState, 'checkpointIndex' | 'scrollTop'>,
): { checkpointIndex: number; start: number; count: number } | undefined {
  if (turnCount <= 0) return undefined;
  const checkpointIndex = checkpointShown(checkpoints, restore);
  let top: number;
  if (restore) top = rowIndexAt(restore.scrollTop, turnCount, bandBoundaries(checkpoints, checkpointIndex));
  else top = Math.max(0, (firstTurnShown(checkpoints[checkpointIndex]) ?? 0) - ROWS_SHOWN_ABOVE);
  top = Math.min(top, turnCount - 1);
  const from = Math.max(0, Math.min(top, turnCount - VIEW_ROWS) - OVERSCAN);
  const start = Math.floor(from / ROW_PAGE_SIZE) * ROW_PAGE_SIZE;
  const end = Math.min(turnCount, Math.ceil((top + VIEW_ROWS + OVERSCAN + 1) / ROW_PAGE_SIZE) * ROW_PAGE_SIZE);
  return { checkpointIndex, start, count: end - start };
}
