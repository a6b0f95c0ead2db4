// The header above the timeline, built to stay small:
//  - a top line: which file (format, turns, checkpoints, problems by severity) and the checkpoint selector;
//  - one headline: the verdict in plain words, the turns per status (the legend), where the safe pointer
//    set ends, the copy button (with "Copied" feedback, announced) and the "Details ▸" toggle;
//  - Details (collapsed by default, remembered by main.ts): why the verdict is what it is, the summary's
//    truncation tells, the prefix drawn against the ceiling (with its source, and what a different figure
//    the agent recorded means), the notes, and a glossary. Each thing is said once: the host's reasons
//    repeat the ceiling comparison, the truncation tells and the notes, so those are shown only where they
//    belong (see ownReasons).
// Text that may quote the transcript (file name, ids, reasons, notes, problems) goes through transcriptText.ts;
// every term of ours carries its plain-words explanation as a tooltip (glossary.ts).

import { fullTurnId, isShortenedTurnId, shortTurnId } from '../src/core/displayText';
import type { CheckpointHeader, FileInfo, RowStatus } from '../src/protocol';
import type { Problem, Severity } from '../src/core/model';
import { statusDescription, statusName } from '../src/statusWords';
import { ROW_STATUSES, severityIcon, statusGlyph, verdictGlyph } from './statusText';
import { el, fmt, plural, text } from './dom';
import { glossarySection, term } from './glossary';
import { createBadge, createButton, createChoice, type Choice } from './toolkit';
import { transcriptLabel, transcriptText } from './transcriptText';

export interface HeaderActions {
  onCheckpointChange(index: number): void;
  onCopySafePointerSet(): void;
  onOpenCheckpoint(): void;
  /** The Details section was opened or closed by the user. */
  onDetailsToggle(open: boolean): void;
}

const COPIED_MS = 2000;

export class Header {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly choice: Choice;
  private readonly selector: HTMLElement;
  private readonly headline: HTMLElement;
  private readonly headlineText: HTMLElement;
  private readonly copy: HTMLElement;
  private readonly copied: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private readonly more: HTMLElement;
  private readonly moreBody: HTMLElement;
  private readonly glossary: HTMLElement;
  private copiedTimer: number | undefined;

  constructor(private readonly actions: HeaderActions) {
    this.element = document.createElement('header');
    this.element.className = 'cl-header';
    const top = el('div', 'hdr-top');
    this.title = el('div', 'hdr-title');
    this.selector = el('div', 'hdr-selector');
    const label = el('span', 'hdr-selector-label', 'Checkpoint');
    label.id = 'cl-checkpoint-label';
    this.choice = createChoice('Checkpoint', (value) => this.actions.onCheckpointChange(Number(value)));
    this.choice.element.classList.add('hdr-dropdown');
    this.selector.append(label, this.choice.element);
    top.append(this.title, this.selector);

    this.headline = el('div', 'hdr-headline');
    this.headlineText = el('div', 'hdr-headline-text');
    const buttons = el('div', 'hdr-actions');
    this.copy = createButton('Copy safe pointer set', () => this.onCopy(), 'primary');
    this.copy.classList.add('hdr-copy');
    this.copy.title = 'Copy the safe pointer set (the claimed turns shown covered, unbroken from the start) as JSON';
    this.copied = el('span', 'hdr-copied');
    this.copied.setAttribute('role', 'status');
    this.copied.setAttribute('aria-live', 'polite');
    this.toggle = document.createElement('button');
    this.toggle.type = 'button';
    this.toggle.className = 'hdr-toggle';
    this.toggle.setAttribute('aria-controls', 'cl-more');
    this.toggle.addEventListener('click', () => {
      this.setDetailsOpen(!this.detailsOpen);
      this.actions.onDetailsToggle(this.detailsOpen);
    });
    buttons.append(this.copy, this.copied, this.toggle);
    this.headline.append(this.headlineText, buttons);

    this.more = el('div', 'hdr-more');
    this.more.id = 'cl-more';
    this.more.setAttribute('role', 'region');
    this.more.setAttribute('aria-label', 'Details of the checkpoint');
    this.moreBody = el('div', 'hdr-more-body');
    this.glossary = glossarySection();
    this.more.append(this.moreBody, this.glossary);
    this.element.append(top, this.headline, this.more);
    this.setDetailsOpen(false);
  }

