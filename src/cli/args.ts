// Parses the command line of `compaction-lens`. Returns either the options or a user-facing error.
import type { AnchorMatching, FormatId } from '../core/model';
import { DEFAULT_RATIO_FLOOR } from '../core/defaults';
import { isFormatId, FORMATS } from '../formats/readers';
import { DEFAULT_ENCODING, ENCODINGS, isEncodingName, type EncodingName } from '../node/tokenCounter';

export interface CheckOptions {
  files: string[];
  json: boolean;
  sarif: boolean;
  ratioFloor: number;
  encoding: EncodingName;
  format?: FormatId;
  anchorMatching: AnchorMatching;
  /** Summary budget to assume when a transcript records none (overrides the per-format default). */
  budget?: number;
  maxLineBytes?: number;
  color: boolean;
}

export type ParsedArgs =
  | { kind: 'check'; options: CheckOptions }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

export const USAGE = `Usage: compaction-lens check FILE… [options]

Checks every compaction checkpoint in each transcript: does its summary really cover the turns its
pointer set claims?

Options:
  --json                 print one JSON document instead of text
  --sarif                print SARIF 2.1.0 (for CI code-scanning) instead of text
  --ratio-floor N        R_low, the compression-ratio floor (default ${DEFAULT_RATIO_FLOOR}); ceiling = budget × N
  --encoding E           tiktoken encoding for counting: ${ENCODINGS.join(' | ')} (default ${DEFAULT_ENCODING})
  --format F             read every FILE as this format instead of detecting it:
                         ${FORMATS.map((format) => format.id).join(' | ')}
  --anchor-matching M    derived anchors a turn needs in the summary: any | majority | all (default any)
  --budget N             summary budget (tokens) to assume when a transcript records none
  --max-line-mb N        skip records longer than N MB (default 16)
  --no-color             plain text even on a terminal
  -h, --help             show this help
  --version              show the version

Exit status: 0 every checkpoint is reversible and nothing is wrong; 1 findings (claimed-missing turns,
a truncated summary, a verdict other than reversible, or unreadable lines); 2 an input could not be used.`;

function positiveNumber(flag: string, value: string | undefined): number | string {
  const number = Number(value);
  if (value === undefined || value === '' || !Number.isFinite(number) || number <= 0) {
    return `${flag} needs a positive number, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`;
  }
  return number;
}

export function parseArgs(argv: string[], stdoutIsTty: boolean): ParsedArgs {
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help' || argv[0] === 'help') return { kind: 'help' };
  if (argv[0] === '--version') return { kind: 'version' };
  if (argv[0] !== 'check') {
    return { kind: 'error', message: `unknown command ${JSON.stringify(argv[0])}; the command is "check" (see --help)` };
  }
  const options: CheckOptions = {
    files: [],
    json: false,
    sarif: false,
    ratioFloor: DEFAULT_RATIO_FLOOR,
    encoding: DEFAULT_ENCODING,
    anchorMatching: 'any',
    color: stdoutIsTty && process.env.NO_COLOR === undefined,
  };
  for (let i = 1; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--json':
        options.json = true;
        break;
      case '--sarif':
        options.sarif = true;
        break;
      case '--no-color':
        options.color = false;
        break;
      case '-h':
      case '--help':
        return { kind: 'help' };
      case '--ratio-floor': {
        const n = positiveNumber(flag, value());
        if (typeof n === 'string') return { kind: 'error', message: n };
        options.ratioFloor = n;
        break;
      }
      case '--budget': {
        const n = positiveNumber(flag, value());
        if (typeof n === 'string') return { kind: 'error', message: n };
        options.budget = n;
        break;
      }
      case '--max-line-mb': {
        const n = positiveNumber(flag, value());
        if (typeof n === 'string') return { kind: 'error', message: n };
        options.maxLineBytes = Math.round(n * 1024 * 1024);
        break;
      }
      case '--encoding': {
        const v = value() ?? '';
        if (!isEncodingName(v)) return { kind: 'error', message: `--encoding must be one of ${ENCODINGS.join(', ')}, got ${JSON.stringify(v)}` };
        options.encoding = v;
        break;
      }
      case '--format': {
        const v = value() ?? '';
        if (!isFormatId(v)) return { kind: 'error', message: `--format must be one of ${FORMATS.map((f) => f.id).join(', ')}, got ${JSON.stringify(v)}` };
        options.format = v;
        break;
      }
      case '--anchor-matching': {
        const v = value() ?? '';
        if (v !== 'any' && v !== 'majority' && v !== 'all') return { kind: 'error', message: `--anchor-matching must be any, majority or all, got ${JSON.stringify(v)}` };
        options.anchorMatching = v;
        break;
      }
      default:
        if (arg.startsWith('-') && arg !== '-') return { kind: 'error', message: `unknown option ${arg} (see --help)` };
        options.files.push(arg);
    }
  }
  if (options.json && options.sarif) return { kind: 'error', message: '--json and --sarif cannot be used together' };
  if (options.files.length === 0) return { kind: 'error', message: 'check needs at least one FILE (see --help)' };
  return { kind: 'check', options };
}
