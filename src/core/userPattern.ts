// A regular expression a user typed (find's `/regex/flags`), checked before it runs on transcript text. A
// transcript may be megabytes, so a pattern that backtracks super-linearly would freeze the CLI or the extension
// host. The rules are those of scripts/check-regex.mjs (the lint rule for the project's own patterns), made
// stricter for text we do not control: backreferences and lookarounds are refused, a bounded repeat {n,m} counts
// as a repeat (so (a|a){1,50} is refused as (a|a)+ is), bounded repeats stay small, and a pattern that matches
// empty text is refused. What passes runs in time linear in the text; what does not gets a sentence saying why,
// and the caller suggests plain text instead.

/** Longest pattern accepted (characters). */
export const MAX_PATTERN_LENGTH = 500;
/** Largest bound of a {n,m} repeat accepted. */
export const MAX_BOUNDED_REPEAT = 100;
/** Most ways a pattern's ambiguous alternatives may combine ((a|ab)(c|cd)… multiplies the tries at each position). */
const MAX_AMBIGUITY = 64;
/** Flags a user pattern may carry (g is added by the search itself and accepted for habit's sake). */
export const PATTERN_FLAGS = 'gimsu';

const INF = Infinity;

interface CharAtom {
  kind: 'char';
  src: string;
}
interface GroupAtom {
  kind: 'group';
  alts: Item[][];
  src: string;
}
interface AssertAtom {
  kind: 'assert';
  which: string;
}
type Atom = CharAtom | GroupAtom | AssertAtom;
interface Item {
  atom: Atom;
  min: number;
  max: number;
}

/** Thrown inside the parser with a sentence for the user. */
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
    tree = parse(source, flags);
  } catch (err) {
    return err instanceof Refused ? err.message : 'it could not be read';
  }
  const hazard = hazards(tree, flags)[0];
  if (hazard !== undefined) return `it could take very long on a long turn: ${hazard}`;
  if (compiled.test('')) return 'it matches empty text, so it would match every turn';
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing (the regex is already known to be valid: new RegExp accepted it)

function parse(source: string, flags: string): Item[][] {
  const unicode = flags.includes('u');
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
      if (peek('?=') || peek('?!') || peek('?<=') || peek('?<!'))
        throw new Refused('lookarounds ((?=…), (?!…), (?<=…), (?<!…)) are not supported');
      if (peek('?:')) i += 2;
      else if (peek('?<')) i = source.indexOf('>', i) + 1;
      else if (peek('?')) throw new Refused('inline modifiers ((?i:…)) are not supported; put flags after the closing /');
      const alts = alternatives();
      i++; // ')'
      return { kind: 'group', alts, src: source.slice(start, i) };
    }
    if (c === '[') {
      i++;
      if (source[i] === '^') i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
      return { kind: 'char', src: source.slice(start, i) };
    }
    if (c === '^' || c === '$') {
      i++;
      return { kind: 'assert', which: c };
    }
    if (c === '\\') {
      const d = source[i + 1];
      if (d === 'b' || d === 'B') {
        i += 2;
        return { kind: 'assert', which: `\\${d}` };
      }
      if ((d >= '1' && d <= '9') || (d === 'k' && source[i + 2] === '<'))
        throw new Refused('backreferences (\\1, \\k<name>) are not supported');
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
      const m = /^\{(\d{1,9})(?:(,)(\d{0,9}))?\}/.exec(source.slice(i, i + 24));
      if (!m) return { min, max };
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? INF : Number(m[3]);
      if (Math.max(min, max === INF ? 0 : max) > MAX_BOUNDED_REPEAT)
        throw new Refused(`a repeat count above ${MAX_BOUNDED_REPEAT} (${m[0]})`);
      i += m[0].length;
    } else return { min, max };
    if (source[i] === '?') i++; // lazy: the same ambiguity
    return { min, max };
  }

  return alternatives();
}

// ---------------------------------------------------------------------------------------------------------------
// Character sets, on a sample of code points (the engine itself says which ones an atom takes)

