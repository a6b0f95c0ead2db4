// Tool calls as a turn's text holds them ("[tool call NAME] ARGS", rendered by formats/textOf.ts): which lines
// are calls and which are prose, what each call does (looks up, changes, or acts), and which of its arguments
// say what it is (the path, the command, the task) and which hold what it writes. Knows tool names of the
// common agents (Read, Grep, Edit, apply_patch, str_replace_editor…) and shell verbs that change things; names
// no words of any one session.
import { wordsOf } from './evidenceText';

/** Call fields that hold what the call changes (the substance of a write or edit). */
const CONTENT_FIELDS = new Set([
  'content',
  'new_string',
  'new_str',
  'newText',
  'file_text',
  'edits',
  'patch',
  'new_source',
  'diff',
  'code',
  'insert_text',
]);
/** Call fields that hold what an edit replaces. */
export const PREVIOUS_FIELDS = new Set(['old_string', 'old_str', 'oldText']);
/** Call fields that only say what a call changes away from: left out. */
const SKIPPED_FIELDS = new Set([
  'old_string',
  'old_str',
  'oldText',
  'timeout',
  'block',
  'limit',
  'offset',
  'output_mode',
  'replace_all',
  'run_in_background',
  '-n',
  '-i',
  '-A',
  '-B',
  '-C',
  'head_limit',
  'multiline',
  'type',
  'security_risk',
  'thought',
]);
/** Call fields that hold a search pattern (a regular expression): its names are read without the escapes. */
const PATTERN_FIELDS = new Set(['pattern', 'regex']);
/** Escapes that stand for a class or a boundary (\b, \s, \w, \d…), not a character: they separate names. */
const CLASS_ESCAPES = new Set(['b', 'B', 's', 'S', 'w', 'W', 'd', 'D', 'n', 't', 'r']);

/**
 * The names a search pattern looks for, as text: `TranscriptRenderer\.render\b` → `TranscriptRenderer.render `.
 * An escaped character stands for itself, a class or boundary escape becomes a space; one pass, no regex.
 */
export function literalOfPattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[i + 1];
      out += CLASS_ESCAPES.has(next) ? ' ' : next;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

/** Tools that only look things up (normalised names: lower case, letters only). */
const LOOKUP_TOOLS = new Set([
  'read',
  'readfile',
  'view',
  'viewfile',
  'cat',
  'open',
  'grep',
  'grepsearch',
  'glob',
  'ls',
  'list',
  'listdir',
  'listfiles',
  'listdirectory',
  'find',
  'findfiles',
  'filesearch',
  'search',
  'codebasesearch',
  'websearch',
  'webfetch',
  'fetch',
  'taskoutput',
  'bashoutput',
  'getoutput',
  'readmanypages',
  'lookup',
  'todoread',
]);
/** Tools that write or edit (normalised names). */
const WRITE_TOOLS = new Set([
  'write',
  'edit',
  'multiedit',
  'notebookedit',
  'applypatch',
  'create',
  'writefile',
  'editfile',
  'strreplace',
  'insert',
]);
/** Shell verbs that change something: a shell call using one carries its substance in the call itself. */
const CHANGING_VERBS = new Set([
  'commit',
  'close',
  'update',
  'install',
  'uninstall',
  'add',
  'rm',
  'mv',
  'cp',
  'mkdir',
  'touch',
  'push',
  'merge',
  'rebase',
  'checkout',
  'switch',
  'reset',
  'revert',
  'apply',
  'create',
  'delete',
  'remove',
  'claim',
  'init',
  'tee',
  'write',
  'patch',
  'tag',
  'publish',
  'deploy',
  'kill',
  'chmod',
  'chown',
  'ln',
  'restore',
  'stash',
  'cherry',
]);

/** One tool call found in a turn's text ("[tool call NAME] ARGS", see formats/textOf.ts). */
export interface ParsedCall {
  name: string;
  args: unknown;
  /** 'lookup': only reads; 'change': writes, edits or runs a changing command; 'action': anything else. */
  effect: 'lookup' | 'change' | 'action';
}

/** A turn's prose (every line that is not a tool call) and its calls. */
export function splitCalls(text: string): { prose: string; calls: ParsedCall[] } {
  const src = typeof text === 'string' ? text : '';
  if (!src.includes('[tool call ')) return { prose: src, calls: [] };
  const prose: string[] = [];
  const calls: ParsedCall[] = [];
  let start = 0;
  while (start <= src.length) {
    let end = src.indexOf('\n', start);
    if (end < 0) end = src.length;
    const line = src.slice(start, end);
    if (line.startsWith('[tool call ')) {
      const close = line.indexOf(']');
      const name = close > 11 ? line.slice(11, close) : 'tool';
      const rawArgs = close > 0 ? line.slice(close + 1).trim() : '';
      const args = parseArgs(rawArgs);
      calls.push({ name, args, effect: effectOf(name, args) });
    } else {
      prose.push(line);
    }
    start = end + 1;
  }
  return { prose: prose.join('\n'), calls };
}

