// The extension's settings, read and typed in one place. Every other file asks `readSettings()`;
// the defaults here mirror `contributes.configuration` in package.json (keep both in step).
import * as vscode from 'vscode';
import { DEFAULT_RATIO_FLOOR, DEFAULT_SUMMARY_BUDGETS } from '../core/defaults';
import { DEFAULT_COVERAGE_THRESHOLD } from '../core/evidence';
import type { FormatId } from '../core/model';
import { DEFAULT_ENCODING, isEncodingName, type EncodingName } from '../node/tokenCounter';

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
}

export const SECTION = 'compactionLens';

export const DEFAULT_TRANSCRIPT_GLOBS = [
  '**/*.jsonl',
  '**/*.json',
  '!**/node_modules/**',
  '!**/.git/**',
  '!**/.vscode/**',
  '!**/.vscode-test/**',
  '!**/package.json',
  '!**/package-lock.json',
  '!**/tsconfig*.json',
  '!**/jsconfig*.json',
];

/** Reads the current settings, replacing any invalid value with its default. */
export function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const ratioFloor = config.get<unknown>('ratioFloor');
  const encoding = config.get<unknown>('encoding');
  const coverageThreshold = config.get<unknown>('coverageThreshold');
  const globs = config.get<unknown>('transcriptGlobs');
  const budgets = config.get<unknown>('defaultSummaryBudget');
  return {
    ratioFloor: isPositive(ratioFloor) ? ratioFloor : DEFAULT_RATIO_FLOOR,
    encoding: typeof encoding === 'string' && isEncodingName(encoding) ? encoding : DEFAULT_ENCODING,
    coverageThreshold: isPositive(coverageThreshold) ? coverageThreshold : DEFAULT_COVERAGE_THRESHOLD,
    transcriptGlobs:
      Array.isArray(globs) && globs.every((glob) => typeof glob === 'string') && globs.length > 0
        ? (globs as string[])
        : DEFAULT_TRANSCRIPT_GLOBS,
    defaultSummaryBudget: readBudgets(budgets),
    analyzeOnOpen: config.get<boolean>('analyzeOnOpen') !== false,
  };
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

const FORMAT_IDS: readonly FormatId[] = ['canonical', 'claude-code', 'codex', 'openhands', 'langchain', 'message-array'];

function readBudgets(value: unknown): Partial<Record<FormatId, number>> {
  const budgets: Partial<Record<FormatId, number>> = { ...DEFAULT_SUMMARY_BUDGETS };
  if (value && typeof value === 'object') {
    for (const format of FORMAT_IDS) {
      const budget = (value as Record<string, unknown>)[format];
      if (typeof budget === 'number' && Number.isInteger(budget) && budget > 0) budgets[format] = budget;
    }
  }
  return budgets;
}

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
