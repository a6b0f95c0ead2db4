// The design note's reference API, ported from its Python sketch branch by branch: buildCheckpoint (Path A /
// Path B, the ceiling summary_budget × R_low, the same three CompactionReversibilityError conditions with the
// same facts in the messages, formatted as Python would print them) and reconstruct (covered → summary,
// uncovered → raw log, neither → error). analyze() explains instead of raising; this file raises, as the note does.
import type { TurnId } from './model';

/** R_low: the conservative compression-ratio floor for prose. */
export const COMPRESSION_RATIO_LOW = 5;

/** Raised when a lossy checkpoint claims coverage it cannot substantiate. */
export class CompactionReversibilityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompactionReversibilityError';
  }
}

/** The sketch's `Turn`. */
export interface ReferenceTurn {
  id: TurnId;
  /** A token guaranteed to survive faithful summarization; matched as an exact substring. */
  anchorToken: string;
  tokens: number;
}

/** The sketch's `Checkpoint`. */
export interface ReferenceCheckpoint {
  summary: string;
  summaryBudget: number;
  coveredIds: TurnId[];
  uncoveredIds: TurnId[];
}

/** build_checkpoint from the note. Raises CompactionReversibilityError exactly where the sketch does. */
export function buildCheckpoint(
  turns: Iterable<ReferenceTurn>,
  summary: string,
  summaryBudget: number,
  reportedIds?: Iterable<TurnId> | null,
  ratioLow: number = COMPRESSION_RATIO_LOW,
): ReferenceCheckpoint {
  const list = [...turns];
  const prefixTokens = list.reduce((sum, t) => sum + t.tokens, 0);
  const ceiling = summaryBudget * ratioLow;

  // Path A: the summariser told us what it consumed. Trust only that.
  if (reportedIds !== undefined && reportedIds !== null) {
    const reported = new Set<TurnId>(reportedIds);
    const covered = list.filter((t) => reported.has(t.id)).map((t) => t.id);
    const uncovered = list.filter((t) => !reported.has(t.id)).map((t) => t.id);
    return { summary, summaryBudget, coveredIds: covered, uncoveredIds: uncovered };
  }

  // Path B: no coverage report. Coverage may only be claimed below the ceiling, and only for turns whose
  // anchor token actually appears in the summary (exact substring; "" is in every string, as in Python).
  if (prefixTokens > ceiling) {
    // Fail closed: never advance the pointer set past the ceiling.
    const missing = list.filter((t) => !summary.includes(t.anchorToken)).map((t) => t.id);
    if (missing.length > 0) {
      throw new CompactionReversibilityError(
        `prefix ${pyNumber(prefixTokens)}t > ceiling ${pyNumber(ceiling)}t and summary omits ` +
          `anchors for turns ${pyList(missing.slice(0, 5))}; refusing to claim reversible coverage`,
      );
    }
    throw new CompactionReversibilityError(
      `prefix ${pyNumber(prefixTokens)}t exceeds reversible ceiling ${pyNumber(ceiling)}t; ` +
        `leave tail un-compacted or supply summarizer coverage report`,
    );
  }

  const covered = list.filter((t) => summary.includes(t.anchorToken)).map((t) => t.id);
  const uncovered = list.filter((t) => !summary.includes(t.anchorToken)).map((t) => t.id);
  if (uncovered.length > 0) {
    throw new CompactionReversibilityError(
      `summary within budget but omits anchors for turns ${pyList(uncovered.slice(0, 5))}; ` + `pointer set must exclude them`,
    );
  }
  return { summary, summaryBudget, coveredIds: covered, uncoveredIds: uncovered };
}

/**
 * reconstruct from the note: the summary is authoritative for covered turns; uncovered turns are routed to the
 * raw log rather than returning a false negative; a turn in neither set is an inconsistent pointer set.
 * Where Python would raise KeyError (an uncovered turn absent from the raw log), this throws a RangeError.
 */
export function reconstruct(
  checkpoint: ReferenceCheckpoint,
  rawLog: Map<TurnId, string> | Record<string, string>,
  neededId: TurnId,
): string {
  if (checkpoint.coveredIds.includes(neededId)) {
    return `[from summary] fact for turn ${pyStr(neededId)}`;
  }
  if (checkpoint.uncoveredIds.includes(neededId)) {
    const text = rawLog instanceof Map ? rawLog.get(neededId) : lookupRecord(rawLog, neededId);
    if (text === undefined) {
      throw new RangeError(`raw log has no entry for turn ${pyRepr(neededId)} (KeyError: ${pyRepr(neededId)})`);
    }
    return text;
  }
  throw new CompactionReversibilityError(
    `turn ${pyStr(neededId)} is in neither covered nor uncovered set; ` + `pointer set is inconsistent with checkpoint`,
  );
}

function lookupRecord(rawLog: Record<string, string>, id: TurnId): string | undefined {
  const key = String(id);
  return Object.prototype.hasOwnProperty.call(rawLog, key) ? rawLog[key] : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Python formatting, so the messages read exactly as the sketch's would.

/** Python's str() of an id: ints and floats as Python prints them, strings as they are. */
export function pyStr(value: TurnId): string {
  return typeof value === 'number' ? pyNumber(value) : value;
}

/** Python's repr() of an id. */
export function pyRepr(value: TurnId): string {
  return typeof value === 'number' ? pyNumber(value) : pyStrRepr(value);
}

/** Python's repr of a list of ids, e.g. `[380, 381, 'a']`. */
export function pyList(values: readonly TurnId[]): string {
  return `[${values.map(pyRepr).join(', ')}]`;
}

/**
 * A number as Python prints it. Integral values print as ints (JS cannot tell 20480 from 20480.0, so an
 * integral float prints without the `.0`); other values as Python's shortest float repr.
 */
export function pyNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Number.isInteger(value)) return BigInt(value).toString();
  // Shortest round-trip digits, then Python's layout: scientific when exponent < -4 or >= 16.
  const [mantissa, expText] = Math.abs(value).toExponential().split('e');
  const exponent = Number(expText);
  const digits = mantissa.replace('.', '');
  const sign = value < 0 ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
    return `${sign}${m}e${e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const intPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fracPart = digits.slice(exponent + 1);
  return `${sign}${intPart}.${fracPart.length > 0 ? fracPart : '0'}`;
}

// Characters Python's str.isprintable() rejects (other than the ASCII space, which is printable).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr() of a str: single quotes unless the text has ' and no ", escapes as Python writes them. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) {
      if (code < 0x100) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += `\\U${code.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}
