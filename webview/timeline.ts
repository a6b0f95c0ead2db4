// The timeline: one row per turn in log order, as a virtual scroller (only the rows on screen, plus a
// little overscan, are in the DOM; fixed row height), with bands marking where each checkpoint happened
// and where the safe pointer set ends. It is an ARIA listbox with aria-activedescendant; arrows, PageUp/Down,
// Home/End move the selection, Enter opens, n/p jump between claimed-missing turns.

import { fullTurnId, groupDigits, isShortenedTurnId, shortTurnId } from '../src/core/displayText';
import type { RowStatus, TimelineRow } from '../src/protocol';
import { statusName } from '../src/statusWords';
import { BAND_HEIGHT, OVERSCAN, PRELOAD_ROWS, ROW_HEIGHT, rowIndexAt, rowTopOf } from '../src/view/timelineGeometry';
import { roleGlyph, statusGlyph } from './statusText';
import { appendTranscriptText, transcriptLabel, transcriptText } from './transcriptText';

/** How a selected row is brought into view: the least scroll that shows it, or to the middle of the list. */
type ScrollMode = 'nearest' | 'center';

/** A horizontal band drawn between rows: before row `boundary` (0 = above the first row). */
export interface TimelineBand {
  boundary: number;
  kind: 'checkpoint' | 'safe';
  label: string;
  /** The band of the selected checkpoint (drawn emphasised). */
  current: boolean;
}

export interface TimelineModel {
  rowCount: number;
  bands: TimelineBand[];
  /** Ascending turn indexes of the claimed-missing turns of the selected checkpoint. */
  claimedMissingIndexes: number[];
}

export interface TimelineHost {
  /** The row at `index` if it is loaded (loading it otherwise; `refresh` is called when it arrives). */
  rowAt(index: number): TimelineRow | undefined;
  /** Why row `index` has no data and will not get any (its page could not be loaded), or undefined. */
  rowProblem?(index: number): string | undefined;
  /** Rows `first`–`last` (inclusive) will likely be drawn soon: load those not loaded yet, without drawing them. */
  preload?(first: number, last: number): void;
  onSelect(index: number): void;
  onOpen(index: number): void;
  /** The list scrolled (where to, it asks when it needs to: reading it here would lay the page out early). */
  onScroll(): void;
  /** Something worth telling a screen reader user (e.g. "no later claimed-missing turn"). */
  announce(text: string): void;
}

interface RenderedRow {
  element: HTMLElement;
  /** The data last drawn in it (undefined = placeholder), to skip redrawing unchanged rows. */
  row: TimelineRow | undefined;
  selected: boolean;
  /** Drawn as holding what the search box found. */
  found: boolean;
}

export class Timeline {
  /** The scroll container; also the listbox that takes focus. */
  readonly element: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly bandLayer: HTMLElement;
  private model: TimelineModel = { rowCount: 0, bands: [], claimedMissingIndexes: [] };
  /** Band boundaries in ascending order (one entry per band), for position arithmetic. */
  private boundaries: number[] = [];
  private readonly rendered = new Map<number, RenderedRow>();
  private selectedIndex = -1;
  /** Rows that hold what the search box found (highlighted). */
  private found: ReadonlySet<number> = new Set();
  private frameRequested = false;
  /** Inside batch(): draws are held and made once at its end. */
  private holding = 0;
  /** The list's height when last measured, to keep the selection in view when it changes. */
  private lastHeight = 0;
  /** The scroll position of the last draw, to tell which way the list moves (rows ahead are preloaded). */
  private lastTop = 0;
  /** The view was set to a scroll position (restored), not moved, since the last draw. */
  private restored = false;

  constructor(
    private readonly host: TimelineHost,
    ariaLabel: string,
  ) {
    this.element = document.createElement('div');
    this.element.className = 'tl-scroll';
    this.element.tabIndex = 0;
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-label', ariaLabel);
    this.canvas = document.createElement('div');
    this.canvas.className = 'tl-canvas';
    this.bandLayer = document.createElement('div');
    this.bandLayer.className = 'tl-bands';
    this.bandLayer.setAttribute('aria-hidden', 'true');
    this.canvas.append(this.bandLayer);
    this.element.append(this.canvas);

    this.element.addEventListener('scroll', () => {
      this.scheduleRender();
      this.host.onScroll();
    });
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.canvas.addEventListener('click', (event) => {
      const row = (event.target as Element).closest<HTMLElement>('.row');
      if (!row) return;
      const index = Number(row.dataset.index);
      this.element.focus({ preventScroll: true });
      this.select(index, { scroll: 'none' });
      this.host.onOpen(index);
    });
    new ResizeObserver(() => this.onResize()).observe(this.element);
  }

  get selected(): number {
    return this.selectedIndex;
  }

