// The extension's settings, read, range-checked and typed in one place. Every other file asks `readSettings()`;
// the defaults and ranges here mirror `contributes.configuration` in package.json (keep both in step). A value
// of the wrong type or out of range (1e300, NaN, a negative) is never used: the default is, and a one-line
// warning says so. Every setting here but `timeline.reuse` (which only arranges tabs) can soften a verdict,
// widen a scan or change how a finding is shown (the problem severities, the inline marks), so each is also
// listed in package.json's `capabilities.untrustedWorkspaces.restrictedConfigurations`: an untrusted workspace
// cannot set it.
import * as vscode from 'vscode';
import { FORMATS } from '../formats/readers';
import { DEFAULT_RATIO_FLOOR, DEFAULT_SUMMARY_BUDGETS } from '../core/defaults';
import { DEFAULT_COVERAGE_THRESHOLD } from '../core/evidence';
import type { FormatId } from '../core/model';
import { DEFAULT_ENCODING, isEncodingName, type EncodingName } from '../node/tokenCounter';
import { DEFAULT_MAX_INFLATE_RATIO, DEFAULT_MAX_INFLATED_BYTES } from '../node/transcriptFile';
import { DEFAULT_KIND_SEVERITIES, PROBLEM_SEVERITIES, type KindSeverities, type ProblemSeverity } from '../view/problemsModel';

export interface Settings {
  /** R_low, the compression-ratio floor of the design note. */
  ratioFloor: number;
  encoding: EncodingName;
  /** Summary budget assumed per format when a transcript records none (none for canonical by default). */
  defaultSummaryBudget: Partial<Record<FormatId, number>>;
  /** How much weighted evidence a claimed turn needs found in its summary to count as covered. */
  coverageThreshold: number;
  /** Globs that find transcripts; entries starting with `!` exclude. */
  transcriptGlobs: string[];
  /** Analyse a transcript when it is opened in an editor (only once the extension is active). */
  analyzeOnOpen: boolean;
  /** Most bytes a gzip transcript (or side file) may inflate to (TranscriptFile's `maxInflatedBytes`). */
  maxInflatedBytes: number;
  /** Most a gzip transcript may inflate relative to its size on disk (TranscriptFile's `maxInflateRatio`). */
  maxInflateRatio: number;
  /**
   * The Problems severity of claimed-missing turns, per kind: tool output (`problems.toolOutputSeverity`) and
   * conversation turns (`problems.conversationSeverity`); `off` flags and marks none of that kind.
   */
  problemSeverities: KindSeverities;
  /** End-of-line marks on claimed-missing turns in visible editors (`inlineMarks`). */
  inlineMarks: boolean;
  /** One timeline panel per transcript, or a single one that follows the active transcript (`timeline.reuse`). */
  timelineReuse: TimelineReuse;
}

export const TIMELINE_REUSE = ['perTranscript', 'single'] as const;
export type TimelineReuse = (typeof TIMELINE_REUSE)[number];

/** The range a numeric setting must lie in (inclusive), as package.json's schema states it. */
export interface NumberRange {
  minimum: number;
  maximum: number;
  integer?: boolean;
}

/** TranscriptFile's own defaults, in the settings' units (megabytes; times the compressed size). */
export const DEFAULT_MAX_DECOMPRESSED_MEGABYTES = DEFAULT_MAX_INFLATED_BYTES / (1024 * 1024);
export const DEFAULT_MAX_DECOMPRESSION_RATIO = DEFAULT_MAX_INFLATE_RATIO;

/** Ranges of the numeric settings (each per-format summary budget uses `summaryBudget`). */
export const RANGES = {
  /** R_low below 1 would claim a summary longer than what it replaced; above 100 it trusts any summary. */
  ratioFloor: { minimum: 1, maximum: 100 },
  coverageThreshold: { minimum: 0.1, maximum: 100 },
  summaryBudget: { minimum: 1, maximum: 1_000_000, integer: true },
  maxDecompressedMegabytes: { minimum: 1, maximum: 65_536, integer: true },
  /** Deflate cannot exceed about 1,032:1, so 2,000 already means "no ratio limit". */
  maxDecompressionRatio: { minimum: 2, maximum: 2_000 },
} as const satisfies Record<string, NumberRange>;

