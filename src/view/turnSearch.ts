// Reveal Turn…'s list for a transcript too large to list whole (issue 13: 100,000 quick-pick items held the extension
// host for 2.5 s, and the window's list then filtered all of them on each key): which turns to list for what the
// user typed, at most MAX_LISTED_TURNS of them, found a step at a time so that the host runs them in time slices.
// A turn is listed when the typed text, ignoring case and the spaces around it, is in one of its lines as the quick
// pick shows them (its label, description or detail), so that VS Code's own filter, which finds it there too,
// hides none of them. Pure: the shell says what a turn's lines are.

/** The most turns Reveal Turn… lists at a time; a transcript of no more is listed whole. */
export const MAX_LISTED_TURNS = 1000;
/** Turns looked at in a step of turnsToListInSteps. */
const TURNS_PER_STEP = 256;

/** A turn's lines in the quick pick. */
export interface TurnLines {
  label: string;
  description: string;
  detail: string;
}

/** Which turns to list, in log order, and whether more than those hold the text. */
export interface TurnsListed {
  indices: number[];
  more: boolean;
}

/** The text looked for: what was typed, without the spaces around it, in lower case ('' lists turns by place). */
export function searchedText(typed: string): string {
  return typed.trim().toLowerCase();
}

/** Whether one of the lines holds `searched` (searchedText's), ignoring case. */
export function linesHold(lines: TurnLines, searched: string): boolean {
  return (
    lines.label.toLowerCase().includes(searched) ||
    lines.description.toLowerCase().includes(searched) ||
    lines.detail.toLowerCase().includes(searched)
  );
}

/**
 * The turns to list for `typed` among `count` turns. With nothing typed: `max` turns in a row from a little before
 * `current` (the turn the user is on), so that it is listed with those that follow it. Else the first `max` turns,
 * in log order, whose lines (`linesOf`) hold the text, and whether any other does. A step looks at TURNS_PER_STEP
 * turns.
 */
export function* turnsToListInSteps(
  count: number,
  typed: string,
  linesOf: (index: number) => TurnLines,
  current: number | undefined,
  max = MAX_LISTED_TURNS,
): Generator<void, TurnsListed, void> {
  const searched = searchedText(typed);
  if (searched === '') {
    const first = Math.max(0, Math.min((current ?? 0) - Math.floor(max / 10), count - max));
    const indices: number[] = [];
    for (let index = first; index < Math.min(count, first + max); index++) indices.push(index);
    return { indices, more: count > max };
  }
  const indices: number[] = [];
  for (let index = 0; index < count; index++) {
    if (linesHold(linesOf(index), searched)) {
      if (indices.length === max) return { indices, more: true };
      indices.push(index);
    }
    if (index % TURNS_PER_STEP === TURNS_PER_STEP - 1) yield;
  }
  return { indices, more: false };
}
