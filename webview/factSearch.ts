// The timeline's search box: "where did this fact go?". Enter asks the host (the findFact request) for the
// turns whose text holds the text or /regex/; the matching rows are highlighted in the list, and the search moves
// through them like an editor's find widget (Enter / Shift+Enter or ▲ ▼, Escape clears): each one is selected
// in the timeline and its route for the selected checkpoint is said under the box — "claimed by S1 but absent
// from its summary; raw log line 409", flagged. The host's words quote transcript text: shown as text only.

import type { FactFoundResponse, FoundTurn } from '../src/protocol';
import { shortTurnId } from '../src/core/displayText';
import { el, fmt, plural } from './dom';
import { transcriptLabel, transcriptText } from './transcriptText';

export interface FactSearchHost {
  /** Asks the host for the turns holding `query`, for the selected checkpoint. */
  find(query: string): Promise<FactFoundResponse>;
  /** The matching turns' indexes, to highlight (empty: none). */
  onMatches(indexes: ReadonlySet<number>): void;
  /** Selects turn `index` in the timeline. */
  onGo(index: number): void;
  /** Gives the keyboard back to the timeline (Escape). */
  onDone(): void;
  announce(text: string): void;
}

const FLAGGED = 'flagged: the pointer set alone would have said this fact never existed';

export class FactSearch {
  /** The box and its buttons, for the timeline's heading. */
  readonly controls: HTMLElement;
  /** The route of the current match (or why there is none), under the heading; hidden when nothing is searched. */
  readonly routeBar: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly previous: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private answer: FactFoundResponse | undefined;
  private current = -1;
  /** Increments per search, so a late answer for an older one is dropped. */
  private ticket = 0;

  constructor(private readonly host: FactSearchHost) {
    this.controls = el('div', 'fs-controls');
    this.controls.setAttribute('role', 'search');
    this.input = el('input', 'fs-input');
    this.input.type = 'search';
    this.input.placeholder = 'Where did this go? text or /regex/';
    this.input.setAttribute(
      'aria-label',
      'Find where a fact went: text (any case), or /regex/; Enter searches and moves to the next match',
    );
    this.input.spellcheck = false;
    this.input.addEventListener('keydown', (event) => this.onKey(event));
    this.input.addEventListener('search', () => {
      if (this.input.value === '') this.clear();
    });
    this.count = el('span', 'fs-count');
    this.previous = this.button('▲', 'Previous match (Shift+Enter)', () => this.step(-1));
    this.next = this.button('▼', 'Next match (Enter)', () => this.step(1));
    this.controls.append(this.input, this.count, this.previous, this.next);
    this.routeBar = el('div', 'fs-route');
    this.routeBar.hidden = true;
    this.update();
  }

  /** Puts the keyboard in the box, its text selected. */
  focus(): void {
    this.input.focus();
    this.input.select();
  }

  /** Asks again for the last query (the checkpoint or the analysis changed), keeping the current match if it still matches. */
  refresh(): void {
    if (this.answer) void this.search(this.answer.query, this.answer.turns[this.current]?.index);
  }

  private button(label: string, title: string, action: () => void): HTMLButtonElement {
    const button = el('button', 'fs-step', label);
    button.type = 'button';
    button.title = title;
    button.setAttribute('aria-label', title);
    button.addEventListener('click', action);
    return button;
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter') {
      event.preventDefault();
      const query = this.input.value;
      if (query.trim() === '') this.clear();
      else if (this.answer && this.answer.query === query && !this.answer.error) this.step(event.shiftKey ? -1 : 1);
      else void this.search(query);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.input.value = '';
      this.clear();
      this.host.onDone();
    }
  }

  private async search(query: string, keep?: number): Promise<void> {
    const ticket = ++this.ticket;
    this.count.textContent = 'searching…';
    let answer: FactFoundResponse;
    try {
      answer = await this.host.find(query);
    } catch (error) {
      if (ticket !== this.ticket) return;
      answer = { checkpointIndex: -1, query, error: `could not search: ${(error as Error).message}`, turns: [], omitted: 0, flagged: 0 };
    }
    if (ticket !== this.ticket) return;
    this.answer = answer;
    this.host.onMatches(new Set(answer.turns.map((turn) => turn.index)));
    const kept = keep === undefined ? -1 : answer.turns.findIndex((turn) => turn.index === keep);
    this.current = kept >= 0 ? kept : answer.turns.length > 0 ? 0 : -1;
    this.update();
    this.host.announce(this.countText());
    const turn = answer.turns[this.current];
    if (turn && kept < 0) this.host.onGo(turn.index);
  }

  private step(delta: number): void {
    const turns = this.answer?.turns ?? [];
    if (turns.length === 0) return;
    this.current = (this.current + delta + turns.length) % turns.length;
    this.update();
    this.host.onGo(turns[this.current].index);
    this.host.announce(`${this.countText()}: ${this.routeText(turns[this.current])}`);
  }

  private clear(): void {
    this.ticket++;
    this.answer = undefined;
    this.current = -1;
    this.host.onMatches(new Set());
    this.update();
  }

  private countText(): string {
    const answer = this.answer;
    if (!answer) return '';
    if (answer.error) return 'refused';
    const total = answer.turns.length + answer.omitted;
    if (total === 0) return 'no turn holds it';
    const flagged = answer.flagged > 0 ? ` · ${fmt(answer.flagged)} flagged` : '';
    const more = answer.omitted > 0 ? ` (${fmt(answer.turns.length)} listed)` : '';
    return `${fmt(this.current + 1)} of ${plural(total, 'turn')}${more}${flagged}`;
  }

  private routeText(turn: FoundTurn): string {
    return `${turn.why}; ${turn.says}${turn.flagged ? ` — ${FLAGGED}` : ''}`;
  }

  private update(): void {
    const answer = this.answer;
    const turns = answer?.turns ?? [];
    this.count.textContent = this.countText();
    this.previous.disabled = turns.length < 2;
    this.next.disabled = turns.length < 2;
    const bar = this.routeBar;
    bar.hidden = answer === undefined;
    bar.classList.remove('fs-flagged', 'fs-error', 'fs-summary');
    if (!answer) {
      bar.replaceChildren();
      return;
    }
    if (answer.error) {
      bar.classList.add('fs-error');
      bar.replaceChildren(transcriptText(answer.error));
      return;
    }
    const turn = turns[this.current];
    if (!turn) {
      bar.replaceChildren(el('span', '', 'No turn holds '), transcriptText(answer.query, 'fs-query'), el('span', '', '.'));
      return;
    }
    if (turn.flagged) bar.classList.add('fs-flagged');
    else if (turn.route === 'summary') bar.classList.add('fs-summary');
    const name = el('span', 'fs-turn', 'turn ');
    name.append(transcriptText(shortTurnId(turn.id)));
    name.append(` · line ${turn.line}: `);
    const parts: Node[] = [name, transcriptText(`${turn.why}; ${turn.says}`, 'fs-why')];
    if (turn.flagged) parts.push(el('span', 'fs-flag', ` — ${FLAGGED}`));
    bar.replaceChildren(...parts);
    bar.title = transcriptLabel(`${turn.excerpt.before}${turn.excerpt.match}${turn.excerpt.after}`);
  }
}
