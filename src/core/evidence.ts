// Coverage judged from evidence. For each claimed turn: what it holds (its prose, the arguments of the calls
// it makes — for an edit, the names it introduces and those it removes —, and for a tool result the call it
// answers, or that call's name when it has no arguments; a failed call's error by its own words, not what it
// echoes of the call), which of those pieces the summary carries, and how much each counts: the salience of its
// kind, divided (past SHARED_FREELY) by how many claimed turns share it, a call and its results counting once,
// unless this turn named it first or introduced it. A turn is covered when the summary carries one piece that
// is its own (the folder a search looked in is not enough; the file a read read is, and a whole or wide read
// weighs it in full, however many turns name it) and the weight found reaches the coverage threshold;
// a lookup's narration is covered, too, when the summary echoes most of it; a confirmation of a change (its
// result, adding nothing but counts) by whether the summary knows what it confirms. A turn with nothing worth
// carrying (acknowledgements, bare lookups whose result is its own turn, confirmations that name nothing, plain
// words the summary does not repeat) is `nothing-to-check`. The rules are
// the same for every format and name no words of any one session.
import { extractPieces, keyOf, type Piece } from './evidenceText';
import {
  RULE_BLOCKED,
  RULE_FIXED,
  RULE_FIXED_COVERED,
  RULE_LOOKUP_ONLY,
  RULE_OWN,
  RULE_WEIGHED,
  RULE_WORDS_ONLY,
  type Evidence,
  type EvidenceKind,
  type Turn,
} from './model';
import type { EvidenceTable } from './evidenceShare';
import type { SummaryMatcher } from './summaryMatcher';
import { bareCallName, callTexts, commandOf, readsAFile, splitCalls, type ParsedCall } from './toolCalls';

/** The weight of found evidence a claimed turn needs to count as covered. */
export const DEFAULT_COVERAGE_THRESHOLD = 1;
/** At most this many pieces of a turn are weighed and shown (heaviest first). */
export const MAX_EVIDENCE = 12;

/** How much a piece of each kind says about a turn, before sharing is taken into account. */
export const SALIENCE: Record<EvidenceKind, number> = {
  explicit: 1,
  path: 1,
  reference: 1,
  'error-code': 1,
  url: 1,
  identifier: 1,
  'key-value': 1,
  count: 1,
  quoted: 0.6,
  command: 0.5,
  name: 0.3,
  term: 0.25,
  number: 0.4,
  weak: 0.1,
};

/** Why a turn of plain words alone, not repeated by the summary, holds nothing to check. */
export const WORDS_ONLY = 'only plain words, no name, path, number or other specific fact that could be lost';

/** Why a bare lookup holds nothing to check. */
export const BARE_LOOKUP = 'a bare lookup: what it found is in its result';

/** A piece as a turn holds it: from its own text, from the call it answers, or introduced by its edit. */
export type EvidencePiece = Piece & {
  fromCall?: boolean;
  /** From the turn's reasoning (thinking blocks), not its text. */
  fromReasoning?: boolean;
  /** Written by this turn's edit and absent from what the edit replaced. */
  introduced?: boolean;
  /** The name of a call without arguments, which a summary writes as prose ("entered plan mode"). */
  toolName?: boolean;
};

/** The pieces of a turn before sharing and matching, and whether it holds anything worth carrying. */
export interface TurnPieces {
  pieces: EvidencePiece[];
  /**
   * Set for the result of a write or edit that adds nothing of its own: it is covered when the summary knows
   * what it confirms (any of its call's names), claimed-missing when it does not.
   */
  confirmation?: boolean;
  /** Why the turn holds nothing worth carrying, when it does not. */
  nothing?: string;
  /** Set for the result of a lookup (a read, a search): the file it read is what a summary records of it. */
  lookupResult?: boolean;
  /** Set for the result of reading a file, whole or a wide part (toolCalls.readsAFile): naming the file records it. */
  fileRead?: boolean;
  /** Set for the result of a failed call: only its own (error) text can show the summary carries it. */
  error?: boolean;
  /**
   * Set for a turn that only looks things up (its results are turns of their own) but says something in its
   * prose: covered when the summary carries what it says; otherwise it holds nothing that can be lost.
   */
  lookupOnly?: boolean;
}

function isSubstantial(p: Piece): boolean {
  return p.kind !== 'weak';
}

/** A number or a count ("155 characters"). */
function isFigure(p: Piece): boolean {
  return p.kind === 'number' || p.kind === 'count';
}

