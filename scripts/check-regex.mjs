// Lint rule: no regular expression in src/ or webview/ may backtrack super-linearly on what it is given (issue 10:
// transcripts are untrusted, and one crafted file must not freeze the extension host). It reads every regex
// literal, and every `new RegExp('…')` / `RegExp('…')` whose pattern is a plain string, and flags:
//  - a nested quantifier: a group repeated without bound that holds a quantifier of variable count, up to more
//    than one ((a+)+, (\w*)*, (?:x{1,3})+);
//  - overlapping alternatives repeated without bound: two alternatives that can start with the same character
//    ((a|ab)*, (\w|\d)+);
//  - overlapping quantifiers in a row: two unbounded quantifiers whose characters overlap with only optional
//    items, or single characters both can take, between them (.*.*, \s*\s*, \s*:?\s*, \S*[/\\]\S*, \w+\d+);
//  - an unanchored pattern that starts with an unbounded quantifier (after single characters it also takes) and
//    can fail after it: the engine retries from every position of a long run, so the search is quadratic
//    (\s+$, [^x]+$, (^|\n)\s*x, \$\([^)]*\)). A negative lookbehind of the run's own characters just before it
//    ((?<![,.])[,.]+$) makes each run start once: that is linear, and passes.
// Characters are compared on a sample of code points, asking the regex engine itself which ones an atom takes.
// A pattern known to be safe (its input is short and ours) is passed by ALLOWED below, or by a comment
// `check-regex: allow <why>` on its line or the line above. Exits 1 listing each finding as file:line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOTS = ['src', 'webview'];

