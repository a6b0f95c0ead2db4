// Masks strings that look like secrets (API keys, access tokens, JWTs, private keys, password=… values, long
// high-entropy runs) before transcript text leaves Compaction Lens, e.g. in a recovery bundle pasted back into an
// agent. One hand-written left-to-right scan, no regular expression: every detector reads only the run of
// characters it starts, and the runs it reads are remembered, so the time is linear in the text.
import type { MaskedText } from './model';

/** What a masked string was taken for, written into its mark: `[masked GitHub token]`. */
type SecretKind =
  | 'API key'
  | 'GitHub token'
  | 'GitLab token'
  | 'Slack token'
  | 'AWS access key'
  | 'Google API key'
  | 'JWT'
  | 'bearer token'
  | 'private key'
  | 'secret value'
  | 'high-entropy string';

interface Hit {
  start: number;
  end: number;
  kind: SecretKind;
}

/** Tokens with a fixed prefix: the prefix, the kind, and the fewest characters of [A-Za-z0-9_-] after it. */
const PREFIXED: readonly { prefix: string; kind: SecretKind; minBody: number; exactBody?: number }[] = [
  { prefix: 'sk-', kind: 'API key', minBody: 20 },
  { prefix: 'ghp_', kind: 'GitHub token', minBody: 30 },
  { prefix: 'gho_', kind: 'GitHub token', minBody: 30 },
  { prefix: 'ghu_', kind: 'GitHub token', minBody: 30 },
  { prefix: 'ghs_', kind: 'GitHub token', minBody: 30 },
  { prefix: 'ghr_', kind: 'GitHub token', minBody: 30 },
  { prefix: 'github_pat_', kind: 'GitHub token', minBody: 20 },
  { prefix: 'glpat-', kind: 'GitLab token', minBody: 20 },
  { prefix: 'xoxb-', kind: 'Slack token', minBody: 10 },
  { prefix: 'xoxp-', kind: 'Slack token', minBody: 10 },
  { prefix: 'xoxa-', kind: 'Slack token', minBody: 10 },
  { prefix: 'xoxr-', kind: 'Slack token', minBody: 10 },
  { prefix: 'xoxs-', kind: 'Slack token', minBody: 10 },
  { prefix: 'AKIA', kind: 'AWS access key', minBody: 16, exactBody: 16 },
  { prefix: 'ASIA', kind: 'AWS access key', minBody: 16, exactBody: 16 },
  { prefix: 'AIza', kind: 'Google API key', minBody: 35, exactBody: 35 },
];

/** Those prefixes by their first character's code (all are ASCII), so a word looks only at its own. */
const PREFIXED_BY_START: (typeof PREFIXED)[number][][] = Array.from({ length: 128 }, () => []);
for (const entry of PREFIXED) PREFIXED_BY_START[entry.prefix.charCodeAt(0)].push(entry);

/** Key names (lower-cased) whose value is a secret: `password=…`, `"api_key": "…"`, `DB_PASSWORD: …`. */
const SECRET_KEY_ENDINGS = [
  'password',
  'passwd',
  'pwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'accesskey',
  'access_key',
  'private_key',
  'credentials',
];
/** Those names by their last character's code (all are ASCII), so most words are passed over on one look. */
const KEY_ENDINGS_BY_LAST: string[][] = Array.from({ length: 128 }, () => []);
for (const ending of SECRET_KEY_ENDINGS) KEY_ENDINGS_BY_LAST[ending.charCodeAt(ending.length - 1)].push(ending);

/** Fewest characters of a base64-like run taken for a secret, and of a hex run. */
const MIN_BASE64_RUN = 40;
const MIN_HEX_RUN = 64;
/** Shannon entropy (bits per character) a run needs: random base64 of 40 characters has about 4.9, prose 3–4. */
const MIN_BASE64_ENTROPY = 4.4;
const MIN_HEX_ENTROPY = 3.4;
/** Labels before a hex or base64 run that make it a digest, not a secret (`sha256:…`, `sha512-…`). */
const DIGEST_LABELS = ['sha1', 'sha256', 'sha384', 'sha512', 'md5'];
/**
 * Characters of a token or a value looked at to judge its shape (digits, capitals): a bound, so that the many
 * word starts inside one long run (`sk-sk-sk-…`) cost a constant each.
 */
