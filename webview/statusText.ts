// Glyphs for statuses, verdicts and roles, shared by the timeline, the header and the details pane so colour
// is never the only signal: each status also has a glyph, a pattern in CSS and a name (the names are in
// src/extension/statusWords.ts, shared with the host's hover).

import type { RowStatus } from '../src/protocol';
import type { Severity, Verdict } from '../src/core/model';

/** The main three statuses, then the two neutral ones, then the turns after the checkpoint. */
export const ROW_STATUSES: readonly RowStatus[] = ['covered', 'claimed-missing', 'uncovered', 'nothing-to-check', 'unverifiable', 'after'];

export function statusGlyph(status: RowStatus): string {
  switch (status) {
    case 'covered':
      return '\u2713'; // ✓
    case 'claimed-missing':
      return '\u2717'; // ✗
    case 'uncovered':
      return '\u25CB'; // ○
    case 'nothing-to-check':
      return '\u2205'; // ∅
    case 'unverifiable':
      return '?';
    case 'after':
      return '\u00B7'; // ·
  }
}

export function verdictGlyph(verdict: Verdict): string {
  switch (verdict) {
    case 'reversible':
      return '\u2713';
    case 'conditional':
      return '!';
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
      // The first character (a whole code point, never half a surrogate pair); the caller renders it as
      // transcript text, so a bidi control or an invisible one shows as a chip.
      return role.length > 0 ? String.fromCodePoint(role.codePointAt(0)!).toUpperCase() : '?';
  }
}

/**
 * A small round badge for a severity: "×" error, "!" warning, "i" info, drawn by CSS (a ring around a Latin-1
 * character, its ::before content) so it renders in every font (symbol glyphs such as U+2139 or U+26A0 can show as an empty box
 * where no font has them). Decorative: the words beside it say the severity.
 */
export function severityIcon(severity: Severity): HTMLElement {
  const icon = document.createElement('span');
  icon.className = `sev-icon sev-icon-${severity}`;
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}