const SAMPLE: string[] = (() => {
  const points: number[] = [];
  for (let c = 0; c <= 0x17f; c++) points.push(c);
  for (let c = 0x2000; c <= 0x206f; c++) points.push(c);
  points.push(0x0130, 0x0131, 0x017f, 0x0300, 0x0391, 0x03b1, 0x0410, 0x0430, 0x05d0, 0x0627, 0x0660, 0x0966, 0x1680, 0x212a);
  points.push(0x2190, 0x2500, 0x3000, 0x3042, 0x4e00, 0xfeff, 0xff01, 0xff21);
  return points.map((p) => String.fromCodePoint(p));
})();

type CharSet = Uint8Array;
const EMPTY: CharSet = new Uint8Array(SAMPLE.length);

function charSet(src: string, flags: string): CharSet {
  const set = new Uint8Array(SAMPLE.length);
  try {
    const re = new RegExp(`^(?:${src})$`, [...flags].filter((f) => 'isu'.includes(f)).join(''));
    SAMPLE.forEach((ch, k) => (set[k] = re.test(ch) ? 1 : 0));
  } catch {
    set.fill(1); // cannot tell: assume it takes anything
  }
  return set;
}

function union(a: CharSet, b: CharSet): CharSet {
  const out = new Uint8Array(SAMPLE.length);
  for (let k = 0; k < out.length; k++) out[k] = a[k] | b[k];
  return out;
}
const overlaps = (a: CharSet, b: CharSet) => a.some((v, k) => v === 1 && b[k] === 1);
const isAll = (a: CharSet) => a.every((v) => v === 1);

/** Every character an atom can take. */
function atomSet(atom: Atom, flags: string): CharSet {
  if (atom.kind === 'char') return charSet(atom.src, flags);
  if (atom.kind === 'group') {
    let set = EMPTY;
    for (const alt of atom.alts) for (const item of alt) set = union(set, atomSet(item.atom, flags));
    return set;
  }
  return EMPTY;
}

/** The characters a sequence can start with. */
function firstSet(seq: Item[], flags: string): CharSet {
  let set = EMPTY;
  for (const item of seq) {
    if (item.atom.kind === 'group') {
      for (const alt of item.atom.alts) set = union(set, firstSet(alt, flags));
    } else {
      set = union(set, atomSet(item.atom, flags));
    }
    if (item.min > 0 && width(item.atom).min > 0) break;
  }
  return set;
}

