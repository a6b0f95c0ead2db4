// A visible, dismissible banner for errors the host reports (or requests that failed), newest first.

import { el } from './dom';
import { severityIcon } from './statusText';
import { createButton } from './toolkit';
import { transcriptText } from './transcriptText';

export class ErrorBanner {
  readonly element: HTMLElement;

  constructor() {
    this.element = el('div', 'cl-banners');
  }

  show(message: string): void {
    // The same message again just moves to the top instead of stacking up.
    for (const existing of this.element.querySelectorAll<HTMLElement>('.banner')) {
      if (existing.dataset.message === message) existing.remove();
    }
    const banner = el('div', 'banner banner-error');
    banner.setAttribute('role', 'alert');
    banner.dataset.message = message;
    const glyph = severityIcon('error');
    glyph.classList.add('banner-glyph');
    const dismiss = createButton('Dismiss', () => banner.remove(), 'secondary', 'Dismiss this message');
    dismiss.classList.add('banner-dismiss');
    // Host errors can quote the transcript (ids, file names): shown as transcript text.
    const body = el('span', 'banner-text');
    body.append(transcriptText(message));
    banner.append(glyph, body, dismiss);
    this.element.prepend(banner);
    while (this.element.children.length > 3) this.element.lastElementChild?.remove();
  }
}
