// The only module that knows the UI component library (@vscode/webview-ui-toolkit). Everything else asks
// for controls through these factories, so swapping to another library (e.g. @vscode-elements/elements)
// touches this file alone. CSP note: FAST probes :focus-visible support with a <style> element carrying the
// nonce from <meta property="csp-nonce">, so the panel's style-src allows that nonce (see webviewHtml.ts).

import { provideVSCodeDesignSystem, vsCodeButton, vsCodeDivider, vsCodeDropdown, vsCodeOption } from '@vscode/webview-ui-toolkit';

let registered = false;

/** Registers the components the webview uses (once). */
export function registerToolkit(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(vsCodeDropdown(), vsCodeOption(), vsCodeButton(), vsCodeDivider());
}

export interface ChoiceOption {
  value: string;
  text: string;
  /**
   * Draws the option (in the list and, when chosen, in the closed dropdown) instead of `text`: for labels
   * holding transcript text, whose hidden characters are drawn as chips (transcriptText.ts).
   */
  render?: () => Node;
}

/** A dropdown of choices; `onChange` receives the chosen value. */
export interface Choice {
  element: HTMLElement;
  setOptions(options: ChoiceOption[], selected: string): void;
  setValue(value: string): void;
}

export function createChoice(ariaLabel: string, onChange: (value: string) => void): Choice {
  const dropdown = document.createElement('vscode-dropdown') as HTMLElement & { value: string };
  dropdown.setAttribute('aria-label', ariaLabel);
  dropdown.setAttribute('position', 'below');
  let current = '';
  let renderers = new Map<string, () => Node>();
  // The closed dropdown shows its chosen option's text as a string; an element in its "selected-value" slot
  // replaces that, so a rendered option looks the same open and closed.
  const shown = document.createElement('span');
  shown.slot = 'selected-value';
  shown.className = 'choice-value';
  const showValue = (value: string): void => {
    const render = renderers.get(value);
    if (render) shown.replaceChildren(render());
    if (render && !shown.isConnected) dropdown.append(shown);
    if (!render) shown.remove();
  };
  dropdown.addEventListener('change', () => {
    showValue(dropdown.value);
    if (dropdown.value !== current) {
      current = dropdown.value;
      onChange(dropdown.value);
    }
  });
  const setValue = (value: string): void => {
    current = value;
    showValue(value);
    for (const option of Array.from(dropdown.children)) {
      const selected = (option as HTMLElement & { value: string }).value === value;
      option.toggleAttribute('selected', selected);
      (option as HTMLElement & { selected: boolean }).selected = selected;
    }
    dropdown.value = value;
  };
  return {
    element: dropdown,
    setOptions(options, selected) {
      renderers = new Map(options.flatMap((choice) => (choice.render ? [[choice.value, choice.render] as const] : [])));
      dropdown.replaceChildren(
        ...options.map((choice) => {
          const option = document.createElement('vscode-option') as HTMLElement & { value: string };
          option.setAttribute('value', choice.value);
          option.value = choice.value;
          if (choice.render) option.append(choice.render());
          else option.textContent = choice.text;
          return option;
        }),
      );
      setValue(selected);
    },
    setValue,
  };
}

export type ButtonLook = 'primary' | 'secondary';

export function createButton(text: string, onClick: () => void, look: ButtonLook = 'secondary', ariaLabel?: string): HTMLElement {
  const button = document.createElement('vscode-button');
  button.setAttribute('appearance', look);
  button.textContent = text;
  if (ariaLabel) button.setAttribute('aria-label', ariaLabel);
  button.addEventListener('click', onClick);
  return button;
}

/**
 * A small count badge. Not the toolkit's <vscode-badge>: its template carries a `style` attribute, which the
 * panel's CSP (no 'unsafe-inline') reports as a violation. A span styled with the same theme colours instead.
 */
export function createBadge(text: string, ariaLabel?: string): HTMLElement {
  const badge = document.createElement('span');
  badge.className = 'cl-badge';
  badge.textContent = text;
  if (ariaLabel) badge.setAttribute('aria-label', ariaLabel);
  return badge;
}

export function createDivider(): HTMLElement {
  const divider = document.createElement('vscode-divider');
  divider.setAttribute('role', 'presentation');
  return divider;
}