/** How many characters an atom takes. */
function width(atom: Atom): { min: number; max: number } {
  if (atom.kind === 'char') return { min: 1, max: 1 };
  if (atom.kind === 'assert') return { min: 0, max: 0 };
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

function itemWidth(item: Item): { min: number; max: number } {
  const w = width(item.atom);
  return { min: item.min * w.min, max: w.max === 0 || item.max === 0 ? 0 : item.max * w.max };
}
const unbounded = (item: Item) => item.max === INF && width(item.atom).max > 0;
/** Taken a variable number of times: x*, x+, x?, x{2,5} (not x{3}). */
const varies = (item: Item) => item.min !== item.max && width(item.atom).max > 0;
/** Repeated a variable number of times, more than once at most: x*, x+, x{2,5} (not x?, not x{3}). */
const repeats = (item: Item) => varies(item) && item.max > 1;

/** The set of an item that takes exactly one character, or undefined. */
function singleCharSet(item: Item, flags: string): CharSet | undefined {
  if (item.min !== 1 || item.max !== 1) return undefined;
  const atom = item.atom;
  if (atom.kind === 'char') return charSet(atom.src, flags);
  if (atom.kind !== 'group') return undefined;
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
// The rules

/** A sequence with its plain groups (one alternative, not repeated) opened in place. */
function flat(seq: Item[]): Item[] {
  const out: Item[] = [];
  for (const item of seq) {
    const atom = item.atom;
    if (atom.kind === 'group' && atom.alts.length === 1 && item.min === 1 && item.max === 1) out.push(...flat(atom.alts[0]));
    else out.push(item);
  }
  return out;
}

function* sequencesOf(alts: Item[][]): Generator<Item[]> {
  for (const alt of alts) {
    yield flat(alt);
    for (const item of alt) if (item.atom.kind === 'group') yield* sequencesOf(item.atom.alts);
  }
}

/** Whether a group holds a quantifier of variable count that can repeat. */
function holdsVariableQuantifier(group: GroupAtom): boolean {
  for (const alt of group.alts) {
    for (const item of alt) {
      if (repeats(item)) return true;
      if (item.atom.kind === 'group' && holdsVariableQuantifier(item.atom)) return true;
    }
  }
  return false;
}

/** Each reason the pattern can backtrack super-linearly (none: it is safe). */
function hazards(tree: Item[][], flags: string): string[] {
  const found: string[] = [];
  for (const seq of sequencesOf(tree)) {
    seq.forEach((item, index) => {
      const atom = item.atom;
      if (repeats(item) && atom.kind === 'group') {
        if (holdsVariableQuantifier(atom)) found.push(`${atom.src} is repeated and holds a repeat of its own`);
        if (ambiguous(atom, flags)) found.push(`the alternatives of ${atom.src} can start with the same character and are repeated`);
      }
      if (varies(item)) {
        const set = atomSet(atom, flags);
        for (let j = index + 1; j < seq.length; j++) {
          const next = seq[j];
          if (varies(next) && overlaps(set, atomSet(next.atom, flags))) {
            found.push(`${srcOf(item)} and ${srcOf(next)} can take the same characters`);
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
  for (const alt of tree) {
    const why = leadingRun(flat(alt), flags);
    if (why) found.push(why);
  }
  if (ambiguity(tree, flags) > MAX_AMBIGUITY) found.push('too many of its alternatives can start with the same character');
  return found;
}

/** Whether two alternatives of a group can start with the same character. */
function ambiguous(group: GroupAtom, flags: string): boolean {
  const firsts = group.alts.map((alt) => firstSet(alt, flags));
  return firsts.some((a, x) => firsts.some((b, y) => y > x && overlaps(a, b)));
}

/** The product of the alternatives of every ambiguous group (each repeat counted): how many tries may combine. */
function ambiguity(alts: Item[][], flags: string): number {
  let product = 1;
  for (const alt of alts) {
    for (const item of alt) {
      if (item.atom.kind !== 'group') continue;
      const inner = ambiguity(item.atom.alts, flags);
      const own = ambiguous(item.atom, flags) ? item.atom.alts.length : 1;
      const times = Math.min(Math.max(item.max, 1), MAX_BOUNDED_REPEAT);
      product *= Math.pow(own * inner, times);
      if (product > MAX_AMBIGUITY) return product;
    }
  }
  return product;
}

/** The unanchored-search rule: a run retried from every position of itself is quadratic. */
function leadingRun(seq: Item[], flags: string): string | undefined {
  const before: CharSet[] = [];
  for (let index = 0; index < seq.length; index++) {
    const item = seq[index];
    const atom = item.atom;
    if (atom.kind === 'assert' && atom.which === '^') {
      if (!flags.includes('m')) return undefined;
      before.push(charSet('[\\n\\r\\u2028\\u2029]', ''));
      continue;
    }
    if (unbounded(item)) {
      const set = atomSet(atom, flags);
      if (!before.every((b) => overlaps(b, set))) return undefined;
      const rest = seq.slice(index + 1);
      const canFail = rest.some(
        (r) => itemWidth(r).min > 0 || (r.atom.kind === 'assert' && !(r.atom.which === '$' && isAll(set) && !flags.includes('m'))),
      );
      return canFail ? `${srcOf(item)} is retried from every position of a long run of what it takes` : undefined;
    }
    if (itemWidth(item).max === 0 || item.min === 0) continue;
    const single = singleCharSet(item, flags);
    if (!single) return undefined;
    before.push(single);
  }
  return undefined;
}

function srcOf(item: Item): string {
  const src = item.atom.kind === 'assert' ? item.atom.which : item.atom.src;
  if (item.max === INF) return src + (item.min === 0 ? '*' : item.min === 1 ? '+' : `{${item.min},}`);
  if (item.min === item.max) return src + (item.min === 1 ? '' : `{${item.min}}`);
  return src + (item.min === 0 && item.max === 1 ? '?' : `{${item.min},${item.max}}`);
}
