// The details pane: the selected turn (role, tokens, lines, status and why, its evidence found and not found
// in the summary — heaviest first, each with its kind and weight — and its score against the coverage
// threshold, its text) and the checkpoint's summary with found evidence highlighted and the point where it
// appears cut off marked. Built from text nodes and <mark> elements only — never HTML; every piece of
// transcript text goes through transcriptText.ts (isolated, hidden characters shown as chips).

import type { Evidence } from '../src/core/model';
import type { CheckpointHeader, SummaryDetails, TurnDetails } from '../src/protocol';
import { byWeight, describeEvidence, describeScore, statusName } from '../src/statusWords';
import { fullTurnId, isShortenedTurnId, shortTurnId, turnPosition } from '../src/core/displayText';
import { el, fmt, text } from './dom';
import { severityIcon, statusGlyph } from './statusText';
import { createButton } from './toolkit';
import { appendTranscriptText, transcriptLabel, transcriptText } from './transcriptText';

export interface DetailsActions {
  onOpenTurn(index: number): void;
}

export class DetailsPane {
  readonly element: HTMLElement;
  private readonly turn: HTMLElement;
  private readonly summary: HTMLElement;

  constructor(private readonly actions: DetailsActions) {
    this.element = el('aside', 'cl-details');
    this.element.setAttribute('aria-label', 'Details');
    this.turn = el('section', 'det-turn');
    this.turn.setAttribute('aria-label', 'Selected turn');
    this.turn.setAttribute('aria-live', 'polite');
    this.summary = el('section', 'det-summary');
    this.summary.setAttribute('aria-label', 'Summary');
    this.element.append(this.turn, this.summary);
    this.showNoTurn();
    this.showSummaryLoading();
  }

  /** Puts a splitter between the selected turn and the summary. */
  addSplitter(splitter: HTMLElement): void {
    this.turn.after(splitter);
  }

  showNoTurn(): void {
    this.turn.replaceChildren(
      el('h2', 'det-heading', 'Turn'),
      el('p', 'det-empty', 'Select a turn in the timeline (arrow keys, or n / p for the next / previous claimed-missing turn).'),
    );
  }

  showTurnLoading(index: number): void {
    this.turn.dataset.loading = String(index);
    this.turn.setAttribute('aria-busy', 'true');
  }

  /** The selected turn, named by its own id (long ids shortened, the full id in the title); `turnCount` places it. */
  showTurn(details: TurnDetails, turnCount?: number): void {
    this.turn.dataset.index = String(details.index);
    delete this.turn.dataset.loading;
    this.turn.removeAttribute('aria-busy');
    const heading = el('h2', 'det-heading', 'Turn ');
    heading.append(transcriptText(shortTurnId(details.id)));
    if (isShortenedTurnId(details.id)) heading.title = transcriptLabel(`Turn ${fullTurnId(details.id)}`);
    const facts = el('div', 'det-facts');
    const status = el('span', `det-status status-${details.status}`);
    status.dataset.status = details.status;
    const glyph = el('span', 'row-glyph', statusGlyph(details.status));
    glyph.setAttribute('aria-hidden', 'true');
    status.append(glyph, text(` ${statusName(details.status)}`));
    const role = el('span', 'det-fact det-role');
    role.append(transcriptText(details.role));
    if (details.label) role.append(text(' · '), transcriptText(details.label));
    facts.append(
      status,
      role,
      el('span', 'det-fact', details.tokens === undefined ? 'tokens unknown' : `${fmt(details.tokens)} tokens`),
      el('span', 'det-fact', details.line === details.endLine ? `line ${details.line}` : `lines ${details.line}–${details.endLine}`),
    );
    if (turnCount !== undefined) facts.append(el('span', 'det-fact det-position', turnPosition(details.index, turnCount)));
    const open = createButton('Open in editor', () => this.actions.onOpenTurn(details.index), 'secondary');
    open.classList.add('det-open');
    const reason = el('p', 'det-reason');
    reason.append(transcriptText(details.reason));
    const parts: Node[] = [heading, facts, reason, open];
    if (details.externalSource) {
      const external = el('p', 'det-external');
      external.append(severityIcon('info'), text(" This turn's raw text lives in another file: "), transcriptText(details.externalSource));
      parts.push(external);
    }
    parts.push(this.renderEvidence(details));
    parts.push(el('h3', 'det-subheading', 'Text'));
    const body = el('pre', 'det-text');
    body.dir = 'auto';
    appendTranscriptText(body, details.text);
    parts.push(body);
    if (details.textTruncated) parts.push(el('p', 'det-note', 'The text is shortened here; open the turn to read all of it.'));
    this.turn.replaceChildren(...parts);
  }

