// Where did this fact go? Finds the turns whose text holds a query (plain text, case-insensitive, or a checked
// `/regex/flags`) and says, for every checkpoint, whether it claims each such turn, whether its summary still
// holds the text or the turn's evidence, and the route the design note's `reconstruct` takes: covered → from the
// summary; uncovered → the raw log; claimed-missing → the raw log, flagged (the pointer set alone would have
// given a confident false negative there); unverifiable and nothing-to-check → the raw log, saying why.
// Pure and linear: each turn's text is scanned once, at most `maxPerTurn` matches are counted in it.
import { shortTurnId } from './displayText';
import type {
  Analysis,
  CheckpointAnalysis,
  FactAnswer,
  FactMatch,
  FactQuery,
  FactRoute,
  FindOptions,
  SummaryMention,
  Transcript,
  KeptResults,
  Turn,
  TurnResult,
} from './model';
import { indexInSorted } from './sortedNumbers';
import { userPatternProblem } from './userPattern';
import { turnReason } from './reweigh';

export const DEFAULT_MAX_MATCHES = 200;
export const DEFAULT_MAX_PER_TURN = 100;
/** Longest plain-text query accepted (characters). */
export const MAX_TEXT_LENGTH = 1000;
/** Characters of context shown either side of a match, and the most of a match shown. */
const EXCERPT_SIDE = 60;
const EXCERPT_MATCH = 200;

/**
 * Reads what a user typed: `/source/flags` is a regular expression (checked: see core/userPattern.ts), anything
 * else plain text. Returns the query, or an error sentence that says what to do instead.
 */
export function parseFactQuery(input: string): { query: FactQuery } | { error: string } {
  const text = typeof input === 'string' ? input : '';
  const close = text.lastIndexOf('/');
  if (text.startsWith('/') && close > 1 && /^[a-z]*$/.test(text.slice(close + 1))) {
    const source = text.slice(1, close);
    const flags = text.slice(close + 1);
    const problem = userPatternProblem(source, flags);
    if (problem !== undefined) {
      return {
        error: `the pattern ${text.length > 80 ? `${text.slice(0, 80)}…` : text} is refused: ${problem}. Search for plain text instead (without the slashes).`,
      };
    }
    return { query: { kind: 'regex', source, flags } };
  }
  return plainTextQuery(text);
}

/** Plain text to find, whatever it looks like (a selection is text even when it reads /…/). */
export function plainTextQuery(text: string): { query: FactQuery } | { error: string } {
  if (typeof text !== 'string' || text.trim() === '') return { error: 'nothing to find: give some text, or a /regular expression/' };
  if (text.length > MAX_TEXT_LENGTH) {
    return { error: `the text to find is longer than ${MAX_TEXT_LENGTH} characters; search for a shorter part of it` };
  }
  return { query: { kind: 'text', text } };
}

/** The query as a global regular expression: plain text escaped, matched case-insensitively. */
function compile(query: FactQuery): RegExp {
  if (query.kind === 'text') return new RegExp(query.text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'giu');
  const problem = userPatternProblem(query.source, query.flags);
  if (problem !== undefined) throw new RangeError(`the pattern /${query.source}/${query.flags} is refused: ${problem}`);
  return new RegExp(query.source, query.flags.includes('g') ? query.flags : `${query.flags}g`);
}

/** The query as typed back to the user. */
export function queryText(query: FactQuery): string {
  return query.kind === 'text' ? query.text : `/${query.source}/${query.flags}`;
}

/** Matches of `re` in `text` (zero-length ones skipped), up to `max`: the first one's place, and the count. */
function scan(re: RegExp, text: string, max: number): { at: number; length: number; count: number } | undefined {
  re.lastIndex = 0;
  let first: { at: number; length: number } | undefined;
  let count = 0;
  while (count < max) {
    const m = re.exec(text);
    if (!m) break;
    if (m[0].length === 0) {
      re.lastIndex = m.index + 1;
      continue;
    }
    first ??= { at: m.index, length: m[0].length };
    count++;
  }
  return first && { ...first, count };
}

/**
 * The indexes of the first `max` turns of `transcript` whose text holds `query`: the turns findFact lists, for a
 * shell that keeps only their results (core/keptTurns.ts). A regex query that parseFactQuery would refuse throws.
 */
export function matchingTurns(transcript: Transcript, query: FactQuery, max = DEFAULT_MAX_MATCHES): number[] {
  const re = compile(query);
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const indexes: number[] = [];
  for (let index = 0; index < turns.length && indexes.length < max; index++) {
    const turn = turns[index];
    const text = turn && typeof turn === 'object' ? turn.text : undefined; // read once: it may come from disk
    if (typeof text === 'string' && scan(re, text, 1)) indexes.push(index);
  }
  return indexes;
}