/** The command and sub-command a shell call runs ("git commit", "mix test"), as a piece. */
function commandPiece(command: string): Piece | undefined {
  const words = command.trim().split(/\s+/, 3);
  const head = words.slice(0, 2).filter((w) => /^[a-z][a-z0-9_-]*$/.test(w));
  if (head.length === 0) return undefined;
  const text = head.join(' ');
  const key = keyOf(text);
  return key.length >= 3 ? { text, kind: 'command', key, shareKey: key } : undefined;
}

function piecesOf(texts: readonly string[], { terms }: { terms: boolean } = { terms: false }): Piece[] {
  const out: Piece[] = [];
  for (const t of texts) out.push(...extractPieces(t, { terms }));
  return out;
}

/**
 * The pieces of an edit: what it writes, those it introduces (absent from what it replaces) marked, since the turn
 * that introduces a name is the turn that name is specific to; then the names it takes out (in what it replaces,
 * absent from what it writes), marked too: "removed the unused type_color/1" is how a summary records that.
 */
function editPieces(content: readonly string[], previous: readonly string[]): EvidencePiece[] {
  const written = piecesOf(content);
  const replaced = piecesOf(previous);
  const before = new Set(replaced.map((p) => p.key));
  const after = new Set(written.map((p) => p.key));
  const pieces: EvidencePiece[] = written.map((p) => (before.has(p.key) ? p : asIntroduced(p)));
  for (const p of replaced) {
    if (!after.has(p.key) && SPECIFIC_KINDS.has(p.kind) && p.kind !== 'count' && p.kind !== 'quoted') pieces.push(asIntroduced(p));
  }
  return pieces;
}

/**
 * The piece marked as introduced (a weak one is never): a copy made field by field, in the order pieces are made
 * (evidenceText.ts, PieceSink.add). A spread gave copies hidden classes of their own, as it did the analysis's
 * results (core/analyze.ts withTokens): 133 pieces in a real Claude Code session's heap, each with its own.
 */
function asIntroduced(p: Piece): EvidencePiece {
  if (p.kind === 'weak') return p;
  const copy: EvidencePiece = { text: p.text, kind: p.kind, key: p.key, shareKey: p.shareKey };
  if (p.parts !== undefined) copy.parts = p.parts;
  if (p.file !== undefined) copy.file = p.file;
  if (p.alt !== undefined) copy.alt = p.alt;
  copy.introduced = true;
  return copy;
}

/**
 * What a turn holds. `answeredSeparately` says whether this turn's own calls have their results in turns of
 * their own (before the checkpoint being judged); a tool result's call comes from `turn.answers`.
 */