const SHAPE_WINDOW = 64;
/** A PEM header's label is on one short line. */
const MAX_PEM_LABEL = 80;
/** Spaces allowed between a key, its separator and its value, and after `Bearer`. */
const MAX_GAP = 4;
const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';
const PEM_DASHES = '-----';

const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isAlnum = (c: number) => isDigit(c) || isUpper(c) || isLower(c);
/** ASCII lower case of a character code. */
const toLower = (c: number) => (isUpper(c) ? c + 32 : c);
const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
/** [A-Za-z0-9_-]: the body of a prefixed token, a key name. */
const isTokenChar = (c: number) => isAlnum(c) || c === 95 || c === 45;
/** [A-Za-z0-9+/_-]: a base64 (or base64url) run. */
const isBase64Char = (c: number) => isTokenChar(c) || c === 43 || c === 47;
/** RFC 6750's b64token: [A-Za-z0-9._~+/=-]. */
const isBearerChar = (c: number) => isTokenChar(c) || c === 46 || c === 126 || c === 43 || c === 47 || c === 61;
const isQuote = (c: number) => c === 34 || c === 39;
const isBlank = (c: number) => c === 32 || c === 9;
/** What may stand in an unquoted value: anything but whitespace, quotes and the punctuation that ends a value. */
const VALUE_ENDS = new Set([...',;&<>()[]{}`\\'].map((c) => c.charCodeAt(0)));
const isValueChar = (c: number) => c > 32 && !isQuote(c) && !VALUE_ENDS.has(c);

/**
 * Ends of maximal runs of one character class, remembered: any position inside a run has the same end, so each
 * run is read once however many detectors ask about it.
 */
class RunEnds {
  private from = -1;
  private end = -1;
  constructor(
    private readonly text: string,
    private readonly inClass: (c: number) => boolean,
  ) {}

  /** The end (exclusive) of the run of the class that starts at or runs through `p` (p itself when none). */
  endFrom(p: number): number {
    if (p >= this.from && p < this.end) return this.end;
    let q = p;
    while (q < this.text.length && this.inClass(this.text.charCodeAt(q))) {
      if (q === this.from && this.end > q) {
        q = this.end;
        break;
      }
      q++;
    }
    this.from = p;
    this.end = q;
    return q;
  }
}