/**
 * Every turn of `transcript` whose text holds `query`, with each checkpoint's route to it. `analysis` is
 * analyze(transcript)'s result. A malformed turn or checkpoint is skipped; a regex query that parseFactQuery
 * would refuse throws a RangeError (it is never run).
 */
export function findFact(transcript: Transcript, analysis: Analysis, query: FactQuery, options: FindOptions = {}): FactAnswer {
  const maxMatches = options.maxMatches ?? DEFAULT_MAX_MATCHES;
  const maxPerTurn = options.maxPerTurn ?? DEFAULT_MAX_PER_TURN;
  const re = compile(query);
  const turns: readonly Turn[] = Array.isArray(transcript?.turns) ? transcript.turns : [];
  const checkpoints: readonly CheckpointAnalysis[] = Array.isArray(analysis?.checkpoints) ? analysis.checkpoints : [];
  const summaries = checkpoints.map((cpa) => new SummaryText(transcript, cpa));
  const kept = options.kept;
  // Without the sink's results such a checkpoint's turns would all read as not analysed: a false answer.
  const written = checkpoints.find((cpa) => cpa.turnsWritten === true);
  if (written && kept === undefined) throw new Error(`checkpoint ${written.summaryId}'s turns went to a sink, and none was given`);
  const answer: FactAnswer = { query: queryText(query), matches: [], omitted: 0, flagged: 0, summaryMentions: [] };

  turns.forEach((turn, index) => {
    if (!turn || typeof turn !== 'object' || typeof turn.text !== 'string') return;
    const found = scan(re, turn.text, maxPerTurn);
    if (!found) return;
    if (checkpoints.some((cpa) => droppedHere(cpa, turn, index, kept))) answer.flagged++;
    if (answer.matches.length >= maxMatches) {
      answer.omitted++;
      return;
    }
    const matched = turn.text.slice(found.at, found.at + found.length);
    const match: FactMatch = {
      turnId: turn.id,
      turnIndex: index,
      role: turn.role,
      line: turn.span?.startLine ?? 0,
      endLine: turn.span?.endLine ?? turn.span?.startLine ?? 0,
      occurrences: found.count,
      more: found.count >= maxPerTurn,
      matched: cut(matched, EXCERPT_MATCH),
      at: found.at,
      excerpt: excerpt(turn.text, found.at, found.length),
      routes: checkpoints.map((cpa, c) => routeOf(cpa, summaries[c], turn, index, matched, kept)),
    };
    if (typeof turn.externalSource === 'string') match.externalSource = turn.externalSource;
    answer.matches.push(match);
  });

  checkpoints.forEach((cpa, c) => {
    const summary = summaries[c];
    if (summary.text === undefined) return;
    const found = scan(re, summary.text, 1);
    if (!found) return;
    const mention: SummaryMention = {
      summaryId: cpa.summaryId,
      checkpoint: c,
      line: cpa.line,
      excerpt: excerpt(summary.text, found.at, found.length),
    };
    answer.summaryMentions.push(mention);
  });
  return answer;
}

/** A checkpoint's summary text (undefined when encrypted or absent), with a memo of what it holds. */
class SummaryText {
  readonly text?: string;
  private lower?: string;
  private readonly holds = new Map<string, boolean>();

  constructor(transcript: Transcript, cpa: CheckpointAnalysis) {
    const cp = Array.isArray(transcript?.checkpoints) ? transcript.checkpoints[cpa.index] : undefined;
    if (cp && typeof cp.summary === 'string' && !cpa.opaque) this.text = cp.summary;
  }

  /** Whether the summary holds `text` (case-insensitively). */
  has(text: string): boolean {
    if (this.text === undefined) return false;
    const key = text.toLowerCase();
    let yes = this.holds.get(key);
    if (yes === undefined) {
      this.lower ??= this.text.toLowerCase();
      yes = this.lower.includes(key);
      this.holds.set(key, yes);
    }
    return yes;
  }
}

/**
 * The checkpoint's result for the turn at `index`, when the checkpoint compacted it: from its turns, or from `kept`
 * when they went to a sink.
 */
function resultOf(cpa: CheckpointAnalysis, turn: Turn, index: number, kept: KeptResults | undefined): TurnResult | undefined {
  const result = cpa.turnsWritten === true ? kept?.result(cpa.index, index) : Array.isArray(cpa.turns) ? cpa.turns[index] : undefined;
  return result && result.id === turn.id ? result : undefined;
}

