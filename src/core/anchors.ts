// Anchors: the evidence that a turn's content survived into a summary. An explicit `turn.anchor` is matched
// exactly (the note's anchor_token). Otherwise anchors are derived from the turn's text — file paths,
// identifiers, numbers, error codes, quoted strings, proper nouns — ranked by rarity across the transcript
// (AnchorIndex), and matched tolerant of case and punctuation at word boundaries (SummaryMatcher).
import type { AnchorEvidence, AnchorKind, AnchorMatching, Turn } from './model';

/** How many derived anchors a turn keeps. */
export const DEFAULT_MAX_ANCHORS = 3;
/** A derived anchor must occur in at most max(2, this fraction of all turns) turns. */
export const DEFAULT_MAX_DF_FRACTION = 0.02;
/** Only this much of a turn's text is scanned for candidates (huge tool outputs stay cheap). */
export const MAX_SCAN_CHARS = 100_000;

export interface AnchorCandidate {
  /** The text as the turn spells it (shown to the user). */
  text: string;
  /** Normalised form: lowercase alphanumeric words joined by one space. Used for rarity and matching. */
  key: string;
  kind: AnchorKind;
  /** Position of the first occurrence in the turn text (for stable ordering). */
  at: number;
}

export interface DerivedAnchor {
  anchor: string;
  key: string;
  kind: AnchorKind;
  /** Document frequency: how many turns of the transcript contain this candidate. */
  df: number;
}

/** Tie-break weights: at equal rarity, an error code says more than a number (weak kinds: see isFallback). */
const KIND_WEIGHT: Record<AnchorKind, number> = {
  explicit: 9,
  'error-code': 6,
  path: 5,
  identifier: 4,
  quoted: 3,
  number: 2,
  word: 1,
};

// Common English words (and a few ubiquitous tech acronyms): never distinctive on their own.
const COMMON_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing done down during each else even ever every few first for ' +
    'from further get gets go going good got had has have having he her here hers herself him himself his how ' +
    'however i if in into is it its itself just last let lets like make made many may me might more most much ' +
    'must my myself need needs new next no nor not now of off ok okay on once one only or other our ours ' +
    'ourselves out over own please same see she should so some still such sure than thank thanks that the ' +
    'their theirs them themselves then there these they this those though through to too try two under until ' +
    'up us use used using very via want was way we well were what when where whether which while who whom why ' +
    'will with within without would yes yet you your yours yourself yourselves ' +
    'add added also back change changed check code continue could create created data default error file ' +
    'files fix fixed great help input issue item line list look looks name note now number output part path ' +
    'read right run running set start step string task test tests text thing think time true false null type ' +
    'update updated user value work working write yes sounds ahead go right sure thing perfect nice cool ' +
    'json http https api url uri html css todo readme yaml sql cli utf ascii uuid id ids pr ci cd ui ux os ' +
    'monday tuesday wednesday thursday friday saturday sunday january february march april june july august ' +
    'september october november december'
  ).split(/\s+/),
);

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
// Runs that may form a path, identifier, number or code. Leading / . ~ \ are kept for paths.
// Plain lower-case words (most of any prose) never match: the lookahead needs a character other than a–z
// in the run, so the regex engine skips them without handing them to JS.
const CHUNK = /(?<![\p{L}\p{M}\p{N}_$@#~./\\:+-])(?=[a-z]*(?![a-z])[\p{L}\p{M}\p{N}_$@#~./\\:+-])[\p{L}\p{M}\p{N}_$@#~./\\:+-]+/gu;
// Quoted strings of 4–60 characters on one line. A single quote must not touch a letter on its outer side
// (so apostrophes in "don't … it's" are not quotes).
const QUOTED =
  /(?<![\p{L}\p{N}])'([^'\n]{4,60})'(?![\p{L}\p{N}])|"([^"\n]{4,60})"|`([^`\n]{4,60})`|“([^”\n]{4,60})”|‘([^’\n]{4,60})’/gu;