/** Shannon entropy in bits per character of text[start, end) (ASCII runs). */
function entropy(text: string, start: number, end: number): number {
  const counts = new Uint32Array(128);
  for (let i = start; i < end; i++) counts[text.charCodeAt(i) & 127]++;
  const length = end - start;
  let bits = 0;
  for (const count of counts) {
    if (count === 0) continue;
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** The scan: one instance per text. */
class SecretScanner {
  private readonly tokenRuns: RunEnds;
  private readonly bearerRuns: RunEnds;
  private readonly valueRuns: RunEnds;
  /** Base64-like runs are judged once, from their start; positions before this one are judged. */
  private base64JudgedUntil = 0;
  /** Where the last search for a PEM footer failed: no footer lies past it. */
  private noPemEndFrom = Infinity;

  constructor(private readonly text: string) {
    this.tokenRuns = new RunEnds(text, isTokenChar);
    this.bearerRuns = new RunEnds(text, isBearerChar);
    this.valueRuns = new RunEnds(text, isValueChar);
  }

  private code(i: number): number {
    return i < this.text.length ? this.text.charCodeAt(i) : -1;
  }

  /** All hits, in order, not overlapping. */
  scan(): Hit[] {
    const hits: Hit[] = [];
    const { text } = this;
    let previous = -1;
    let i = 0;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      let hit: Hit | undefined;
      // '-': a PEM block may start here (also after a literal "\n"). The other detectors look only at a word's
      // start ('-' starts one: `--password=…`, `x-sk-…`).
      if (c === 45) hit = this.privateKey(i);
      else if (isAlnum(c) && !isAlnum(previous) && previous !== 95) hit = this.atWordStart(i);
      if (hit) {
        hits.push(hit);
        i = hit.end;
        previous = this.code(i - 1);
      } else {
        previous = c;
        i++;
      }
    }
    return hits;
  }

  private atWordStart(i: number): Hit | undefined {
    return this.prefixed(i) ?? this.jwt(i) ?? this.bearer(i) ?? this.keyValue(i) ?? this.highEntropy(i);
  }

  /** `-----BEGIN … PRIVATE KEY-----` through its `-----END … -----` line (to the end of the text when cut). */
  private privateKey(i: number): Hit | undefined {
    const { text } = this;
    if (!text.startsWith(PEM_BEGIN, i)) return undefined;
    const labelStart = i + PEM_BEGIN.length;
    let labelEnd = labelStart;
    while (labelEnd < text.length && labelEnd - labelStart <= MAX_PEM_LABEL && !text.startsWith(PEM_DASHES, labelEnd)) labelEnd++;
    if (!text.startsWith(PEM_DASHES, labelEnd) || !text.slice(labelStart, labelEnd).endsWith('PRIVATE KEY')) return undefined;
    const bodyStart = labelEnd + PEM_DASHES.length;
    const footer = bodyStart >= this.noPemEndFrom ? -1 : text.indexOf(PEM_END, bodyStart);
    if (footer < 0) {
      this.noPemEndFrom = Math.min(this.noPemEndFrom, bodyStart);
      return { start: i, end: text.length, kind: 'private key' };
    }
    const footerLabel = footer + PEM_END.length;
    let end = footerLabel;
    while (end < text.length && end - footerLabel <= MAX_PEM_LABEL && !text.startsWith(PEM_DASHES, end)) end++;
    end = text.startsWith(PEM_DASHES, end) ? end + PEM_DASHES.length : footerLabel;
    return { start: i, end, kind: 'private key' };
  }

  /** A token with a known prefix (`sk-`, `ghp_`, `xoxb-`, `AKIA`…) and enough characters after it. */
  private prefixed(i: number): Hit | undefined {
    const { text } = this;
    for (const { prefix, kind, minBody, exactBody } of PREFIXED_BY_START[text.charCodeAt(i) & 127]) {
      if (!text.startsWith(prefix, i)) continue;
      const end = this.tokenRuns.endFrom(i);
      const body = end - i - prefix.length;
      if (exactBody !== undefined ? body !== exactBody : body < minBody) continue;
      if (kind === 'AWS access key' && !this.all(i + prefix.length, end, (c) => isUpper(c) || isDigit(c))) continue;
      // A long kebab-case word after `sk-` is prose or a name; a key mixes in digits or capitals.
      const window = Math.min(end, i + prefix.length + SHAPE_WINDOW);
      if (kind === 'API key' && !this.some(i + prefix.length, window, (c) => isDigit(c) || isUpper(c))) continue;
      return { start: i, end, kind };
    }
    return undefined;
  }

  /** `eyJ…` header.payload.signature, the first two parts at least 10 characters each. */
  private jwt(i: number): Hit | undefined {
    if (!this.text.startsWith('eyJ', i)) return undefined;
    // Each part is a run of token characters; the dots stand right after the runs.
    const firstDot = this.tokenRuns.endFrom(i);
    if (this.code(firstDot) !== 46 || firstDot - i < 10) return undefined;
    const secondDot = this.tokenRuns.endFrom(firstDot + 1);
    if (this.code(secondDot) !== 46 || secondDot - firstDot - 1 < 10) return undefined;
    return { start: i, end: this.tokenRuns.endFrom(secondDot + 1), kind: 'JWT' };
  }

  /** `Bearer <token>`: the token (16 characters or more) is masked, the word kept. */
  private bearer(i: number): Hit | undefined {
    const { text } = this;
    if ((this.code(i) | 32) !== 98 || text.slice(i + 1, i + 6).toLowerCase() !== 'earer') return undefined;
    let p = i + 6;
    const gapStart = p;
    while (isBlank(this.code(p)) && p - gapStart < MAX_GAP) p++;
    if (p === gapStart) return undefined;
    const end = this.bearerRuns.endFrom(p);
    if (end - p < 16) return undefined;
    return { start: p, end, kind: 'bearer token' };
  }

  /** `password=…`, `"api_key": "…"`, `DB_TOKEN: …`: the value is masked, the key kept. */
  private keyValue(i: number): Hit | undefined {
    const keyEnd = this.tokenRuns.endFrom(i);
    if (!this.endsWithKeyName(i, keyEnd)) return undefined;
    const afterKey = this.skipQuote(keyEnd);
    let p = this.skipBlanks(afterKey);
    const separator = this.code(p);
    if (separator !== 61 && separator !== 58) return undefined; // '=' or ':'
    const tight = p === afterKey && !isBlank(this.code(p + 1));
    p = this.skipBlanks(p + 1);
    const afterQuote = this.skipQuote(p);
    const quoted = afterQuote !== p;
    const start = afterQuote;
    const end = this.valueRuns.endFrom(start);
    const length = end - start;
    if (length < 4) return undefined;
    const first = this.code(start);
    // Placeholders and references are not secrets: ${TOKEN}, $TOKEN, <token>, ***, %s.
    if (first === 36 || first === 42 || first === 37) return undefined;
    // `token = await fetchToken()`, `apiKey: parsed.apiKey`: code assigning a name, not a secret. A bare name is
    // still a value in an env file (`DB_PASSWORD=letmein`), a flag (`--password=letmein`) or a query (`?token=…`).
    if (!quoted && this.isCodeName(start, end) && !(tight && this.isSettingKey(i, keyEnd))) return undefined;
    if (!quoted && separator === 58) {
      // `token: expired` is prose; an unquoted value after a colon must look like one (a digit, a symbol, mixed case).
      if (length < 6) return undefined;
      const window = Math.min(end, start + SHAPE_WINDOW);
      const lettersOnly = this.all(start, window, (c) => isUpper(c) || isLower(c));
      const mixedCase = this.some(start, window, isUpper) && this.some(start, window, isLower);
      if (lettersOnly && !mixedCase) return undefined;
    }
    return { start, end, kind: 'secret value' };
  }

  /** True when text[start, end), a run of token characters, ends with one of SECRET_KEY_ENDINGS in any case. */
  private endsWithKeyName(start: number, end: number): boolean {
    for (const ending of KEY_ENDINGS_BY_LAST[toLower(this.code(end - 1)) & 127]) {
      if (end - start < ending.length) continue;
      let k = 2;
      while (k <= ending.length && toLower(this.code(end - k)) === ending.charCodeAt(ending.length - k)) k++;
      if (k > ending.length) return true;
    }
    return false;
  }

  /**
   * A name without digits (`await`, `restoredModel`; `hunter2` is not one) or a dotted path of names
   * (`parsed.apiKey`, `Base.url_encode64`), at most SHAPE_WINDOW long.
   */
  private isCodeName(start: number, end: number): boolean {
    if (end - start > SHAPE_WINDOW) return false;
    const first = this.code(start);
    if (!(isUpper(first) || isLower(first) || first === 95)) return false;
    const dotted = this.some(start, end, (c) => c === 46);
    return this.all(start, end, (c) => isUpper(c) || isLower(c) || c === 95 || c === 46 || (dotted && isDigit(c)));
  }

  /** A key written as a setting: upper-case (`DB_PASSWORD`), or after `-`, `?` or `&` (a flag, a query). */
  private isSettingKey(start: number, end: number): boolean {
    const before = this.code(start - 1);
    if (before === 45 || before === 63 || before === 38) return true;
    return !this.some(Math.max(start, end - SHAPE_WINDOW), end, isLower);
  }

  /** A long base64-like run (mixed case and digits, high entropy) or a long hex run, unless labelled a digest. */
  private highEntropy(i: number): Hit | undefined {
    if (i < this.base64JudgedUntil || (i > 0 && isBase64Char(this.code(i - 1)))) return undefined;
    // A base64 run is a run of token characters (the one keyValue just read), then on through '+' and '/'.
    let runEnd = this.tokenRuns.endFrom(i);
    while (isBase64Char(this.code(runEnd))) runEnd++;
    this.base64JudgedUntil = runEnd;
    let end = runEnd;
    while (end - runEnd < 2 && this.code(end) === 61) end++; // '=' padding
    const length = runEnd - i;
    if (length < MIN_BASE64_RUN || this.isDigest(i) || this.startsWithDigestLabel(i)) return undefined;
    if (this.all(i, runEnd, isHex)) {
      if (length < MIN_HEX_RUN || entropy(this.text, i, runEnd) < MIN_HEX_ENTROPY) return undefined;
      return { start: i, end, kind: 'high-entropy string' };
    }
    let upper = 0;
    let lower = 0;
    let digits = 0;
    let standard = false; // '+' or '/': base64
    let urlSafe = false; // '-' or '_': base64url
    for (let p = i; p < runEnd; p++) {
      const c = this.code(p);
      if (isUpper(c)) upper++;
      else if (isLower(c)) lower++;
      else if (isDigit(c)) digits++;
      else if (c === 43 || c === 47) standard = true;
      else urlSafe = true;
    }
    if (upper < 2 || lower < 2 || digits < 2) return undefined;
    // Both alphabets at once is no encoding: a path (`projects/-home-USER-x/8463c716-a2ea…`).
    if (standard && urlSafe) return undefined;
    if (entropy(this.text, i, runEnd) < MIN_BASE64_ENTROPY) return undefined;
    return { start: i, end, kind: 'high-entropy string' };
  }

  /** True when the run at `i` follows a digest label (`sha256:`, `sha512-`, `md5=`). */
  private isDigest(i: number): boolean {
    const separator = this.code(i - 1);
    if (separator !== 58 && separator !== 45 && separator !== 61) return false;
    const before = this.text.slice(Math.max(0, i - 8), i - 1).toLowerCase();
    return DIGEST_LABELS.some((label) => before.endsWith(label));
  }

  /** True when the run at `i` is a labelled digest itself (`sha512-…`, as npm's integrity fields write it). */
  private startsWithDigestLabel(i: number): boolean {
    return DIGEST_LABELS.some((label) => this.text.startsWith(label, i) && this.code(i + label.length) === 45);
  }

  private skipQuote(p: number): number {
    if (this.code(p) === 92 && isQuote(this.code(p + 1))) return p + 2; // \" inside a JSON string
    return isQuote(this.code(p)) ? p + 1 : p;
  }

  private skipBlanks(p: number): number {
    const start = p;
    while (isBlank(this.code(p)) && p - start < MAX_GAP) p++;
    return p;
  }

  private all(start: number, end: number, test: (c: number) => boolean): boolean {
    for (let p = start; p < end; p++) if (!test(this.code(p))) return false;
    return true;
  }

  private some(start: number, end: number, test: (c: number) => boolean): boolean {
    for (let p = start; p < end; p++) if (test(this.code(p))) return true;
    return false;
  }
}

/** The mark that replaces a masked string. */
function markOf(kind: SecretKind): string {
  return `[masked ${kind}]`;
}

/** `text` with every secrets-looking string replaced by `[masked KIND]`, and how many were. Linear time. */
export function maskSecrets(text: string): MaskedText {
  const hits = new SecretScanner(text).scan();
  if (hits.length === 0) return { text, masked: 0 };
  let masked = '';
  let last = 0;
  for (const hit of hits) {
    masked += text.slice(last, hit.start) + markOf(hit.kind);
    last = hit.end;
  }
  return { text: masked + text.slice(last), masked: hits.length };
}
