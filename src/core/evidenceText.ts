// Evidence in a text: the salient names and facts a faithful summary would keep — paths and file names,
// identifiers and their parts, task/issue/PR ids, URLs, counts with their nouns ("49 tests"), key=value (the
// value), error codes, quoted phrases, proper nouns — and the weak ones it rarely keeps (colours, timestamps,
// record ids, hashes, line numbers). Also `wordsOf`, the one normal form both a piece and a summary are
// compared in. Everything here is a single pass over the text with plain loops: no regex that can backtrack
// runs on transcript text, and only the first MAX_SCAN_CHARS of a text are scanned.
import type { EvidenceKind } from './model';

/** Only this much of a text is scanned for evidence (huge tool outputs stay cheap). */
export const MAX_SCAN_CHARS = 60_000;
/** A piece longer than this is not a name (minified code, base64): skipped. */
const MAX_PIECE_CHARS = 200;

/** One piece of evidence found in a text. */
export interface Piece {
  /** As the text spells it. */
  text: string;
  kind: EvidenceKind;
  /** Normal form (see wordsOf) that must appear in the summary, words in order. */
  key: string;
  /** Other normal forms that also count as found (a path's file name or last two segments, a name's last part). */
  alt?: string[];
  /** The form used to count how many turns share this piece (a path's file name; otherwise the key). */
  shareKey: string;
  /** Shorter forms a summary may use for the same thing (a path's directories), for counting sharing only. */
  parts?: string[];
  /** Set on a path that names a file (it has an extension), not a directory. */
  file?: boolean;
}

// Common English words and ubiquitous tech words: never distinctive on their own.
export const COMMON_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing done down during each else even ever every few first for ' +
    'from further get gets go going good got had has have having he her here hers him his how however i if in ' +
    'into is it its itself just last let lets like make made many may me might more most much must my need ' +
    'needs new next no nor not now of off ok okay on once one only or other our out over own please same see ' +
    'she should so some still such sure than thank thanks that the their them then there these they this those ' +
    'though through to too try two under until up us use used using very via want was way we well were what ' +
    'when where whether which while who whom why will with within without would yes yet you your ' +
    'add added back change changed check code continue create created data default error errors file files ' +
    'fix fixed great help input issue item line lines list look looks name note number output part path read ' +
    'right run running set start step string task test tests text thing think time true false null none type ' +
    'update updated user value work working write sounds ahead perfect nice cool found total ' +
    'json http https api url uri html css todo readme yaml sql cli utf ascii uuid id ids pr ci cd ui ux os ' +
    'monday tuesday wednesday thursday friday saturday sunday january february march april june july august ' +
    'september october november december'
  ).split(/\s+/),
);

/** Words that never make a count's noun ("3 of", "10 and"). */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  'and the for but nor not was were are has had have with from into than then that this these those its our out per via'.split(' '),
);

// Character classes, by code unit. An ASCII unit's class is a table read (ASCII_CLASSES); a non-ASCII one is
// tested once with a Unicode property and case mapping, and its answer kept (unitClasses), so a text full of
// accents, arrows or CJK costs a table read a unit too.
const LETTER_RE = /[\p{L}\p{M}]/u;
/** Per BMP code unit: 0 until looked at, then KNOWN with LETTER_BIT and UPPER_BIT as they apply. */
const unitClasses = new Uint8Array(0x10000);
const KNOWN = 1;
const LETTER_BIT = 2;
const UPPER_BIT = 4;

/** Per ASCII code unit: which of these it is. */
const A_LOWER = 1;
const A_UPPER = 2;
const A_DIGIT = 4;
/** Besides letters and digits, may be part of a name-like chunk: _ - . / \ : @ # $ ~ + = % */
const A_CHUNK_PUNCT = 8;
const ASCII_CLASSES = asciiClasses();

function asciiClasses(): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 97; c <= 122; c++) table[c] = A_LOWER;
  for (let c = 65; c <= 90; c++) table[c] = A_UPPER;
  for (let c = 48; c <= 57; c++) table[c] = A_DIGIT;
  for (const ch of '_-./\\:@#$~+=%') table[ch.charCodeAt(0)] = A_CHUNK_PUNCT;
  return table;
}