// Characters that mark a quoted string as code or markup rather than a phrase.
const CODE_CHARS = /[\\<>=;{}|$()[\]]|:\/\//;
// Literal escapes (\n, \t, \r, \") of logged JSON, and terminal colour codes: blanked before scanning.
const ESCAPES = /\\[ntr](?![a-z])|\\"|\x1b\[[0-9;]*[A-Za-z]/g;
const COMMON_EXTENSIONS = new Set([
  'json', 'jsonl', 'yaml', 'toml', 'scss', 'sass', 'less', 'html', 'proto', 'swift', 'scala', 'ipynb', 'gradle',
  'lock', 'conf', 'config', 'svelte', 'astro', 'graphql', 'ts', 'tsx', 'mjs', 'cjs',
]);

/** A file extension: 1–4 lower-case letters/digits, or a well-known longer one. */
function isExtension(segment: string): boolean {
  return /^[a-z][a-z0-9]{0,3}$/.test(segment) || COMMON_EXTENSIONS.has(segment);
}

/** Blanks escapes and colour codes with spaces of the same length, so offsets stay those of the text. */
function cleanForScan(text: string): string {
  if (!text.includes('\\') && !text.includes('\x1b')) return text;
  return text.replace(ESCAPES, (m) => ' '.repeat(m.length));
}

/**
 * Weak candidates, used only when a turn has too few strong ones: proper nouns, plain integers (line
 * numbers, counts and years rarely survive into a summary; versions, dates and decimals are strong) and
 * word/word pairs.
 */
function isFallback(c: AnchorCandidate): boolean {
  if (c.kind === 'word') return true;
  if (c.kind === 'number') return /^\d+$/.test(c.text);
  // "creation/loading", "row/col": as likely a prose alternative as a directory.
  return c.kind === 'path' && /^[a-z]+\/[a-z]+$/.test(c.text);
}

/** Lowercase alphanumeric words joined by one space: the form both sides are compared in. */
export function normalizeAnchor(text: string): string {
  const words = text.toLowerCase().match(WORD_RUN);
  return words ? words.join(' ') : '';
}

function words(text: string): string[] {
  return text.toLowerCase().match(WORD_RUN) ?? [];
}

function allCommon(parts: readonly string[]): boolean {
  return parts.every((p) => p.length < 3 || COMMON_WORDS.has(p) || /^\d{1,2}$/.test(p));
}

