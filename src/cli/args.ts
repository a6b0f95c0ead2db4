// Parses the command line of `compaction-lens` (the `check`, `eval`, `find`, `export` and `bundle` commands)
// with Node's `parseArgs` (node:util): `--flag value`, `--flag=value`, `-h`, and `--` before file names that
// start with a dash. Returns either the options or a user-facing error; an unknown option is an error, never a
// file name.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { FormatId } from '../core/model';
import { DEFAULT_RATIO_FLOOR } from '../core/defaults';
import { DEFAULT_COVERAGE_THRESHOLD } from '../core/evidence';
import { isFormatId, FORMATS } from '../formats/readers';
import { DEFAULT_ENCODING, ENCODINGS, isEncodingName, type EncodingName } from '../node/tokenCounter';
import { STANDARD_INPUT } from './standardInput';

/** What steers the analysis of a transcript, shared by `check` and `eval`. */
export interface AnalysisSettings {
  ratioFloor: number;
  encoding: EncodingName;
  format?: FormatId;
  /** The weighted evidence a claimed turn needs found in the summary; undefined = the core's default. */
  coverageThreshold?: number;
  /** Summary budget to assume when a transcript records none (overrides the per-format default). */
  budget?: number;
  maxLineBytes?: number;
  /** Most bytes a .gz transcript may inflate to (TranscriptFile's maxInflatedBytes). */
  maxInflatedBytes?: number;
  /** Most a .gz transcript may inflate relative to its compressed size (TranscriptFile's maxInflateRatio). */
  maxInflateRatio?: number;
}

export interface CheckOptions extends AnalysisSettings {
  files: string[];
  json: boolean;
  sarif: boolean;
  color: boolean;
}

export interface EvalOptions extends AnalysisSettings {
  labelsPath: string;
  /** The transcript to analyse; undefined = the labels' `file`, relative to the corpus folder. */
  transcriptPath?: string;
  json: boolean;
  /** Exit 1 when the agreement on covered/missing labels is lower than this fraction (0–1). */
  minAgreement?: number;
}

export interface FindCommandOptions extends AnalysisSettings {
  file: string;
  /** What to find, as typed: plain text, or /regex/flags. */
  query: string;
  json: boolean;
  color: boolean;
}

export interface ExportCommandOptions extends AnalysisSettings {
  file: string;
  /** Where to write; undefined = beside the transcript (docs/corrected-checkpoint.md). */
  out?: string;
  /** Replace an existing output file. */
  force: boolean;
}

export interface BundleCommandOptions extends AnalysisSettings {
  file: string;
  /** The summary id of the checkpoint whose claimed-missing turns to bundle; undefined = every such checkpoint. */
  checkpoint?: string;
  /** The ids of the turns to bundle instead (as the transcript spells them). */
  turns?: string[];
  /** Bundle the turns that hold this text or match this /regex/ instead (as `find` reads it). */
  find?: string;
  /** Mask secrets-looking strings (--no-mask turns it off). */
  mask: boolean;
}

export type ParsedArgs =
  | { kind: 'check'; options: CheckOptions }
  | { kind: 'bundle'; options: BundleCommandOptions }
  | { kind: 'export'; options: ExportCommandOptions }
  | { kind: 'find'; options: FindCommandOptions }
  | { kind: 'eval'; options: EvalOptions }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

