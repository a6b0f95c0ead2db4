// A search that only locates what the next step reads. An agent often greps for a name with line numbers
// ("37:…", "config/dev.exs:21:  watchers: [") and, in its very next step, reads the file at those lines. The
// search's result then holds nothing of its own: what it found is in the read's result, a turn of its own, which
// a summary carries or not. Careful readers label such a result as holding nothing worth carrying (the labels'
// README: "grep output that only gives a line number which the next turn reads"). This says when a result is
// one: every line of it is a match line (a line number, after the file's path when the search looked in a
// folder) or a search tool's note (pagination, a "--" between groups), and the agent's next step reads a file it
// located, at a line it gave (toolCalls.ts fileReadWindow: a path with an offset and a limit, or an editor's view
// range). The rules read a result's shape and a read's arguments, and name no words of any one session. Linear in
// the texts; no regular expression. Pure.
import { fileReadWindow, splitCalls, stringArg, type ParsedCall } from './toolCalls';

/** A result longer than this is not a locator: it shows far more than line numbers. */
const MAX_LOCATOR_CHARS = 4000;

/** Argument names of a search's folder or file. */
const SEARCH_PATH_FIELDS = ['path', 'file', 'dir', 'directory'];

/** The lines a search result gives, by the file they are in ('' when a line names no file: the searched path). */
type Located = Map<string, number[]>;

/**
 * True when `resultText`, the result of the search `callText` makes, only locates lines that `nextText`, the
 * agent's next step, reads: each file it located is read there, at a window holding one of the lines it gave.
 */
export function locatesWhatIsReadNext(resultText: string, callText: string, nextText: string): boolean {
  if (resultText.length > MAX_LOCATOR_CHARS) return false;
  const search = onlyCall(callText);
  if (search === undefined || search.effect !== 'lookup') return false;
  const located = locatedLines(resultText);
  if (located === undefined) return false;
  const searched = stringArg(search.args, SEARCH_PATH_FIELDS);
  const reads: { path: string; from: number; to: number }[] = [];
  for (const call of splitCalls(nextText).calls) {
    const read = fileReadWindow(call);
    if (read !== undefined) reads.push(read);
  }
  if (reads.length === 0) return false;
  // Every file the search located is read next, at one of its lines: the search found nothing the reads do not show.
  for (const [file, lines] of located) {
    const path = file === '' ? searched : file;
    if (path === undefined) return false;
    const readHere = reads.some((read) => samePath(read.path, path) && lines.some((line) => line >= read.from && line <= read.to));
    if (!readHere) return false;
  }
  return true;
}

/** The one call of a call's text, or undefined when it holds none or several. */
function onlyCall(callText: string): ParsedCall | undefined {
  const { calls } = splitCalls(callText);
  return calls.length === 1 ? calls[0] : undefined;
}

/**
 * The lines a search result gives, by file, when every line of it is a match line ("21:text", "21-text" for a
 * line of context, each after "path:" or "path-" when the search looked in a folder) or a note; undefined
 * otherwise, or when it gives no line.
 */
function locatedLines(text: string): Located | undefined {
  const located: Located = new Map();
  let count = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '' || line === '--' || isNote(line)) continue;
    const match = matchLine(line);
    if (match === undefined) return undefined;
    const lines = located.get(match.file);
    if (lines === undefined) located.set(match.file, [match.line]);
    else lines.push(match.line);
    count++;
  }
  return count > 0 ? located : undefined;
}

/** A search tool's note about its output: "[Showing results with pagination = limit: 3, offset: 0]". */
function isNote(line: string): boolean {
  return line.startsWith('[') && line.endsWith(']');
}

/**
 * A match line's file ('' when it names none) and line number: the first run of digits that starts the line or
 * follows a ':' or '-' after a path, and is followed by ':' or '-'.
 */
function matchLine(line: string): { file: string; line: number } | undefined {
  for (let at = 0; at < line.length; at++) {
    if (at > 0) {
      const before = line.charCodeAt(at - 1);
      if (before !== 58 /* : */ && before !== 45 /* - */) continue;
    }
    let end = at;
    while (end < line.length && isDigit(line.charCodeAt(end))) end++;
    if (end === at || end >= line.length) continue;
    const after = line.charCodeAt(end);
    if (after !== 58 && after !== 45) continue;
    const file = at === 0 ? '' : line.slice(0, at - 1);
    if (file.includes(' ')) return undefined;
    return { file, line: Number(line.slice(at, end)) };
  }
  return undefined;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Whether a read's path is the located one: the same, or ending in it after a '/' (a path relative to the search's),
 * with Windows' '\\' read as '/'.
 */
function samePath(readPath: string, locatedPath: string): boolean {
  const read = slashes(readPath);
  const located = slashes(locatedPath);
  if (located === '' || read === '') return false;
  if (read === located) return true;
  const relative = located.startsWith('./') ? located.slice(2) : located;
  return read.endsWith(`/${relative}`) || located.endsWith(`/${read}`);
}

function slashes(path: string): string {
  return path.includes('\\') ? path.split('\\').join('/') : path;
}