  get scrollTop(): number {
    return this.element.scrollTop;
  }

  /** Scrolls to `value` as a view restored, not a move: no rows beyond the view are asked for. */
  set scrollTop(value: number) {
    this.element.scrollTop = value;
    this.restored = true;
    this.render();
  }

  /** Number of turn rows currently in the DOM (for tests and diagnostics). */
  get renderedRowCount(): number {
    return this.rendered.size;
  }

  /**
   * Takes a new model. When its bands are those drawn (an append: more rows, the same checkpoints), the rows on
   * screen stay where they are, and only those whose data changed are filled again (render tells them by their
   * row object); otherwise the bands are drawn again and every row with them.
   */
  setModel(model: TimelineModel): void {
    const sorted = [...model.bands].sort((a, b) => a.boundary - b.boundary || (a.kind === 'safe' ? -1 : 1));
    const sameBands = sameBandList(this.model.bands, sorted);
    const countChanged = model.rowCount !== this.model.rowCount;
    this.model = model;
    this.model.bands = sorted;
    this.boundaries = sorted.map((band) => band.boundary);
    this.canvas.style.height = `${this.totalHeight()}px`;
    this.element.setAttribute('aria-setsize', String(model.rowCount));
    if (this.selectedIndex >= model.rowCount) this.selectedIndex = model.rowCount - 1;
    if (!sameBands) {
      this.drawBands();
      this.invalidateRows();
      return;
    }
    if (countChanged) for (const entry of this.rendered.values()) entry.element.setAttribute('aria-setsize', String(model.rowCount));
    this.render();
  }

  /**
   * Runs `change` with drawing held, then draws once: changes made together (a new file's model, its selection and
   * its scroll position) then lay the page out once, not once each, and draw no rows the view then scrolls away from.
   */
  batch(change: () => void): void {
    this.holding++;
    try {
      change();
    } finally {
      this.holding--;
    }
    if (this.holding === 0) this.render();
  }

  /** Redraws every visible row from the data source (after new data arrived or was invalidated). */
  invalidateRows(): void {
    for (const entry of this.rendered.values()) entry.row = undefined;
    for (const entry of this.rendered.values()) entry.element.dataset.stale = '1';
    this.render();
  }

  /**
   * Fills rows whose data arrived since they were drawn, in the next frame: drawn at once, a page that came in
   * between frames left the layout to be made again when the scroll position was next read (in 29 of 300 frames of
   * the bench's scroll, 2 ms each); drawn with the frame's own changes, the page is laid out once.
   */
  refresh(): void {
    this.scheduleRender();
  }

  /** Selects a row and scrolls as `scroll` says (not at all, just into view, or to the middle). Does not open it. */
  select(index: number, { scroll }: { scroll: 'none' | ScrollMode }): void {
    if (this.model.rowCount === 0) return;
    const clamped = Math.max(0, Math.min(this.model.rowCount - 1, index));
    const changed = clamped !== this.selectedIndex;
    this.selectedIndex = clamped;
    if (scroll !== 'none') this.reveal(clamped, scroll);
    this.render();
    if (changed) this.host.onSelect(clamped);
  }

  /** Highlights the rows that hold what the search box found (an empty set clears). */
  setFound(indexes: ReadonlySet<number>): void {
    this.found = indexes;
    this.render();
  }

  /** Sets the selection without notifying (restoring state). */
  restoreSelection(index: number): void {
    this.selectedIndex = index < this.model.rowCount ? index : -1;
    this.render();
  }

  focus(): void {
    this.element.focus({ preventScroll: true });
  }

  rowTop(index: number): number {
    return rowTopOf(index, this.boundaries);
  }

  private totalHeight(): number {
    return this.model.rowCount * ROW_HEIGHT + this.boundaries.length * BAND_HEIGHT;
  }

  /** The row drawn at vertical position y (clamped to the rows that exist). */
  private rowIndexAt(y: number): number {
    return rowIndexAt(y, this.model.rowCount, this.boundaries);
  }

  private visibleRowCount(): number {
    return Math.max(1, Math.floor(this.element.clientHeight / ROW_HEIGHT));
  }

  private reveal(index: number, mode: ScrollMode): void {
    const top = this.rowTop(index);
    const height = this.element.clientHeight;
    if (mode === 'center') {
      this.element.scrollTop = Math.max(0, top - height / 2 + ROW_HEIGHT / 2);
    } else if (top < this.element.scrollTop) {
      this.element.scrollTop = top;
    } else if (top + ROW_HEIGHT > this.element.scrollTop + height) {
      this.element.scrollTop = top + ROW_HEIGHT - height;
    }
  }

