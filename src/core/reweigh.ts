// A weighed turn's status at a coverage threshold, the sentence that explains it, and a checkpoint's judgement
// re-weighed for another threshold. Judging a turn (core/analyze.ts judgeTurn, core/evidence.ts judge) matches its
// evidence against the summary and weighs it: a score, and a coverage rule (the RULE_ bits) that says how the score
// and the threshold decide its status. Only that last step reads the threshold, so a checkpoint's turns as judged at
// one threshold, with their rules (JudgedTurns.rules), give its turns at another without matching anything again:
// the same evidence and score, and the status the rule gives. A covered or claimed-missing weighed turn's sentence
// is made from its result only when asked for (turnReason). Pure.
import { BARE_LOOKUP, coveredAt, WORDS_ONLY } from './evidence';
import {
  RULE_LOOKUP_ONLY,
  RULE_WEIGHED,
  RULE_WORDS_ONLY,
  TURN_STATUSES,
  type Evidence,
  type JudgedTurns,
  type TurnResult,
  type TurnStatus,
} from './model';

/** Results re-weighed between two yields. */
const STEP_RESULTS = 1024;

/**
 * The status of a turn weighed with score `score` and coverage rule `rule` at `threshold`, and its reason when that
 * is a fixed sentence: undefined for a covered or claimed-missing turn, whose sentence turnReason makes from its
 * result when asked.
 */
export function weighedStatus(rule: number, score: number, threshold: number): { status: TurnStatus; reason: string | undefined } {
  const status = statusAt(rule, score, threshold);
  return { status, reason: fixedReason(status, rule) };
}

/**
 * Why a turn has its status: its result's reason, or for a weighed turn that is covered or claimed-missing the
 * sentence that says so from its evidence (found pieces first, as judge sorts them), score and threshold. Made anew
 * each time it is asked for: only a turn shown, exported or written out needs it.
 */
export function turnReason(result: TurnResult): string {
  if (result.reason !== undefined) return result.reason;
  const score = result.score ?? 0;
  const threshold = result.threshold ?? 0;
  return result.status === 'covered' ? coveredReason(result.evidence, score, threshold) : missingReason(result.evidence, score, threshold);
}

/** The status of a turn weighed with score `score` and coverage rule `rule` at `threshold`. */
function statusAt(rule: number, score: number, threshold: number): TurnStatus {
  if (coveredAt(rule, score, threshold)) return 'covered';
  // A lookup whose prose the summary does not carry has still lost nothing: what it found is in its result.
  // Plain words are evidence when the summary repeats them, but their absence loses no specific fact.
  return (rule & (RULE_LOOKUP_ONLY | RULE_WORDS_ONLY)) !== 0 ? 'nothing-to-check' : 'claimed-missing';
}

/** A weighed turn's reason when it is a fixed sentence (not covered or claimed-missing), else undefined. */
function fixedReason(status: TurnStatus, rule: number): string | undefined {
  if (status === 'covered' || status === 'claimed-missing') return undefined;
  return (rule & RULE_LOOKUP_ONLY) !== 0 ? LOOKUP_ONLY_REASON : WORDS_ONLY_REASON;
}

/** The fixed reasons of a weighed turn with nothing to check, one string each for every such turn. */
const LOOKUP_ONLY_REASON = `nothing worth carrying: ${BARE_LOOKUP}`;
const WORDS_ONLY_REASON = `nothing worth carrying: ${WORDS_ONLY}`;

/**
 * A checkpoint's turns as judged at another coverage threshold, from `judged` (made at any threshold), in steps:
 * each result with a score (a weighed turn's, or an anchor's) copied with the new threshold, and a weighed one's
 * status as its rule gives it; every other result is the same object. Undefined when `judged` kept no results (a
 * turn sink took them).
 */
export function* reweighed(judged: JudgedTurns, threshold: number): Generator<void, JudgedTurns | undefined, void> {
  const { results, from, rules } = judged;
  if (results === undefined) return undefined;
  const statuses = judged.statuses.slice();
  const out: TurnResult[] = new Array<TurnResult>(results.length);
  for (let i = 0; i < results.length; i++) {
    if (i % STEP_RESULTS === 0) yield;
    const r = results[i];
    if (r.score === undefined) {
      out[i] = r; // judged without the threshold (unclaimed, reported, unverifiable, nothing to check…)
      continue;
    }
    const rule = i >= from && i - from < rules.length ? rules[i - from] : 0;
    if ((rule & RULE_WEIGHED) === 0) {
      out[i] = withThreshold(r, r.status, r.reason, threshold); // an anchor's: its status reads no threshold
      continue;
    }
    const { status, reason } = weighedStatus(rule, r.score, threshold);
    out[i] = withThreshold(r, status, reason, threshold);
    statuses[i - from] = TURN_STATUSES.indexOf(status);
  }
  return { results: out, from, statuses, marks: judged.marks, rules, found: judged.found };
}

/**
 * A copy of a result with a score, at another threshold: made field by field in the order core/analyze.ts
 * judgeCheckpoint gives them (so `check --json` is the same as a judgement made at that threshold).
 */
function withThreshold(r: TurnResult, status: TurnStatus, reason: string | undefined, threshold: number): TurnResult {
  const copy: TurnResult = {
    id: r.id,
    index: r.index,
    status,
    claimed: r.claimed,
    evidence: r.evidence,
    reason,
    line: r.line,
    endLine: r.endLine,
    score: r.score,
    threshold,
  };
  if ('reported' in r) copy.reported = r.reported;
  if ('tokens' in r) copy.tokens = r.tokens;
  return copy;
}

// A reason is made in one piece (joined parts) rather than by concatenation, whose string keeps a node for every
// part it was made of.

/** Adds up to `max` of the evidence's texts to `parts`, quoted: “a”, “b” and 3 more. */
function pushQuoted(parts: string[], evidence: readonly Evidence[], max = 4): void {
  const shown = Math.min(max, evidence.length);
  for (let k = 0; k < shown; k++) parts.push(k === 0 ? '“' : ', “', evidence[k].text, '”');
  if (evidence.length > max) parts.push(` and ${evidence.length - max} more`);
}

function coveredReason(evidence: readonly Evidence[], score: number, threshold: number): string {
  const found = evidence.filter((e) => e.found);
  const parts = ['the summary carries '];
  pushQuoted(parts, found);
  parts.push(scoreClause(score, threshold));
  return parts.join('');
}

function missingReason(evidence: readonly Evidence[], score: number, threshold: number): string {
  const found = evidence.filter((e) => e.found);
  const absent = evidence.filter((e) => !e.found);
  const parts = ['claimed, but '];
  if (absent.length > 0) {
    parts.push('the summary lacks ');
    pushQuoted(parts, absent);
  } else {
    parts.push('too little of it is specific to this turn');
  }
  if (found.length > 0) {
    parts.push('; what it does carry (');
    pushQuoted(parts, found, 3);
    parts.push(') is shared with other turns or weak');
  }
  parts.push(scoreClause(score, threshold));
  return parts.join('');
}

/** How a reason of a covered or claimed-missing turn ends: what it scored and what was needed. */
function scoreClause(score: number, threshold: number): string {
  return `${SCORE_CLAUSE_START}${fmtScore(score)} of ${fmtScore(threshold)} needed)`;
}

/**
 * Where scoreClause starts. Nothing after that start in the clause repeats it, so the last place a reason has it is
 * where its clause starts, whatever the evidence's texts before it say.
 */
const SCORE_CLAUSE_START = ' (score ';

function fmtScore(n: number): string {
  return (Math.round(n * 100) / 100).toFixed(2);
}
