// The shape of a regular expression, for judging whether it can backtrack super-linearly: a parser into
// alternatives of quantified atoms, the characters an atom takes (on a sample of code points, asking the engine
// itself), widths, and the three shapes that make a backtracking engine slow. Shared by the lint rule for the
// project's own patterns (scripts/check-regex.mjs, which loads this file through esbuild) and the guard for
// patterns users type (src/core/userPattern.ts); each keeps its own rules of what to refuse and how to say it.

export const INF = Infinity;

export interface CharAtom {
  kind: 'char';
  /** One character: a literal, an escape, a class or '.'. */
  src: string;
}
export interface GroupAtom {
  kind: 'group';
  alts: Item[][];
  /** A lookaround's direction; undefined for a plain or capturing group. */
  look: 'ahead' | 'behind' | undefined;
  negative: boolean;
  src: string;
}
export interface AssertAtom {
  kind: 'assert';
  which: string;
}
export interface BackrefAtom {
  kind: 'backref';
}
export type Atom = CharAtom | GroupAtom | AssertAtom | BackrefAtom;
export interface Item {
  atom: Atom;
  min: number;
  max: number;
}

/** A construct the parser met that a caller may refuse (by throwing from `ParseChecks.refuse`). */
export type Construct =
  { kind: 'lookaround' } | { kind: 'modifiers' } | { kind: 'backreference' } | { kind: 'repeat'; min: number; max: number; text: string };

/**
 * Parses a regex source into its top-level alternatives. Lookarounds, inline modifiers ((?i:…)), backreferences
 * and counted repeats are reported to `refuse` (if given) as they are met, in source order, before they are read.
 */
export function parse(source: string, flags: string, refuse?: (construct: Construct) => void): Item[][] {
  const unicode = flags.includes('u') || flags.includes('v');
  let i = 0;
  const peek = (s: string) => source.startsWith(s, i);

  function alternatives(): Item[][] {
    const alts = [sequence()];
    while (source[i] === '|') {
      i++;
      alts.push(sequence());
    }
    return alts;
  }

  function sequence(): Item[] {
    const items: Item[] = [];
    while (i < source.length && source[i] !== '|' && source[i] !== ')') {
      const atom = parseAtom();
      items.push({ atom, ...quantifier() });
    }
    return items;
  }

  function parseAtom(): Atom {
    const start = i;
    const c = source[i];
    if (c === '(') {
      i++;
      let look: GroupAtom['look'];
      let negative = false;
      if (peek('?=') || peek('?!') || peek('?<=') || peek('?<!')) {
        refuse?.({ kind: 'lookaround' });
        look = peek('?<') ? 'behind' : 'ahead';
        negative = source[i + (look === 'behind' ? 2 : 1)] === '!';
        i += look === 'behind' ? 3 : 2;
      } else if (peek('?:')) i += 2;
      else if (peek('?<')) i = source.indexOf('>', i) + 1;
      else if (peek('?')) {
        refuse?.({ kind: 'modifiers' });
        i = source.indexOf(':', i) + 1;
      }
      const alts = alternatives();
      i++; // ')'
      return { kind: 'group', alts, look, negative, src: source.slice(start, i) };
    }
    if (c === '[') {
      i++;
      if (source[i] === '^') i++;
      let depth = 1;
      while (i < source.length && depth > 0) {
        if (source[i] === '\\') i += 2;
        else if (source[i] === '[' && flags.includes('v')) {
          depth++;
          i++;
        } else if (source[i] === ']') {
          depth--;
          i++;
        } else i++;
      }
      return { kind: 'char', src: source.slice(start, i) };
    }
    if (c === '^' || c === '$') {
      i++;
      return { kind: 'assert', which: c };
    }
    if (c === '\\') {
      const d = source[i + 1] ?? '';
      if (d === 'b' || d === 'B') {
        i += 2;
        return { kind: 'assert', which: `\\${d}` };
      }
      if ((d >= '1' && d <= '9') || (d === 'k' && source[i + 2] === '<')) {
        refuse?.({ kind: 'backreference' });
        if (d === 'k') i = source.indexOf('>', i) + 1;
        else {
          i += 2;
          while (i < source.length && source[i] >= '0' && source[i] <= '9') i++;
        }
        return { kind: 'backref' };
      }
      if ((d === 'p' || d === 'P') && source[i + 2] === '{') i = source.indexOf('}', i) + 1;
      else if (d === 'u' && source[i + 2] === '{') i = source.indexOf('}', i) + 1;
      else if (d === 'u') i += 6;
      else if (d === 'x') i += 4;
      else if (d === 'c') i += 3;
      else i += 2;
      return { kind: 'char', src: source.slice(start, i) };
    }
    const code = source.codePointAt(i) ?? 0;
    i += unicode && code > 0xffff ? 2 : 1;
    return { kind: 'char', src: source.slice(start, i) };
  }

  function quantifier(): { min: number; max: number } {
    let min = 1;
    let max = 1;
    const c = source[i];
    if (c === '*') {
      min = 0;
      max = INF;
      i++;
    } else if (c === '+') {
      max = INF;
      i++;
    } else if (c === '?') {
      min = 0;
      i++;
    } else if (c === '{') {
      COUNTED.lastIndex = i;
      const m = COUNTED.exec(source);
      if (!m) return { min, max };
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? INF : Number(m[3]);
      refuse?.({ kind: 'repeat', min, max, text: m[0] });
      i += m[0].length;
    } else return { min, max };
    if (source[i] === '?') i++; // lazy: the same ambiguity
    return { min, max };
  }

  return alternatives();
}