export function turnPieces(turn: Turn, answeredSeparately: boolean): TurnPieces {
  const text = typeof turn.text === 'string' ? turn.text : '';
  if (text.trim() === '') return { pieces: [], nothing: 'the turn has no text' };
  const { prose, calls } = splitCalls(text);
  // The conversation's own prose (not tool output) also yields its distinctive words.
  const conversational = turn.role === 'user' || turn.role === 'assistant';
  const own: EvidencePiece[] = [...extractPieces(prose, { sentences: turn.role === 'user', terms: conversational })];
  let allLookups = calls.length > 0;
  for (const call of calls) {
    const texts = callTexts(call);
    if (call.effect !== 'lookup') allLookups = false;
    // A lookup answered by a turn of its own carries its substance in that result, description and all.
    if (call.effect === 'lookup' && answeredSeparately) continue;
    own.push(...piecesOf(texts.prose, { terms: true }));
    // What a changing command acts on (the package installed, the task closed, the files committed) is its own.
    const command = commandOf(call.args);
    const identity = piecesOf(texts.identity);
    own.push(...(call.effect === 'change' && command !== undefined ? identity.map(asIntroduced) : identity));
    own.push(...editPieces(texts.content, texts.previous));
    const cp = command !== undefined ? commandPiece(command) : undefined;
    if (cp) own.push(cp);
    own.push(...namePieces(call));
  }

  const answered = turn.answers;
  if (answered && typeof answered.callText === 'string') {
    const { calls: answeredCalls } = splitCalls(answered.callText);
    const identity: EvidencePiece[] = [];
    // What the calls write or replace: an error may echo it.
    const written: string[] = [];
    let change = false;
    for (const call of answeredCalls) {
      if (call.effect === 'change') change = true;
      const texts = callTexts(call);
      identity.push(...piecesOf(texts.identity), ...namePieces(call));
      written.push(...texts.content, ...texts.previous);
    }
    if (turn.error === true) {
      // A failed call's result is its error: the summary carries it only if it carries the error's own words, not
      // what it echoes of the call ("String to replace not found in file. String: <the call's old_string>").
      const echoed = new Set(piecesOf(written).map((p) => p.key));
      for (const p of identity) if (p.toolName !== true) echoed.add(p.key);
      const errorPieces = extractPieces(text, { terms: true }).filter((p) => p.kind !== 'name' && !echoed.has(p.key));
      const pieces = dedupe([...errorPieces, ...identity.map((p) => ({ ...p, fromCall: true }))]);
      return { pieces, error: true };
    }
    const identityKeys = new Set(identity.map((p) => p.key));
    // Capitalised words in tool output are data (JSON values, log lines), not proper nouns of the conversation.
    const ownNew = own.filter((p) => p.kind !== 'name' && !identityKeys.has(p.key) && !(p.alt ?? []).some((a) => identityKeys.has(a)));
    // A change's result that only counts what it did ("wrote 3473 bytes", "Changed 155 characters to 158",
    // "added 12 packages") confirms the change: the figures are its size, not a fact of their own.
    if (change && !ownNew.some((p) => isSubstantial(p) && !isFigure(p))) {
      if (!identity.some(isSubstantial)) {
        return { pieces: [], nothing: 'a confirmation of a write or edit: the change itself is in the call' };
      }
      return { pieces: dedupe(identity.map((p) => ({ ...p, fromCall: true }))), confirmation: true };
    }
    if (!ownNew.some(isSubstantial) && identity.length === 0) {
      return { pieces: [], nothing: 'a result with nothing specific in it' };
    }
    const merged = dedupe([...ownNew, ...identity.map((p) => ({ ...p, fromCall: true }))]);
    const lookupResult = answeredCalls.length > 0 && answeredCalls.every((c) => c.effect === 'lookup');
    if (lookupResult && answeredCalls.every(readsAFile)) return { pieces: merged, lookupResult, fileRead: true };
    return { pieces: merged, lookupResult };
  }

  const pieces = dedupe(own);
  if (allLookups && answeredSeparately) {
    // What the lookup was for, when the agent said so only in its reasoning.
    if (typeof turn.reasoning === 'string' && turn.reasoning !== '') {
      const keys = new Set(pieces.map((p) => p.key));
      for (const p of extractPieces(turn.reasoning, { terms: true })) {
        if (!keys.has(p.key)) {
          keys.add(p.key);
          pieces.push({ ...p, fromReasoning: true });
        }
      }
    }
    // What a lookup found is in its result, so it can lose nothing; its own words are judged like plain words.
    if (!pieces.some(isSubstantial)) return { pieces, nothing: BARE_LOOKUP };
    return { pieces, lookupOnly: true };
  }
  if (!pieces.some(isSubstantial)) return { pieces, nothing: 'no names, paths, numbers or other specifics to carry' };
  return { pieces };
}

/** A call without arguments is known by its name (EnterPlanMode → "enter plan mode"), matched by stems. */
function namePieces(call: ParsedCall): EvidencePiece[] {
  const name = bareCallName(call);
  return name === undefined ? [] : piecesOf([name]).map((p) => ({ ...p, toolName: true }));
}

/** One piece per key; a piece the turn introduces wins over a mere mention of the same name. */
function dedupe<T extends EvidencePiece>(pieces: T[]): T[] {
  const byKey = new Map<string, T>();
  for (const p of pieces) {
    const seen = byKey.get(p.key);
    if (!seen || (p.introduced && !seen.introduced)) byKey.set(p.key, p);
  }
  return [...byKey.values()];
}

/** A turn weighed against a summary, at no threshold: whether it is covered at one is coveredAt(rule, score, it). */
export interface Judgement {
  evidence: Evidence[];
  score: number;
  /**
   * How being covered follows from the score and a threshold (RULE_ bits, coveredAt), and whether the turn is plain
   * words only or a lookup's narration (RULE_WORDS_ONLY, RULE_LOOKUP_ONLY): each threshold's status follows from it.
   */
  rule: number;
}

/** Kinds of evidence that can make a turn's own case on their own (not numbers, proper nouns or plain words). */
const SPECIFIC_KINDS: ReadonlySet<EvidenceKind> = new Set<EvidenceKind>([
  'explicit',
  'path',
  'reference',
  'error-code',
  'url',
  'identifier',
  'key-value',
  'count',
  'quoted',
  'command',
]);

/** How many claimed turns name a form, and whether this turn is the first of them (the one that introduced it). */
export interface Sharing {
  count: number;
  first: boolean;
}

/**
 * A turn whose pieces the summary carries this many times over the threshold is covered even when every one of
 * them is shared with other turns: each weighs little, but so much of the turn is there that it was carried.
 */
export const CARRIED_AT_LENGTH = 3;