export const USAGE = `Usage: compaction-lens check FILE… [options]
       compaction-lens eval LABELS.json [TRANSCRIPT] [--json] [--threshold N] [--min-agreement X]
       compaction-lens find FILE "text" | "/regex/flags" [--json] [options]
       compaction-lens export FILE [--out PATH] [--force] [options]
       compaction-lens bundle FILE [--checkpoint ID | --turns ID,ID… | --find QUERY] [--no-mask] [options]

check: checks every compaction checkpoint in each transcript: does its summary really cover the turns its
pointer set claims?

FILE may be - for standard input in check, find and bundle (cat FILE | compaction-lens check -; compressed
or not), shown as "(standard input)".

eval: compares the statuses of one checkpoint's turns with hand-made labels (see docs/accuracy.md) and
prints the agreement, the confusion matrix and every disagreement with its evidence. TRANSCRIPT defaults to
the labels' "file", relative to the folder above the labels file.

find: where did this fact go? Lists the turns whose text holds the text (case-insensitive) or matches the
/regex/ (flags i m s u; patterns that could backtrack on a long turn are refused), and for every checkpoint
whether it claims each turn, whether its summary still holds the text, and where a reconstruction must read
it: "from summary S" (covered) or "raw log line L" — flagged when the checkpoint claims the turn but its summary
does not carry it (the pointer set would have given a false negative).

export: writes the corrected checkpoints to a new file (docs/corrected-checkpoint.md): per checkpoint the
claimed pointer set, the safe pointer set and the turns moved to uncovered, and why. A canonical transcript
gets a corrected copy, NAME.corrected.jsonl, each checkpoint claiming its safe pointer set; any other format
the sidecar FILE.compaction-lens.json (also written for a canonical one when --out does not end in .jsonl).
The transcript itself is never written.

bundle: prints, as Markdown ready to paste back into the agent's context, the raw text of the turns a
checkpoint claims but whose summary does not carry (every such checkpoint's, or --checkpoint ID's), or of the
turns --turns names, or of the turns that hold --find's text (as find reads it): each turn's id, source line, role and text. Strings that look like secrets (API keys,
tokens, passwords, private keys) are masked unless --no-mask. Its size in tokens goes to stderr.

Options:
  --json                 print one JSON document instead of text
  --sarif                (check) print SARIF 2.1.0 (for CI code-scanning) instead of text
  --threshold N          weighted evidence a claimed turn needs found in the summary to count as covered
                         (default ${DEFAULT_COVERAGE_THRESHOLD})
  --min-agreement X      (eval) exit 1 when the agreement is below X (a fraction, 0–1); without it eval exits 0
  --ratio-floor N        R_low, the compression-ratio floor (default ${DEFAULT_RATIO_FLOOR}); ceiling = budget × N
  --encoding E           tiktoken encoding for counting: ${ENCODINGS.join(' | ')} (default ${DEFAULT_ENCODING})
  --format F             read every transcript as this format instead of detecting it:
                         ${FORMATS.map((format) => format.id).join(' | ')}
  --budget N             summary budget (tokens) to assume when a transcript records none
  --max-line-mb N        skip records longer than N MB (default 16)
  --max-inflated-mb N    stop reading a .gz transcript past N MB decompressed (default 2048)
  --max-inflate-ratio N  stop reading a .gz transcript that inflates more than N times its size (default 200)
  -o, --out PATH         (export) write here instead of beside the transcript
  --force                (export) replace the output file if it exists
  --checkpoint ID        (bundle) the checkpoint (summary id) whose claimed-missing turns to bundle
  --turns ID,ID…         (bundle) bundle these turns instead
  --find QUERY           (bundle) bundle the turns that hold this text or match this /regex/ instead
  --no-mask              (bundle) keep secrets-looking strings as they are
  --no-color             plain text even on a terminal
  --color                colour even when the output is not a terminal
  -h, --help             show this help
  --version              show the version
  --                     everything after it is a file name, even when it starts with a dash

Exit status of check: 0 every checkpoint is reversible and nothing is wrong; 1 findings (claimed-missing
turns, a truncated summary, a verdict other than reversible — unverifiable coverage is fail-closed — or
unreadable lines); 2 an input could not be used.
Exit status of eval: 0 measured; 1 agreement below --min-agreement; 2 bad labels or an unusable transcript.
Exit status of find: 0 found, every route trustworthy; 1 found, and a checkpoint claims a matching turn its
summary does not carry (flagged); 2 an unusable transcript or a refused pattern; 3 no turn holds it.
Exit status of export: 0 written; 2 nothing written (an unusable transcript, the output exists and --force
was not given, the output is the transcript, or it could not be written).
Exit status of bundle: 0 printed (or nothing to recover, said on stderr); 2 an unusable transcript, an unknown
checkpoint or turn id.`;

