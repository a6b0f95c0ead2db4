// Reads a summary for the note's tell of truncation: empty, cut mid-clause or mid-word (its last word is the
// start of a longer word used elsewhere), a last list item without the full stop every earlier item has, at its
// token budget, or missing a closing marker the format's complete summaries have (closing line, </summary>,
// last section). Scans are linear: no regex that can backtrack runs over the summary's end.
// Every reason is a specific sentence a user can check against the text.
import type { TruncationHints, TruncationReport } from './model';

export const DEFAULT_NEAR_BUDGET_FRACTION = 0.03;

/** How much of the end of the summary is quoted in the mid-clause reason. */
const QUOTE_LENGTH = 30;

/** Words a complete sentence does not end on (articles, prepositions, conjunctions, auxiliaries). */
const DANGLING_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'but',
  'nor',
  'of',
  'to',
  'in',
  'on',
  'at',
  'by',
  'for',
  'from',
  'with',
  'into',
  'onto',
  'over',
  'under',
  'about',
  'as',
  'than',
  'that',
  'which',
  'who',
  'whose',
  'where',
  'when',
  'while',
  'because',
  'if',
  'then',
  'so',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'has',
  'have',
  'had',
  'will',
  'would',
  'should',
  'could',
  'can',
  'may',
  'might',
  'must',
  'not',
  'its',
  'their',
  'your',
  'our',
  'my',
  'his',
  'her',
  'this',
  'these',
  'those',
  'via',
  'per',
  'including',
  'such',
]);

/**
 * Whether the summary looks cut off, and why. `summaryTokens` and `budget` are token counts; `budget` may be
 * unknown. `nearBudgetFraction`: summary tokens within this fraction of the budget count as "at the budget".
 */
export function detectTruncation(
  summary: string,
  summaryTokens: number,
  budget: number | undefined,
  hints: TruncationHints | undefined,
  nearBudgetFraction: number = DEFAULT_NEAR_BUDGET_FRACTION,
  /** Texts the summary was written from (the turns before the checkpoint), for the cut-word tell: read in order, once. */
  sourceTexts: Iterable<string> = [],
): TruncationReport {
  const reasons: string[] = [];
  const text = typeof summary === 'string' ? summary : '';
  const trimmed = text.trimEnd();

  if (trimmed.trim().length === 0) {
    reasons.push('summary is empty');
  } else {
    const midClause = midClauseEnding(trimmed);
    if (midClause) reasons.push(midClause);
    const cut = midClause ? undefined : cutWord(trimmed, sourceTexts);
    if (cut) reasons.push(cut);
    const item = midClause || cut ? undefined : unfinishedListItem(trimmed);
    if (item) reasons.push(item);
  }

  const fraction = Number.isFinite(nearBudgetFraction) && nearBudgetFraction >= 0 ? nearBudgetFraction : DEFAULT_NEAR_BUDGET_FRACTION;
  if (budget !== undefined && Number.isFinite(budget) && budget > 0 && Number.isFinite(summaryTokens)) {
    if (summaryTokens > budget) {
      reasons.push(`summary is over its budget: ${summaryTokens} of ${budget} tokens`);
    } else if (summaryTokens >= budget * (1 - fraction)) {
      reasons.push(`summary is at its budget: ${summaryTokens} of ${budget} tokens`);
    }
  }

  if (hints && trimmed.length > 0) {
    const closings = (hints.expectedClosings ?? []).filter((c) => typeof c === 'string' && c.trim().length > 0);
    if (closings.length > 0 && !closings.some((c) => endsNear(trimmed, c))) {
      reasons.push(`no closing “${closings[0].trim()}…” line`);
    }
    const section = hints.expectedLastSection;
    if (section !== undefined && Number.isInteger(section) && section > 0) {
      const numbers = sectionNumbers(trimmed);
      if (!numbers.includes(section)) {
        const last = numbers.length > 0 ? numbers[numbers.length - 1] : undefined;
        reasons.push(
          `last numbered section ${section} is missing; ` +
            (last === undefined ? 'the text has no numbered sections' : `the text stops in section ${last}`),
        );
      }
    }
  }
  if (hints?.rawOutputClosed === false) {
    reasons.push(`raw summariser output has no closing ${hints.rawClosingMarker || 'marker'}`);
  }

  return reasons.length > 0 ? { truncated: true, reasons, cutAt: text.length } : { truncated: false, reasons };
}