function nonAsciiClass(c: number): number {
  let k = unitClasses[c];
  if (k === 0) {
    const ch = String.fromCharCode(c);
    k = KNOWN;
    if (LETTER_RE.test(ch)) k |= LETTER_BIT;
    if (ch !== ch.toLowerCase() && ch === ch.toUpperCase()) k |= UPPER_BIT;
    unitClasses[c] = k;
  }
  return k;
}
function isAsciiLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isAsciiUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isLetterCode(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (ASCII_CLASSES[c] & (A_LOWER | A_UPPER)) !== 0;
  return (nonAsciiClass(c) & LETTER_BIT) !== 0;
}
function isUpperAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return isAsciiUpper(c);
  return (nonAsciiClass(c) & UPPER_BIT) !== 0;
}
/** A letter or digit (of any script). */
function isAlnumCode(c: number): boolean {
  if (c < 128) return (ASCII_CLASSES[c] & (A_LOWER | A_UPPER | A_DIGIT)) !== 0;
  return (nonAsciiClass(c) & LETTER_BIT) !== 0;
}
function isAlnumAt(text: string, i: number): boolean {
  return isAlnumCode(text.charCodeAt(i));
}
/** A letter, a digit, or punctuation that may be part of a name-like chunk (A_CHUNK_PUNCT). */
function isChunkCode(c: number): boolean {
  if (c < 128) return ASCII_CLASSES[c] !== 0;
  return (nonAsciiClass(c) & LETTER_BIT) !== 0;
}

/**
 * The words of a text in the form both sides are compared in: lowercase runs of letters and digits, with
 * camelCase and PascalCase split ("agentId" → "agent id", "HTMLParser" → "html parser"), so `agent_id`,
 * `agentId` and "agent id" are the same words. Linear in the text.
 */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (let start = wordStart(text, 0, text.length); start < text.length;) {
    const end = wordEnd(text, start, text.length);
    out.push(text.slice(start, end).toLowerCase());
    start = wordStart(text, end, text.length);
  }
  return out;
}

/** Calls `visit(start, end)` for each word of `text` as wordsOf splits them, with its offsets in `text`. */
export function eachWord(text: string, visit: (start: number, end: number) => void): void {
  let start = wordStart(text, 0, text.length);
  while (start < text.length) {
    const end = wordEnd(text, start, text.length);
    visit(start, end);
    start = wordStart(text, end, text.length);
  }
}

/**
 * The offset of the first letter or digit at or after `from`, before `limit` (`limit` when there is none): the
 * words of text[0, limit) are those wordsOf gives for text.slice(0, limit).
 */
export function wordStart(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && !isAlnumCode(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The end of the word that starts at `start` (a letter or digit): the end of its run of letters and digits, or
 * an earlier split before an upper-case letter that follows a lower-case one (agentId), or that starts a
 * capitalised word after an upper-case run of two or more (HTMLParser → HTML|Parser); at most `limit`.
 */
export function wordEnd(text: string, start: number, limit: number): number {
  const n = limit; // as if the text ended there
  let j = start + 1;
  for (; j < n; j++) {
    // One class read a unit: whether it is a letter or digit, and whether it is upper-case.
    const c = text.charCodeAt(j);
    let upper: boolean;
    if (c < 128) {
      const ascii = ASCII_CLASSES[c];
      if ((ascii & (A_LOWER | A_UPPER | A_DIGIT)) === 0) break;
      upper = ascii === A_UPPER;
    } else {
      const unit = nonAsciiClass(c);
      if ((unit & LETTER_BIT) === 0) break;
      upper = (unit & UPPER_BIT) !== 0;
    }
    if (!upper) continue;
    const prev = text.charCodeAt(j - 1);
    const prevLower = isAsciiLower(prev) || (prev > 127 && !isUpperAt(text, j - 1) && isLetterCode(text, j - 1));
    if (prevLower) return j;
    if (j + 1 < n && isUpperAt(text, j - 1) && isAsciiLower(text.charCodeAt(j + 1)) && j - start >= 2) return j;
  }
  return j;
}

/**
 * The normal form of a text: its words joined by one space (wordsOf(text).join(' ')). When the words already
 * stand one space apart in the text (one word, or plain prose), the key is that stretch lower-cased, made in one
 * piece rather than word by word: lower-casing stops at a space either way (even Greek's final sigma), so it is
 * the same string.
 */
export function keyOf(text: string): string {
  if (isLowerAsciiWord(text)) return text; // one word already in its normal form (most path segments and names)
  const first = wordStart(text, 0, text.length);
  if (first >= text.length) return '';
  let end = wordEnd(text, first, text.length);
  for (let next = wordStart(text, end, text.length); next < text.length; next = wordStart(text, end, text.length)) {
    if (next !== end + 1 || text.charCodeAt(end) !== 32) return keyWordByWord(text);
    end = wordEnd(text, next, text.length);
  }
  return text.slice(first, end).toLowerCase();
}

/** Whether text is one or more a–z letters and 0–9 digits, and nothing else: its own key. */
function isLowerAsciiWord(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || (ASCII_CLASSES[c] !== A_LOWER && ASCII_CLASSES[c] !== A_DIGIT)) return false;
  }
  return true;
}

