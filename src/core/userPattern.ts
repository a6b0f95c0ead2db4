// A regular expression a user typed (find's `/regex/flags`), checked before it runs on transcript text. A
// transcript may be megabytes, so a pattern that backtracks super-linearly would freeze the CLI or the extension
// host. The analysis is src/core/regexShape.ts, shared with scripts/check-regex.mjs (the lint rule for the
// project's own patterns); the rules here are stricter for text we do not control: backreferences and
// lookarounds are refused, a bounded repeat {n,m} counts as a repeat (so (a|a){1,50} is refused as (a|a)+ is),
// bounded repeats stay small, and a pattern that matches empty text is refused. What passes runs in time linear
// in the text; what does not gets a sentence saying why, and the caller suggests plain text instead.

import { type Construct, type GroupAtom, type Item, INF, alternativesOverlap, parse, shapes, srcOf, width } from './regexShape';

/** Longest pattern accepted (characters). */
export const MAX_PATTERN_LENGTH = 500;
/** Largest bound of a {n,m} repeat accepted. */
export const MAX_BOUNDED_REPEAT = 100;
/** Most ways a pattern's ambiguous alternatives may combine ((a|ab)(c|cd)… multiplies the tries at each position). */
const MAX_AMBIGUITY = 64;
/** Flags a user pattern may carry (g is added by the search itself and accepted for habit's sake). */
export const PATTERN_FLAGS = 'gimsu';

/** Thrown by `refuse` with a sentence for the user. */
class Refused extends Error {}

/**
 * Why `source` (with `flags`) may not run on transcript text, or undefined when it may. The sentence is written
 * for the user ("the pattern repeats a group that repeats…").
 */
export function userPatternProblem(source: string, flags: string): string | undefined {
  if (source.length === 0) return 'the pattern is empty';
  if (source.length > MAX_PATTERN_LENGTH) return `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`;
  const unknown = [...flags].filter((f) => !PATTERN_FLAGS.includes(f));
  if (unknown.length > 0) return `unsupported flag${unknown.length === 1 ? '' : 's'} ${unknown.join('')} (use ${PATTERN_FLAGS})`;
  if (new Set(flags).size !== flags.length) return 'a flag is repeated';
  let compiled: RegExp;
  try {
    compiled = new RegExp(source, flags.replace('g', ''));
  } catch (err) {
    return `it is not a valid regular expression (${err instanceof Error ? err.message : String(err)})`;
  }
  let tree: Item[][];
  try {
    tree = parse(source, flags, refuse);
  } catch (err) {
    return err instanceof Refused ? err.message : 'it could not be read';
  }
  const hazard = hazards(tree, flags)[0];
  if (hazard !== undefined) return `it could take very long on a long turn: ${hazard}`;
  if (compiled.test('')) return 'it matches empty text, so it would match every turn';
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The rules

/** What the parser meets that a user pattern may not hold (the regex is already known to be valid). */
function refuse(construct: Construct): void {
  if (construct.kind === 'lookaround') throw new Refused('lookarounds ((?=…), (?!…), (?<=…), (?<!…)) are not supported');
  if (construct.kind === 'modifiers') throw new Refused('inline modifiers ((?i:…)) are not supported; put flags after the closing /');
  if (construct.kind === 'backreference') throw new Refused('backreferences (\\1, \\k<name>) are not supported');
  if (Math.max(construct.min, construct.max === INF ? 0 : construct.max) > MAX_BOUNDED_REPEAT)
    throw new Refused(`a repeat count above ${MAX_BOUNDED_REPEAT} (${construct.text})`);
}

/** Taken a variable number of times: x*, x+, x?, x{2,5} (not x{3}). */
const varies = (item: Item) => item.min !== item.max && width(item.atom).max > 0;
/** Repeated a variable number of times, more than once at most: x*, x+, x{2,5} (not x?, not x{3}). */
const repeats = (item: Item) => varies(item) && item.max > 1;

/** Each reason the pattern can backtrack super-linearly (none: it is safe). */
function hazards(tree: Item[][], flags: string): string[] {
  const found = shapes(tree, flags, { group: repeats, run: varies }).map((shape) => {
    if (shape.rule === 'nested') return `${shape.group.src} is repeated and holds a repeat of its own`;
    if (shape.rule === 'alternatives') return `the alternatives of ${shape.group.src} can start with the same character and are repeated`;
    if (shape.rule === 'inRow') return `${srcOf(shape.first)} and ${srcOf(shape.next)} can take the same characters`;
    return `${srcOf(shape.run)} is retried from every position of a long run of what it takes`;
  });
  if (ambiguity(tree, flags) > MAX_AMBIGUITY) found.push('too many of its alternatives can start with the same character');
  return found;
}

/** The product of the alternatives of every ambiguous group (each repeat counted): how many tries may combine. */
function ambiguity(alts: Item[][], flags: string): number {
  let product = 1;
  for (const alt of alts) {
    for (const item of alt) {
      if (item.atom.kind !== 'group') continue;
      const group: GroupAtom = item.atom;
      const inner = ambiguity(group.alts, flags);
      const own = alternativesOverlap(group, flags) ? group.alts.length : 1;
      const times = Math.min(Math.max(item.max, 1), MAX_BOUNDED_REPEAT);
      product *= Math.pow(own * inner, times);
      if (product > MAX_AMBIGUITY) return product;
    }
  }
  return product;
}