function parseArgs(raw: string): unknown {
  if (raw.startsWith('{') || raw.startsWith('[')) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

function normalName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length && out.length < 40; i++) {
    const c = name.charCodeAt(i) | 32;
    if (c >= 97 && c <= 122) out += String.fromCharCode(c);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The shell command a call runs, when it runs one. */
export function commandOf(args: unknown): string | undefined {
  if (!isRecord(args)) return undefined;
  const cmd = args.command ?? args.cmd;
  if (typeof cmd === 'string') return cmd;
  if (Array.isArray(cmd)) return cmd.filter((x) => typeof x === 'string').join(' ');
  return undefined;
}

function effectOf(name: string, args: unknown): ParsedCall['effect'] {
  const n = normalName(name);
  if (isRecord(args)) {
    for (const field of Object.keys(args)) if (CONTENT_FIELDS.has(field)) return 'change';
    // An editor tool's sub-command (str_replace_editor view / create).
    const sub = typeof args.command === 'string' ? normalName(args.command) : '';
    if (sub === 'view') return 'lookup';
  }
  if (WRITE_TOOLS.has(n)) return 'change';
  if (LOOKUP_TOOLS.has(n)) return 'lookup';
  const command = commandOf(args);
  if (command !== undefined) return shellEffect(command);
  return 'action';
}

/** A shell command is a lookup unless one of its words is a changing verb or it redirects into a file. */
function shellEffect(command: string): ParsedCall['effect'] {
  if (command.includes('>') && !command.includes('2>&1') && !/>\s*\/dev\/null/.test(command.slice(0, 2000))) return 'change';
  for (const word of wordsOf(command.slice(0, 2000))) if (CHANGING_VERBS.has(word)) return 'change';
  return 'lookup';
}

/** Tools that read a file (not search for one or in one). */
const FILE_READ_TOOLS = new Set(['read', 'readfile', 'view', 'viewfile', 'open']);
/** A read of at most this many lines (a `limit`, a `view_range`) looks for something in the file, not at it. */
export const NARROW_READ_LINES = 50;

/**
 * True when a call reads a file, whole or a wide part of it (Read, an editor's view), as against searching in
 * it, running it, or reading a few lines to check one thing.
 */
export function readsAFile(call: ParsedCall): boolean {
  const args = readArgs(call);
  if (args === undefined) return false;
  const limit = args.limit;
  if (typeof limit === 'number' && limit <= NARROW_READ_LINES) return false;
  const range = args.view_range;
  if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number' && range[1] >= 0) {
    if (range[1] - range[0] + 1 <= NARROW_READ_LINES) return false;
  }
  return true;
}

/** The arguments of a call that reads a file (a read tool, an editor's view), or undefined for any other call. */
function readArgs(call: ParsedCall): Record<string, unknown> | undefined {
  const args = call.args;
  if (call.effect !== 'lookup' || !isRecord(args)) return undefined;
  const editorView = typeof args.command === 'string' && normalName(args.command) === 'view';
  return editorView || FILE_READ_TOOLS.has(normalName(call.name)) ? args : undefined;
}

/** Lines a file read takes when it names no limit (Claude Code's Read default). */
const DEFAULT_READ_LINES = 2000;

/** Argument names of the file a call reads or changes. */
export const FILE_PATH_FIELDS = ['file_path', 'path', 'file', 'filename'];

/**
 * The file a call reads and the lines it takes (1-based, both ends included), when it is a file read of any width:
 * a read tool's `offset` and `limit` (from line 1 and DEFAULT_READ_LINES lines when absent), or an editor's
 * `view_range` (to the end for -1).
 */
export function fileReadWindow(call: ParsedCall): { path: string; from: number; to: number } | undefined {
  const args = readArgs(call);
  if (args === undefined) return undefined;
  const path = stringArg(args, FILE_PATH_FIELDS);
  if (path === undefined) return undefined;
  const range = args.view_range;
  if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number') {
    return { path, from: range[0], to: range[1] < 0 ? Number.MAX_SAFE_INTEGER : range[1] };
  }
  const from = typeof args.offset === 'number' && args.offset > 0 ? args.offset : 1;
  const limit = typeof args.limit === 'number' && args.limit > 0 ? args.limit : DEFAULT_READ_LINES;
  return { path, from, to: from + limit - 1 };
}

/** The first of `fields` that is a non-empty string among a call's arguments. */
export function stringArg(args: unknown, fields: readonly string[]): string | undefined {
  if (!isRecord(args)) return undefined;
  for (const field of fields) {
    const value = args[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * The name that identifies a call without arguments (EnterPlanMode {}): an action like that is known by its name
 * alone. Not a lookup's (TodoRead {}): what a lookup found is in its result, not its name.
 */
export function bareCallName(call: ParsedCall): string | undefined {
  if (call.effect === 'lookup') return undefined;
  const args = call.args;
  const empty = args === '' || args === undefined || args === null || (isRecord(args) && Object.keys(args).length === 0);
  return empty ? call.name : undefined;
}

/** Texts of a call's arguments, split into what identifies the call and what it writes. */
export function callTexts(call: ParsedCall): { identity: string[]; content: string[]; prose: string[]; previous: string[] } {
  const identity: string[] = [];
  const content: string[] = [];
  const prose: string[] = [];
  const previous: string[] = [];
  const args = call.args;
  if (typeof args === 'string') {
    (call.effect === 'change' ? content : identity).push(args);
    return { identity, content, prose, previous };
  }
  if (!isRecord(args)) return { identity, content, prose, previous };
  for (const [field, value] of Object.entries(args)) {
    if (PREVIOUS_FIELDS.has(field) && typeof value === 'string') previous.push(value);
    if (SKIPPED_FIELDS.has(field)) continue;
    const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : safeJson(value);
    if (text === '') continue;
    if (PATTERN_FIELDS.has(field)) identity.push(literalOfPattern(text));
    else if (CONTENT_FIELDS.has(field)) content.push(text);
    else if (field === 'description' || field === 'reason' || field === 'message' || field === 'prompt') prose.push(text);
    else identity.push(text);
  }
  return { identity, content, prose, previous };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
