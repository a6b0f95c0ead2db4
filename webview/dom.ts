// Small DOM builders that only ever set text (textContent / text nodes), never HTML: everything shown
// here may come from an untrusted transcript.
import { countOf, groupDigits } from '../src/core/displayText';

/** An element with a class and, optionally, text content. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', content?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (content !== undefined) element.textContent = content;
  return element;
}

export function text(content: string): Text {
  return document.createTextNode(content);
}

/** A list whose items are the given strings. */
export function list(className: string, items: string[], ariaLabel?: string): HTMLUListElement {
  const ul = el('ul', className);
  if (ariaLabel) ul.setAttribute('aria-label', ariaLabel);
  for (const item of items) ul.append(el('li', '', item));
  return ul;
}

/** A number with its digits grouped ("42,000"), as everywhere else (core/displayText). */
export const fmt = groupDigits;

/** "1 turn", "2 turns", "1,024 turns": a count with its noun, pluralised (core/displayText). */
export const plural = countOf;