export const SECTION = 'compactionLens';

export const DEFAULT_TRANSCRIPT_GLOBS = [
  '**/*.jsonl',
  '**/*.jsonl.gz',
  '**/*.json',
  '**/*.af',
  '!**/node_modules/**',
  '!**/.git/**',
  '!**/.vscode/**',
  '!**/.vscode-test/**',
  '!**/package.json',
  '!**/package-lock.json',
  '!**/tsconfig*.json',
  '!**/jsconfig*.json',
];

/** Where a rejected value is reported: one line each (the store passes its log's warn). */
export type SettingsWarn = (message: string) => void;

/** Reads the current settings, replacing any invalid or out-of-range value with its default (and warning). */
export function readSettings(warn: SettingsWarn = () => undefined): Settings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return checkSettings((key) => config.get<unknown>(key), warn);
}

/**
 * The settings from raw values (`get(key)` for a key under `compactionLens.`; undefined when unset), every
 * value checked: wrong types, NaN, infinities, negatives and values outside RANGES give the default.
 */
export function checkSettings(get: (key: string) => unknown, warn: SettingsWarn = () => undefined): Settings {
  const encoding = get('encoding');
  const globs = get('transcriptGlobs');
  const analyzeOnOpen = get('analyzeOnOpen');
  const inlineMarks = get('inlineMarks');
  const timelineReuse = get('timeline.reuse');
  const megabytes = checkNumber(
    'maxDecompressedMegabytes',
    get('maxDecompressedMegabytes'),
    RANGES.maxDecompressedMegabytes,
    DEFAULT_MAX_DECOMPRESSED_MEGABYTES,
    warn,
  );
  return {
    ratioFloor: checkNumber('ratioFloor', get('ratioFloor'), RANGES.ratioFloor, DEFAULT_RATIO_FLOOR, warn),
    encoding: check('encoding', encoding, typeof encoding === 'string' && isEncodingName(encoding), DEFAULT_ENCODING, warn),
    coverageThreshold: checkNumber(
      'coverageThreshold',
      get('coverageThreshold'),
      RANGES.coverageThreshold,
      DEFAULT_COVERAGE_THRESHOLD,
      warn,
    ),
    transcriptGlobs: check(
      'transcriptGlobs',
      globs,
      Array.isArray(globs) && globs.length > 0 && globs.every((glob) => typeof glob === 'string'),
      DEFAULT_TRANSCRIPT_GLOBS,
      warn,
    ),
    defaultSummaryBudget: checkBudgets(get('defaultSummaryBudget'), warn),
    analyzeOnOpen: check('analyzeOnOpen', analyzeOnOpen, typeof analyzeOnOpen === 'boolean', true, warn),
    maxInflatedBytes: megabytes * 1024 * 1024,
    maxInflateRatio: checkNumber(
      'maxDecompressionRatio',
      get('maxDecompressionRatio'),
      RANGES.maxDecompressionRatio,
      DEFAULT_MAX_DECOMPRESSION_RATIO,
      warn,
    ),
    problemSeverities: {
      'tool-output': checkSeverity(
        'problems.toolOutputSeverity',
        get('problems.toolOutputSeverity'),
        DEFAULT_KIND_SEVERITIES['tool-output'],
        warn,
      ),
      conversation: checkSeverity(
        'problems.conversationSeverity',
        get('problems.conversationSeverity'),
        DEFAULT_KIND_SEVERITIES.conversation,
        warn,
      ),
    },
    inlineMarks: check('inlineMarks', inlineMarks, typeof inlineMarks === 'boolean', false, warn),
    timelineReuse: check(
      'timeline.reuse',
      timelineReuse,
      (TIMELINE_REUSE as readonly unknown[]).includes(timelineReuse),
      'perTranscript' as TimelineReuse,
      warn,
    ),
  };
}