/** a-z letters, optionally followed by one '.' or ':' (a word at the end of a sentence). */
function isPlainLowerWord(token: string): boolean {
  const n = token.length;
  const lastCode = token.charCodeAt(n - 1);
  const end = lastCode === 46 || lastCode === 58 ? n - 1 : n;
  if (end === 0) return false;
  for (let i = 0; i < end; i++) {
    const c = token.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

const UNIT_NUMBER = /^(\d+)(st|nd|rd|th|ms|s|m|h|d|k|kb|mb|gb|tb|x|px|em|rem|pt)$/i;

/** Classifies one chunk of text; undefined when it is not distinctive enough to be an anchor. */
function classify(token: string, before: string): AnchorKind | undefined {
  const hasLetter = /\p{L}/u.test(token);
  const hasDigit = /\d/.test(token);
  const parts = words(token);
  if (parts.length === 0) return undefined;

  if (/[/\\]/.test(token)) {
    const segments = token.split(/[/\\]+/).filter((s) => s.length > 0);
    const rooted = /^([/\\~.]|[A-Za-z]:[/\\])/.test(token);
    if (segments.length === 0) return undefined;
    if (segments.length === 1 && (!rooted || token.length < 4)) return undefined;
    if (!hasDigit && allCommon(parts) && !/\.[A-Za-z0-9]{1,8}$/.test(token)) return undefined; // and/or
    return 'path';
  }
  if (token.includes('::')) return parts.length >= 2 ? 'identifier' : undefined;

  // Numbers: 3+ digits, decimals, versions, dates; numbers with a unit count when they have 3+ digits.
  if (/^v?\d+(?:[.-]\d+)+$/i.test(token)) return token.replace(/\D/g, '').length >= 2 ? 'number' : undefined;
  if (/^\d+$/.test(token)) return token.length >= 3 ? 'number' : undefined;
  const unit = UNIT_NUMBER.exec(token);
  if (unit) return unit[1].length >= 3 ? 'number' : undefined;

  // Error codes: upper-case letters with digits (ERR_LEDGER_4107, E0308, TS2345, JIRA-123).
  if (/^[A-Z][A-Z0-9]*(?:[_-][A-Z0-9]+)*$/.test(token) && hasDigit && token.length >= 3) return 'error-code';

  if (token.length < 4) return undefined;
  // Dotted names: name.ext reads as a file, a.b.c as an identifier.
  if (/^[\p{L}\p{N}_$@#-]+(?:\.[\p{L}\p{N}_$@#-]+)+$/u.test(token) && hasLetter) {
    const segs = token.split('.');
    if (segs.some((s) => s.length === 0)) return undefined;
    if (segs.every((s) => s.length <= 1)) return undefined; // e.g, i.e
    if (segs.length === 2 && isExtension(segs[1]) && !/^\d+$/.test(segs[0])) return 'path';
    return 'identifier';
  }
  if (/_/.test(token) && hasLetter) return parts.join('').length >= 3 ? 'identifier' : undefined;
  if (/\p{Ll}\p{Lu}/u.test(token) || /^\p{Lu}\p{Ll}+\p{Lu}/u.test(token)) return 'identifier';
  if (token.includes('-')) {
    if (hasDigit && hasLetter) return 'identifier';
    if (parts.length >= 3 && !allCommon(parts)) return 'identifier';
    return undefined;
  }
  if (hasDigit && hasLetter) return 'identifier'; // sha256, a1b2c3d4, gpt4
  if (!hasLetter) return undefined;

  // Plain words: only proper nouns (capitalised mid-sentence) and upper-case names like ENOENT.
  const lower = token.toLowerCase();
  if (COMMON_WORDS.has(lower)) return undefined;
  if (/^\p{Lu}{4,}$/u.test(token)) return 'word';
  if (/^\p{Lu}\p{Ll}{3,}$/u.test(token) && !/(^|[.!?:;"“'‘\n]\s*)$/.test(before)) return 'word';
  return undefined;
}

/** Every distinct candidate anchor of a text (first occurrence of each normalised key), in text order. */
export function extractCandidates(text: string): AnchorCandidate[] {
  const src = cleanForScan(
    typeof text === 'string' ? (text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text) : '',
  );
  const seen = new Map<string, AnchorCandidate>();
  const add = (raw: string, at: number, kind: AnchorKind): void => {
    const key = normalizeAnchor(raw);
    if (key.length === 0 || seen.has(key)) return;
    seen.set(key, { text: raw, key, kind, at });
  };
  /** Adds each part of `token` split on `separator`; parts after the first are classified as if after `inner`. */
  const addParts = (token: string, separator: string, at: number, before: string, inner: string): void => {
    let offset = 0;
    for (const part of token.split(separator)) {
      const kind = part.length > 0 ? classify(part, offset === 0 ? before : inner) : undefined;
      if (kind) add(part, at + offset, kind);
      offset += part.length + 1;
    }
  };

  CHUNK.lastIndex = 0;
  for (let m = CHUNK.exec(src); m; m = CHUNK.exec(src)) {
    let token = m[0];
    // Fast path: plain lower-case words (most of any prose) are never anchors.
    if (isPlainLowerWord(token)) continue;
    let at = m.index;
    // Trim punctuation at the ends; a path may start with / . ~ or \.
    const lead = /^[^\p{L}\p{M}\p{N}_/\\~.$@#]+/u.exec(token)?.[0].length ?? 0;
    token = token.slice(lead);
    at += lead;
    token = token.replace(/[^\p{L}\p{M}\p{N}_$#]+$/u, '');
    if (token.length === 0 || !WORD_CHAR.test(token)) continue;
    if (/^\.+[^\p{L}\p{N}]/u.test(token)) continue;
    // What precedes the token matters only for a capitalised word (is it at the start of a sentence?).
    const first = token.charCodeAt(0);
    const before = (first >= 65 && first <= 90) || first > 127 ? src.slice(Math.max(0, at - 3), at) : '';

    // key:value and the like split into their parts (paths, URLs and Foo::bar keep their colons).
    if (token.includes(':') && !token.includes('::') && !/[/\\]/.test(token)) {
      addParts(token, ':', at, before, ':');
      continue;
    }
    // A backslash outside a Windows path is more likely an escape (\n in logged JSON): split on it.
    if (token.includes('\\') && !token.includes('/') && !/^([A-Za-z]:\\|\\\\)/.test(token)) {
      addParts(token, '\\', at, before, ' ');
      continue;
    }
    // file.ts:42:5 — the line and column are not part of the path.
    if (/[/\\]|\.[A-Za-z0-9]{1,8}:\d/.test(token)) token = token.replace(/(?::\d+){1,2}$/, '');
    const kind = classify(token, before);
    if (!kind) continue;
    add(token, at, kind);
    // A path's file name is an anchor of its own: summaries often name the file without its directory.
    if (kind === 'path') {
      const base = token.split(/[/\\]/).pop() ?? '';
      if (base !== token && /^[^.]+\.[A-Za-z0-9]{1,8}$/.test(base) && base.length >= 4) {
        add(base, at + token.length - base.length, 'path');
      }
    }
  }

  QUOTED.lastIndex = 0;
  for (let m = QUOTED.exec(src); m; m = QUOTED.exec(src)) {
    const inner = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? '').trim();
    const parts = words(inner);
    if (inner.length < 4 || parts.length === 0 || parts.length > 10) continue;
    if (CODE_CHARS.test(inner)) continue; // code and markup between quotes, not a phrase
    if (/^[a-z]+$/.test(inner)) continue; // one ordinary word ("header"), like any plain word
    if (parts.every((p) => p.length < 3 || COMMON_WORDS.has(p))) continue;
    add(inner, m.index + 1, 'quoted');
  }
  return [...seen.values()];
}

/**
 * Rarity of candidates across a transcript's turns, computed once; derived anchors per turn on demand
 * (cached). A candidate found in many turns says nothing about any one of them.
 */
export class AnchorIndex {
  readonly turnCount: number;
  /** Candidates found in more turns than this are not distinctive. */
  readonly maxDf: number;
  private readonly df = new Map<string, number>();
  private readonly cache = new Map<number, DerivedAnchor[]>();
  /** Candidates per turn from the counting pass, dropped once the turn's anchors are chosen. */
  private readonly candidates: (AnchorCandidate[] | undefined)[];

  constructor(
    turns: readonly Turn[],
    private readonly maxAnchors: number = DEFAULT_MAX_ANCHORS,
    maxDfFraction: number = DEFAULT_MAX_DF_FRACTION,
  ) {
    this.turnCount = turns.length;
    this.maxDf = Math.max(2, Math.floor(turns.length * maxDfFraction));
    this.candidates = turns.map((turn) => {
      const list = extractCandidates(turn?.text);
      for (const c of list) this.df.set(c.key, (this.df.get(c.key) ?? 0) + 1);
      return list.length > 0 ? list : undefined;
    });
  }

  /** How many turns contain the candidate with this normalised key. */
  documentFrequency(key: string): number {
    return this.df.get(key) ?? 0;
  }

  /** The derived anchors of turn `index` (at most maxAnchors, rarest first); [] when nothing is distinctive. */
  anchorsFor(index: number): DerivedAnchor[] {
    const cached = this.cache.get(index);
    if (cached) return cached;
    const inRange = Number.isInteger(index) && index >= 0 && index < this.candidates.length;
    const list = inRange ? this.candidates[index] ?? [] : [];
    if (inRange) this.candidates[index] = undefined;
    const ranked = list
      .map((c) => ({ c, df: this.df.get(c.key) ?? 1 }))
      .filter((x) => x.df <= this.maxDf)
      .sort(
        (x, y) =>
          Number(isFallback(x.c)) - Number(isFallback(y.c)) ||
          x.df - y.df ||
          KIND_WEIGHT[y.c.kind] - KIND_WEIGHT[x.c.kind] ||
          x.c.key.length - y.c.key.length ||
          x.c.at - y.c.at,
      )
      .slice(0, this.maxAnchors)
      .map((x) => ({ anchor: x.c.text, key: x.c.key, kind: x.c.kind, df: x.df }));
    this.cache.set(index, ranked);
    return ranked;
  }
}

/**
 * Finds anchors in one summary. Exact search for explicit anchors; tolerant search for derived ones: both
 * sides are reduced to lowercase alphanumeric words, and the anchor's words must appear consecutively
 * (i.e. at word boundaries of the normalised text). Offsets returned are in the original summary string.
 */
export class SummaryMatcher {
  private readonly words: string[] = [];
  private readonly starts: number[] = [];
  private readonly positions = new Map<string, number[]>();

  constructor(readonly summary: string) {
    const text = typeof summary === 'string' ? summary : '';
    WORD_RUN.lastIndex = 0;
    for (let m = WORD_RUN.exec(text); m; m = WORD_RUN.exec(text)) {
      const w = m[0].toLowerCase();
      const list = this.positions.get(w);
      if (list) list.push(this.words.length);
      else this.positions.set(w, [this.words.length]);
      this.words.push(w);
      this.starts.push(m.index);
    }
  }

  /** Offset of the exact (case-sensitive) substring, as Python's `in` finds it; "" is found at 0. */
  findExact(anchor: string): number | undefined {
    const at = this.summary.indexOf(anchor);
    return at >= 0 ? at : undefined;
  }

  /** Offset in the original summary where the normalised anchor starts at a word boundary. */
  findTolerant(anchor: string): number | undefined {
    return this.findNormalized(normalizeAnchor(anchor));
  }

  /** findTolerant for a key that is already normalised (see normalizeAnchor). */
  findNormalized(key: string): number | undefined {
    return key.length === 0 ? undefined : this.findKey(key.split(' '));
  }

  private findKey(needle: string[]): number | undefined {
    // Walk the occurrences of the needle's rarest word (summaries repeat words like "err" thousands of times).
    let pivot = 0;
    let occurrences: number[] | undefined;
    for (let j = 0; j < needle.length; j++) {
      const list = this.positions.get(needle[j]);
      if (!list) return undefined;
      if (!occurrences || list.length < occurrences.length) {
        occurrences = list;
        pivot = j;
      }
    }
    let best: number | undefined;
    for (const q of occurrences ?? []) {
      const p = q - pivot;
      if (p < 0 || p + needle.length > this.words.length) continue;
      let ok = true;
      for (let j = 0; ok && j < needle.length; j++) ok = j === pivot || this.words[p + j] === needle[j];
      if (ok) {
        best = this.starts[p]; // occurrences are ascending: the first hit is the earliest
        break;
      }
    }
    return best;
  }
}

/** For a path of three or more segments, the normalised key of its last two (e.g. "transcripts message ex"). */
export function pathTailKey(path: string): string | undefined {
  const segments = path.split(/[/\\]+/).filter((x) => x.length > 0);
  if (segments.length < 3) return undefined;
  const key = normalizeAnchor(segments.slice(-2).join('/'));
  return key.includes(' ') ? key : undefined;
}

/** How many of n derived anchors must be found under a matching rule. */
export function requiredMatches(n: number, matching: AnchorMatching): number {
  if (n <= 0) return 0;
  if (matching === 'all') return n;
  if (matching === 'majority') return Math.floor(n / 2) + 1;
  return 1;
}

export interface AnchorCheck {
  anchors: AnchorEvidence[];
  /** 'found': enough anchors are in the summary; 'absent': not enough; 'none': the turn has no anchor. */
  outcome: 'found' | 'absent' | 'none';
  found: number;
  required: number;
}

/** Checks one turn's anchors against a summary: its explicit anchor exactly, else its derived anchors. */
export function checkAnchors(
  turn: Turn,
  derived: readonly DerivedAnchor[],
  matcher: SummaryMatcher,
  matching: AnchorMatching,
): AnchorCheck {
  if (typeof turn.anchor === 'string') {
    const at = matcher.findExact(turn.anchor);
    const evidence: AnchorEvidence = { anchor: turn.anchor, kind: 'explicit', found: at !== undefined };
    if (at !== undefined) evidence.at = at;
    return { anchors: [evidence], outcome: at !== undefined ? 'found' : 'absent', found: at !== undefined ? 1 : 0, required: 1 };
  }
  if (derived.length === 0) return { anchors: [], outcome: 'none', found: 0, required: 0 };
  let found = 0;
  const anchors = derived.map((d): AnchorEvidence => {
    let at = matcher.findNormalized(d.key);
    // A long path also counts when the summary shortens it to its last directory and file name.
    if (at === undefined && d.kind === 'path') {
      const tail = pathTailKey(d.anchor);
      if (tail !== undefined) at = matcher.findNormalized(tail);
    }
    if (at === undefined) return { anchor: d.anchor, kind: d.kind, found: false };
    found++;
    return { anchor: d.anchor, kind: d.kind, found: true, at };
  });
  const required = requiredMatches(derived.length, matching);
  return { anchors, outcome: found >= required ? 'found' : 'absent', found, required };
}
