// The header above the timeline: which file, the checkpoint selector, the selected checkpoint's verdict
// and reasons, why its coverage cannot be checked (when it cannot), its prefix tokens drawn against the
// ceiling, the truncation flag, a legend with counts per status (the main three, the two neutral ones, the
// turns after it), the safe pointer set (with a copy button), notes and the number of problems. Text that may
// quote the transcript (file name, ids, reasons, notes, problems) goes through transcriptText.ts.

import type { CheckpointHeader, FileInfo, RowStatus } from '../src/protocol';
import type { Problem } from '../src/core/model';
import { statusDescription, statusName } from '../src/statusWords';
import { ROW_STATUSES, statusGlyph, verdictGlyph } from './statusText';
import { el, fmt, text } from './dom';
import { createBadge, createButton, createChoice, type Choice } from './toolkit';
import { transcriptLabel, transcriptText } from './transcriptText';

export interface HeaderActions {
  onCheckpointChange(index: number): void;
  onCopySafePointerSet(): void;
  onOpenCheckpoint(): void;
}

export class Header {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly choice: Choice;
  private readonly body: HTMLElement;

  constructor(private readonly actions: HeaderActions) {
    this.element = document.createElement('header');
    this.element.className = 'cl-header';
    const top = el('div', 'hdr-top');
    this.title = el('div', 'hdr-title');
    const selector = el('div', 'hdr-selector');
    const label = el('span', 'hdr-selector-label', 'Checkpoint');
    label.id = 'cl-checkpoint-label';
    this.choice = createChoice('Checkpoint', (value) => this.actions.onCheckpointChange(Number(value)));
    this.choice.element.classList.add('hdr-dropdown');
    selector.append(label, this.choice.element);
    top.append(this.title, selector);
    this.body = el('div', 'hdr-body');
    this.element.append(top, this.body);
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
    const checkpoint = checkpoints.find((c) => c.index === checkpointIndex);
    if (!checkpoint) {
      this.body.replaceChildren(
        el('p', 'hdr-empty', 'No compaction checkpoint was found in this file: there is nothing to check yet.'),
      );
      return;
    }
    this.body.replaceChildren(
      this.renderVerdict(checkpoint),
      this.renderBudget(checkpoint),
      this.renderLegend(checkpoint, file.turnCount),
    );
  }

  private renderTitle(file: FileInfo, checkpoints: CheckpointHeader[], problems: Problem[]): void {
    const name = el('span', 'hdr-file');
    name.append(transcriptText(file.name));
    name.title = transcriptLabel(file.path);
    const facts = el(
      'span',
      'hdr-facts',
      `${file.format} · ${file.turnCount.toLocaleString('en-US')} turns · ${checkpoints.length} checkpoint${
        checkpoints.length === 1 ? '' : 's'
      }`,
    );
    const parts: Node[] = [name, facts];
    if (problems.length > 0) {
      const details = document.createElement('details');
      details.className = 'hdr-problems';
      const summary = document.createElement('summary');
      const errors = problems.filter((p) => p.severity === 'error').length;
      summary.append(
        createBadge(String(problems.length), `${problems.length} problems`),
        text(` problem${problems.length === 1 ? '' : 's'} reading this file${errors ? ` (${errors} errors)` : ''}`),
      );
      const list = document.createElement('ul');
      for (const problem of problems.slice(0, 20)) {
        const item = el('li', '', `line ${problem.line}: ${problem.severity}: `);
        item.append(transcriptText(problem.message));
        list.append(item);
      }
      if (problems.length > 20) list.append(el('li', '', `… and ${problems.length - 20} more (see the Problems panel)`));
      details.append(summary, list);
      parts.push(details);
    }
    this.title.replaceChildren(...parts);
  }