  showTurnError(message: string): void {
    delete this.turn.dataset.loading;
    this.turn.removeAttribute('aria-busy');
    this.turn.replaceChildren(el('h2', 'det-heading', 'Turn'), el('p', 'det-error', message));
  }

  showSummary(details: SummaryDetails, checkpoint: CheckpointHeader | undefined): void {
    const heading = el('h2', 'det-heading', 'Summary ');
    heading.append(transcriptText(details.summaryId), text(` (checkpoint ${details.checkpointIndex + 1})`));
    const facts = el('div', 'det-facts');
    facts.append(
      el('span', 'det-fact', `${fmt(details.text.length)} characters`),
      el('span', 'det-fact', `${fmt(details.foundAnchors.length)} matches highlighted`),
    );
    if (checkpoint) facts.append(el('span', 'det-fact', `${fmt(checkpoint.summaryTokens)} tokens`));
    if (details.cutAt !== undefined) facts.append(el('span', 'det-fact det-cut-fact', 'appears cut off (marked below)'));
    // A block of transcript text: its own bidi paragraph, its direction from its own first strong character.
    const body = el('pre', 'det-summary-text');
    body.dir = 'auto';
    body.append(renderSummaryText(details.text, details.foundAnchors, details.cutAt));
    delete this.summary.dataset.loading;
    this.summary.replaceChildren(heading, facts, body);
  }

  /** The transcript has no compaction: there is no summary, and nothing is loading. */
  showNoSummary(): void {
    delete this.summary.dataset.loading;
    this.summary.replaceChildren(
      el('h2', 'det-heading', 'Summary'),
      el('p', 'det-empty det-no-summary', 'No compaction in this transcript, so there is no summary to show.'),
    );
  }

  showSummaryLoading(): void {
    this.summary.dataset.loading = 'true';
    this.summary.replaceChildren(el('h2', 'det-heading', 'Summary'), el('p', 'det-empty det-loading', 'Loading the summary…'));
  }

  showSummaryError(message: string): void {
    delete this.summary.dataset.loading;
    this.summary.replaceChildren(el('h2', 'det-heading', 'Summary'), el('p', 'det-error', message));
  }

  /** Scrolls the summary to the highlight of the evidence found at `at`. */
  revealAnchor(at: number): void {
    const mark = [...this.summary.querySelectorAll<HTMLElement>('mark.anchor-mark')].find(
      (candidate) => Number(candidate.dataset.start) <= at && at < Number(candidate.dataset.end),
    );
    if (!mark) return;
    for (const other of this.summary.querySelectorAll('mark.flash')) other.classList.remove('flash');
    mark.classList.add('flash');
    mark.scrollIntoView({ block: 'center' });
  }

  private renderEvidence(details: TurnDetails): HTMLElement {
    const box = el('div', 'det-evidence');
    box.append(el('h3', 'det-subheading', 'Evidence'));
    const score = describeScore(details);
    if (score !== undefined && details.score !== undefined && details.threshold !== undefined) {
      const enough = details.score >= details.threshold;
      const line = el('p', `det-score ${enough ? 'enough' : 'short'}`, `${score} — `);
      line.dataset.enough = String(enough);
      line.append(el('strong', '', enough ? 'enough to count as covered' : 'not enough to count as covered'));
      box.append(line);
    }
    if (details.evidence.length === 0) {
      box.append(el('p', 'det-empty', noEvidenceText(details)));
      return box;
    }
    const ordered = byWeight(details.evidence);
    const found = ordered.filter((evidence) => evidence.found);
    const missing = ordered.filter((evidence) => !evidence.found);
    box.append(
      this.renderEvidenceGroup('Found in the summary', found, 'found'),
      this.renderEvidenceGroup('Not found in the summary', missing, 'missing'),
    );
    return box;
  }

  private renderEvidenceGroup(title: string, evidence: Evidence[], kind: 'found' | 'missing'): HTMLElement {
    const group = el('div', `evidence-group ${kind}`);
    const heading = el('h4', 'evidence-heading', `${title} (${evidence.length})`);
    group.append(heading);
    if (evidence.length === 0) return group;
    const items = el('ul', 'evidence-list');
    items.setAttribute('aria-label', title);
    for (const piece of evidence) items.append(this.renderEvidenceItem(piece));
    group.append(items);
    return group;
  }

