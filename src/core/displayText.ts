// How numbers, sizes, counts and file names are written for people, the same in every shell (CLI, extension,
// webview, readers' messages): digits grouped by commas without Intl (no ICU start-up), binary sizes, a count
// with its noun, and the last segment of a path.

/** 42000 → "42,000"; fractions and non-finite numbers are kept as they are ("1,234.5", "Infinity"). */
export function groupDigits(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const text = String(n);
  const negative = text.startsWith('-');
  const [int, frac] = (negative ? text.slice(1) : text).split('.');
  if (int.includes('e')) return text; // 1e21 and beyond: String() already chose exponent notation
  let grouped = '';
  for (let end = int.length; end > 0; end -= 3) grouped = int.slice(Math.max(0, end - 3), end) + (grouped === '' ? '' : `,${grouped}`);
  return `${negative ? '-' : ''}${grouped}${frac === undefined ? '' : `.${frac}`}`;
}

/** "1 message", "1,204 messages": the count grouped, the noun plural unless the count is one. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${groupDigits(n)} ${n === 1 ? noun : plural}`;
}

/** 512 → "512 bytes", 5000 → "4.9 KB", 3 × 2^20 → "3 MB": binary units, one decimal below ten. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 && value !== Math.floor(value) ? 1 : 0)} ${units[unit]}`;
}

/** The last segment of a path or URI path, with either separator: "/a/b/c.jsonl" → "c.jsonl". */
export function fileNameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** The extensions a transcript's name loses when a file named after it is made: .jsonl, .json, .ndjson, .gz. */
const TRANSCRIPT_EXTENSION = /\.(?:jsonl|json|ndjson)(?:\.gz)?$|\.gz$/i;

/** A transcript's file name without its extension: "/a/incident.jsonl.gz" → "incident" (the name if nothing is left). */
export function transcriptStem(path: string): string {
  const name = fileNameOf(path);
  const stem = name.replace(TRANSCRIPT_EXTENSION, '');
  return stem === '' ? name : stem;
}

// ---------------------------------------------------------------------------------------------------------
// How a turn is named. Every shell (timeline, hover, Problems' related text, tree, CLI, copies) names a turn by
// the transcript's own id, written by these helpers; a position in the log, where one is needed, is said to be
// one ("position 5 of 422"), never written as if it were an id.

/** Characters of a long id kept after its `word_` prefix (if any) before the ellipsis. */
const SHORT_ID_CHARS = 8;
/** An id up to this many characters past its prefix is shown whole. */
const WHOLE_ID_CHARS = 12;
/** A leading `msg_`, `toolu_`, `call_`…: kept, since it says what kind of id it is. */
const ID_PREFIX = /^[A-Za-z]{1,8}_/;

/**
 * A turn id as shown: whole when short (`42`, `S1-a`, `call_12`); otherwise its first 8 characters after any
 * `word_` prefix, then "…" (`0111e7ef-0ff5-4c1e-…` → `0111e7ef…`, `msg_013pbPJVxq9…` → `msg_013pbPJV…`). Show the
 * full id (fullTurnId) beside it as a tooltip or title. Never cuts a surrogate pair in half.
 */
export function shortTurnId(id: number | string): string {
  const text = String(id);
  const prefix = ID_PREFIX.exec(text)?.[0] ?? '';
  if (text.length <= prefix.length + WHOLE_ID_CHARS) return text;
  let end = prefix.length + SHORT_ID_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end++; // keep the pair whole
  return `${text.slice(0, end)}…`;
}

/** The id as the transcript spells it (for a tooltip, a title or a copy). */
export function fullTurnId(id: number | string): string {
  return String(id);
}

/** True when shortTurnId shortens the id (a tooltip with the full id is then worth giving). */
export function isShortenedTurnId(id: number | string): boolean {
  return shortTurnId(id) !== String(id);
}

/** "turn 7", "turn 0111e7ef…". */
export function turnName(id: number | string): string {
  return `turn ${shortTurnId(id)}`;
}

/** "turns 380–419", or "turn 7" for a range of one. */
export function turnRangeName(from: number | string, to: number | string, count: number): string {
  return count === 1 || String(from) === String(to) ? turnName(from) : `turns ${shortTurnId(from)}–${shortTurnId(to)}`;
}

/** "position 5 of 422": where the turn at index 4 (0-based) sits in the log, labelled as a position. */
export function turnPosition(index: number, total: number): string {
  return `position ${groupDigits(index + 1)} of ${groupDigits(total)}`;
}

/** Checkpoints named in an early-verdict line before the rest are counted ("… and 4 more"). */
const VERDICTS_NAMED = 3;

/**
 * Each checkpoint's verdict in one short line, for progress while the analysis goes on: "S1 fail-closed, S2
 * reversible", "S1 fail-closed, S2 …" (S2's is not settled yet), "S1 reversible, … and 4 more (2 fail-closed)";
 * '' without checkpoints.
 */
export function verdictsLine(checkpoints: readonly { summaryId: string; verdict?: string }[]): string {
  const named = checkpoints.slice(0, VERDICTS_NAMED).map((cp) => `${shortTurnId(cp.summaryId)} ${cp.verdict ?? '…'}`);
  const rest = checkpoints.slice(VERDICTS_NAMED);
  if (rest.length === 0) return named.join(', ');
  const failed = rest.filter((cp) => cp.verdict === 'fail-closed').length;
  return `${named.join(', ')}, … and ${groupDigits(rest.length)} more${failed > 0 ? ` (${groupDigits(failed)} fail-closed)` : ''}`;
}