  private renderVerdict(checkpoint: CheckpointHeader): HTMLElement {
    const box = el('div', 'hdr-verdict');
    const badge = el('span', `verdict verdict-${checkpoint.verdict}`);
    badge.dataset.verdict = checkpoint.verdict;
    const glyph = el('span', 'verdict-glyph', verdictGlyph(checkpoint.verdict));
    glyph.setAttribute('aria-hidden', 'true');
    badge.append(glyph, text(` ${checkpoint.verdict}`));
    const path = el(
      'span',
      'hdr-path',
      checkpoint.path === 'A'
        ? 'Path A: the summariser reported what it consumed'
        : 'Path B: evidence found in the summary decides',
    );
    const line = el('div', 'hdr-verdict-line');
    line.append(badge, path);
    box.append(line);
    if (checkpoint.reasons.length > 0) {
      const reasons = document.createElement('ul');
      reasons.className = 'hdr-reasons';
      reasons.setAttribute('aria-label', 'Reasons for the verdict');
      for (const reason of checkpoint.reasons) reasons.append(textItem('', reason));
      box.append(reasons);
    }
    const unverifiable = checkpoint.opaque
      ? 'The summary is opaque (encrypted): coverage cannot be checked.'
      : checkpoint.unverifiable && `Coverage cannot be checked in this file: ${checkpoint.unverifiable}`;
    if (unverifiable) {
      const flag = el('p', 'hdr-flag flag-unverifiable');
      const glyph = el('span', 'flag-glyph', statusGlyph('unverifiable'));
      glyph.setAttribute('aria-hidden', 'true');
      flag.append(glyph, text(' '), transcriptText(unverifiable));
      box.append(flag);
    }
    if (checkpoint.truncation.truncated) {
      const flag = el('div', 'hdr-flag flag-truncated');
      flag.dataset.truncated = 'true';
      flag.append(el('span', 'flag-title', '\u2702 The summary appears cut off'));
      const reasons = document.createElement('ul');
      for (const reason of checkpoint.truncation.reasons) reasons.append(textItem('', reason));
      flag.append(reasons);
      box.append(flag);
    }
    if (checkpoint.notes.length > 0) {
      const notes = document.createElement('ul');
      notes.className = 'hdr-notes';
      notes.setAttribute('aria-label', 'Notes');
      for (const note of checkpoint.notes) notes.append(textItem('\u2139 ', note));
      box.append(notes);
    }
    return box;
  }

  private renderBudget(checkpoint: CheckpointHeader): HTMLElement {
    const box = el('div', 'hdr-budget');
    const prefix = checkpoint.prefixTokens;
    const ceiling = checkpoint.ceiling;
    const over = ceiling !== undefined && prefix > ceiling;
    const source = sourceText(checkpoint.prefixTokenSource);

    const caption = el('div', 'bar-caption');
    caption.append(
      el('strong', '', `${fmt(prefix)}`),
      text(` prefix tokens (${source})`),
      text(ceiling === undefined ? ' · no ceiling: the summary budget is unknown' : ` vs ceiling ${fmt(ceiling)}`),
    );
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
      formula.append(
        text(`ceiling = budget ${fmt(checkpoint.summaryBudget)}`),
        checkpoint.budgetAssumed ? el('span', 'assumed', ' (assumed)') : text(' (recorded)'),
        text(` × R_low ${checkpoint.ratioFloor}`),
      );
    } else {
      formula.append(text(`R_low ${checkpoint.ratioFloor}; summary budget unknown`));
    }
    formula.append(
      text(` · summary ${fmt(checkpoint.summaryTokens)} tokens (counted)`),
    );
    if (checkpoint.recordedPrefixTokens !== undefined) {
      formula.append(text(` · the agent recorded a ${fmt(checkpoint.recordedPrefixTokens)}-token context`));
    }
    const safe = el('div', 'hdr-safe');
    safe.append(
      text(
        checkpoint.safeCoveredCount === 0
          ? 'Safe pointer set: empty'
          : `Safe pointer set: ${fmt(checkpoint.safeCoveredCount)} turn${checkpoint.safeCoveredCount === 1 ? '' : 's'}` +
              (checkpoint.safeBoundaryIndex >= 0 ? `, unbroken through turn ${checkpoint.safeBoundaryIndex}` : ''),
      ),
    );
    const buttons = el('div', 'hdr-buttons');
    buttons.append(
      createButton('Copy safe pointer set', () => this.actions.onCopySafePointerSet(), 'primary'),
      createButton('Open summary record', () => this.actions.onOpenCheckpoint(), 'secondary'),
    );
    box.append(caption, bar, formula, safe, buttons);
    return box;
  }

  private renderLegend(checkpoint: CheckpointHeader, turnCount: number): HTMLElement {
    const legend = document.createElement('ul');
    legend.className = 'legend';
    legend.setAttribute('aria-label', 'Legend: turns per status');
    const counts: Record<RowStatus, number> = {
      ...checkpoint.counts,
      after: Math.max(0, turnCount - checkpoint.turnsBefore),
    };
    for (const status of ROW_STATUSES) {
      const item = document.createElement('li');
      item.className = `legend-item status-${status}`;
      item.dataset.status = status;
      item.dataset.count = String(counts[status]);
      item.title = statusDescription(status);
      const swatch = el('span', 'swatch', statusGlyph(status));
      swatch.setAttribute('aria-hidden', 'true');
      item.append(swatch, el('span', 'legend-count', fmt(counts[status])), el('span', 'legend-name', statusName(status)));
      legend.append(item);
    }
    return legend;
  }
}

/** A list item: our own prefix, then text that may quote the transcript. */
function textItem(prefix: string, value: string): HTMLElement {
  const item = el('li', '', prefix);
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
      return 'recorded in the transcript';
    case 'counted':
      return 'counted with the tokenizer';
    case 'mixed':
      return 'partly recorded, partly counted';
  }
}