/** The mid-clause reason for a (right-trimmed, non-empty) summary, or undefined when it ends cleanly. */
function midClauseEnding(trimmed: string): string | undefined {
  const lastLine = trimmed.slice(trimmed.lastIndexOf('\n') + 1).trim();
  const last = trimmed[trimmed.length - 1];

  // A closing code fence, a markdown rule, or a table row closes the text.
  if (/^(```|~~~)[\w-]*$/.test(lastLine) || /^(-{3,}|\*{3,}|_{3,})$/.test(lastLine) || /^\|.*\|$/.test(lastLine)) {
    return undefined;
  }
  const lastWord = lastWordOf(trimmed)?.toLowerCase();

  if (/[.!?…)\]}>"'”’»`*|]/.test(last)) {
    // Ends on terminal punctuation, but "… and the." is unusual; a dangling word before a period is still
    // a complete-looking sentence in practice, so accept it.
    return undefined;
  }
  if (/[\p{L}\p{N}]/u.test(last)) {
    const isListItem = /^([-*+•]|\d{1,3}[.)])\s+\S/.test(lastLine);
    const isPathOrUrl = isPathWithExtension(lastLine.split(/\s+/).pop() ?? '');
    // A list item or heading often has no final punctuation: only a dangling word gives it away there.
    const isHeading = /^#{1,6}\s/.test(lastLine);
    if ((isListItem || isHeading || isPathOrUrl || leavesLinesUnpunctuated(trimmed)) && !(lastWord && DANGLING_WORDS.has(lastWord))) {
      return undefined;
    }
    return `ends mid-clause: “${quoteEnd(trimmed)}”`;
  }
  if (/[,;:([{\-–—/\\&+=<“‘]/.test(last)) {
    return `ends mid-clause: “${quoteEnd(trimmed)}”`;
  }
  return undefined;
}

/**
 * Whether the text's own style leaves lines without final punctuation: at least two of its earlier lines end on a
 * letter or digit, and no fewer than end on terminal punctuation. Then a last line without it says nothing.
 */
function leavesLinesUnpunctuated(trimmed: string): boolean {
  let bare = 0;
  let punctuated = 0;
  let end = trimmed.lastIndexOf('\n');
  while (end > 0) {
    const start = trimmed.lastIndexOf('\n', end - 1) + 1;
    const line = trimmed.slice(start, end).trimEnd();
    if (line.length > 0) {
      const last = line[line.length - 1];
      if (/[\p{L}\p{N}]/u.test(last)) bare++;
      else if (/[.!?…]/.test(last)) punctuated++;
    }
    end = start - 1;
  }
  return bare >= 2 && bare >= punctuated;
}

/**
 * Whether a word (whitespace makes it none) is a path or URL ending in a file extension: a slash or backslash
 * somewhere before the last `.`, which is followed by 1 to 8 ASCII letters or digits up to the end ("src/a.ts",
 * "https://x.io/a.html"). One backward scan, where `/^\S*[/\\]\S*\.[A-Za-z0-9]{1,8}$/` backtracked
 * cubically on a run of slashes.
 */
export function isPathWithExtension(word: string): boolean {
  if (/\s/.test(word)) return false;
  let dot = word.length;
  while (dot > 0 && isAsciiAlphanumeric(word.charCodeAt(dot - 1))) dot--;
  const extension = word.length - dot;
  if (extension < 1 || extension > 8 || dot === 0 || word[dot - 1] !== '.') return false;
  for (let i = dot - 2; i >= 0; i--) {
    const c = word[i];
    if (c === '/' || c === '\\') return true;
  }
  return false;
}

function isAsciiAlphanumeric(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

const WORD_CHAR = /[\p{L}\p{N}_'’-]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The text's last word (letters, digits, _ ' ’ -), skipping trailing non-word characters; scans backwards. */
function lastWordOf(text: string): string | undefined {
  let end = text.length;
  const floor = Math.max(0, text.length - 400);
  while (end > floor && !LETTER_OR_DIGIT.test(text[end - 1])) end--;
  let start = end;
  while (start > floor && WORD_CHAR.test(text[start - 1])) start--;
  return end > start ? text.slice(start, end) : undefined;
}

/**
 * The cut-word tell: the summary ends on letters that start a longer word used in the summary or its source
 * texts, and are not themselves a word used there ("… started to rena" where "rename" is used).
 */
function cutWord(trimmed: string, sourceTexts: Iterable<string>): string | undefined {
  if (!LETTER_OR_DIGIT.test(trimmed[trimmed.length - 1])) return undefined;
  let start = trimmed.length;
  while (start > 0 && LETTER_OR_DIGIT.test(trimmed[start - 1])) start--;
  const word = trimmed.slice(start).toLowerCase();
  if (word.length < 3 || /^\d+$/.test(word)) return undefined;
  const before = trimmed.slice(0, start);
  const first = wordUse(before, word);
  if (first.exact) return undefined;
  let longer = first.longer;
  for (const text of sourceTexts) {
    if (typeof text !== 'string') continue;
    const use = wordUse(text, word);
    if (use.exact) return undefined;
    longer ??= use.longer;
  }
  return longer === undefined ? undefined : `ends mid-word: “…${word}” is the start of “${longer}”, used elsewhere`;
}

/** Whether `word` (lower case) occurs in `text` as a whole word, and a longer word it starts, if any. */
function wordUse(text: string, word: string): { exact: boolean; longer?: string } {
  const lower = text.toLowerCase();
  let longer: string | undefined;
  /** Looks at one occurrence; true when it is the whole word. */
  const visit = (at: number): boolean => {
    if (at > 0 && LETTER_OR_DIGIT.test(lower[at - 1])) return false;
    let end = at + word.length;
    if (end >= lower.length || !LETTER_OR_DIGIT.test(lower[end])) return true;
    if (longer === undefined) {
      while (end < lower.length && end - at < 40 && LETTER_OR_DIGIT.test(lower[end])) end++;
      longer = lower.slice(at, end);
    }
    return false;
  };
  if (!allLettersOrDigits(word)) return { exact: someOccurrence(lower, word, visit), longer };
  // A start that follows a letter or digit is no word's start, so the search goes on after the run of letters
  // and digits an occurrence is in: the runs are passed once (searching again from at + 1 was quadratic).
  for (let at = lower.indexOf(word); at >= 0;) {
    if (visit(at)) return { exact: true };
    let from = at + word.length;
    while (from < lower.length && LETTER_OR_DIGIT.test(lower[from])) from++;
    at = lower.indexOf(word, from);
  }
  return { exact: false, longer };
}

function allLettersOrDigits(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (!LETTER_OR_DIGIT.test(word[i])) return false;
  return true;
}

/**
 * Calls `visit` with each start of `word` in `text`, in order, until it returns true (then true). Knuth–Morris–
 * Pratt, linear whatever the text: for the rare word that lower-casing gave a mark (İ → i̇), whose occurrences
 * may overlap after it.
 */
function someOccurrence(text: string, word: string, visit: (at: number) => boolean): boolean {
  const m = word.length;
  if (m === 0) return false;
  const fallback = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && word[i] !== word[k]) k = fallback[k - 1];
    if (word[i] === word[k]) k++;
    fallback[i] = k;
  }
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== word[k]) k = fallback[k - 1];
    if (text[i] === word[k]) k++;
    if (k === m) {
      if (visit(i - m + 1)) return true;
      k = fallback[k - 1];
    }
  }
  return false;
}

const LIST_ITEM = /^\s{0,8}(?:[-*+•]|\d{1,3}[.)])[ \t]+\S/;