  /**
   * The list changed size (the panel, the splitter, Details opened or closed): a selected row that was in view
   * stays in view.
   */
  private onResize(): void {
    const height = this.element.clientHeight;
    const before = this.lastHeight;
    this.lastHeight = height;
    const selected = this.selectedIndex;
    if (before > 0 && height !== before && selected >= 0 && selected < this.model.rowCount) {
      const top = this.rowTop(selected);
      const scroll = this.element.scrollTop;
      const wasVisible = top >= scroll && top + ROW_HEIGHT <= scroll + before;
      const isVisible = top >= scroll && top + ROW_HEIGHT <= scroll + height;
      if (wasVisible && !isVisible) this.reveal(selected, 'nearest');
    }
    this.scheduleRender();
  }

  private scheduleRender(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.render();
    });
  }

  private render(): void {
    if (this.holding > 0) return; // batch() draws once at its end
    const count = this.model.rowCount;
    const wanted = new Set<number>();
    let ahead: [number, number] | undefined;
    if (count > 0) {
      const top = this.element.scrollTop;
      const first = Math.max(0, this.rowIndexAt(top) - OVERSCAN);
      const last = Math.min(count - 1, this.rowIndexAt(top + Math.max(this.element.clientHeight, ROW_HEIGHT)) + OVERSCAN);
      for (let index = first; index <= last; index++) wanted.add(index);
      // The selected row stays in the DOM so aria-activedescendant always points at an element.
      if (this.selectedIndex >= 0 && this.selectedIndex < count) wanted.add(this.selectedIndex);
      // The rows the list moves towards, asked for once the rows drawn have been.
      if (this.restored) this.restored = false;
      else if (top > this.lastTop && last + 1 < count) ahead = [last + 1, Math.min(count - 1, last + PRELOAD_ROWS)];
      else if (top < this.lastTop && first > 0) ahead = [Math.max(0, first - PRELOAD_ROWS), first - 1];
      this.lastTop = top;
    }
    for (const [index, entry] of this.rendered) {
      if (!wanted.has(index)) {
        entry.element.remove();
        this.rendered.delete(index);
      }
    }
    for (const index of wanted) {
      let entry = this.rendered.get(index);
      const created = entry === undefined;
      if (!entry) {
        entry = { element: this.createRowElement(index), row: undefined, selected: false, found: false };
        this.rendered.set(index, entry);
        this.canvas.append(entry.element);
      }
      const row = this.host.rowAt(index);
      // A new element is always filled, even before its data arrives (it then shows "loading…"); a placeholder
      // is filled again when its page failed, to say so.
      const failedNow = row === undefined && this.host.rowProblem?.(index) !== undefined;
      const failedShown = entry.element.classList.contains('row-failed');
      if (created || row !== entry.row || entry.element.dataset.stale || failedNow !== failedShown) {
        delete entry.element.dataset.stale;
        this.fillRow(entry.element, index, row);
        entry.row = row;
      }
      const selected = index === this.selectedIndex;
      if (selected !== entry.selected) {
        entry.selected = selected;
        entry.element.setAttribute('aria-selected', String(selected));
        entry.element.classList.toggle('selected', selected);
      }
      const found = this.found.has(index);
      if (found !== entry.found) {
        entry.found = found;
        entry.element.classList.toggle('found', found);
        if (found) entry.element.setAttribute('aria-description', 'holds the text searched for');
        else entry.element.removeAttribute('aria-description');
      }
    }
    if (this.selectedIndex >= 0 && this.rendered.has(this.selectedIndex)) {
      this.element.setAttribute('aria-activedescendant', rowId(this.selectedIndex));
    } else {
      this.element.removeAttribute('aria-activedescendant');
    }
    if (ahead) this.host.preload?.(ahead[0], ahead[1]);
  }

  private createRowElement(index: number): HTMLElement {
    const element = document.createElement('div');
    element.className = 'row';
    element.id = rowId(index);
    element.setAttribute('role', 'option');
    element.setAttribute('aria-selected', 'false');
    element.setAttribute('aria-posinset', String(index + 1));
    element.setAttribute('aria-setsize', String(this.model.rowCount));
    element.dataset.index = String(index);
    element.style.top = `${this.rowTop(index)}px`;
    return element;
  }

  private fillRow(element: HTMLElement, index: number, row: TimelineRow | undefined): void {
    element.style.top = `${this.rowTop(index)}px`;
    element.setAttribute('aria-setsize', String(this.model.rowCount));
    const statusClass = [...element.classList].find((name) => name.startsWith('status-'));
    if (statusClass) element.classList.remove(statusClass);
    if (!row) {
      element.classList.add('pending');
      element.removeAttribute('data-status');
      // Not loaded yet: nothing to name the turn by (its id comes with its row), so only a placeholder.
      const problem = this.host.rowProblem?.(index);
      element.classList.toggle('row-failed', problem !== undefined);
      element.replaceChildren(span('row-id', ''), span('row-preview', problem ?? 'loading…'));
      return;
    }
    element.classList.remove('pending', 'row-failed');
    element.classList.add(`status-${row.status}`);
    element.dataset.status = row.status;
    const status = row.status as RowStatus;
    const glyph = span('row-glyph', statusGlyph(status));
    glyph.setAttribute('aria-hidden', 'true');
    const statusText = span('sr-only', `${statusName(status)}, `);
    // Everything from the transcript (role, id, label, preview) goes through transcriptText.ts.
    const role = span(`row-role role-${safeClass(row.role)}`, '');
    appendTranscriptText(role, roleGlyph(row.role));
    role.title = transcriptLabel(row.role);
    role.setAttribute('aria-label', transcriptLabel(row.role));
    // The turn is named by its own id, once: long ids shortened (core/displayText), the full id in the title.
    const id = span('row-id', '#');
    id.append(transcriptText(shortTurnId(row.id)));
    if (isShortenedTurnId(row.id)) id.title = transcriptLabel(fullTurnId(row.id));
    const children: Node[] = [glyph, statusText, id, role];
    if (row.label) children.push(withText('row-label', row.label));
    children.push(withText('row-preview', row.preview));
    children.push(span('row-tokens', row.tokens === undefined ? '' : `${groupDigits(row.tokens)} tok`));
    element.replaceChildren(...children);
  }

  private drawBands(): void {
    this.bandLayer.replaceChildren(
      ...this.model.bands.map((band, order) => {
        const element = document.createElement('div');
        element.className = `band band-${band.kind}${band.current ? ' current' : ''}`;
        element.dataset.boundary = String(band.boundary);
        element.dataset.kind = band.kind;
        element.style.top = `${band.boundary * ROW_HEIGHT + order * BAND_HEIGHT}px`;
        element.append(span('band-label', band.label));
        return element;
      }),
    );
  }

  private onKey(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const count = this.model.rowCount;
    if (count === 0) return;
    const current = this.selectedIndex;
    const page = Math.max(1, this.visibleRowCount() - 1);
    const firstVisible = this.rowIndexAt(this.element.scrollTop);
    let target: number | undefined;
    switch (event.key) {
      case 'ArrowDown':
        target = current < 0 ? firstVisible : current + 1;
        break;
      case 'ArrowUp':
        target = current < 0 ? firstVisible : current - 1;
        break;
      case 'PageDown':
        target = (current < 0 ? firstVisible : current) + page;
        break;
      case 'PageUp':
        target = (current < 0 ? firstVisible : current) - page;
        break;
      case 'Home':
        target = 0;
        break;
      case 'End':
        target = count - 1;
        break;
      case 'Enter':
        if (current >= 0) {
          event.preventDefault();
          this.host.onOpen(current);
        }
        return;
      case 'n':
      case 'p': {
        const found = event.key === 'n' ? this.nextMissing(current) : this.previousMissing(current);
        event.preventDefault();
        if (found === undefined) {
          const none = this.model.claimedMissingIndexes.length === 0;
          this.host.announce(
            none ? 'This checkpoint has no claimed-missing turns.' : `No ${event.key === 'n' ? 'later' : 'earlier'} claimed-missing turn.`,
          );
          return;
        }
        this.select(found, { scroll: 'center' });
        return;
      }
      default:
        return;
    }
    event.preventDefault();
    this.select(target, { scroll: 'nearest' });
  }

  private nextMissing(from: number): number | undefined {
    return this.model.claimedMissingIndexes.find((index) => index > from);
  }

  private previousMissing(from: number): number | undefined {
    const list = this.model.claimedMissingIndexes;
    const start = from < 0 ? this.model.rowCount : from;
    for (let i = list.length - 1; i >= 0; i--) if (list[i] < start) return list[i];
    return undefined;
  }
}

/** True when two sorted band lists draw the same bands. */
function sameBandList(a: readonly TimelineBand[], b: readonly TimelineBand[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (band, i) => band.boundary === b[i].boundary && band.kind === b[i].kind && band.label === b[i].label && band.current === b[i].current,
    )
  );
}

function rowId(index: number): string {
  return `tl-row-${index}`;
}

function span(className: string, text: string): HTMLElement {
  const element = document.createElement('span');
  element.className = className;
  element.textContent = text;
  return element;
}

/** A span holding transcript text (isolated, hidden characters shown as chips). */
function withText(className: string, value: string): HTMLElement {
  const element = span(className, '');
  element.append(transcriptText(value));
  return element;
}

/** A role name reduced to characters safe in a class name (a scan: no regular expression on transcript text). */
function safeClass(value: string): string {
  let out = '';
  for (let i = 0; i < value.length && out.length < 40; i++) {
    const c = value[i];
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '-') out += c;
    else if (c >= 'A' && c <= 'Z') out += c.toLowerCase();
  }
  return out;
}