/** Every option the commands accept; which command may use which is checked in `applyOption`. */
const OPTIONS = {
  json: { type: 'boolean' },
  sarif: { type: 'boolean' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'ratio-floor': { type: 'string' },
  threshold: { type: 'string' },
  budget: { type: 'string' },
  'max-line-mb': { type: 'string' },
  'max-inflated-mb': { type: 'string' },
  'max-inflate-ratio': { type: 'string' },
  'min-agreement': { type: 'string' },
  encoding: { type: 'string' },
  format: { type: 'string' },
  'anchor-matching': { type: 'string' },
  out: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
  checkpoint: { type: 'string' },
  turns: { type: 'string' },
  find: { type: 'string' },
  'no-mask': { type: 'boolean' },
} satisfies NonNullable<ParseArgsConfig['options']>;

type OptionName = keyof typeof OPTIONS;

function isOptionName(name: string): name is OptionName {
  return Object.prototype.hasOwnProperty.call(OPTIONS, name);
}

function positiveNumber(flag: string, value: string): number | string {
  const number = Number(value);
  if (value === '' || !Number.isFinite(number) || number <= 0) return `${flag} needs a positive number, got ${JSON.stringify(value)}`;
  return number;
}

function fraction(flag: string, value: string): number | string {
  const number = Number(value);
  if (value === '' || !Number.isFinite(number) || number < 0 || number > 1) {
    return `${flag} needs a fraction from 0 to 1 (e.g. 0.9), got ${JSON.stringify(value)}`;
  }
  return number;
}

/** What one parse collects: the settings both commands share, the flags of each, and the file names. */
interface Parsed {
  settings: AnalysisSettings;
  positionals: string[];
  json: boolean;
  sarif: boolean;
  color: boolean;
  minAgreement?: number;
  out?: string;
  force: boolean;
  checkpoint?: string;
  turns?: string[];
  find?: string;
  mask: boolean;
  help: boolean;
  version: boolean;
}

/** Applies one option to `parsed`; returns an error message, or undefined when all is well. */
function applyOption(
  command: 'check' | 'eval' | 'find' | 'export' | 'bundle',
  name: OptionName,
  flag: string,
  value: string,
  parsed: Parsed,
): string | undefined {
  const { settings } = parsed;
  const numberInto = (parse: (flag: string, value: string) => number | string, set: (n: number) => void): string | undefined => {
    const n = parse(flag, value);
    if (typeof n === 'string') return n;
    set(n);
    return undefined;
  };
  switch (name) {
    case 'json':
      if (command === 'export') return '--json is not for export, which writes a file (see --help)';
      if (command === 'bundle') return '--json is not for bundle, which prints Markdown (see --help)';
      parsed.json = true;
      return undefined;
    case 'sarif':
      if (command !== 'check') return `--sarif is for check; ${command} prints text or --json`;
      parsed.sarif = true;
      return undefined;
    case 'color':
      parsed.color = true;
      return undefined;
    case 'no-color':
      parsed.color = false;
      return undefined;
    case 'help':
      parsed.help = true;
      return undefined;
    case 'version':
      parsed.version = true;
      return undefined;
    case 'ratio-floor':
      return numberInto(positiveNumber, (n) => (settings.ratioFloor = n));
    case 'threshold':
      return numberInto(positiveNumber, (n) => (settings.coverageThreshold = n));
    case 'budget':
      return numberInto(positiveNumber, (n) => (settings.budget = n));
    case 'max-line-mb':
      return numberInto(positiveNumber, (n) => (settings.maxLineBytes = Math.round(n * 1024 * 1024)));
    case 'max-inflated-mb':
      return numberInto(positiveNumber, (n) => (settings.maxInflatedBytes = Math.round(n * 1024 * 1024)));
    case 'max-inflate-ratio':
      return numberInto(positiveNumber, (n) => (settings.maxInflateRatio = n));
    case 'min-agreement':
      if (command !== 'eval') return '--min-agreement is for eval (see --help)';
      return numberInto(fraction, (n) => (parsed.minAgreement = n));
    case 'out':
      if (command !== 'export') return `--out is for export (see --help)`;
      if (value === '') return `${flag} needs a file name`;
      parsed.out = value;
      return undefined;
    case 'force':
      if (command !== 'export') return `--force is for export (see --help)`;
      parsed.force = true;
      return undefined;
    case 'checkpoint':
      if (command !== 'bundle') return '--checkpoint is for bundle (see --help)';
      if (value === '') return `${flag} needs a checkpoint's summary id`;
      parsed.checkpoint = value;
      return undefined;
    case 'turns': {
      if (command !== 'bundle') return '--turns is for bundle (see --help)';
      const ids = value
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '');
      if (ids.length === 0) return `${flag} needs turn ids separated by commas, got ${JSON.stringify(value)}`;
      parsed.turns = [...(parsed.turns ?? []), ...ids];
      return undefined;
    }
    case 'find':
      if (command !== 'bundle') return '--find is for bundle (see --help)';
      if (value === '') return `${flag} needs the text to look for`;
      parsed.find = value;
      return undefined;
    case 'no-mask':
      if (command !== 'bundle') return '--no-mask is for bundle (see --help)';
      parsed.mask = false;
      return undefined;
    case 'anchor-matching':
      return '--anchor-matching is gone: a turn is now covered when enough of its weighted evidence is in the summary; use --threshold N';
    case 'encoding':
      if (!isEncodingName(value)) return `--encoding must be one of ${ENCODINGS.join(', ')}, got ${JSON.stringify(value)}`;
      settings.encoding = value;
      return undefined;
    case 'format':
      if (!isFormatId(value)) return `--format must be one of ${FORMATS.map((f) => f.id).join(', ')}, got ${JSON.stringify(value)}`;
      settings.format = value;
      return undefined;
  }
}