/** Whether the checkpoint claims the turn at `index` but its summary does not carry it. */
function droppedHere(cpa: CheckpointAnalysis, turn: Turn, index: number, kept: KeptResults | undefined): boolean {
  if (cpa.turnsWritten === true && kept !== undefined) return indexInSorted(kept.dropped(cpa.index), index) !== undefined;
  return resultOf(cpa, turn, index, kept)?.status === 'claimed-missing';
}

function routeOf(
  cpa: CheckpointAnalysis,
  summary: SummaryText,
  turn: Turn,
  index: number,
  matched: string,
  kept: KeptResults | undefined,
): FactRoute {
  const name = shortTurnId(cpa.summaryId);
  const line = turn.span?.startLine ?? 0;
  const result = resultOf(cpa, turn, index, kept);
  const claimed = result ? result.claimed : Array.isArray(cpa.claimedIds) && cpa.claimedIds.includes(turn.id);
  const base = { summaryId: cpa.summaryId, checkpoint: cpa.index, checkpointLine: cpa.line, claimed };
  const rawLog = `raw log line ${line}`;
  if (!result) {
    // A checkpoint that could not be analysed has no results: if it claims the turn, only the raw log is safe.
    if (claimed) {
      const why = `claimed by ${name}, which could not be analysed`;
      return {
        ...base,
        compacted: true,
        summaryHasText: false,
        evidenceFound: [],
        evidenceWeighed: 0,
        route: 'raw-log',
        line,
        flagged: false,
        why,
        says: rawLog,
      };
    }
    return {
      ...base,
      compacted: false,
      summaryHasText: false,
      evidenceFound: [],
      evidenceWeighed: 0,
      route: 'not-compacted',
      flagged: false,
      why: `after ${name}`,
      says: `not compacted by ${name}`,
    };
  }
  const summaryHasText = summary.has(matched);
  const evidence = Array.isArray(result.evidence) ? result.evidence : [];
  const evidenceFound = evidence.filter((e) => e.found).map((e) => e.text);
  const common = { ...base, compacted: true, status: result.status, summaryHasText, evidenceFound, evidenceWeighed: evidence.length };
  switch (result.status) {
    case 'covered':
      return {
        ...common,
        route: 'summary',
        flagged: false,
        why: coveredWhy(name, summaryHasText, evidenceFound, turnReason(result)),
        says: `from summary ${name}`,
      };
    case 'claimed-missing':
      return {
        ...common,
        route: 'raw-log',
        line,
        flagged: true,
        why: summaryHasText
          ? `claimed by ${name}, whose summary holds the text but too little of the turn to count it as covered`
          : `claimed by ${name} but absent from its summary`,
        says: rawLog,
      };
    case 'uncovered':
      return { ...common, route: 'raw-log', line, flagged: false, why: `not claimed by ${name}`, says: rawLog };
    case 'unverifiable':
    case 'nothing-to-check':
      return { ...common, route: 'raw-log', line, flagged: false, why: `claimed by ${name}, but ${turnReason(result)}`, says: rawLog };
  }
}

function coveredWhy(name: string, hasText: boolean, found: readonly string[], reason: string): string {
  if (hasText) return `claimed by ${name}, whose summary holds the text itself`;
  if (found.length > 0) {
    const shown = found.slice(0, 3).map((text) => `“${cut(text, 60)}”`);
    return `claimed by ${name}, whose summary carries ${shown.join(', ')}${found.length > 3 ? ' and more' : ''} but not the text itself`;
  }
  return `claimed by ${name} and covered (${reason}), but the text itself is not in its summary`;
}

/** At most `max` characters of `text` (never half a surrogate pair), with "…" when cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** The match at `at` with up to EXCERPT_SIDE characters either side, whitespace runs as one space. */
function excerpt(text: string, at: number, length: number): { before: string; match: string; after: string } {
  let start = Math.max(0, at - EXCERPT_SIDE);
  const low = text.charCodeAt(start);
  if (start > 0 && low >= 0xdc00 && low <= 0xdfff) start++;
  if (start > 0) {
    // Start at a word when one starts soon: "…the invoice path" rather than "…hecked the invoice path".
    const space = text.slice(start, Math.min(at, start + 20)).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  const end = at + length;
  const oneLine = (s: string) => s.replace(/\s+/g, ' ');
  return {
    before: (start > 0 ? '…' : '') + oneLine(text.slice(start, at)),
    match: oneLine(cut(text.slice(at, end), EXCERPT_MATCH)),
    after: oneLine(cut(text.slice(end, end + EXCERPT_SIDE + 1), EXCERPT_SIDE)),
  };
}
