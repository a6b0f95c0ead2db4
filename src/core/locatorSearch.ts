// A search that only locates what the next step reads or edits. An agent often greps for a name with line numbers
// ("37:…", "config/dev.exs:21:  watchers: [") and, in its very next step, reads the file at those lines or edits
// them. The search's result then holds nothing of its own: what it found is in that step (the read's result, a turn
// of its own, or the edit's call), which a summary carries or not. Careful readers label such a result as holding
// nothing worth carrying (the labels' README: "grep output that only gives a line number which the next turn
// reads"; the readers of docs/accuracy.md's other label sets said the same of a search for the line the next turn
// edits). This says when a result is one: every line of it is a match line (a line number, after the file's path
// when the search looked in a folder) or a search tool's note (pagination, a "--" between groups), and the agent's
// next step takes each file it located at a line it gave, and at least half the lines it gave. A read takes the
// lines in its window (toolCalls.ts fileReadWindow: a path with an offset and a limit, or an editor's view range;
// or a plain shell read: `sed -n 'A,Bp'`, `nl -ba | sed`, `head`, `cat`); an edit takes a line whose text is in
// what it replaces. The path a search looked in is its `path` argument, or the one path of a plain shell
// `grep`/`rg` command. The rules read a result's shape and the calls' arguments, and name no words of any one
// session. Linear in the texts; no regular expression. Pure.
import { commandOf, FILE_PATH_FIELDS, fileReadWindow, PREVIOUS_FIELDS, splitCalls, stringArg, type ParsedCall } from './toolCalls';

/** A result longer than this is not a locator: it shows far more than line numbers. */
const MAX_LOCATOR_CHARS = 4000;

/** Argument names of a search's folder or file. */
const SEARCH_PATH_FIELDS = ['path', 'file', 'dir', 'directory'];

/** A line a search result gives: its number, and the text it shows ('' for "[Omitted long matching line]"). */
interface LocatedLine {
  line: number;
  text: string;
}

/** The lines a search result gives, by the file they are in ('' when a line names no file: the searched path). */
type Located = Map<string, LocatedLine[]>;

/** A file read's path and the lines it takes (toolCalls.ts fileReadWindow). */
type ReadWindow = { path: string; from: number; to: number };

/** An edit's file and the text it replaces. */
type Edit = { path: string; replaced: string };

/** Argument names of the text an edit replaces (toolCalls.ts PREVIOUS_FIELDS). */
const REPLACED_FIELDS = [...PREVIOUS_FIELDS];

/**
 * True when `resultText`, the result of the search `callText` makes, only locates lines that `nextText`, the
 * agent's next step, reads or edits: each file it located is taken there at one of the lines it gave (in a read's
 * window, or in what an edit replaces), and at least half the lines it gave are.
 */
export function locatesForNextStep(resultText: string, callText: string, nextText: string): boolean {
  if (resultText.length > MAX_LOCATOR_CHARS) return false;
  // The result's shape first: most results are not match lines, and are told so at their first line.
  const located = locatedLines(resultText);
  if (located === undefined) return false;
  const search = onlyCall(callText);
  if (search === undefined || search.effect !== 'lookup') return false;
  const searched = stringArg(search.args, SEARCH_PATH_FIELDS) ?? shellSearchPath(commandOf(search.args));
  const reads: ReadWindow[] = [];
  const edits: Edit[] = [];
  for (const call of splitCalls(nextText).calls) {
    const read = fileReadWindow(call);
    if (read !== undefined) reads.push(read);
    else if (call.effect === 'lookup') reads.push(...shellReadWindows(commandOf(call.args)));
    const edit = editOf(call);
    if (edit !== undefined) edits.push(edit);
  }
  if (reads.length === 0 && edits.length === 0) return false;
  // Every file the search located is read or edited next at one of its lines, and at least half the lines it gave
  // are (a line that shows no text counts as taken): what the search found is what the next step shows or
  // replaces, not a map of its own. An edit takes a line whose text is in what it replaces.
  let lines = 0;
  let taken = 0;
  for (const [file, found] of located) {
    const path = file === '' ? searched : file;
    if (path === undefined) return false;
    const windows = reads.filter((window) => samePath(window.path, path));
    const replaced = edits.filter((edit) => samePath(edit.path, path));
    const takes = ({ line, text }: LocatedLine): boolean =>
      windows.some((window) => line >= window.from && line <= window.to) ||
      (text !== '' && replaced.some((edit) => edit.replaced.includes(text)));
    if (!found.some(takes)) return false;
    for (const given of found) {
      lines++;
      if (given.text === '' || takes(given)) taken++;
    }
  }
  return taken * 2 >= lines;
}

/** The file an edit changes and the text it replaces, when the call is such an edit. */
function editOf(call: ParsedCall): Edit | undefined {
  if (call.effect !== 'change') return undefined;
  const path = stringArg(call.args, FILE_PATH_FIELDS);
  const replaced = stringArg(call.args, REPLACED_FIELDS);
  return path !== undefined && replaced !== undefined ? { path, replaced } : undefined;
}

/** Shell commands that search files for a pattern and print the matching lines. */
const SHELL_SEARCHES = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'git grep']);

/** A shell command longer than this is not read for its search's path. */
const MAX_COMMAND_CHARS = 2000;

/**
 * The one file or folder a shell search looks in (`grep -n PATTERN src/main.ts`, after a `cd` and `&&`): the last
 * word of its part of the command, when that part has a pattern and one path besides its options. Undefined when
 * there is no such part, it names several paths or none, or the command is not plain enough to tell.
 */