/** keyOf for a text whose words do not stand one space apart: built word by word. */
function keyWordByWord(text: string): string {
  let key = '';
  for (let start = wordStart(text, 0, text.length); start < text.length;) {
    const end = wordEnd(text, start, text.length);
    const word = text.slice(start, end).toLowerCase();
    key = key === '' ? word : `${key} ${word}`;
    start = wordStart(text, end, text.length);
  }
  return key;
}

function isCommonKey(key: string): boolean {
  for (let start = 0; start < key.length;) {
    let end = key.indexOf(' ', start);
    if (end < 0) end = key.length;
    if (end - start >= 3 && !isAllDigitsIn(key, start, end) && !COMMON_WORDS.has(key.slice(start, end))) return false;
    start = end + 1;
  }
  return true;
}

function isAllDigits(s: string): boolean {
  return isAllDigitsIn(s, 0, s.length);
}

/** Whether s[start, end) is one or more digits. */
function isAllDigitsIn(s: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

/** Whether s has two digits in a row. */
function hasDigitPair(s: string): boolean {
  for (let i = 1; i < s.length; i++) if (isDigit(s.charCodeAt(i)) && isDigit(s.charCodeAt(i - 1))) return true;
  return false;
}

function isHex(s: string): boolean {
  return isHexIn(s, 0, s.length);
}

/** Whether s[start, end) is one or more hex digits. */
function isHexIn(s: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (!(isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isDigit(s.charCodeAt(i))) return true;
  return false;
}

function hasLetter(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isLetterCode(s, i)) return true;
  return false;
}

function hasInnerCapital(s: string): boolean {
  for (let i = 1; i < s.length; i++) {
    if (isUpperAt(s, i) && (isAsciiLower(s.charCodeAt(i - 1)) || isDigit(s.charCodeAt(i - 1)))) return true;
  }
  return false;
}

/** Trailing characters that end a sentence or a list, not a name. */
function isTrailingPunct(c: number): boolean {
  return c === 46 || c === 58 || c === 45 || c === 47 || c === 92 || c === 61 || c === 43 || c === 64 || c === 37 || c === 126 || c === 36;
}
function isLeadingPunct(c: number): boolean {
  return c === 45 || c === 58 || c === 61 || c === 43 || c === 64 || c === 37 || c === 36;
}

/** A file extension: 1–5 lower-case letters/digits starting with a letter (ex, ts, jsonl, heex). */
function isExtension(segment: string): boolean {
  if (segment.length < 1 || segment.length > 5 || !isAsciiLower(segment.charCodeAt(0))) return false;
  for (let i = 1; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (!isAsciiLower(c) && !isDigit(c)) return false;
  }
  return true;
}

/** Extensions that make `name.ext` a file name rather than a qualified name (MapSet.new, ctx.then). */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'ex exs ts tsx js jsx mjs cjs json jsonl md mdx txt py pyi rb go rs java kt kts c h cc cpp hpp cs css scss ' +
    'sass less html htm heex eex leex xml yml yaml toml ini cfg conf lock sh bash zsh fish sql csv tsv log env ' +
    'gz tgz zip tar png jpg jpeg gif svg ico pdf swift scala php pl lua dart vue svelte astro proto graphql gql ' +
    'ipynb gradle mod sum mk cmake erl hrl ml hs clj nix tf vim el bat ps1 wasm map snap patch diff rst tex ' +
    'properties plist db sqlite'
  ).split(' '),
);

/** Words of a sentence end: a capitalised word right after one of these is not a proper noun. */
function startsSentence(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i--;
  if (i < 0) return true;
  const c = text.charCodeAt(i);
  // . ! ? : ; newline, opening quotes/brackets, list markers
  return (
    c === 46 ||
    c === 33 ||
    c === 63 ||
    c === 58 ||
    c === 59 ||
    c === 10 ||
    c === 13 ||
    c === 34 ||
    c === 39 ||
    c === 40 ||
    c === 91 ||
    c === 96 ||
    c === 8220 ||
    c === 8216 ||
    c === 42 ||
    c === 35 ||
    c === 62 ||
    c === 8594 ||
    (c === 45 && (i === 0 || text.charCodeAt(i - 1) === 10 || text.charCodeAt(i - 1) === 32))
  );
}