  private renderEvidenceItem(evidence: Evidence): HTMLElement {
    const item = el('li', `evidence ${evidence.found ? 'found' : 'missing'}`);
    item.dataset.kind = evidence.kind;
    item.dataset.weight = String(evidence.weight);
    const glyph = el('span', 'evidence-glyph', evidence.found ? '\u2713' : '\u2717');
    glyph.setAttribute('aria-hidden', 'true');
    const facts = el('span', 'evidence-facts', describeEvidence(evidence));
    if (evidence.found && evidence.matched !== undefined && evidence.matched !== evidence.text) {
      facts.append(text(' · matched as “'), transcriptText(evidence.matched), text('”'));
    }
    if (evidence.found && evidence.at !== undefined) facts.append(text(` · at character ${fmt(evidence.at)}`));
    const code = el('code', 'evidence-text');
    code.append(transcriptText(evidence.text));
    item.append(glyph, code, facts);
    if (evidence.found && evidence.at !== undefined) {
      const at = evidence.at;
      item.classList.add('clickable');
      item.tabIndex = 0;
      item.setAttribute('role', 'button');
      item.title = 'Show in the summary';
      item.addEventListener('click', () => this.revealAnchor(at));
      item.addEventListener('keydown', (event) => {
        if (event.key !== 'Enter' && event.key !== ' ') return;
        event.preventDefault();
        this.revealAnchor(at);
      });
    }
    return item;
  }
}

/** Why a turn has no evidence to list, by its status. */
function noEvidenceText(details: TurnDetails): string {
  switch (details.status) {
    case 'nothing-to-check':
      return 'None: this turn holds nothing worth carrying into a summary.';
    case 'unverifiable':
      return 'Not weighed: coverage cannot be checked for this checkpoint.';
    case 'after':
      return 'Not weighed: the turn comes after this checkpoint.';
    default:
      return 'None weighed for this turn.';
  }
}

/**
 * The summary as text nodes (hidden characters as chips, by transcriptText.ts), with each found anchor
 * wrapped in <mark> and a cut marker at `cutAt`.
 * Overlapping anchors are merged into one highlight; offsets outside the text are ignored.
 */
export function renderSummaryText(
  summary: string,
  foundAnchors: { anchor: string; at: number }[],
  cutAt: number | undefined,
): DocumentFragment {
  const ranges: { start: number; end: number }[] = [];
  for (const found of [...foundAnchors].sort((a, b) => a.at - b.at)) {
    const start = found.at;
    const end = Math.min(summary.length, found.at + found.anchor.length);
    if (!(start >= 0 && start < end)) continue;
    const last = ranges[ranges.length - 1];
    if (last && start < last.end) last.end = Math.max(last.end, end);
    else ranges.push({ start, end });
  }
  const cut = cutAt === undefined ? undefined : Math.max(0, Math.min(summary.length, cutAt));
  const fragment = document.createDocumentFragment();
  let position = 0;
  let cutDone = cut === undefined;
  const plain = (from: number, to: number): void => {
    if (!cutDone && cut !== undefined && cut >= from && cut < to) {
      if (cut > from) appendTranscriptText(fragment, summary.slice(from, cut));
      fragment.append(cutMarker());
      cutDone = true;
      if (to > cut) appendTranscriptText(fragment, summary.slice(cut, to));
      return;
    }
    if (to > from) appendTranscriptText(fragment, summary.slice(from, to));
  };
  for (const range of ranges) {
    plain(position, range.start);
    const mark = el('mark', 'anchor-mark');
    appendTranscriptText(mark, summary.slice(range.start, range.end));
    mark.dataset.start = String(range.start);
    mark.dataset.end = String(range.end);
    fragment.append(mark);
    if (!cutDone && cut !== undefined && cut > range.start && cut < range.end) {
      // A cut inside a highlight: show the marker right after it.
      fragment.append(cutMarker());
      cutDone = true;
    }
    position = range.end;
  }
  plain(position, summary.length);
  if (!cutDone) fragment.append(cutMarker());
  return fragment;
}

function cutMarker(): HTMLElement {
  const marker = el('span', 'cut-marker', 'summary cut off here');
  marker.setAttribute('role', 'note');
  marker.setAttribute('aria-label', 'The summary appears cut off here');
  return marker;
}