  get detailsOpen(): boolean {
    return this.toggle.getAttribute('aria-expanded') === 'true';
  }

  setDetailsOpen(open: boolean): void {
    this.toggle.setAttribute('aria-expanded', String(open));
    this.toggle.textContent = open ? 'Details \u25BE' : 'Details \u25B8';
    this.toggle.title = open ? 'Hide the reasons, figures and glossary' : 'Show the reasons, figures and glossary';
    this.more.hidden = !open;
    this.element.classList.toggle('more-open', open);
  }

  render(file: FileInfo, checkpoints: CheckpointHeader[], checkpointIndex: number, problems: Problem[]): void {
    this.renderTitle(file, checkpoints, problems);
    this.choice.setOptions(
      checkpoints.map((checkpoint) => ({
        value: String(checkpoint.index),
        text: checkpointTitle(checkpoint),
        render: () => checkpointTitleNode(checkpoint),
      })),
      String(checkpointIndex),
    );
    this.choice.element.toggleAttribute('disabled', checkpoints.length < 2);
    this.selector.hidden = checkpoints.length === 0;
    const checkpoint = checkpoints.find((c) => c.index === checkpointIndex);
    if (!checkpoint) {
      this.element.dataset.compaction = 'none';
      const none = el('p', 'hdr-plain hdr-no-compaction');
      none.append(
        el('strong', '', 'No compaction in this transcript'),
        text(
          ` — its ${plural(file.turnCount, 'turn')} ${file.turnCount === 1 ? 'is' : 'are'} listed below; no summary claims any of them, so there is nothing to check.`,
        ),
      );
      this.headlineText.replaceChildren(none);
      this.copy.hidden = true;
      this.moreBody.replaceChildren(
        el(
          'p',
          'hdr-empty',
          'Compaction Lens checks a summary against the turns it claims. This file has no compaction checkpoint yet; when the agent compacts, the timeline updates.',
        ),
      );
      return;
    }
    delete this.element.dataset.compaction;
    this.copy.hidden = false;
    this.headlineText.replaceChildren(...this.renderHeadline(checkpoint, file.turnCount));
    this.moreBody.replaceChildren(this.renderWhy(checkpoint), this.renderSize(checkpoint));
    const notes = shownNotes(checkpoint);
    if (notes.length > 0) this.moreBody.append(renderNotes(notes));
  }

  /** "Copied" beside the button for two seconds, announced to screen readers. */
  showCopied(): void {
    window.clearTimeout(this.copiedTimer);
    this.copied.textContent = 'Copied';
    this.copied.title = 'The safe pointer set was copied to the clipboard as JSON';
    this.copiedTimer = window.setTimeout(() => {
      this.copied.textContent = '';
    }, COPIED_MS);
  }

  private onCopy(): void {
    this.actions.onCopySafePointerSet();
    this.showCopied();
  }

  private renderTitle(file: FileInfo, checkpoints: CheckpointHeader[], problems: Problem[]): void {
    const name = el('span', 'hdr-file');
    name.append(transcriptText(file.name));
    name.title = transcriptLabel(file.path);
    const facts = el(
      'span',
      'hdr-facts',
      `${file.format} · ${plural(file.turnCount, 'turn')} · ${plural(checkpoints.length, 'checkpoint')}`,
    );
    const parts: Node[] = [name, facts];
    if (problems.length > 0) parts.push(renderProblems(problems));
    this.title.replaceChildren(...parts);
  }