/** The plain word right after offset `end` (skipping spaces), lowercase, or '' (for counts: "49 tests"). */
function nextWord(text: string, end: number): string {
  let i = end;
  while (i < text.length && text.charCodeAt(i) === 32) i++;
  let j = i;
  while (j < text.length && j - i < 24 && isAsciiLower(text.charCodeAt(j) | 32) && isLetterCode(text, j)) j++;
  if (j < text.length && isAlnumAt(text, j)) return '';
  return text.slice(i, j).toLowerCase();
}

/** Singular/plural twin of a noun, so "1 file" and "2 files" style nouns both match ("tests" ↔ "test"). */
function nounTwin(noun: string): string {
  return noun.endsWith('s') ? noun.slice(0, -1) : `${noun}s`;
}

/** What a piece may carry besides its text, kind and key (see Piece). */
interface PieceExtras {
  alt?: string[];
  /** Defaults to the key. */
  shareKey?: string;
  parts?: string[];
  file?: boolean;
}

const NO_EXTRAS: PieceExtras = {};

/** Collects the pieces of one text, de-duplicated by key. */
class PieceSink {
  readonly pieces: Piece[] = [];
  private readonly seen = new Set<string>();

  add(text: string, kind: EvidenceKind, key: string, more?: PieceExtras): void {
    if (key.length === 0 || this.seen.has(key)) return;
    const { alt, shareKey, parts, file } = more ?? NO_EXTRAS;
    this.seen.add(key);
    const piece: Piece = { text, kind, key, shareKey: shareKey ?? key };
    if (parts && parts.length > 0) piece.parts = parts;
    if (file) piece.file = true;
    // An alternative must be distinctive on its own: a common word is not, a number of two digits or more is.
    const alts = alt?.filter((a) => a.length > 0 && a !== key && (!isCommonKey(a) || hasDigitPair(a)));
    if (alts && alts.length > 0) piece.alt = alts;
    this.pieces.push(piece);
  }
}

/** Whether text starts with http:// or https://, in any case. */
function startsWithScheme(text: string): boolean {
  if (text.length < 7 || (text.charCodeAt(0) | 32) !== 104 /* h */) return false;
  const head = text.slice(0, 8).toLowerCase();
  return head.startsWith('http://') || head === 'https://';
}

