// A splitter between two panes, following the WAI-ARIA window splitter pattern: a focusable
// role="separator" whose aria-valuenow is the first pane's share of the container in percent. Arrow keys
// move it by 5 % (Shift: 1 %), Home / End to the first pane's least / most, Enter restores the default;
// a pointer drags it. The first pane's size is written as a custom property on the container in
// pixels, clamped so each pane keeps its minimum; the grids in timeline.css use it. The share, not the pixels,
// is what is remembered, so the split follows the panel's size.

export type SplitDirection = 'columns' | 'rows';

export interface SplitterOptions {
  /** The element whose grid holds first pane, separator, second pane (gets `property`). */
  container: HTMLElement;
  /** The custom property the first pane's size is written to, e.g. "--cl-list-size". */
  property: string;
  label: string;
  /** Side by side ('columns', a vertical separator) or one above the other ('rows'). May change with the panel's size. */
  direction(): SplitDirection;
  /** Least and most pixels of the first pane for a container of `total` pixels in that direction. */
  limits(total: number, direction: SplitDirection): { min: number; max: number };
  share: number;
  defaultShare: number;
  onChange(share: number): void;
}

const STEP = 0.05;
const FINE_STEP = 0.01;
export const SEPARATOR_SIZE = 6;

export class Splitter {
  readonly element: HTMLElement;
  private shareValue: number;

  constructor(private readonly options: SplitterOptions) {
    this.shareValue = clampShare(options.share);
    this.element = document.createElement('div');
    this.element.className = 'splitter';
    this.element.tabIndex = 0;
    this.element.setAttribute('role', 'separator');
    this.element.setAttribute('aria-label', options.label);
    this.element.setAttribute('aria-valuemin', '0');
    this.element.setAttribute('aria-valuemax', '100');
    this.element.title = `${options.label}: drag, or focus and use the arrow keys (Enter resets)`;
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.element.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    new ResizeObserver(() => this.apply()).observe(options.container);
  }

  get share(): number {
    return this.shareValue;
  }

  set share(value: number) {
    this.shareValue = clampShare(value);
    this.apply();
  }

  /** Writes the first pane's size for the container's current size and direction. */
  apply(): void {
    const direction = this.options.direction();
    const total = this.total(direction);
    this.element.setAttribute('aria-orientation', direction === 'columns' ? 'vertical' : 'horizontal');
    this.element.dataset.direction = direction;
    if (total <= 0) return;
    const { min, max } = this.options.limits(total, direction);
    const pixels = Math.round(Math.max(min, Math.min(Math.max(min, max), this.shareValue * total)));
    this.options.container.style.setProperty(this.options.property, `${pixels}px`);
    this.element.setAttribute('aria-valuenow', String(Math.round((pixels / total) * 100)));
  }

  private total(direction: SplitDirection): number {
    const box = this.options.container.getBoundingClientRect();
    return (direction === 'columns' ? box.width : box.height) - SEPARATOR_SIZE;
  }

  /** The share the first pane really has now (after clamping), so keys move from what is seen. */
  private shownShare(): number {
    const now = Number(this.element.getAttribute('aria-valuenow'));
    return Number.isFinite(now) ? now / 100 : this.shareValue;
  }

  private set(share: number): void {
    const next = clampShare(share);
    this.shareValue = next;
    this.apply();
    this.options.onChange(next);
  }

  private onKey(event: KeyboardEvent): void {
    const columns = this.options.direction() === 'columns';
    const step = event.shiftKey ? FINE_STEP : STEP;
    const grow = columns ? 'ArrowRight' : 'ArrowDown';
    const shrink = columns ? 'ArrowLeft' : 'ArrowUp';
    let next: number | undefined;
    switch (event.key) {
      case grow:
        next = this.shownShare() + step;
        break;
      case shrink:
        next = this.shownShare() - step;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = 1;
        break;
      case 'Enter':
        next = this.options.defaultShare;
        break;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
    this.set(next);
    // Home / End land on the clamped limit: remember that, not 0 or 1.
    if (event.key === 'Home' || event.key === 'End') this.set(this.shownShare());
  }

  private onPointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    event.preventDefault();
    this.element.focus();
    this.element.setPointerCapture(event.pointerId);
    this.element.classList.add('dragging');
    const direction = this.options.direction();
    const box = this.options.container.getBoundingClientRect();
    const move = (moved: PointerEvent): void => {
      const offset = direction === 'columns' ? moved.clientX - box.left : moved.clientY - box.top;
      const total = (direction === 'columns' ? box.width : box.height) - SEPARATOR_SIZE;
      if (total > 0) {
        this.shareValue = clampShare((offset - SEPARATOR_SIZE / 2) / total);
        this.apply();
      }
    };
    const up = (): void => {
      this.element.removeEventListener('pointermove', move);
      this.element.removeEventListener('pointerup', up);
      this.element.removeEventListener('pointercancel', up);
      this.element.classList.remove('dragging');
      this.set(this.shownShare());
    };
    this.element.addEventListener('pointermove', move);
    this.element.addEventListener('pointerup', up);
    this.element.addEventListener('pointercancel', up);
  }
}

function clampShare(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0.5;
}