/** The list tell: every earlier item of the final list ends with a full stop, the last one does not. */
function unfinishedListItem(trimmed: string): string | undefined {
  const lines = trimmed.split('\n');
  const last = lines[lines.length - 1];
  if (!LIST_ITEM.test(last)) return undefined;
  let earlier = 0;
  for (let i = lines.length - 2; i >= 0; i--) {
    const line = lines[i].trimEnd();
    if (line.trim() === '') break;
    if (!LIST_ITEM.test(line)) continue; // an item's continuation line
    if (!/[.!?…]$/.test(line)) return undefined;
    earlier++;
  }
  const end = last.trimEnd();
  if (earlier < 2 || /[.!?…:)\]]$/.test(end)) return undefined;
  return `the last list item ends without the full stop all ${earlier} earlier items have: “${quoteEnd(trimmed)}”`;
}

/** The last ~30 characters, whitespace collapsed, prefixed with … when cut. */
function quoteEnd(trimmed: string): string {
  const flat = trimmed.slice(-QUOTE_LENGTH * 4).replace(/\s+/g, ' ');
  if (flat.length <= QUOTE_LENGTH) return flat;
  // Start at a word boundary when one is near, so the quote does not open mid-word.
  let start = flat.length - QUOTE_LENGTH;
  while (start > 0 && flat[start - 1] !== ' ' && flat.length - start < QUOTE_LENGTH * 1.5) start--;
  return `…${flat.slice(start).trimStart()}`;
}

/** Whether `closing` occurs (case-insensitively) near the end of the text. */
function endsNear(trimmed: string, closing: string): boolean {
  const window = Math.max(600, closing.length * 3);
  return trimmed.slice(-window).toLowerCase().includes(closing.trim().toLowerCase());
}

/** Numbers of top-level numbered sections ("7. Pending Tasks:", "## 7. …", "**7. …**"), in text order. */
function sectionNumbers(text: string): number[] {
  const numbers: number[] = [];
  const heading = /^(?:#{1,6}[ \t]*)?(?:\*\*)?(\d{1,2})[.)][ \t]+\S/gm;
  for (let m = heading.exec(text); m; m = heading.exec(text)) numbers.push(Number(m[1]));
  return numbers;
}