/** A counted repeat, {n}, {n,} or {n,m}, read where it starts (the digits in full, however many). */
const COUNTED = /\{(\d+)(?:(,)(\d*))?\}/y;

// ---------------------------------------------------------------------------------------------------------------
// Character sets, on a sample of code points (the engine itself says which ones an atom takes)

const SAMPLE: string[] = (() => {
  const points: number[] = [];
  for (let c = 0; c <= 0x17f; c++) points.push(c);
  for (let c = 0x2000; c <= 0x206f; c++) points.push(c);
  points.push(0x0130, 0x0131, 0x017f, 0x0300, 0x0307, 0x0391, 0x03b1, 0x0410, 0x0430, 0x05d0, 0x0627, 0x0660, 0x0966);
  points.push(0x1680, 0x180e, 0x1e9e, 0x212a, 0x212b, 0x2190, 0x2500, 0x3000, 0x3042, 0x4e00, 0xfeff, 0xff01, 0xff21);
  return points.map((p) => String.fromCodePoint(p));
})();

/** Which of the sample characters a set holds: 1 or 0 for each. */
export type CharSet = Uint8Array;

export const EMPTY: CharSet = new Uint8Array(SAMPLE.length);

/** Sets already asked of the engine, by flags and atom; cleared when full, so memory stays bounded. */
const setCache = new Map<string, CharSet>();
const SET_CACHE_SIZE = 2000;

/** The sample characters one 'char' atom (or any one-character pattern) takes. */
export function charSet(src: string, flags: string): CharSet {
  const key = `${flags}/${src}`;
  const known = setCache.get(key);
  if (known) return known;
  const set = new Uint8Array(SAMPLE.length);
  try {
    const re = new RegExp(`^(?:${src})$`, [...flags].filter((f) => 'isuv'.includes(f)).join(''));
    SAMPLE.forEach((ch, k) => (set[k] = re.test(ch) ? 1 : 0));
  } catch {
    set.fill(1); // cannot tell: assume it takes anything
  }
  if (setCache.size >= SET_CACHE_SIZE) setCache.clear();
  setCache.set(key, set);
  return set;
}

export const LINE_BREAKS: CharSet = charSet('[\\n\\r\\u2028\\u2029]', '');

export function union(a: CharSet, b: CharSet): CharSet {
  const out = new Uint8Array(SAMPLE.length);
  for (let k = 0; k < out.length; k++) out[k] = a[k] | b[k];
  return out;
}
export const overlaps = (a: CharSet, b: CharSet) => a.some((v, k) => v === 1 && b[k] === 1);
export const covers = (a: CharSet, b: CharSet) => b.every((v, k) => v === 0 || a[k] === 1);
export const isAll = (a: CharSet) => a.every((v) => v === 1);

/** Every character an atom can take (a group: all its atoms, lookarounds aside). */
export function atomSet(atom: Atom, flags: string): CharSet {
  if (atom.kind === 'char') return charSet(atom.src, flags);
  if (atom.kind === 'group' && !atom.look) {
    let set = EMPTY;
    for (const alt of atom.alts) for (const item of alt) set = union(set, atomSet(item.atom, flags));
    return set;
  }
  return EMPTY;
}