/** A lookup's narration is covered when the summary repeats at least this many of its pieces… */
export const LOOKUP_ECHO_MIN = 2;
/** …holding at least this share of the narration's weight. */
export const LOOKUP_ECHO_SHARE = 0.5;

/** True when the summary repeats enough of a lookup's narration: LOOKUP_ECHO_MIN pieces, LOOKUP_ECHO_SHARE of its weight. */
function echoesNarration(evidence: readonly Evidence[]): boolean {
  let total = 0;
  let found = 0;
  let pieces = 0;
  for (const e of evidence) {
    if (e.kind === 'weak') continue;
    total += e.weight;
    if (e.found) {
      found += e.weight;
      pieces++;
    }
  }
  return pieces >= LOOKUP_ECHO_MIN && total > 0 && found >= LOOKUP_ECHO_SHARE * total;
}

/** Pieces shared by at most this many claimed turns count in full; beyond it their weight falls as 1/shared. */
export const SHARED_FREELY = 3;

/** Weight of a piece of `kind` that `shared` claimed turns hold. */
export function weightOf(kind: EvidenceKind, shared: number): number {
  return round(SALIENCE[kind] * Math.min(1, SHARED_FREELY / Math.max(1, shared)));
}

/**
 * Weighs a turn's pieces against a summary. `sharedBy(form)` says how many claimed turns name a form; a found
 * piece is weighed by the form the summary used (a file name shared by many turns is weak evidence for each).
 * The score is the sum of the weights found; the evidence shown is the heaviest MAX_EVIDENCE pieces, found
 * ones first; the rule says how a threshold decides the rest (coveredAt). Reads no threshold, so a turn judged
 * once serves every threshold (core/reweigh.ts).
 */
export function judge(
  pieces: TurnPieces['pieces'],
  matcher: SummaryMatcher,
  sharedBy: (form: string) => Sharing,
  options: {
    confirmation?: boolean;
    lookupResult?: boolean;
    fileRead?: boolean;
    error?: boolean;
    lookupOnly?: boolean;
    /** The checkpoint's evidence alike for several turns, one object each; without it, each turn has its own. */
    alike?: EvidenceTable;
  } = {},
): Judgement {
  const lookupResult = options.lookupResult === true;
  let score = 0;
  let knownTarget = false;
  // Covered needs at least one found piece that is this turn's own (introduced here, or named by few turns):
  // names the whole session shares add up, but never make a turn covered on their own.
  let specific = false;
  // …and a lookup's own words are enough only when no fact that is this turn's alone is missing from the summary.
  let ownSpecificMissing = false;
  let ownTextFound = false;
  const all = pieces.map((p): Evidence => {
    const strict = p.kind === 'path' || p.kind === 'identifier' || p.kind === 'reference';
    let span = p.kind === 'term' ? matcher.findStem(p.shareKey) : matcher.findSpan(p.key, strict);
    let form = p.key;
    let matched: string | undefined;
    // The name of a call without arguments (EnterPlanMode) is found in prose by its words' stems ("entered plan mode").
    if (span === undefined && p.toolName === true) span = matcher.findStemSpan(p.key);
    if (span === undefined) {
      for (const alt of p.alt ?? []) {
        span = matcher.findSpan(alt, strict);
        if (span !== undefined) {
          form = alt;
          matched = matcher.summary.slice(span.at, span.end);
          break;
        }
      }
    }
    // A path is shared by every turn naming its file, whatever form the summary used.
    const byForm = sharedBy(form);
    const byKey = p.shareKey === form ? byForm : sharedBy(p.shareKey);
    const sharing = byKey.count > byForm.count ? byKey : byForm;
    const shared = Math.max(1, sharing.count);
    // The file a lookup read is what a summary records of the read ("read jsonl_parser.ex"): its own.
    const readFile = p.fromCall === true && p.file === true && lookupResult;
    const own = sharing.first || shared <= SHARED_FREELY || (p.introduced === true && shared <= 3 * SHARED_FREELY);
    // A read of a file is recorded by naming the file, however many other turns name it: that weighs in full.
    const weight = weightOf(p.kind, own || (readFile && options.fileRead === true) ? 1 : shared);
    const e: Evidence = { text: p.text, kind: p.kind, found: span !== undefined, weight, sharedBy: shared };
    if (span !== undefined) {
      e.at = span.at;
      e.length = span.end - span.at;
      score += weight;
      if (p.kind !== 'weak') knownTarget = true;
      // Where a lookup looked (the folder it searched or listed) is not what it found: it cannot make the case alone.
      const lookedIn = lookupResult && p.fromCall === true && p.kind === 'path' && p.file !== true;
      if ((own || readFile) && SPECIFIC_KINDS.has(p.kind) && !lookedIn) specific = true;
      if (!p.fromCall && p.kind !== 'weak') ownTextFound = true;
    } else if (own && SPECIFIC_KINDS.has(p.kind)) {
      ownSpecificMissing = true;
    }
    if (matched !== undefined) e.matched = matched;
    if (p.fromCall) e.fromCall = true;
    if (p.fromReasoning) e.fromReasoning = true;
    // A piece other units name too is most often weighed alike for them: one object serves them all.
    return shared > 1 && options.alike ? options.alike.alike(e.text, e) : e;
  });
  sortEvidence(all);
  score = round(score);
  // A turn of plain words alone (no specific fact to look for) is covered when the summary repeats enough of them.
  const wordsOnly = !pieces.some((p) => SPECIFIC_KINDS.has(p.kind));
  // A lookup's narration ("now let me commit the changes") is a step the summary records when it repeats most of
  // what the narration names (by weight), two things at the least (one alone is loose topical overlap), and no
  // fact that is the narration's own is missing.
  const lookupOnly = options.lookupOnly === true;
  const asWords = (lookupOnly ? RULE_LOOKUP_ONLY : 0) | (wordsOnly ? RULE_WORDS_ONLY : 0);
  let rule: number;
  if (lookupOnly && !ownSpecificMissing && echoesNarration(all)) {
    rule = RULE_WEIGHED | RULE_FIXED | RULE_FIXED_COVERED | asWords;
  } else if (options.confirmation) {
    rule = RULE_WEIGHED | RULE_FIXED | (knownTarget ? RULE_FIXED_COVERED : 0) | asWords;
  } else {
    const own = specific || wordsOnly || (lookupOnly && !ownSpecificMissing);
    rule = RULE_WEIGHED | (own ? RULE_OWN : 0) | (options.error && !ownTextFound ? RULE_BLOCKED : 0) | asWords;
  }
  return { evidence: shownEvidence(all), score, rule };
}