/** Findings judged safe, with why: files this rule cannot ask to change their pattern. */
const ALLOWED = [
  {
    file: 'src/extension/statusBar.ts',
    source: '\\$\\([^)]*\\)\\s*',
    why: 'strips $(icon) names from the status bar text Compaction Lens itself writes (a few dozen characters)',
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Parsing a pattern into sequences of quantified atoms

const INF = Infinity;

/**
 * Parses a regex source. A node is { alts: Item[][] }; an item is { atom, min, max }; an atom is
 * { kind: 'char', src } (one character: a literal, an escape, a class or '.'), { kind: 'group', alts, look }
 * (look: undefined, 'ahead', 'behind'; negative), { kind: 'assert', which } (^ $ \b \B) or { kind: 'backref' }.
 */
function parse(source, flags) {
  const unicode = flags.includes('u') || flags.includes('v');
  let i = 0;
  const peek = (s) => source.startsWith(s, i);

  function alternatives() {
    const alts = [sequence()];
    while (source[i] === '|') {
      i++;
      alts.push(sequence());
    }
    return alts;
  }

  function sequence() {
    const items = [];
    while (i < source.length && source[i] !== '|' && source[i] !== ')') {
      const atom = parseAtom();
      items.push({ atom, ...quantifier() });
    }
    return items;
  }

  function parseAtom() {
    const start = i;
    const c = source[i];
    if (c === '(') {
      i++;
      let look;
      let negative = false;
      if (peek('?:')) i += 2;
      else if (peek('?=')) {
        look = 'ahead';
        i += 2;
      } else if (peek('?!')) {
        look = 'ahead';
        negative = true;
        i += 2;
      } else if (peek('?<=')) {
        look = 'behind';
        i += 3;
      } else if (peek('?<!')) {
        look = 'behind';
        negative = true;
        i += 3;
      } else if (peek('?<')) i = source.indexOf('>', i) + 1;
      else if (peek('?')) i = source.indexOf(':', i) + 1; // modifiers, (?i:…)
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
      const d = source[i + 1];
      if (d === 'b' || d === 'B') {
        i += 2;
        return { kind: 'assert', which: `\\${d}` };
      }
      if (/[1-9]/.test(d)) {
        i += 2;
        while (/[0-9]/.test(source[i] ?? '')) i++;
        return { kind: 'backref' };
      }
      if (d === 'k' && source[i + 2] === '<') {
        i = source.indexOf('>', i) + 1;
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
    const code = source.codePointAt(i);
    i += unicode && code > 0xffff ? 2 : 1;
    return { kind: 'char', src: source.slice(start, i) };
  }

  function quantifier() {
    let min = 1;
    let max = 1;
    const c = source[i];
    if (c === '*') {
      min = 0;
      max = INF;
      i++;
    } else if (c === '+') {
      min = 1;
      max = INF;
      i++;
    } else if (c === '?') {
      min = 0;
      max = 1;
      i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(source.slice(i, i + 24));
      if (!m) return { min, max };
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? INF : Number(m[3]);
      i += m[0].length;
    } else return { min, max };
    if (source[i] === '?') i++; // lazy: the same ambiguity
    return { min, max };
  }

  const alts = alternatives();
  return { alts };
}

// ---------------------------------------------------------------------------------------------------------------
// Character sets, on a sample of code points

const SAMPLE = (() => {
  const points = [];
  for (let c = 0; c <= 0x17f; c++) points.push(c);
  for (let c = 0x2000; c <= 0x206f; c++) points.push(c);
  points.push(
    0x0130,
    0x0131,
    0x017f,
    0x0300,
    0x0307,
    0x0391,
    0x03b1,
    0x0410,
    0x0430,
    0x05d0,
    0x0627,
    0x0660,
    0x0966,
    0x1680,
    0x180e,
    0x1e9e,
    0x212a,
    0x212b,
    0x2190,
    0x2500,
    0x3000,
    0x3042,
    0x4e00,
    0xfeff,
    0xff01,
    0xff21,
  );
  return points.map((p) => String.fromCodePoint(p));
})();

function testFlags(flags) {
  return [...flags].filter((f) => 'isuv'.includes(f)).join('');
}

const setCache = new Map();

/** The sample characters one 'char' atom takes: a Uint8Array over SAMPLE. */
function charSet(src, flags) {
  const key = `${flags}/${src}`;
  let set = setCache.get(key);
  if (set) return set;
  set = new Uint8Array(SAMPLE.length);
  try {
    const re = new RegExp(`^(?:${src})$`, testFlags(flags));
    SAMPLE.forEach((ch, k) => (set[k] = re.test(ch) ? 1 : 0));
  } catch {
    set.fill(1); // cannot tell: assume it takes anything
  }
  setCache.set(key, set);
  return set;
}

const EMPTY = new Uint8Array(SAMPLE.length);
const LINE_BREAKS = (() => {
  const set = new Uint8Array(SAMPLE.length);
  SAMPLE.forEach((ch, k) => (set[k] = '\n\r\u2028\u2029'.includes(ch) ? 1 : 0));
  return set;
})();

function union(a, b) {
  const out = new Uint8Array(SAMPLE.length);
  for (let k = 0; k < out.length; k++) out[k] = a[k] | b[k];
  return out;
}
const overlaps = (a, b) => a.some((v, k) => v && b[k]);
const covers = (a, b) => b.every((v, k) => !v || a[k]);
const isAll = (a) => a.every((v) => v);

/** Every character an atom can take (a group: all its atoms, lookarounds aside). */
function atomSet(atom, flags) {
  if (atom.kind === 'char') return charSet(atom.src, flags);
  if (atom.kind === 'group' && !atom.look) {
    let set = EMPTY;
    for (const alt of atom.alts) for (const item of alt) set = union(set, atomSet(item.atom, flags));
    return set;
  }
  return EMPTY;
}

/** The characters a sequence can start with. */
function firstSet(seq, flags) {
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

/** How many characters an atom takes: { min, max }. */
function width(atom) {
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

const itemWidth = (item) => {
  const w = width(item.atom);
  return { min: item.min * w.min, max: w.max === 0 || item.max === 0 ? 0 : item.max * w.max };
};
const unbounded = (item) => item.max === INF && width(item.atom).max > 0;
const isLook = (item) => item.atom.kind === 'group' && item.atom.look !== undefined;

/**
 * The set of an item that takes exactly one character, or undefined. A group of one-character alternatives
 * counts, and so does an alternative that is only `^` (without the m flag it can match at position 0 only).
 */
function singleCharSet(item, flags) {
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
// The rules

/** A sequence with its plain groups (one alternative, not repeated, not a lookaround) opened in place. */
function flat(seq) {
  const out = [];
  for (const item of seq) {
    const atom = item.atom;
    if (atom.kind === 'group' && !atom.look && atom.alts.length === 1 && item.min === 1 && item.max === 1) out.push(...flat(atom.alts[0]));
    else out.push(item);
  }
  return out;
}

function* sequencesOf(node) {
  for (const alt of node.alts) {
    yield flat(alt);
    for (const item of alt) if (item.atom.kind === 'group') yield* sequencesOf(item.atom);
  }
}

/** Whether a group holds, outside lookarounds, a quantifier of variable count that can repeat. */
function holdsVariableQuantifier(group) {
  for (const alt of group.alts) {
    for (const item of alt) {
      if (item.min !== item.max && item.max > 1 && width(item.atom).max > 0) return true;
      if (item.atom.kind === 'group' && !item.atom.look && holdsVariableQuantifier(item.atom)) return true;
    }
  }
  return false;
}

function findings(source, flags) {
  let tree;
  try {
    tree = parse(source, flags);
  } catch {
    return [];
  }
  const found = [];
  for (const seq of sequencesOf(tree)) {
    seq.forEach((item, index) => {
      const atom = item.atom;
      if (unbounded(item) && atom.kind === 'group' && !atom.look) {
        if (holdsVariableQuantifier(atom))
          found.push(`nested quantifier: ${atom.src} repeated without bound holds a quantifier of variable count`);
        const firsts = atom.alts.map((alt) => firstSet(alt, flags));
        for (let a = 0; a < firsts.length; a++) {
          for (let b = a + 1; b < firsts.length; b++) {
            if (overlaps(firsts[a], firsts[b])) {
              found.push(`overlapping alternatives repeated without bound in ${atom.src}`);
              a = firsts.length;
              break;
            }
          }
        }
      }
      if (unbounded(item)) {
        const set = atomSet(atom, flags);
        for (let j = index + 1; j < seq.length; j++) {
          const next = seq[j];
          if (unbounded(next) && overlaps(set, atomSet(next.atom, flags))) {
            found.push(`overlapping quantifiers in a row: ${srcOf(item)} … ${srcOf(next)} can take the same characters`);
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
    for (const alt of tree.alts) {
      const why = leadingRun(flat(alt), flags);
      if (why) found.push(why);
    }
  }
  return [...new Set(found)];
}

/** The unanchored-search rule, for one top-level alternative. */
function leadingRun(seq, flags) {
  const before = [];
  let guard;
  for (let index = 0; index < seq.length; index++) {
    const item = seq[index];
    const atom = item.atom;
    if (atom.kind === 'assert' && atom.which === '^') {
      if (!flags.includes('m')) return undefined;
      before.push(LINE_BREAKS);
      guard = undefined;
      continue;
    }
    if (isLook(item)) {
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
      return canFail
        ? `unanchored search over a run: ${srcOf(item)} can fail after it, so it is retried from every position of a long run (quadratic)`
        : undefined;
    }
    guard = undefined;
    if (itemWidth(item).max === 0 || item.min === 0) continue;
    const single = singleCharSet(item, flags);
    if (!single) return undefined;
    before.push(single);
  }
  return undefined;
}

function srcOf(item) {
  const q =
    item.max === INF
      ? item.min === 0
        ? '*'
        : item.min === 1
          ? '+'
          : `{${item.min},}`
      : item.min === item.max
        ? item.min === 1
          ? ''
          : `{${item.min}}`
        : item.min === 0 && item.max === 1
          ? '?'
          : `{${item.min},${item.max}}`;
  return (item.atom.src ?? '') + q;
}

// ---------------------------------------------------------------------------------------------------------------
// Files

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|tsx|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** Regex literals and plain-string RegExp constructions in a file: { line, text, source, flags }. */
function regexesIn(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(file);
      const slash = literal.lastIndexOf('/');
      out.push({ node, text: literal, source: literal.slice(1, slash), flags: literal.slice(slash + 1) });
    } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(file) === 'RegExp') {
      const [pattern, flags] = node.arguments ?? [];
      if (pattern && ts.isStringLiteralLike(pattern) && (!flags || ts.isStringLiteralLike(flags))) {
        out.push({ node, text: node.getText(file), source: pattern.text, flags: flags ? flags.text : '' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const lines = text.split('\n');
  return out.map((r) => {
    const line = file.getLineAndCharacterOfPosition(r.node.getStart(file)).line;
    const allowed = [lines[line], lines[line - 1] ?? ''].some((l) => /check-regex: allow \S/.test(l));
    return { line: line + 1, text: r.text, source: r.source, flags: r.flags, allowed };
  });
}

const failures = [];
let count = 0;
for (const root of ROOTS) {
  for (const path of files(root)) {
    const name = relative('.', path).split('\\').join('/');
    for (const regex of regexesIn(path, readFileSync(path, 'utf8'))) {
      count++;
      if (regex.allowed || ALLOWED.some((a) => a.file === name && a.source === regex.source)) continue;
      for (const why of findings(regex.source, regex.flags)) failures.push(`${name}:${regex.line}: ${regex.text.slice(0, 120)} — ${why}`);
    }
  }
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  console.error(
    `check-regex: ${failures.length} pattern${failures.length === 1 ? '' : 's'} can backtrack super-linearly on a transcript's text. ` +
      'Scan by hand, or make the pattern unambiguous (see the header of scripts/check-regex.mjs).',
  );
  process.exit(1);
}
console.log(`check-regex: ${count} regular expressions in ${ROOTS.join('/ and ')}/, none with nested or overlapping quantifiers`);