/** The characters a sequence can start with. */
export function firstSet(seq: Item[], flags: string): CharSet {
  let set = EMPTY;
  for (const item of seq) {
    if (item.atom.kind === 'group' && !item.atom.look) {
      for (const alt of item.atom.alts) set = union(set, firstSet(alt, flags));
    } else {
      set = union(set, atomSet(item.atom, flags));
    }
    if (item.min > 0 && width(item.atom).min > 0) break;
  }
  return set;
}

/**
 * The set of an item that takes exactly one character, or undefined. A group of one-character alternatives
 * counts, and so does an alternative that is only `^` (without the m flag it can match at position 0 only).
 */
export function singleCharSet(item: Item, flags: string): CharSet | undefined {
  if (item.min !== 1 || item.max !== 1) return undefined;
  const atom = item.atom;
  if (atom.kind === 'char') return charSet(atom.src, flags);
  if (atom.kind !== 'group' || atom.look) return undefined;
  let set = EMPTY;
  for (const alt of atom.alts) {
    if (alt.length === 1 && alt[0].atom.kind === 'assert' && alt[0].atom.which === '^' && !flags.includes('m')) continue;
    if (alt.length !== 1) return undefined;
    const inner = singleCharSet(alt[0], flags);
    if (!inner) return undefined;
    set = union(set, inner);
  }
  return set;
}

// ---------------------------------------------------------------------------------------------------------------
// Widths and repeats

/** How many characters an atom takes. */
export function width(atom: Atom): { min: number; max: number } {
  if (atom.kind === 'char') return { min: 1, max: 1 };
  if (atom.kind === 'assert' || (atom.kind === 'group' && atom.look)) return { min: 0, max: 0 };
  if (atom.kind === 'backref') return { min: 0, max: INF };
  let min = INF;
  let max = 0;
  for (const alt of atom.alts) {
    let lo = 0;
    let hi = 0;
    for (const item of alt) {
      const w = width(item.atom);
      lo += item.min * w.min;
      hi += w.max === 0 || item.max === 0 ? 0 : item.max * w.max;
    }
    min = Math.min(min, lo);
    max = Math.max(max, hi);
  }
  return { min: min === INF ? 0 : min, max };
}

export function itemWidth(item: Item): { min: number; max: number } {
  const w = width(item.atom);
  return { min: item.min * w.min, max: w.max === 0 || item.max === 0 ? 0 : item.max * w.max };
}
/** Repeated without bound: x*, x+, x{2,}. */
export const unbounded = (item: Item) => item.max === INF && width(item.atom).max > 0;
export const isLook = (item: Item) => item.atom.kind === 'group' && item.atom.look !== undefined;

/** A sequence with its plain groups (one alternative, not repeated, not a lookaround) opened in place. */
export function flat(seq: Item[]): Item[] {
  const out: Item[] = [];
  for (const item of seq) {
    const atom = item.atom;
    if (atom.kind === 'group' && !atom.look && atom.alts.length === 1 && item.min === 1 && item.max === 1) out.push(...flat(atom.alts[0]));
    else out.push(item);
  }
  return out;
}

/** Every sequence of the pattern, flattened: each alternative, and those of each group within. */
export function* sequencesOf(alts: Item[][]): Generator<Item[]> {
  for (const alt of alts) {
    yield flat(alt);
    for (const item of alt) if (item.atom.kind === 'group') yield* sequencesOf(item.atom.alts);
  }
}

/** Whether a group holds, outside lookarounds, a quantifier of variable count that can repeat. */
export function holdsVariableQuantifier(group: GroupAtom): boolean {
  for (const alt of group.alts) {
    for (const item of alt) {
      if (item.min !== item.max && item.max > 1 && width(item.atom).max > 0) return true;
      if (item.atom.kind === 'group' && !item.atom.look && holdsVariableQuantifier(item.atom)) return true;
    }
  }
  return false;
}

/** Whether two alternatives of a group can start with the same character. */
export function alternativesOverlap(group: GroupAtom, flags: string): boolean {
  const firsts = group.alts.map((alt) => firstSet(alt, flags));
  return firsts.some((a, x) => firsts.some((b, y) => y > x && overlaps(a, b)));
}

// ---------------------------------------------------------------------------------------------------------------
// The shapes that backtrack