  /** Verdict badge, the verdict in plain words, the counts (the legend) and where the safe pointer set ends. */
  private renderHeadline(checkpoint: CheckpointHeader, turnCount: number): Node[] {
    const badge = el('span', `verdict verdict-${checkpoint.verdict}`);
    badge.dataset.verdict = checkpoint.verdict;
    const glyph = el('span', 'verdict-glyph', verdictGlyph(checkpoint.verdict));
    glyph.setAttribute('aria-hidden', 'true');
    badge.append(glyph, term(checkpoint.verdict));
    const plain = el('span', 'hdr-plain');
    plain.append(...plainVerdict(checkpoint));
    plain.title = plain.textContent ?? '';
    if (checkpoint.opaque || checkpoint.unverifiable) plain.classList.add('flag-unverifiable');
    const parts: Node[] = [badge, plain, renderLegend(checkpoint, turnCount), renderSafeEnd(checkpoint)];
    if (checkpoint.truncation.truncated) {
      const cut = el('span', 'hdr-cut', 'summary cut off');
      cut.title = `The summary appears cut off: ${checkpoint.truncation.reasons.join('; ')}`;
      parts.push(cut);
    }
    return parts;
  }

  /** Why: the verdict's own reasons (once), then the truncation tells. */
  private renderWhy(checkpoint: CheckpointHeader): HTMLElement {
    const box = el('section', 'hdr-why');
    box.setAttribute('aria-label', 'Why');
    const heading = el('h3', 'hdr-section-title', 'Why ');
    heading.append(
      text('· '),
      checkpoint.path === 'A'
        ? term('Path A', 'Path A: the summariser reported what it consumed')
        : term('Path B', 'Path B: evidence found in the summary decides'),
    );
    heading.classList.add('hdr-path');
    box.append(heading);
    const reasons = ownReasons(checkpoint);
    if (reasons.length > 0) {
      const list = document.createElement('ul');
      list.className = 'hdr-reasons';
      list.setAttribute('aria-label', 'Reasons for the verdict');
      for (const reason of reasons) list.append(textItem(reason));
      box.append(list);
    }
    if (checkpoint.unverifiable && !reasons.some((reason) => reason.includes(checkpoint.unverifiable as string))) {
      const flag = el('p', 'hdr-flag flag-unverifiable-why');
      flag.append(text('Coverage cannot be checked in this file: '), transcriptText(checkpoint.unverifiable));
      box.append(flag);
    }
    if (checkpoint.truncation.truncated) {
      const flag = el('div', 'hdr-flag flag-truncated');
      flag.dataset.truncated = 'true';
      flag.append(el('span', 'flag-title', 'The summary appears cut off'));
      const list = document.createElement('ul');
      for (const reason of checkpoint.truncation.reasons) list.append(textItem(reason));
      flag.append(list);
      box.append(flag);
    }
    return box;
  }