/** Reads the arguments after the command name into `parsed`; returns an error message or undefined. */
function readArguments(command: 'check' | 'eval' | 'find' | 'export' | 'bundle', args: string[], parsed: Parsed): string | undefined {
  // strict: false so that the errors below are ours (in our words, naming the flag as typed); every token is
  // still checked, so an unknown option is an error and never becomes a file name.
  const { tokens } = parseArgs({ args, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional') {
      parsed.positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue;
    if (!isOptionName(token.name)) return `unknown option ${token.rawName} (see --help)`;
    const expectsValue = OPTIONS[token.name].type === 'string';
    if (expectsValue && token.value === undefined) return `${token.rawName} needs a value (see --help)`;
    if (!expectsValue && token.value !== undefined) return `${token.rawName} takes no value, got ${JSON.stringify(token.value)}`;
    const error = applyOption(command, token.name, token.rawName, token.value ?? '', parsed);
    if (error !== undefined) return error;
  }
  return undefined;
}

/** The parsed command line of `compaction-lens` (argv without the node and script paths). */
export function readCommandLine(argv: string[], stdoutIsTty: boolean): ParsedArgs {
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help' || argv[0] === 'help') return { kind: 'help' };
  if (argv[0] === '--version') return { kind: 'version' };
  const command = argv[0];
  if (command !== 'check' && command !== 'eval' && command !== 'find' && command !== 'export' && command !== 'bundle') {
    return {
      kind: 'error',
      message: `unknown command ${JSON.stringify(command)}; the commands are "check", "eval", "find", "export" and "bundle" (see --help)`,
    };
  }
  const parsed: Parsed = {
    settings: { ratioFloor: DEFAULT_RATIO_FLOOR, encoding: DEFAULT_ENCODING },
    positionals: [],
    json: false,
    sarif: false,
    color: stdoutIsTty && process.env.NO_COLOR === undefined,
    force: false,
    mask: true,
    help: false,
    version: false,
  };
  const error = readArguments(command, argv.slice(1), parsed);
  if (parsed.help) return { kind: 'help' };
  if (error !== undefined) return { kind: 'error', message: error };
  if (parsed.version) return { kind: 'version' };

  const stdinUses = parsed.positionals.filter((p) => p === STANDARD_INPUT).length;
  if (stdinUses > 0 && command === 'export') {
    const why = 'it reads the transcript again to write the corrected copy. Save it to a file first.';
    return { kind: 'error', message: `export cannot read standard input (-): ${why}` };
  }
  if (stdinUses > 0 && command === 'eval')
    return { kind: 'error', message: 'eval cannot read standard input (-): name the labels file and the transcript' };
  if (stdinUses > 1) return { kind: 'error', message: 'standard input (-) can be named once: it can be read only once' };
  if (command === 'eval') {
    const [labelsPath, transcriptPath, ...extra] = parsed.positionals;
    if (labelsPath === undefined) return { kind: 'error', message: 'eval needs a LABELS.json file (see --help)' };
    if (extra.length > 0)
      return {
        kind: 'error',
        message: `eval takes one LABELS.json and at most one TRANSCRIPT, got also ${extra.map((e) => JSON.stringify(e)).join(', ')}`,
      };
    return {
      kind: 'eval',
      options: { ...parsed.settings, labelsPath, transcriptPath, json: parsed.json, minAgreement: parsed.minAgreement },
    };
  }
  if (command === 'find') {
    const [file, query, ...extra] = parsed.positionals;
    if (file === undefined || query === undefined)
      return { kind: 'error', message: 'find needs a FILE and the text or /regex/ to find (see --help)' };
    if (extra.length > 0) {
      return {
        kind: 'error',
        message: `find takes one FILE and one text or /regex/ (quote it), got also ${extra.map((e) => JSON.stringify(e)).join(', ')}`,
      };
    }
    return { kind: 'find', options: { ...parsed.settings, file, query, json: parsed.json, color: parsed.color } };
  }
  if (command === 'export') {
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) return { kind: 'error', message: 'export needs a FILE (see --help)' };
    if (extra.length > 0) {
      return { kind: 'error', message: `export takes one FILE, got also ${extra.map((e) => JSON.stringify(e)).join(', ')}` };
    }
    return { kind: 'export', options: { ...parsed.settings, file, out: parsed.out, force: parsed.force } };
  }
  if (command === 'bundle') {
    const [file, ...extra] = parsed.positionals;
    if (file === undefined) return { kind: 'error', message: 'bundle needs a FILE (see --help)' };
    if (extra.length > 0) {
      return { kind: 'error', message: `bundle takes one FILE, got also ${extra.map((e) => JSON.stringify(e)).join(', ')}` };
    }
    const ways = [parsed.checkpoint, parsed.turns, parsed.find].filter((way) => way !== undefined).length;
    if (ways > 1) {
      return {
        kind: 'error',
        message: '--checkpoint, --turns and --find cannot be used together: bundle a checkpoint, the turns named or the turns found',
      };
    }
    return {
      kind: 'bundle',
      options: { ...parsed.settings, file, checkpoint: parsed.checkpoint, turns: parsed.turns, find: parsed.find, mask: parsed.mask },
    };
  }
  if (parsed.json && parsed.sarif) return { kind: 'error', message: '--json and --sarif cannot be used together' };
  if (parsed.positionals.length === 0) return { kind: 'error', message: 'check needs at least one FILE (see --help)' };
  return {
    kind: 'check',
    options: { ...parsed.settings, files: parsed.positionals, json: parsed.json, sarif: parsed.sarif, color: parsed.color },
  };
}