/** Classifies one chunk (already trimmed) found at `at` in `text`, adding what it yields to `sink`. */
function classifyChunk(chunk: string, at: number, text: string, sink: PieceSink): void {
  if (chunk.length < 2 || chunk.length > MAX_PIECE_CHARS) return;
  // URLs: the address without its scheme.
  if (startsWithScheme(chunk)) {
    const rest = chunk.slice(chunk.indexOf('//') + 2);
    const key = keyOf(rest);
    if (key.length > 0) sink.add(chunk, 'url', key);
    return;
  }

  // key=value: the value is the fact (--status=done, PORT=8080).
  const eq = chunk.indexOf('=');
  if (eq > 0 && eq < chunk.length - 1) {
    const value = chunk.slice(eq + 1);
    const valueKey = keyOf(value);
    const numeric = isAllDigits(valueKey.replace(/ /g, '')) && valueKey.length >= 2;
    if (valueKey.length > 0 && (numeric || (valueKey.length >= 3 && !isCommonKey(valueKey)))) {
      sink.add(chunk, 'key-value', `${keyOf(chunk.slice(0, eq))} ${valueKey}`.trim(), { alt: [valueKey], shareKey: valueKey });
    }
    return;
  }

  // #1234, PR #1234: a reference by number.
  if (chunk.charCodeAt(0) === 35 /* # */) {
    const rest = chunk.slice(1);
    if (isAllDigits(rest) && rest.length >= 2) {
      sink.add(chunk, 'reference', rest);
      return;
    }
    if (isHex(rest) && (rest.length === 3 || rest.length === 6 || rest.length === 8)) {
      sink.add(chunk, 'weak', keyOf(rest)); // a colour
      return;
    }
  }

  const hasSlash = chunk.includes('/') || chunk.includes('\\');
  if (hasSlash) {
    // </button>: a closing tag, not a path.
    classifyPath(chunk, sink, at > 0 && text.charCodeAt(at - 1) === 60);
    return;
  }

  // Namespaced names: Foo::bar, Mod:func.
  if (chunk.includes('::')) {
    const parts = chunk.split('::').filter((p) => p.length > 0);
    const last = parts[parts.length - 1] ?? '';
    const key = keyOf(chunk);
    if (parts.length >= 2) sink.add(chunk, 'identifier', key, { alt: [keyOf(last)] });
    return;
  }
  if (chunk.includes(':')) {
    // key:value, file.ts:42, 21:54:53 — split and classify the parts.
    if (isTimeLike(chunk)) {
      sink.add(chunk, 'weak', keyOf(chunk));
      return;
    }
    let offset = 0;
    for (const part of chunk.split(':')) {
      if (part.length > 0) classifyChunk(part, at + offset, text, sink);
      offset += part.length + 1;
    }
    return;
  }

  // Numbers.
  if (isAllDigits(chunk)) {
    const noun = nextWord(text, at + chunk.length);
    if (noun.length >= 3 && !FUNCTION_WORDS.has(noun)) {
      sink.add(`${chunk} ${noun}`, 'count', `${chunk} ${noun}`, { alt: [`${chunk} ${nounTwin(noun)}`] });
      return;
    }
    if (chunk.length >= 3) sink.add(chunk, 'number', chunk);
    return;
  }
  if (isDuration(chunk)) {
    // 0.04s, 12ms, 1.5min: how long something took, as incidental as a timestamp.
    sink.add(chunk, 'weak', chunk.toLowerCase());
    return;
  }
  if (isVersionOrDate(chunk)) {
    const kind: EvidenceKind = isDateLike(chunk) ? 'weak' : 'number';
    sink.add(chunk, kind, keyOf(chunk));
    return;
  }
  if (isUuidLike(chunk)) {
    sink.add(chunk, 'weak', keyOf(chunk));
    return;
  }
  // Hashes: 7+ hex digits with letters and digits (git shas, record ids).
  if (chunk.length >= 7 && isHex(chunk) && hasDigit(chunk) && hasLetter(chunk)) {
    sink.add(chunk, 'weak', chunk.toLowerCase());
    return;
  }

  // Error codes: upper-case letters with digits (E0308, TS2345, ERR_LEDGER_4107, JIRA-123).
  if (isErrorCode(chunk)) {
    sink.add(chunk, hasDash(chunk) && !chunk.includes('_') ? 'reference' : 'error-code', keyOf(chunk));
    return;
  }

  // Dotted names: name.ext is a file, a.b.c a qualified identifier, spotter-fum.1 a task id.
  if (chunk.includes('.')) {
    classifyDotted(chunk, sink);
    return;
  }

  const key = keyOf(chunk);
  if (key.length === 0) return;
  const digit = hasDigit(chunk);
  const letter = hasLetter(chunk);
  if (chunk.includes('_') && letter) {
    if (key.replace(/ /g, '').length >= 4) sink.add(chunk, 'identifier', key);
    return;
  }
  if (hasInnerCapital(chunk) && letter) {
    sink.add(chunk, 'identifier', key);
    return;
  }
  if (hasDash(chunk)) {
    if (digit && letter) sink.add(chunk, 'reference', key);
    else if (letter && !isCommonKey(key) && key.split(' ').length >= 2) sink.add(chunk, 'identifier', key);
    return;
  }
  if (digit && letter) {
    if (chunk.length >= 4) sink.add(chunk, 'identifier', key);
    return;
  }
  if (!letter || chunk.length < 4 || COMMON_WORDS.has(chunk.toLowerCase())) return;
  // Plain words: upper-case names (ENOENT) and proper nouns (capitalised mid-sentence).
  if (isAllUpper(chunk) && chunk.length >= 4) {
    sink.add(chunk, 'name', key);
    return;
  }
  if (isUpperAt(chunk, 0) && !startsSentence(text, at)) sink.add(chunk, 'name', key);
}

function hasDash(s: string): boolean {
  return s.includes('-');
}

function isAllUpper(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(isAsciiUpper(c) || c === 95)) return false;
  }
  return true;
}

function isErrorCode(s: string): boolean {
  if (s.length < 3 || !isAsciiUpper(s.charCodeAt(0)) || !hasDigit(s)) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(isAsciiUpper(c) || isDigit(c) || c === 95 || c === 45)) return false;
  }
  return true;
}

/** 12:30, 21:54:53.209Z, 2026-02-10T21:54:53 */
function isTimeLike(s: string): boolean {
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) digits++;
    else if (!(c === 58 || c === 46 || c === 45 || c === 84 || c === 90 || c === 43)) return false;
  }
  return digits >= 4;
}

/** Units of time a duration is written in (0.04s, 12ms, 250µs, 1.5min, 2h). */
const DURATION_UNITS: ReadonlySet<string> = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'sec', 'secs', 'min', 'mins', 'h', 'hr', 'hrs']);

/**
 * A number (with its decimals) followed directly by a unit of time, or several in a row as `time` and test
 * runners print them (0m12.09s, 1h2m3s; there "m" is minutes).
 */