  /** The prefix against the ceiling: the bar, where each figure comes from, and what decides. */
  private renderSize(checkpoint: CheckpointHeader): HTMLElement {
    const box = el('section', 'hdr-budget');
    box.setAttribute('aria-label', 'Size against the ceiling');
    const prefix = checkpoint.prefixTokens;
    const ceiling = checkpoint.ceiling;
    const over = ceiling !== undefined && prefix > ceiling;

    const caption = el('div', 'bar-caption');
    caption.append(
      term('prefix tokens', 'Prefix'),
      text(' '),
      el('strong', '', fmt(prefix)),
      text(` tokens (${sourceText(checkpoint.prefixTokenSource)})`),
    );
    if (ceiling === undefined) {
      caption.append(text(' · no '), term('ceiling'), text(': the summary budget is unknown'));
    } else {
      caption.append(
        text(over ? ' > ' : ' \u2264 '),
        term('ceiling'),
        text(` ${fmt(ceiling)}`),
        text(over ? ': over the ceiling' : ': within the ceiling'),
      );
    }
    const bar = el('div', `bar${over ? ' over' : ''}${ceiling === undefined ? ' no-ceiling' : ''}`);
    bar.setAttribute('role', 'img');
    bar.setAttribute(
      'aria-label',
      ceiling === undefined
        ? `Prefix ${fmt(prefix)} tokens; no ceiling known`
        : `Prefix ${fmt(prefix)} tokens against a ceiling of ${fmt(ceiling)}: ${over ? 'over' : 'within'} the ceiling`,
    );
    const scale = Math.max(prefix, ceiling ?? 0, 1);
    const fill = el('div', 'bar-fill');
    fill.style.width = `${(Math.min(prefix, scale) / scale) * 100}%`;
    bar.append(fill);
    if (ceiling !== undefined) {
      const tick = el('div', 'bar-ceiling');
      tick.style.left = `${(ceiling / scale) * 100}%`;
      bar.append(tick);
      if (over) {
        const overPart = el('div', 'bar-over');
        overPart.style.left = `${(ceiling / scale) * 100}%`;
        overPart.style.width = `${((prefix - ceiling) / scale) * 100}%`;
        bar.append(overPart);
      }
    }
    const formula = el('div', 'bar-formula');
    if (checkpoint.summaryBudget !== undefined) {
      formula.append(term('ceiling'), text(' = '), term('summary budget'), text(` ${fmt(checkpoint.summaryBudget)}`));
      if (checkpoint.budgetAssumed) {
        const assumed = el('span', 'assumed', ' (assumed)');
        assumed.title = 'The transcript records no summary budget: this is the default for its format (a setting).';
        formula.append(assumed);
      } else {
        formula.append(text(' (recorded)'));
      }
      formula.append(text(' × '), term('R_low'), text(` ${checkpoint.ratioFloor}`));
      formula.append(text(` · the summary has ${fmt(checkpoint.summaryTokens)} of its ${fmt(checkpoint.summaryBudget)} tokens`));
    } else {
      formula.append(term('R_low'), text(` ${checkpoint.ratioFloor}; `), term('summary budget'), text(' unknown'));
      formula.append(text(` · the summary has ${fmt(checkpoint.summaryTokens)} tokens`));
    }
    box.append(caption, bar, formula);
    const recorded = recordedExplanation(checkpoint);
    if (recorded) box.append(recorded);
    const open = createButton('Open summary record', () => this.actions.onOpenCheckpoint(), 'secondary');
    open.classList.add('hdr-open-summary');
    box.append(open);
    return box;
  }
}

/** The verdict in plain words, short enough for the headline. */
function plainVerdict(checkpoint: CheckpointHeader): Node[] {
  const missing = checkpoint.counts['claimed-missing'];
  const missingText = `${plural(missing, 'claimed turn')} ${missing === 1 ? 'is' : 'are'} missing from the summary`;
  if (checkpoint.opaque) return [text('Coverage cannot be checked: the summary is opaque (encrypted).')];
  if (checkpoint.unverifiable) return [text('Coverage cannot be checked in this file (see Details).')];
  switch (checkpoint.verdict) {
    case 'reversible':
      return [text('Safe: the summary carries every '), term('claimed'), text(' turn worth keeping.')];
    case 'conditional':
      return [
        text('Narrow the '),
        term('pointer set'),
        text(
          checkpoint.path === 'A'
            ? `: ${plural(missing, 'claimed turn')} ${missing === 1 ? 'was' : 'were'} not reported consumed.`
            : `: ${missingText}.`,
        ),
      ];
    case 'fail-closed': {
      const why =
        checkpoint.ceiling === undefined
          ? 'the summary budget is unknown'
          : checkpoint.prefixTokens > checkpoint.ceiling
            ? 'the prefix is over the ceiling'
            : 'there is no positive evidence of coverage';
      return [
        text(`Not safe: ${missing > 0 ? `${missingText} and ` : ''}${why}; only the `),
        term('safe pointer set'),
        text(' may be claimed.'),
      ];
    }
  }
}

