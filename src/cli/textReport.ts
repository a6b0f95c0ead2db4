// The terminal output of `compaction-lens check`: one block per checkpoint, colour only when asked (a TTY).
// Everything that comes from a transcript or a path (summary ids, turn ids, reasons quoting the summary or
// evidence, problem messages, file names) goes through terminalText, so its control characters show escaped
// and the colours are the only escape sequences printed.
import { countOf, groupDigits, shortTurnId } from '../core/displayText';
import { formatRanges, idRangesOf } from '../core/idRanges';
import type { Analysis, CheckpointAnalysis, IdRange, Problem, TurnId, TurnStatus, Verdict } from '../core/model';
import type { FileReport } from './checkFiles';
import { terminalText as safe } from './terminalText';

interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  verdict(verdict: Verdict, text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

function painter(color: boolean): Paint {
  const wrap = (code: string) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const green = wrap('32');
  const red = wrap('31');
  const yellow = wrap('33');
  return {
    bold: wrap('1'),
    dim: wrap('2'),
    red,
    yellow,
    verdict: (verdict, text) => (verdict === 'reversible' ? green(text) : verdict === 'conditional' ? yellow(text) : red(text)),
  };
}

const number = groupDigits;

const plural = countOf;

/** At most this many ranges are listed in text; --json has them all. */
const MAX_RANGES = 12;

/**
 * Ranges by the turns' own ids ("380–419"); long ids (Claude Code's uuids, message ids) shortened as everywhere
 * else (core/displayText's shortTurnId) and followed by the lines of the turns' records, which say more to a
 * reader than a uuid: "0111e7ef…–msg_013pbPJV… (lines 12–340)".
 */
function rangesText(ranges: IdRange[], turns: CheckpointTurns): string {
  const shown = ranges.slice(0, MAX_RANGES);
  const more = ranges.length > shown.length ? `, … ${ranges.length - shown.length} more ranges (--json lists all)` : '';
  if (allNumbers(turns)) return safe(formatRanges(shown)) + more;
  // The turns of the ranges shown only (a map of every turn was millions of entries for a large transcript);
  // the last turn with an id wins, as in a map of them all.
  const wanted = new Set<TurnId>();
  for (const range of shown) wanted.add(range.from).add(range.to);
  const indexOf = new Map<TurnId, number>();
  for (let i = 0; i < turns.count; i++) if (wanted.has(turns.id(i))) indexOf.set(turns.id(i), i);
  const parts = shown.map((range) => {
    const from = indexOf.get(range.from);
    const to = indexOf.get(range.to);
    const first = from === undefined ? undefined : turns.line(from);
    const last = to === undefined ? undefined : turns.endLine(to);
    const ids = range.count === 1 ? shortTurnId(range.from) : `${shortTurnId(range.from)}–${shortTurnId(range.to)}`;
    return `${safe(ids)} (${first === last ? `line ${first}` : `lines ${first}–${last}`})`;
  });
  return parts.join(', ') + more;
}

function safeSetText(cp: CheckpointAnalysis, turns: CheckpointTurns): string {
  if (cp.safeCovered.length === 0) return 'empty (no claimed turn can be trusted)';
  return `${rangesText(idRangesOf(turns.count, turns.id, cp.safeCovered), turns)} (${plural(cp.safeCovered.length, 'turn')})`;
}

/** A checkpoint's turns in log order: how many, and each one's id and lines (TurnResult.line and endLine), by index. */
interface CheckpointTurns {
  count: number;
  id(index: number): TurnId;
  line(index: number): number;
  endLine(index: number): number;
}

/** Whether every turn's id is a number. */
function allNumbers(turns: CheckpointTurns): boolean {
  for (let i = 0; i < turns.count; i++) if (typeof turns.id(i) !== 'number') return false;
  return true;
}

/**
 * A checkpoint's turns: its results, or when they went to a turn sink (turnsWritten) the first of the analysis's
 * turnPlaces.
 */
function checkpointTurns(cp: CheckpointAnalysis, analysis: Analysis): CheckpointTurns {
  const places = analysis.turnPlaces;
  if (cp.turnsWritten && places !== undefined) {
    return {
      count: Math.min(cp.turnsBefore ?? 0, places.count),
      id: (index) => places.id(index),
      line: (index) => places.line(index),
      endLine: (index) => places.endLine(index),
    };
  }
  return {
    count: cp.turns.length,
    id: (index) => cp.turns[index].id,
    line: (index) => cp.turns[index].line,
    endLine: (index) => cp.turns[index].endLine,
  };
}

/** The order of the counts line: uncovered last, after the claimed turns' statuses. */
const COUNTS_ORDER: readonly TurnStatus[] = ['covered', 'claimed-missing', 'nothing-to-check', 'unverifiable', 'uncovered'];

/**
 * "380 covered · 40 claimed-missing · 30 nothing to check · 2 unverifiable · 0 uncovered": covered,
 * claimed-missing and uncovered always, the two neutral statuses only when some turn has them.
 */
function countsText(cp: CheckpointAnalysis, paint: Paint): string {
  const parts: string[] = [];
  for (const status of COUNTS_ORDER) {
    const n = cp.counts[status] ?? 0;
    const neutral = status === 'nothing-to-check' || status === 'unverifiable';
    if (neutral && n === 0) continue;
    const text = `${number(n)} ${status === 'nothing-to-check' ? 'nothing to check' : status}`;
    parts.push(status === 'claimed-missing' && n > 0 ? paint.red(text) : text);
  }
  return parts.join(' · ');
}

function checkpointBlock(cp: CheckpointAnalysis, analysis: Analysis, paint: Paint): string[] {
  const lines: string[] = [];
  const verdictText =
    (cp.opaque || cp.unverifiable !== undefined) && cp.verdict !== 'reversible'
      ? `${cp.verdict.toUpperCase()} (unverifiable)`
      : cp.verdict.toUpperCase();
  lines.push(
    `  ${paint.bold(safe(cp.summaryId))}  line ${cp.line}  ${paint.verdict(cp.verdict, verdictText)}  ${paint.dim(`(Path ${cp.path})`)}`,
  );

  const source = cp.prefixTokenSource === 'recorded' ? 'recorded' : cp.prefixTokenSource === 'counted' ? 'counted' : 'recorded + counted';
  const prefix = `prefix ${number(cp.prefixTokens)} tokens (${source}, ${plural(cp.claimedIds.length, 'claimed turn')})`;
  if (cp.ceiling !== undefined && cp.summaryBudget !== undefined) {
    const relation = cp.overCeiling ? '>' : '≤';
    const assumed = cp.budgetAssumed ? ', budget assumed' : '';
    lines.push(`    ${prefix} ${relation} ceiling ${number(cp.ceiling)} (budget ${number(cp.summaryBudget)} × ${cp.ratioFloor}${assumed})`);
  } else {
    lines.push(`    ${prefix}; ceiling unknown (no summary budget)`);
  }
  if (cp.recordedPrefixTokens !== undefined)
    lines.push(`    recorded by the agent: ${number(cp.recordedPrefixTokens)} tokens before compaction`);

  const budgetText = cp.summaryBudget !== undefined ? ` of ${number(cp.summaryBudget)}` : '';
  const truncated = cp.truncation.truncated ? paint.red('truncated: yes') : 'truncated: no';
  lines.push(`    summary ${number(cp.summaryTokens)}${budgetText} tokens · ${truncated}`);
  for (const reason of cp.truncation.reasons) lines.push(`      - ${safe(reason)}`);

  const missing = cp.counts['claimed-missing'];
  lines.push(`    turns: ${countsText(cp, paint)}`);
  const turns = checkpointTurns(cp, analysis);
  if (missing > 0) lines.push(`    claimed-missing: ${rangesText(cp.claimedMissingRanges, turns)}`);
  lines.push(`    safe pointer set: ${safeSetText(cp, turns)}`);
  if (cp.reasons.length > 0) {
    lines.push('    why:');
    for (const reason of cp.reasons) lines.push(`      - ${safe(reason)}`);
  }
  return lines;
}

/** A problem's message without the "line N: " it begins with when N is its line: the report says the line first. */
function withoutItsLine(problem: Problem): string {
  const where = `line ${problem.line}: `;
  return problem.message.startsWith(where) ? problem.message.slice(where.length) : problem.message;
}

function problemLines(problems: Problem[], paint: Paint): string[] {
  if (problems.length === 0) return [];
  const shown = problems.slice(0, 50);
  const lines = [`  ${plural(problems.length, 'problem')}:`];
  for (const problem of shown) {
    const severity =
      problem.severity === 'error'
        ? paint.red(problem.severity)
        : problem.severity === 'warning'
          ? paint.yellow(problem.severity)
          : problem.severity;
    // Line 0 is the whole file (a note on its runs, its side files): no line to name.
    const where = problem.line > 0 ? `line ${problem.line}: ` : '';
    lines.push(`    ${where}${severity}: ${safe(withoutItsLine(problem))}`);
  }
  if (problems.length > shown.length) lines.push(`    … and ${number(problems.length - shown.length)} more (use --json for all of them)`);
  return lines;
}

export function textReport(reports: FileReport[], color: boolean): string {
  const paint = painter(color);
  const out: string[] = [];
  for (const report of reports) {
    if (report.analysis === undefined) {
      out.push(`${paint.bold(safe(report.path))}`, `  ${paint.red('error')}: ${safe(report.error ?? 'unknown error')}`);
      for (const detail of report.details ?? []) out.push(`    - ${safe(detail)}`);
      out.push('');
      continue;
    }
    const { analysis } = report;
    out.push(
      `${paint.bold(safe(report.path))}  ${paint.dim(`(${safe(analysis.format)}, ${plural(analysis.turnCount, 'turn')}, ${plural(analysis.checkpoints.length, 'checkpoint')})`)}`,
    );
    if (analysis.checkpoints.length === 0) out.push('  no compaction checkpoints found');
    for (const cp of analysis.checkpoints) out.push(...checkpointBlock(cp, analysis, paint));
    out.push(...problemLines(analysis.problems, paint), '');
  }
  return out.join('\n');
}