/** One reason a pattern can backtrack super-linearly; the caller words it. */
export type Shape =
  /** A repeated group that holds a repeat of its own: (a+)+. */
  | { rule: 'nested'; group: GroupAtom }
  /** A repeated group whose alternatives can start with the same character: (a|ab)*. */
  | { rule: 'alternatives'; group: GroupAtom }
  /** Two variable quantifiers that can take the same characters, with only optional or shared items between. */
  | { rule: 'inRow'; first: Item; next: Item }
  /** An unanchored search that starts with a run and can fail after it: retried from every position of the run. */
  | { rule: 'leadingRun'; run: Item };

/** Which items count as repeated: `group` for the nested and alternatives rules, `run` for quantifiers in a row. */
export interface Repeats {
  group: (item: Item) => boolean;
  run: (item: Item) => boolean;
}

/** Each shape in the pattern that can backtrack super-linearly, in the order found (the same one may recur). */
export function shapes(tree: Item[][], flags: string, repeats: Repeats): Shape[] {
  const found: Shape[] = [];
  for (const seq of sequencesOf(tree)) {
    seq.forEach((item, index) => {
      const atom = item.atom;
      if (repeats.group(item) && atom.kind === 'group' && !atom.look) {
        if (holdsVariableQuantifier(atom)) found.push({ rule: 'nested', group: atom });
        if (alternativesOverlap(atom, flags)) found.push({ rule: 'alternatives', group: atom });
      }
      if (repeats.run(item)) {
        const set = atomSet(atom, flags);
        for (let j = index + 1; j < seq.length; j++) {
          const next = seq[j];
          if (repeats.run(next) && overlaps(set, atomSet(next.atom, flags))) {
            found.push({ rule: 'inRow', first: item, next });
            break;
          }
          if (itemWidth(next).max === 0 || next.min === 0) continue;
          const single = singleCharSet(next, flags);
          if (single && overlaps(set, single)) continue;
          break;
        }
      }
    });
  }
  if (!flags.includes('y')) {
    for (const alt of tree) {
      const run = leadingRun(flat(alt), flags);
      if (run) found.push({ rule: 'leadingRun', run });
    }
  }
  return found;
}

/**
 * The unanchored-search rule, for one top-level alternative: the run it starts with (after single characters the
 * run also takes) when something after it can fail, or undefined. A negative lookbehind of the run's own
 * characters just before it makes each run start once, and passes.
 */
function leadingRun(seq: Item[], flags: string): Item | undefined {
  const before: CharSet[] = [];
  let guard: CharSet | undefined;
  for (let index = 0; index < seq.length; index++) {
    const item = seq[index];
    const atom = item.atom;
    if (atom.kind === 'assert' && atom.which === '^') {
      if (!flags.includes('m')) return undefined;
      before.push(LINE_BREAKS);
      guard = undefined;
      continue;
    }
    if (atom.kind === 'group' && atom.look) {
      guard =
        atom.look === 'behind' && atom.negative && atom.alts.length === 1 && atom.alts[0].length === 1
          ? singleCharSet(atom.alts[0][0], flags)
          : undefined;
      continue;
    }
    if (unbounded(item)) {
      const set = atomSet(atom, flags);
      if (guard && covers(guard, set)) return undefined;
      if (!before.every((b) => overlaps(b, set))) return undefined;
      const rest = seq.slice(index + 1);
      const canFail = rest.some(
        (r) =>
          itemWidth(r).min > 0 || (r.atom.kind === 'assert' && !(r.atom.which === '$' && isAll(set) && !flags.includes('m'))) || isLook(r),
      );
      return canFail ? item : undefined;
    }
    guard = undefined;
    if (itemWidth(item).max === 0 || item.min === 0) continue;
    const single = singleCharSet(item, flags);
    if (!single) return undefined;
    before.push(single);
  }
  return undefined;
}

/** An item as written: its atom and quantifier (a backreference shows as its quantifier alone). */
export function srcOf(item: Item): string {
  const atom = item.atom;
  const src = atom.kind === 'assert' ? atom.which : atom.kind === 'backref' ? '' : atom.src;
  if (item.max === INF) return src + (item.min === 0 ? '*' : item.min === 1 ? '+' : `{${item.min},}`);
  if (item.min === item.max) return src + (item.min === 1 ? '' : `{${item.min}}`);
  return src + (item.min === 0 && item.max === 1 ? '?' : `{${item.min},${item.max}}`);
}
