// Where the timeline draws its rows: every row the same height, with a band (a checkpoint's line, the end of the
// safe pointer set) between rows, above the row it names. The webview lays its list out by it, and the host finds by
// it which rows a view state scrolled to shows, to send them with `init`. Pure: no vscode, no DOM.
import type { CheckpointHeader } from '../protocol';

/** Height of a row, in px. */
export const ROW_HEIGHT = 24;
/** Height of a band, in px. */
export const BAND_HEIGHT = 22;
/** Rows drawn beyond each edge of the view, so a short scroll shows rows already there. */
export const OVERSCAN = 12;
/**
 * Rows past the overscan, in the direction the list last scrolled, whose data the timeline asks for before it draws
 * them: a page's round trip to the host then ends before a fast scroll reaches it, so no row shows "loading…".
 */
export const PRELOAD_ROWS = 100;

/**
 * The rows a checkpoint's view draws a band above, ascending (one entry per band, so a row may be listed twice):
 * each checkpoint's first turn after it, and, on the checkpoint shown, the row after its safe pointer set.
 */
export function bandBoundaries(
  checkpoints: readonly Pick<CheckpointHeader, 'turnsBefore' | 'safeBoundaryIndex'>[],
  checkpointIndex: number,
): number[] {
  const boundaries = checkpoints.map(checkpointBandRow);
  const current = checkpoints[checkpointIndex];
  if (current) boundaries.push(safeBandRow(current));
  return boundaries.sort((a, b) => a - b);
}

/** The row a checkpoint's band is drawn above: the first turn after it (the turns it replaced are those above). */
export function checkpointBandRow(checkpoint: Pick<CheckpointHeader, 'turnsBefore'>): number {
  return checkpoint.turnsBefore;
}

/** The row the band that ends a checkpoint's safe pointer set is drawn above: the row after its last safe turn. */
export function safeBandRow(checkpoint: Pick<CheckpointHeader, 'safeBoundaryIndex'>): number {
  return checkpoint.safeBoundaryIndex + 1;
}

/** Number of bands drawn above row `index`, given the bands' rows in ascending order. */
export function bandsAtOrBefore(index: number, boundaries: readonly number[]): number {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (boundaries[mid] <= index) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The top of row `index`, in px. */
export function rowTopOf(index: number, boundaries: readonly number[]): number {
  return index * ROW_HEIGHT + bandsAtOrBefore(index, boundaries) * BAND_HEIGHT;
}

/** The row drawn at vertical position `y` among `rowCount` rows (clamped to the rows that exist). */
export function rowIndexAt(y: number, rowCount: number, boundaries: readonly number[]): number {
  let low = 0;
  let high = rowCount - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (rowTopOf(mid, boundaries) <= y) low = mid;
    else high = mid - 1;
  }
  return Math.max(0, low);
}