function shellSearchPath(command: string | undefined): string | undefined {
  if (command === undefined || command.length > MAX_COMMAND_CHARS) return undefined;
  let found: string | undefined;
  for (const part of commandParts(command)) {
    if (part.length === 0) continue;
    const name = part[0] === 'git' && part[1] === 'grep' ? 'git grep' : part[0];
    if (!SHELL_SEARCHES.has(name)) continue;
    const operands = part.slice(name === 'git grep' ? 2 : 1).filter((word) => !word.startsWith('-'));
    if (found !== undefined || operands.length !== 2) return undefined;
    found = operands[1];
  }
  return found;
}

/** Lines a shell read takes when it names no range: as many as a file may have. */
const WHOLE_FILE = Number.MAX_SAFE_INTEGER;

/**
 * The files a plain shell command reads and the lines it takes: `sed -n 'A,Bp' FILE` (A to B), `nl -ba FILE |
 * sed -n 'A,Bp'` (the same), `head -n N FILE` (1 to N), `cat FILE` and `nl FILE` (whole), after a `cd` and `&&`,
 * and inside `bash -lc` (how Codex runs its commands). None for anything else, or a command not plain enough to tell.
 */
function shellReadWindows(command: string | undefined): ReadWindow[] {
  if (command === undefined || command.length > MAX_COMMAND_CHARS) return [];
  const windows: ReadWindow[] = [];
  let piped: string | undefined;
  for (const words of commandParts(command)) {
    const part = words[0] === 'bash' || words[0] === 'sh' || words[0] === 'zsh' ? words.slice(2) : words;
    const name = part[0];
    const operands = part.slice(1).filter((word) => !word.startsWith('-'));
    if (name === 'cat' || name === 'nl') {
      if (operands.length !== 1) return [];
      // Read whole, or piped on to sed for a range of its lines.
      piped = operands[0];
      windows.push({ path: piped, from: 1, to: WHOLE_FILE });
    } else if (name === 'sed') {
      const range = sedRange(operands[0]);
      const path = operands.length === 2 ? operands[1] : operands.length === 1 ? piped : undefined;
      if (range === undefined || path === undefined || !part.includes('-n')) return [];
      if (operands.length === 1) windows.pop(); // the piped file is read in this range only
      windows.push({ path, ...range });
    } else if (name === 'head') {
      const count = headCount(part);
      const path = operands[operands.length - 1];
      if (count === undefined || path === undefined || isNumber(path)) return [];
      windows.push({ path, from: 1, to: count });
    }
  }
  return windows;
}

/** The range of `sed -n`'s script `A,Bp` (or `Ap`): lines A to B. */
function sedRange(script: string | undefined): { from: number; to: number } | undefined {
  if (script === undefined || !script.endsWith('p')) return undefined;
  const body = script.slice(0, -1);
  const comma = body.indexOf(',');
  const from = Number(comma < 0 ? body : body.slice(0, comma));
  const to = comma < 0 ? from : Number(body.slice(comma + 1));
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < from || body === '') return undefined;
  return { from, to };
}

/** How many lines `head` takes: `-n N`, `-nN` or `-N` (10 when it says none). */
function headCount(words: readonly string[]): number | undefined {
  for (let k = 1; k < words.length; k++) {
    const word = words[k];
    const value = word === '-n' ? words[k + 1] : word.startsWith('-n') ? word.slice(2) : word.startsWith('-') ? word.slice(1) : undefined;
    if (value === undefined) continue;
    const count = Number(value);
    return Number.isInteger(count) && count > 0 ? count : undefined;
  }
  return 10;
}

/**
 * A command's parts (split at `&&`, `||`, `;` and `|`), each as its words, quotes taken off. A command with a quote
 * left open, a substitution (`$`, backquotes, parentheses) or a redirection gives no parts: too unplain to tell.
 */
function commandParts(command: string): string[][] {
  const parts: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote = '';
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote !== '') {
      if (c === quote) quote = '';
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '`' || c === '$' || c === '<' || c === '>' || c === '(' || c === ')') {
      return [];
    } else if (c === ' ' || c === '\t' || c === '\n') {
      endWord();
    } else if (c === '&' || c === '|' || c === ';') {
      endWord();
      if (words.length > 0) parts.push(words);
      words = [];
      if ((c === '&' || c === '|') && command[i + 1] === c) i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== '') return [];
  endWord();
  if (words.length > 0) parts.push(words);
  return parts;
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
    const given = { line: match.line, text: isNote(match.text) ? '' : match.text };
    const lines = located.get(match.file);
    if (lines === undefined) located.set(match.file, [given]);
    else lines.push(given);
    count++;
  }
  return count > 0 ? located : undefined;
}

/** A search tool's note about its output: "[Showing results with pagination = limit: 3, offset: 0]". */
function isNote(line: string): boolean {
  return line.startsWith('[') && line.endsWith(']');
}

/**
 * A match line's file ('' when it names none), line number and text: the first run of digits that starts the line
 * or follows a ':' or '-' after a path, and is followed by ':' or '-'; the text is what follows, trimmed.
 */
function matchLine(line: string): { file: string; line: number; text: string } | undefined {
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
    return { file, line: Number(line.slice(at, end)), text: line.slice(end + 1).trim() };
  }
  return undefined;
}

/** Whether a word is digits alone (a count, not a file). */
function isNumber(word: string): boolean {
  if (word === '') return false;
  for (let i = 0; i < word.length; i++) if (!isDigit(word.charCodeAt(i))) return false;
  return true;
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