/**
 * Whether a turn weighed with coverage rule `rule` (RULE_ bits) and score `score` is covered at `threshold`: a
 * fixed rule whatever the score; else a score at the threshold when a found piece is the turn's own (or the turn is
 * words only, or a narration missing nothing of its own), CARRIED_AT_LENGTH times it otherwise, and never for a
 * failed call whose own text is not carried.
 */
export function coveredAt(rule: number, score: number, threshold: number): boolean {
  if ((rule & RULE_FIXED) !== 0) return (rule & RULE_FIXED_COVERED) !== 0;
  return ((rule & RULE_OWN) !== 0 || score >= CARRIED_AT_LENGTH * threshold) && score >= threshold && (rule & RULE_BLOCKED) === 0;
}

/** Found pieces first, heavier first, in their order otherwise (a stable sort). */
function byFoundThenWeight(x: Evidence, y: Evidence): number {
  return Number(y.found) - Number(x.found) || y.weight - x.weight;
}

/**
 * Sorts a turn's evidence in place by byFoundThenWeight. A turn has a dozen pieces or so: they are sorted by
 * insertion, which allocates nothing (the built-in sort makes a work array for each call); a longer list by the
 * built-in sort. Both are stable, so the order is the same.
 */
function sortEvidence(all: Evidence[]): void {
  if (all.length > INSERTION_SORT_MAX) {
    all.sort(byFoundThenWeight);
    return;
  }
  for (let i = 1; i < all.length; i++) {
    const e = all[i];
    let j = i - 1;
    while (j >= 0 && byFoundThenWeight(all[j], e) > 0) {
      all[j + 1] = all[j];
      j--;
    }
    all[j + 1] = e;
  }
}

/** Lists up to this long are sorted by insertion (sortEvidence). */
const INSERTION_SORT_MAX = 32;

/**
 * The evidence shown of a turn's, sorted found first: at most MAX_EVIDENCE found pieces, then absent ones up to
 * MAX_EVIDENCE in all (three at the least). The sorted array itself when all of it is shown (most turns).
 */
function shownEvidence(sorted: Evidence[]): Evidence[] {
  let found = 0;
  while (found < sorted.length && sorted[found].found) found++;
  const shownFound = Math.min(found, MAX_EVIDENCE);
  const shownAbsent = Math.min(sorted.length - found, Math.max(3, MAX_EVIDENCE - shownFound));
  if (shownFound === found && shownAbsent === sorted.length - found) return sorted;
  return sorted.slice(0, shownFound).concat(sorted.slice(found, found + shownAbsent));
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