function renderSafeEnd(checkpoint: CheckpointHeader): HTMLElement {
  const safe = el('span', 'hdr-safe');
  safe.append(term('safe pointer set', 'Safe pointer set'));
  if (checkpoint.safeCoveredCount === 0) {
    safe.append(text(': empty'));
  } else {
    const boundary = checkpoint.safeBoundaryId;
    if (checkpoint.safeBoundaryIndex >= 0 && boundary !== undefined) {
      // Named by the turn's own id (shortened when long, the full id in the title), as everywhere else.
      safe.append(
        text(' ends after turn '),
        transcriptText(shortTurnId(boundary)),
        text(` (${plural(checkpoint.safeCoveredCount, 'turn')})`),
      );
      if (isShortenedTurnId(boundary)) safe.title = transcriptLabel(`Ends after turn ${fullTurnId(boundary)}`);
    } else {
      safe.append(text(`: ${plural(checkpoint.safeCoveredCount, 'turn')}`));
    }
  }
  return safe;
}

function renderLegend(checkpoint: CheckpointHeader, turnCount: number): HTMLElement {
  const legend = document.createElement('ul');
  legend.className = 'legend';
  legend.setAttribute('aria-label', 'Turns per status');
  const counts: Record<RowStatus, number> = {
    ...checkpoint.counts,
    after: Math.max(0, turnCount - checkpoint.turnsBefore),
  };
  for (const status of ROW_STATUSES) {
    const item = document.createElement('li');
    item.className = `legend-item status-${status}${counts[status] === 0 ? ' zero' : ''}`;
    item.dataset.status = status;
    item.dataset.count = String(counts[status]);
    item.title = `${statusName(status)}: ${statusDescription(status)}`;
    const swatch = el('span', 'swatch', statusGlyph(status));
    swatch.setAttribute('aria-hidden', 'true');
    item.append(swatch, el('span', 'legend-count', fmt(counts[status])), el('span', 'legend-name', statusName(status)));
    legend.append(item);
  }
  return legend;
}

function renderProblems(problems: Problem[]): HTMLElement {
  const details = document.createElement('details');
  const worst = worstSeverity(problems);
  details.className = `hdr-problems sev-${worst}`;
  details.dataset.severity = worst;
  const summary = document.createElement('summary');
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  const infos = problems.length - errors - warnings;
  const kinds = [plural(errors, 'error'), plural(warnings, 'warning'), plural(infos, 'note')].filter(
    (_, i) => [errors, warnings, infos][i] > 0,
  );
  const words =
    worst === 'info'
      ? ` ${problems.length === 1 ? 'note' : 'notes'} about this file`
      : ` ${problems.length === 1 ? 'problem' : 'problems'} reading this file${kinds.length > 1 || errors > 0 ? ` (${kinds.join(', ')})` : ''}`;
  summary.append(
    severityIcon(worst),
    createBadge(String(problems.length), plural(problems.length, worst === 'info' ? 'note' : 'problem')),
    text(words),
  );
  const list = document.createElement('ul');
  for (const problem of problems.slice(0, 20)) {
    const item = el('li', `sev-${problem.severity}`);
    item.dataset.severity = problem.severity;
    item.append(
      severityIcon(problem.severity),
      text(` line ${problem.line}: ${severityWord(problem.severity)}: `),
      transcriptText(problem.message),
    );
    list.append(item);
  }
  if (problems.length > 20) list.append(el('li', '', `… and ${fmt(problems.length - 20)} more (see the Problems panel)`));
  details.append(summary, list);
  return details;
}

function worstSeverity(problems: Problem[]): Severity {
  if (problems.some((p) => p.severity === 'error')) return 'error';
  if (problems.some((p) => p.severity === 'warning')) return 'warning';
  return 'info';
}

function severityWord(severity: Severity): string {
  return severity === 'info' ? 'note' : severity;
}

function renderNotes(notes: string[]): HTMLElement {
  const box = el('section', 'hdr-notes-box');
  box.setAttribute('aria-label', 'Notes');
  box.append(el('h3', 'hdr-section-title', 'Notes from the transcript'));
  const list = document.createElement('ul');
  list.className = 'hdr-notes';
  for (const note of notes) {
    const item = el('li');
    item.append(severityIcon('info'), text(' '), transcriptText(note));
    list.append(item);
  }
  box.append(list);
  return box;
}

