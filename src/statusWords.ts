// Plain words for a turn's status and its evidence, shared by the host (hover, quick pick, tooltips) and the
// webview (rows, legend, details pane; its glyphs are in webview/statusText.ts), so both say the same thing.
// Codicons for the host's surfaces too. Pure: no vscode import, no DOM.
import type { Evidence, EvidenceKind, TurnResult, TurnStatus } from './core/model';

/** One codicon per status, so the status never rests on colour alone. */
export const STATUS_ICONS: Record<TurnStatus | 'after', string> = {
  covered: '$(pass)',
  'claimed-missing': '$(warning)',
  uncovered: '$(circle-outline)',
  'nothing-to-check': '$(circle-slash)',
  unverifiable: '$(question)',
  after: '$(dash)',
};

const STATUS_NAMES: Record<TurnStatus | 'after', string> = {
  covered: 'covered',
  'claimed-missing': 'claimed but missing',
  uncovered: 'not claimed',
  'nothing-to-check': 'nothing to check',
  unverifiable: 'cannot be checked',
  after: 'after the checkpoint',
};

const STATUS_DESCRIPTIONS: Record<TurnStatus | 'after', string> = {
  covered: 'claimed, and the summary substantiates it',
  'claimed-missing': 'claimed, but the summary does not show it',
  uncovered: 'kept verbatim or left to the raw log',
  'nothing-to-check':
    'claimed, but holds nothing worth carrying (an acknowledgement, a bare lookup, a search whose lines the next step reads or edits, a confirmation)',
  unverifiable: 'claimed, but the summary cannot be read or the claimed turns are not in this file',
  after: 'comes after this checkpoint',
};

/** The status in plain words ("claimed but missing"). */
export function statusName(status: TurnStatus | 'after'): string {
  return STATUS_NAMES[status];
}

/** What the status means, in one phrase ("claimed, but the summary does not show it"). */
export function statusDescription(status: TurnStatus | 'after'): string {
  return STATUS_DESCRIPTIONS[status];
}

const KIND_NAMES: Record<EvidenceKind, string> = {
  explicit: 'explicit anchor',
  path: 'path',
  command: 'command',
  identifier: 'identifier',
  reference: 'reference',
  url: 'URL',
  count: 'count',
  number: 'number',
  'key-value': 'key = value',
  'error-code': 'error code',
  quoted: 'quoted phrase',
  name: 'name',
  term: 'term',
  weak: 'weak',
};

/** The kind of a piece of evidence in plain words ("error code"). */
export function evidenceKindName(kind: EvidenceKind): string {
  return KIND_NAMES[kind] ?? kind; // a kind added to the model later still shows, by its own name
}

/** A weight or score with one or two decimals: 1 -> "1.0", 0.6 -> "0.6", 0.35 -> "0.35". */
export function formatWeight(value: number): string {
  const fixed = value.toFixed(2);
  return fixed.endsWith('0') ? value.toFixed(1) : fixed;
}

/** "score 0.6 of 1.0 needed", or undefined when no score was computed for the turn. */
export function describeScore(result: Pick<TurnResult, 'score' | 'threshold'>): string | undefined {
  if (result.score === undefined || result.threshold === undefined) return undefined;
  return `score ${formatWeight(result.score)} of ${formatWeight(result.threshold)} needed`;
}

/** "path, weight 0.8, shared by 3 turns, from its call": what a piece of evidence is and how much it counts. */
export function describeEvidence(evidence: Evidence): string {
  const parts = [evidenceKindName(evidence.kind), `weight ${formatWeight(evidence.weight)}`];
  if (evidence.sharedBy > 1) parts.push(`shared by ${evidence.sharedBy} turns`);
  if (evidence.fromCall) parts.push('from its call');
  if (evidence.fromReasoning) parts.push('from its reasoning');
  return parts.join(', ');
}

/** Evidence heaviest first (ties keep their order), found before not found at equal weight. */
export function byWeight(evidence: readonly Evidence[]): Evidence[] {
  return [...evidence].sort((a, b) => b.weight - a.weight || Number(b.found) - Number(a.found));
}