function isDuration(s: string): boolean {
  let i = 0;
  let groups = 0;
  let minutes = false;
  while (i < s.length) {
    const digitsAt = i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    if (i === digitsAt) return false;
    if (s.charCodeAt(i) === 46 /* . */) {
      const start = ++i;
      while (i < s.length && isDigit(s.charCodeAt(i))) i++;
      if (i === start) return false;
    }
    const unitAt = i;
    while (i < s.length && !isDigit(s.charCodeAt(i))) i++;
    const unit = s.slice(unitAt, i).toLowerCase();
    if (unit === 'm') minutes = true;
    else if (!DURATION_UNITS.has(unit)) return false;
    groups++;
  }
  return groups > 0 && (!minutes || groups > 1);
}

/** 1.2.3, v2.1.38, 2026-02-11, 3.14 */
function isVersionOrDate(s: string): boolean {
  let i = s.charCodeAt(0) === 118 || s.charCodeAt(0) === 86 ? 1 : 0;
  if (i >= s.length || !isDigit(s.charCodeAt(i))) return false;
  let separators = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 || c === 45) {
      separators++;
      if (i + 1 >= s.length || !isDigit(s.charCodeAt(i + 1))) return false;
    } else if (!isDigit(c)) return false;
  }
  return separators >= 1;
}

function isDateLike(s: string): boolean {
  return s.length === 10 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45;
}

/** 8-4-4-4-12 hex groups, or any dashed run of hex groups of which one is 8+ long. */
function isUuidLike(s: string): boolean {
  let groups = 0;
  let long = false;
  for (let start = 0; start <= s.length;) {
    let end = s.indexOf('-', start);
    if (end < 0) end = s.length;
    if (!isHexIn(s, start, end)) return false;
    if (end - start >= 8) long = true;
    groups++;
    start = end + 1;
  }
  return groups >= 3 && long;
}

function classifyDotted(chunk: string, sink: PieceSink): void {
  const segs = chunk.split('.');
  if (segs.some((s) => s.length === 0)) return;
  if (segs.every((s) => s.length <= 1)) return; // e.g, i.e
  const key = keyOf(chunk);
  const last = segs[segs.length - 1];
  const first = segs[0];
  // spotter-fum.1, obz.2: a task id (a name, then a number).
  if (segs.length === 2 && isAllDigits(last) && hasLetter(first)) {
    sink.add(chunk, 'reference', key);
    return;
  }
  if (!hasLetter(chunk)) return;
  const fileLike = FILE_EXTENSIONS.has(last) || (isExtension(last) && /[_\-0-9]/.test(first) && !isUpperAt(first, 0));
  if (segs.length === 2 && fileLike && !isAllDigits(first)) {
    // A file name; its stem counts too when it is distinctive (jsonl_parser.ex → "jsonl parser").
    const stem = keyOf(first);
    const stemDistinctive = stem.length >= 5 && (first.includes('_') || first.includes('-') || hasInnerCapital(first));
    sink.add(chunk, 'path', key, { alt: stemDistinctive ? [stem] : undefined, file: true });
    return;
  }
  // Qualified names: Foo.Bar.baz → also its last part when that is itself a name.
  const lastKey = keyOf(last);
  const lastDistinctive = last.length >= 4 && (last.includes('_') || hasInnerCapital(last) || !COMMON_WORDS.has(last.toLowerCase()));
  sink.add(chunk, 'identifier', key, { alt: lastDistinctive && lastKey.includes(' ') ? [lastKey] : undefined });
}

/** keyOf(`${a}/${b}`) from the keys of a and b (no word runs across the slash). */
function pairKey(keyA: string, keyB: string): string {
  if (keyA === '') return keyB;
  return keyB === '' ? keyA : `${keyA} ${keyB}`;
}

/** The non-empty segments of a path, split at / and \\. */
function pathSegments(path: string): string[] {
  const segments: string[] = [];
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    const c = i < path.length ? path.charCodeAt(i) : 47;
    if (c !== 47 && c !== 92) continue;
    if (i > start) segments.push(path.slice(start, i));
    start = i + 1;
  }
  return segments;
}

