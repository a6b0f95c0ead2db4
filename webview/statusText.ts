// Words and glyphs for statuses, verdicts and roles, shared by the timeline, the header and the details
// pane so colour is never the only signal (each status also has a glyph, a pattern in CSS and a name).

import type { RowStatus } from '../src/protocol';
import type { Verdict } from '../src/core/model';

export const ROW_STATUSES: readonly RowStatus[] = ['covered', 'claimed-missing', 'uncovered', 'after'];

export function statusGlyph(status: RowStatus): string {
  switch (status) {
    case 'covered':
      return '\u2713'; // ✓
    case 'claimed-missing':
      return '\u2717'; // ✗
    case 'uncovered':
      return '\u25CB'; // ○
    case 'after':
      return '\u00B7'; // ·
  }
}

export function statusName(status: RowStatus): string {
  switch (status) {
    case 'covered':
      return 'covered';
    case 'claimed-missing':
      return 'claimed but missing';
    case 'uncovered':
      return 'not claimed';
    case 'after':
      return 'after the checkpoint';
  }
}

export function statusDescription(status: RowStatus): string {
  switch (status) {
    case 'covered':
      return 'claimed, and the summary substantiates it';
    case 'claimed-missing':
      return 'claimed, but the summary does not show it';
    case 'uncovered':
      return 'kept verbatim or left to the raw log';
    case 'after':
      return 'comes after this checkpoint';
  }
}

export function verdictGlyph(verdict: Verdict): string {
  switch (verdict) {
    case 'reversible':
      return '\u2713';
    case 'conditional':
      return '\u26A0'; // ⚠
    case 'fail-closed':
      return '\u2717';
  }
}

/** One letter per role, shown in a small chip (with the role name as its accessible label). */
export function roleGlyph(role: string): string {
  switch (role) {
    case 'user':
      return 'U';
    case 'assistant':
      return 'A';
    case 'tool':
      return 'T';
    case 'system':
      return 'S';
    default:
      return role.slice(0, 1).toUpperCase() || '?';
  }
}
