// Keeps the problems of one read bounded, whatever the file: the first MAX_KEPT_PROBLEMS are kept as objects,
// the rest are only counted, and the user sees them as one summary problem ("…and 9,999,000 more problems on
// lines …"). The one cap every reader and the file reader use: a ProblemList where problems are collected,
// capProblems where lists are merged (a summary met in a merged list is folded into the new one).

import type { Problem, Severity } from '../core/model';
import { countOf, groupDigits } from '../core/displayText';

/** Problems kept as objects per list; the rest are counted. */
export const MAX_KEPT_PROBLEMS = 1000;

/** What was counted but not kept. */
interface Overflow {
  count: number;
  errors: number;
  warnings: number;
  infos: number;
  firstLine: number;
  lastLine: number;
}

/** The summary problems this module made, with what they stand for (so a merge can add them up). */
const summaries = new WeakMap<Problem, Overflow>();

function emptyOverflow(): Overflow {
  return { count: 0, errors: 0, warnings: 0, infos: 0, firstLine: Number.POSITIVE_INFINITY, lastLine: 0 };
}

function countInto(overflow: Overflow, line: number, severity: Severity, count = 1): void {
  overflow.count += count;
  if (severity === 'error') overflow.errors += count;
  else if (severity === 'warning') overflow.warnings += count;
  else overflow.infos += count;
  overflow.firstLine = Math.min(overflow.firstLine, line);
  overflow.lastLine = Math.max(overflow.lastLine, line);
}

function mergeInto(overflow: Overflow, other: Overflow): void {
  overflow.count += other.count;
  overflow.errors += other.errors;
  overflow.warnings += other.warnings;
  overflow.infos += other.infos;
  overflow.firstLine = Math.min(overflow.firstLine, other.firstLine);
  overflow.lastLine = Math.max(overflow.lastLine, other.lastLine);
}

/** The one problem that stands for the ones not kept. */
function summaryProblem(overflow: Overflow, limit: number): Problem {
  const kinds = [
    overflow.errors > 0 ? countOf(overflow.errors, 'error') : '',
    overflow.warnings > 0 ? countOf(overflow.warnings, 'warning') : '',
    overflow.infos > 0 ? countOf(overflow.infos, 'note') : '',
  ].filter((kind) => kind !== '');
  const lines =
    overflow.firstLine === overflow.lastLine
      ? `line ${groupDigits(overflow.firstLine)}`
      : `lines ${groupDigits(overflow.firstLine)}–${groupDigits(overflow.lastLine)}`;
  const what =
    overflow.errors === overflow.count
      ? overflow.count === 1
        ? 'unreadable or unusable line'
        : 'unreadable or unusable lines'
      : overflow.count === 1
        ? 'problem'
        : 'problems';
  const problem: Problem = {
    line: overflow.firstLine,
    severity: overflow.errors > 0 ? 'error' : overflow.warnings > 0 ? 'warning' : 'info',
    message: `…and ${groupDigits(overflow.count)} more ${what} on ${lines} (${kinds.join(', ')}), not listed one by one: only the first ${groupDigits(limit)} problems are kept, so that memory stays bounded. Fix the lines listed and check again; if most lines cannot be read, this file may not be a transcript.`,
  };
  summaries.set(problem, { ...overflow });
  return problem;
}

/** True when `problem` is a summary of problems not kept (made by this module). */
export function isOverflowSummary(problem: Problem): boolean {
  return summaries.has(problem);
}

/** How many problems `problems` stands for: the ones kept plus the ones its summaries count. */
export function problemCount(problems: readonly Problem[]): number {
  let n = 0;
  for (const problem of problems) n += summaries.get(problem)?.count ?? 1;
  return n;
}

/** A list of problems that keeps the first `limit` and counts the rest. */
export class ProblemList {
  private readonly kept: Problem[] = [];
  private overflow: Overflow | undefined;
  private cachedList: Problem[] | undefined;

  constructor(readonly limit: number = MAX_KEPT_PROBLEMS) {}

  /** True once `limit` problems are kept: further ones are only counted (their messages need not be built). */
  get full(): boolean {
    return this.kept.length >= this.limit;
  }

  /** Problems added in all, kept or counted (a summary added counts as what it stands for). */
  get size(): number {
    return this.kept.length + (this.overflow?.count ?? 0);
  }

  /** Adds a problem. `message` may be a function: it is called only when the problem is kept. */
  add(line: number, severity: Severity, message: string | (() => string)): void {
    if (this.full) this.count(line, severity);
    else this.push({ line, severity, message: typeof message === 'string' ? message : message() });
  }

  /** Adds a problem object (a summary made by this module is added as the problems it counts). */
  push(problem: Problem): void {
    const folded = summaries.get(problem);
    if (folded !== undefined) {
      this.overflow ??= emptyOverflow();
      mergeInto(this.overflow, folded);
    } else if (this.full) {
      this.count(problem.line, problem.severity);
      return;
    } else {
      this.kept.push(problem);
    }
    this.cachedList = undefined;
  }

  /** Counts a problem without keeping it (for callers that know the list is full). */
  count(line: number, severity: Severity, count = 1): void {
    this.overflow ??= emptyOverflow();
    countInto(this.overflow, line, severity, count);
    this.cachedList = undefined;
  }

  /** The kept problems, then one summary of the rest if there is any. A new array each call. */
  list(): Problem[] {
    if (this.cachedList === undefined) {
      this.cachedList = this.overflow === undefined ? this.kept.slice() : [...this.kept, summaryProblem(this.overflow, this.limit)];
    }
    return this.cachedList.slice();
  }

  /** Forgets everything. */
  clear(): void {
    this.kept.length = 0;
    this.overflow = undefined;
    this.cachedList = undefined;
  }
}

/**
 * `problems` with at most `limit` kept (the first ones, in the order given) and the rest, including any
 * summaries among them, folded into one summary at the end. A new array.
 */
export function capProblems(problems: readonly Problem[], limit: number = MAX_KEPT_PROBLEMS): Problem[] {
  let summaryCount = 0;
  for (const problem of problems) if (summaries.has(problem)) summaryCount++;
  if (problems.length <= limit && summaryCount <= 1) return problems.slice();
  const list = new ProblemList(limit);
  for (const problem of problems) list.push(problem);
  return list.list();
}