function classifyPath(full: string, sink: PieceSink, closingTag: boolean): void {
  // file.ts:42:5 — the line and column are not part of the path.
  let chunk = full;
  for (let k = 0; k < 2; k++) {
    const colon = chunk.lastIndexOf(':');
    if (colon > 0 && isAllDigits(chunk.slice(colon + 1))) chunk = chunk.slice(0, colon);
  }
  const segments = pathSegments(chunk);
  if (segments.length === 0) return;
  const key = keyOf(chunk);
  if (key.length === 0) return;
  // name/arity (render/2, length/1): an identifier.
  if (segments.length === 2 && isAllDigits(segments[1]) && segments[1].length <= 2 && hasLetter(segments[0])) {
    if (segments[0].length >= 3) sink.add(chunk, 'identifier', key);
    return;
  }
  const rooted = chunk.startsWith('/') || chunk.startsWith('~') || chunk.startsWith('.') || chunk.startsWith('\\');
  if (segments.length === 1 && (!rooted || chunk.length < 4 || closingTag)) return;
  const base = segments[segments.length - 1];
  const baseDot = base.lastIndexOf('.');
  const baseHasExt = baseDot > 0 && isExtension(base.slice(baseDot + 1));
  if (!rooted && !baseHasExt && !hasDigit(chunk) && isCommonKey(key)) return; // and/or
  // Two words with no extension (creation/loading, Elixir/Phoenix): as likely prose alternatives as a directory.
  if (!rooted && !baseHasExt && segments.length === 2) return;
  const alt: string[] = [];
  const baseKey = keyOf(base);
  // The file name alone counts when it is a file name or a distinctive name, not a plain word (assets, spotter).
  const baseDistinctive = baseHasExt || base.includes('_') || base.includes('-') || hasInnerCapital(base) || hasDigit(base);
  if (segments.length >= 2 && baseDistinctive) alt.push(baseKey);
  if (segments.length >= 3) alt.push(pairKey(keyOf(segments[segments.length - 2]), baseKey));
  // Every directory pair is a form a summary may name too (fixtures/transcripts for a file under it).
  const parts: string[] = [];
  let keyBefore = keyOf(segments[0]);
  for (let k = 0; k + 1 < segments.length && k < 24; k++) {
    const key = keyOf(segments[k + 1]);
    parts.push(pairKey(keyBefore, key));
    keyBefore = key;
  }
  // The file name decides how many turns share the path (the same file under two roots is one file).
  sink.add(chunk, 'path', key, { alt, shareKey: baseHasExt ? baseKey : key, parts, file: baseHasExt });
}

/** Index just past the quoted phrase that opens at `i` (its closing quote), or -1. Looks at most 80 chars ahead. */
function quoteEnd(text: string, i: number): number {
  const open = text.charCodeAt(i);
  const close = open === 8220 ? 8221 : open === 8216 ? 8217 : open;
  const limit = Math.min(text.length, i + 82);
  for (let j = i + 1; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 10) return -1;
    if (c === close) return j;
  }
  return -1;
}

/** The characters that open a quoted phrase: " ' ` and the opening curly quotes. */
const QUOTE_CHARS = ['"', "'", '`', '\u201c', '\u2018'];

/**
 * Quoted phrases of 2–10 words that are not code: "Closed bead and committed". The quotes are found with
 * indexOf (one cursor per quote character), not by looking at every character.
 */
function addQuoted(text: string, sink: PieceSink): void {
  const next = QUOTE_CHARS.map((q) => text.indexOf(q));
  let from = 0;
  for (;;) {
    // The first quote character at or after `from`.
    let i = -1;
    for (let k = 0; k < next.length; k++) {
      if (next[k] >= 0 && next[k] < from) next[k] = text.indexOf(QUOTE_CHARS[k], from);
      if (next[k] >= 0 && (i < 0 || next[k] < i)) i = next[k];
    }
    if (i < 0) return;
    from = i + 1;
    // A single quote touching a letter on its outer side is an apostrophe (don't, it's).
    if (text.charCodeAt(i) === 39 && i > 0 && isAlnumAt(text, i - 1)) continue;
    const end = quoteEnd(text, i);
    if (end < 0) continue;
    const raw = text.slice(i + 1, end);
    const inner = raw.trim();
    from = end + 1; // phrases do not nest
    if (inner.length < 6) continue;
    let code = false;
    for (let k = 0; k < inner.length && !code; k++) {
      const d = inner.charCodeAt(k);
      code =
        d === 92 || d === 60 || d === 62 || d === 61 || d === 59 || d === 123 || d === 125 || d === 124 || d === 36 || d === 40 || d === 91;
    }
    if (code) continue;
    const key = keyOf(inner);
    const words = key === '' ? 0 : countChar(key, 32) + 1;
    if (words < 2 || words > 10) continue;
    if (isCommonKey(key)) continue;
    sink.add(inner, 'quoted', key);
  }
}

/** How many times the code unit `c` occurs in text. */
function countChar(text: string, c: number): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === c) count++;
  return count;
}

/**
 * Sentences of prose (6–40 words, mostly plain words): carried word for word, they show a passage survived
 * (a user's request quoted in the summary). Split at . ! ? and line ends.
 */
