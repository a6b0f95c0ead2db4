// Plain words for the terms the panel uses: one sentence each, shown as a tooltip wherever the term appears
// (a dotted underline marks it) and listed in the "What do these words mean?" section inside Details.

import { el } from './dom';

export type Term =
  | 'claimed'
  | 'pointer set'
  | 'safe pointer set'
  | 'evidence'
  | 'prefix tokens'
  | 'summary budget'
  | 'R_low'
  | 'ceiling'
  | 'Path A'
  | 'Path B'
  | 'reversible'
  | 'conditional'
  | 'fail-closed'
  | 'recorded'
  | 'counted';

export const GLOSSARY: Record<Term, string> = {
  claimed:
    'A turn the compaction says its summary stands for. Claimed turns are dropped from the context; the agent trusts the summary for them.',
  'pointer set': 'The list of turns a compaction claims its summary covers.',
  'safe pointer set':
    'The claimed turns the summary is shown to cover, unbroken from the start: what the pointer set should have claimed. The turns after it must be read from the raw log.',
  evidence:
    'What a faithful summary would keep of a turn: its paths, commands, ids, error codes, numbers and distinctive words. A claimed turn counts as covered when enough of its evidence is found in the summary.',
  'prefix tokens':
    'The size, in tokens, of the claimed turns: the part of the conversation the summary replaces. Recorded by the agent where the transcript says, otherwise counted with the tokenizer.',
  'summary budget':
    'The most tokens the summary may use. Taken from the transcript when the agent records it, otherwise assumed for the format (then marked “assumed”).',
  R_low: 'The compression-ratio floor (5 unless you change it): how many prefix tokens one summary token can be trusted to stand for.',
  ceiling:
    'Summary budget × R_low: the largest prefix a summary of that budget can be trusted to cover. Over it, only coverage that can be proved counts.',
  'Path A': 'The summariser reported which turns it consumed: only those count as covered.',
  'Path B': 'The summariser reported nothing: a claimed turn counts as covered only when its evidence is found in the summary.',
  reversible: 'Safe: every claimed turn that holds something worth keeping is carried by the summary.',
  conditional: 'Usable once the pointer set is narrowed to the turns the summary is shown to cover.',
  'fail-closed':
    'Coverage cannot be shown, so none is assumed: the pointer set may not go past the safe pointer set, and the rest must be read from the raw log.',
  recorded: 'A figure the agent wrote into the transcript itself.',
  counted: 'A figure Compaction Lens counted from the text with the tokenizer.',
};

/** The order of the glossary list. */
const ORDER: Term[] = [
  'claimed',
  'pointer set',
  'safe pointer set',
  'evidence',
  'prefix tokens',
  'summary budget',
  'R_low',
  'ceiling',
  'Path A',
  'Path B',
  'reversible',
  'conditional',
  'fail-closed',
  'recorded',
  'counted',
];

/** A word of ours with its explanation as a tooltip (dotted underline). `shown` defaults to the term. */
export function term(name: Term, shown: string = name): HTMLElement {
  const span = el('span', 'term', shown);
  span.title = GLOSSARY[name];
  span.dataset.term = name;
  return span;
}

/** The "What do these words mean?" section: a native <details> (keyboard accessible) holding a <dl>. */
export function glossarySection(): HTMLElement {
  const box = document.createElement('details');
  box.className = 'glossary';
  const summary = document.createElement('summary');
  summary.textContent = 'What do these words mean?';
  const list = el('dl', 'glossary-list');
  for (const name of ORDER) list.append(el('dt', '', name), el('dd', '', GLOSSARY[name]));
  box.append(summary, list);
  return box;
}
