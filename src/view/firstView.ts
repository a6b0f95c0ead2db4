// Where the timeline starts when no view state is restored: the checkpoint it shows first and the turn it scrolls
// to, and the rows around that turn. The webview starts there; the host sends those rows with `init`, so the first
// rows are drawn without a round trip to ask for them. Both sides take the rule from here, so they agree. Pure and
// small (the webview bundles it): no vscode, no DOM, types only from the protocol.
import type { CheckpointHeader } from '../protocol';

/** Rows in one page of the webview's row cache; the host sends whole pages with `init`. */
export const ROW_PAGE_SIZE = 100;

/** Rows above the first turn shown that the timeline scrolls into view (it starts three rows above it). */
export const ROWS_SHOWN_ABOVE = 3;

/**
 * Rows sent with `init` around the first turn shown: above it, the rows the view starts with and the timeline's
 * overscan (12); below it, a panel taller than any screen (120 rows of 24 px are 2,880 px) and the overscan.
 */
const ROWS_SENT_ABOVE = ROWS_SHOWN_ABOVE + 12;
const ROWS_SENT_BELOW = 120 + 12;

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
 * The rows to send with `init` when no view state is restored: the checkpoint the timeline shows first (-1 when
 * there is none) and the whole pages of rows around the turn it starts on (from the top when it selects none).
 * Undefined for a transcript with no turns.
 */
export function firstRowsRange(
  checkpoints: readonly Pick<CheckpointHeader, 'verdict' | 'claimedMissingIndexes'>[],
  turnCount: number,
): { checkpointIndex: number; start: number; count: number } | undefined {
  if (turnCount <= 0) return undefined;
  const checkpointIndex = defaultCheckpoint(checkpoints);
  const anchor = Math.min(turnCount - 1, firstTurnShown(checkpoints[checkpointIndex]) ?? 0);
  const start = Math.floor(Math.max(0, anchor - ROWS_SENT_ABOVE) / ROW_PAGE_SIZE) * ROW_PAGE_SIZE;
  const end = Math.min(turnCount, Math.ceil((anchor + ROWS_SENT_BELOW + 1) / ROW_PAGE_SIZE) * ROW_PAGE_SIZE);
  return { checkpointIndex, start, count: end - start };
}