function addSentences(text: string, sink: PieceSink): void {
  let start = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 10;
    const end =
      c === 10 || ((c === 46 || c === 33 || c === 63) && (i + 1 >= n || text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 10));
    if (!end) continue;
    if (i - start < 30) {
      // Shorter than a sentence even before trimming: nothing to slice (most lines of code or data).
      start = i + 1;
      continue;
    }
    const raw = text.slice(start, i);
    const sentence = raw.trim();
    start = i + 1;
    if (sentence.length < 30 || sentence.length > 400) continue;
    const words = wordsOf(sentence);
    if (words.length < 6 || words.length > 40) continue;
    let plain = 0;
    for (const w of words) if (/^[a-z]+$/.test(w)) plain++;
    if (plain * 4 < words.length * 3) continue; // code or data, not prose
    sink.add(sentence, 'quoted', words.join(' '));
  }
}

/** Every distinct piece of evidence in a text, in text order of first occurrence (quoted phrases last). */
export function extractPieces(text: string, options: { sentences?: boolean; terms?: boolean } = {}): Piece[] {
  const src = typeof text === 'string' ? (text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text) : '';
  const sink = new PieceSink();
  const n = src.length;
  let i = 0;
  while (i < n) {
    if (!isChunkCode(src.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const c = src.charCodeAt(j);
      if (!isChunkCode(c)) break;
      // A literal escape of logged JSON (\n, \t, \") ends the chunk.
      if (c === 92 && j + 1 < n && isEscapeLetter(src.charCodeAt(j + 1), true)) break;
      j++;
    }
    let start = i;
    let end = j;
    while (start < end && isLeadingPunct(src.charCodeAt(start))) start++;
    while (end > start && isTrailingPunct(src.charCodeAt(end - 1))) end--;
    // A literal escape at the start (\n in logged JSON) is not part of the name.
    while (start + 1 < end && src.charCodeAt(start) === 92 && isEscapeLetter(src.charCodeAt(start + 1), false)) start += 2;
    if (end > start) {
      const shape = chunkShape(src, start, end);
      if (shape === SHAPE_OTHER) {
        classifyChunk(src.slice(start, end), start, src, sink);
      } else if (shape === SHAPE_PLAIN_WORD && options.terms && end - start >= TERM_MIN_LENGTH) {
        // A plain lower-case word. A term is matched and shared by its stem ("committed" and "commit" are one term).
        const word = src.slice(start, end);
        if (!COMMON_WORDS.has(word)) sink.add(word, 'term', word, { shareKey: stemOf(word) });
      }
    }
    i = j + (j < n && src.charCodeAt(j) === 92 ? 2 : 0);
  }
  addQuoted(src, sink);
  if (options.sentences) addSentences(src, sink);
  return sink.pieces;
}

/** A plain word counts as a term of the prose only from this length on (shorter words are rarely telling). */
const TERM_MIN_LENGTH = 6;

/**
 * A light stem of a lower-case word, for matching the words of prose: common inflections are dropped
 * ("committed" → "commit", "passes" → "pass", "compiling" → "compil", "compiles" → "compil"). Both sides of a
 * comparison go through it, so it only has to be consistent, not linguistically right.
 */
export function stemOf(word: string): string {
  let w = word;
  for (const suffix of ['ingly', 'edly', 'ing', 'ed', 'es', 'ly', 's', 'e']) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix) && !(suffix === 's' && w.endsWith('ss'))) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  // committ → commit, stopp → stop
  const n = w.length;
  if (n >= 5 && w[n - 1] === w[n - 2] && !'aeiousl'.includes(w[n - 1])) w = w.slice(0, -1);
  return w;
}

/** A chunk of punctuation alone. */
const SHAPE_PUNCT = 0;
/** A plain lower-case a–z word (most of any prose): never evidence on its own, at most a term. */
const SHAPE_PLAIN_WORD = 1;
/** Anything else: classified by classifyChunk. */
const SHAPE_OTHER = 2;

/** Which of the shapes above text[start, end) has. */
function chunkShape(text: string, start: number, end: number): number {
  let plain = true;
  let alnum = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (isAsciiLower(c)) alnum = true;
    else if (isAlnumCode(c)) return SHAPE_OTHER;
    else plain = false;
  }
  if (!alnum) return SHAPE_PUNCT;
  return plain ? SHAPE_PLAIN_WORD : SHAPE_OTHER;
}

/** The letter of a literal escape in logged JSON: n, t, r, and (inside a chunk, where it ends it) ". */
function isEscapeLetter(c: number, quote: boolean): boolean {
  return c === 110 || c === 116 || c === 114 || (quote && c === 34);
}