/** A value shown in a warning: JSON-like, and short (a setting can hold anything). */
function shown(value: unknown): string {
  let text: string;
  if (typeof value === 'number') text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function check<T>(key: string, value: unknown, valid: boolean, fallback: T, warn: SettingsWarn): T {
  if (value === undefined) return fallback;
  if (valid) return value as T;
  warn(`${SECTION}.${key}: ${shown(value)} is not a valid value; using the default ${shown(fallback)}.`);
  return fallback;
}

function checkSeverity(key: string, value: unknown, fallback: ProblemSeverity, warn: SettingsWarn): ProblemSeverity {
  const valid = typeof value === 'string' && (PROBLEM_SEVERITIES as readonly string[]).includes(value);
  return check(key, value, valid, fallback, warn);
}

/** Why `value` is not a number in `range`, or undefined when it is. */
export function outOfRange(value: unknown, range: NumberRange): string | undefined {
  if (typeof value !== 'number' || Number.isNaN(value)) return 'is not a number';
  const bounds = `${range.minimum.toLocaleString('en-US')}–${range.maximum.toLocaleString('en-US')}`;
  if (!Number.isFinite(value) || value < range.minimum || value > range.maximum) return `is outside ${bounds}`;
  if (range.integer && !Number.isInteger(value)) return `is not a whole number in ${bounds}`;
  return undefined;
}

function checkNumber(key: string, value: unknown, range: NumberRange, fallback: number, warn: SettingsWarn): number {
  if (value === undefined) return fallback;
  const problem = outOfRange(value, range);
  if (problem === undefined) return value as number;
  warn(`${SECTION}.${key}: ${shown(value)} ${problem}; using the default ${shown(fallback)}.`);
  return fallback;
}

const FORMAT_IDS: readonly FormatId[] = FORMATS.map((format) => format.id);

function checkBudgets(value: unknown, warn: SettingsWarn): Partial<Record<FormatId, number>> {
  const budgets: Partial<Record<FormatId, number>> = { ...DEFAULT_SUMMARY_BUDGETS };
  if (value === undefined) return budgets;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    warn(`${SECTION}.defaultSummaryBudget: ${shown(value)} is not an object of budgets per format; using the defaults.`);
    return budgets;
  }
  for (const format of FORMAT_IDS) {
    const budget = (value as Record<string, unknown>)[format];
    if (budget === undefined) continue;
    const problem = outOfRange(budget, RANGES.summaryBudget);
    if (problem === undefined) budgets[format] = budget as number;
    else {
      const fallback = DEFAULT_SUMMARY_BUDGETS[format];
      warn(
        `${SECTION}.defaultSummaryBudget.${format}: ${shown(budget)} ${problem}; ` +
          (fallback === undefined ? 'no budget is assumed.' : `using the default ${shown(fallback)}.`),
      );
    }
  }
  return budgets;
}

/** The decompression limits as the user sets them in VS Code (TranscriptFile's OpenOptions.limitNames). */
export const LIMIT_SETTING_NAMES = {
  maxInflatedBytes: `${SECTION}.maxDecompressedMegabytes`,
  maxInflateRatio: `${SECTION}.maxDecompressionRatio`,
};

/** Splits transcriptGlobs into include and exclude patterns (without the `!`). */
export function splitGlobs(globs: string[]): { include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  for (const glob of globs) {
    const trimmed = glob.trim();
    if (trimmed === '' || trimmed === '!') continue;
    if (trimmed.startsWith('!')) exclude.push(trimmed.slice(1));
    else include.push(trimmed);
  }
  return { include, exclude };
}

/** Joins patterns into one glob (`{a,b}`) for findFiles; undefined when there are none. */
export function joinGlobs(patterns: string[]): string | undefined {
  if (patterns.length === 0) return undefined;
  return patterns.length === 1 ? patterns[0] : `{${patterns.join(',')}}`;
}