/**
 * The host's reasons without what the panel shows elsewhere: the notes (listed under Notes), the truncation
 * line (the cut-off flag lists its tells), the prefix-against-ceiling and recorded-context sentences (the size
 * bar shows them), and exact repeats.
 */
export function ownReasons(checkpoint: CheckpointHeader): string[] {
  const notes = new Set(checkpoint.notes);
  const seen = new Set<string>();
  return checkpoint.reasons.filter((reason) => {
    if (notes.has(reason) || seen.has(reason)) return false;
    seen.add(reason);
    if (checkpoint.truncation.truncated && reason.startsWith('summary appears truncated: ')) return false;
    if (reason.startsWith(`prefix ${fmt(checkpoint.prefixTokens)} tokens`)) return false;
    if (
      checkpoint.recordedPrefixTokens !== undefined &&
      reason.startsWith(`the agent recorded ${fmt(checkpoint.recordedPrefixTokens)} tokens`)
    )
      return false;
    return true;
  });
}

/** The note that says where the recorded context figure was read from (shown with the size bar instead). */
function recordedNote(checkpoint: CheckpointHeader): string | undefined {
  const recorded = checkpoint.recordedPrefixTokens;
  if (recorded === undefined) return undefined;
  const figure = fmt(recorded);
  return checkpoint.notes.find((note) => note.includes(figure));
}

/** The notes, without the one the size bar quotes and without repeats. */
function shownNotes(checkpoint: CheckpointHeader): string[] {
  const quoted = recordedNote(checkpoint);
  return [...new Set(checkpoint.notes)].filter((note) => note !== quoted);
}

/**
 * One sentence on a recorded context figure that differs from the prefix: what each counts and which one
 * the ceiling is checked against.
 */
function recordedExplanation(checkpoint: CheckpointHeader): HTMLElement | undefined {
  const recorded = checkpoint.recordedPrefixTokens;
  if (recorded === undefined) return undefined;
  const box = el('p', 'bar-recorded');
  box.append(text(`The agent recorded ${fmt(recorded)} tokens`));
  const note = recordedNote(checkpoint);
  if (note) box.append(text(' ('), transcriptText(note), text(')'));
  if (recorded === checkpoint.prefixTokens) {
    box.append(text(': the same as the prefix.'));
    return box;
  }
  box.append(
    text(
      `: that is its whole context at the compaction (system prompt, tool definitions and turns kept verbatim as well as the claimed turns), ` +
        `while the prefix is the claimed turns alone — so the two differ. The verdict checks the prefix, ${fmt(checkpoint.prefixTokens)}, against the ceiling.`,
    ),
  );
  return box;
}

/** A list item holding text that may quote the transcript. */
function textItem(value: string): HTMLElement {
  const item = el('li');
  item.append(transcriptText(value));
  return item;
}

/**
 * The dropdown label of a checkpoint: "1. S1 · line 421 · fail-closed" (its position, then its own id), as
 * text (the option's plain text: isolated, hidden characters written out) and as drawn (chips).
 */
function checkpointTitle(checkpoint: CheckpointHeader): string {
  return `${checkpoint.index + 1}. ${transcriptLabel(shortId(checkpoint.summaryId))} · line ${checkpoint.line} · ${checkpoint.verdict}`;
}

function checkpointTitleNode(checkpoint: CheckpointHeader): Node {
  const label = el('span', 'choice-label', `${checkpoint.index + 1}. `);
  label.append(transcriptText(shortId(checkpoint.summaryId)), text(` · line ${checkpoint.line} · ${checkpoint.verdict}`));
  return label;
}

function shortId(id: string): string {
  if (id.length <= 28) return id;
  let end = 27;
  const last = id.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never half a surrogate pair
  return `${id.slice(0, end)}…`;
}

function sourceText(source: CheckpointHeader['prefixTokenSource']): string {
  switch (source) {
    case 'recorded':
      return 'recorded by the agent';
    case 'counted':
      return 'counted with the tokenizer';
    case 'mixed':
      return 'partly recorded by the agent, partly counted';
  }
}
