// The sidecar document of "Export Corrected Checkpoint" (`<transcript>.compaction-lens.json`, schema in
// docs/corrected-checkpoint.md): written from the corrected checkpoints, and read back with every field checked,
// so that what an agent reads is what was written. Reading never throws: bad input gives problems, no document.
import type { CorrectedCheckpoint, CorrectedCheckpoints, MovedTurn, Problem, TurnId } from '../core/model';
import { TURN_STATUSES, VERDICTS } from '../core/model';
import { isFormatId } from './readers';

/** The `schema` field of every sidecar document. */
export const SIDECAR_SCHEMA = 'compaction-lens/corrected-checkpoint';
/** The `version` this Compaction Lens writes and reads. */
export const SIDECAR_VERSION = 1;

/** Most problems one read reports; the rest are counted in a last one. */
const MAX_PROBLEMS = 20;

const json = (value: unknown): string => JSON.stringify(value);

/** Entries of moved_to_uncovered written in one piece of sidecarPieces. */
const MOVED_PER_PIECE = 256;
/** Ids of an array written in one piece of sidecarPieces. */
const IDS_PER_PIECE = 4096;

/** An entry of moved_to_uncovered, on one line. */
function movedLine(turn: MovedTurn): string {
  return `        {"id": ${json(turn.id)}, "status": ${json(turn.status)}, "line": ${turn.line}, "reason": ${json(turn.reason)}}`;
}

/** An array of ids as JSON.stringify writes it, a few thousand ids a piece. */
function* idPieces(ids: readonly TurnId[]): Generator<string, void, void> {
  if (ids.length <= IDS_PER_PIECE) {
    yield json(ids);
    return;
  }
  for (let from = 0; from < ids.length; from += IDS_PER_PIECE) {
    const piece = json(ids.slice(from, from + IDS_PER_PIECE));
    yield `${from === 0 ? '[' : ','}${piece.slice(1, -1)}${from + IDS_PER_PIECE >= ids.length ? ']' : ''}`;
  }
}

/** An array of ids on one line, an entry of moved_to_uncovered on one line each: readable, and diffs well. */
function* checkpointPieces(checkpoint: CorrectedCheckpoint): Generator<string, void, void> {
  yield [
    '    {',
    `      "summary_id": ${json(checkpoint.summaryId)},`,
    `      "line": ${checkpoint.line},`,
    `      "verdict": ${json(checkpoint.verdict)},`,
    `      "path": ${json(checkpoint.path)},`,
    '      "claimed_ids": ',
  ].join('\n');
  yield* idPieces(checkpoint.claimedIds);
  yield ',\n      "safe_ids": ';
  yield* idPieces(checkpoint.safeIds);
  yield ',\n      "uncovered_ids": ';
  yield* idPieces(checkpoint.uncoveredIds);
  yield ',\n';
  const { moved } = checkpoint;
  if (moved.length === 0) yield '      "moved_to_uncovered": []';
  else {
    yield '      "moved_to_uncovered": [\n';
    for (let from = 0; from < moved.length; from += MOVED_PER_PIECE) {
      const lines = moved.slice(from, from + MOVED_PER_PIECE).map(movedLine);
      yield `${from > 0 ? ',\n' : ''}${lines.join(',\n')}`;
    }
    yield '\n      ]';
  }
  yield '\n    }';
}

/**
 * The sidecar document's text, in pieces of at most a few hundred entries of moved_to_uncovered, for a writer
 * that writes it as it is made: joined, they are sidecarText.
 */
export function* sidecarPieces(document: CorrectedCheckpoints): Generator<string, void, void> {
  yield [
    '{',
    `  "schema": ${json(SIDECAR_SCHEMA)},`,
    `  "version": ${SIDECAR_VERSION},`,
    `  "source": ${json(document.source)},`,
    `  "format": ${json(document.format)},`,
    '',
  ].join('\n');
  const { checkpoints } = document;
  if (checkpoints.length === 0) yield '  "checkpoints": []';
  else {
    yield '  "checkpoints": [\n';
    for (let index = 0; index < checkpoints.length; index++) {
      if (index > 0) yield ',\n';
      yield* checkpointPieces(checkpoints[index]);
    }
    yield '\n  ]';
  }
  yield '\n}\n';
}

/** The sidecar document's text (ends with a newline). */
export function sidecarText(document: CorrectedCheckpoints): string {
  return [...sidecarPieces(document)].join('');
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTurnId(value: unknown): value is TurnId {
  return (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && value !== '');
}

function isLine(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Collects problems (capped) while a document is checked; `ok` is false once any was found. */
class Findings {
  private readonly problems: Problem[] = [];
  private more = 0;

  add(message: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ line: 0, severity: 'error', message });
    else this.more++;
  }

  get ok(): boolean {
    return this.problems.length === 0;
  }

  list(): Problem[] {
    if (this.more === 0) return this.problems;
    return [...this.problems, { line: 0, severity: 'error', message: `…and ${this.more} more problems of this kind.` }];
  }
}

function readIds(value: unknown, where: string, findings: Findings): TurnId[] {
  if (!Array.isArray(value)) {
    findings.add(`${where} must be an array of turn ids (integers or non-empty strings), got ${json(value) ?? 'nothing'}.`);
    return [];
  }
  value.forEach((id, position) => {
    if (!isTurnId(id))
      findings.add(`${where}[${position}] is ${json(id) ?? 'undefined'}, not a turn id (an integer or a non-empty string).`);
  });
  return value.filter(isTurnId);
}

function readMoved(value: unknown, where: string, findings: Findings): MovedTurn[] {
  if (!Array.isArray(value)) {
    findings.add(`${where} must be an array of {"id", "status", "line", "reason"} entries.`);
    return [];
  }
  const moved: MovedTurn[] = [];
  value.forEach((entry: unknown, position) => {
    const at = `${where}[${position}]`;
    if (!isObject(entry)) return findings.add(`${at} must be an object with "id", "status", "line" and "reason".`);
    const { id, status, line, reason } = entry;
    if (!isTurnId(id)) return findings.add(`${at}.id is ${json(id) ?? 'missing'}, not a turn id.`);
    if (typeof status !== 'string' || !(TURN_STATUSES as readonly string[]).includes(status))
      return findings.add(`${at}.status is ${json(status) ?? 'missing'}; expected one of ${TURN_STATUSES.join(', ')}.`);
    if (!isLine(line)) return findings.add(`${at}.line is ${json(line) ?? 'missing'}, not a line number.`);
    if (typeof reason !== 'string') return findings.add(`${at}.reason is ${json(reason) ?? 'missing'}, not a string.`);
    moved.push({ id, status: status as MovedTurn['status'], line, reason });
  });
  return moved;
}

/** Pointer sets that contradict each other: a moved id that was not claimed or is still safe, a safe id also uncovered. */
function checkConsistency(checkpoint: CorrectedCheckpoint, where: string, findings: Findings): void {
  const claimed = new Set(checkpoint.claimedIds.map(String));
  const safe = new Set(checkpoint.safeIds.map(String));
  for (const turn of checkpoint.moved) {
    if (!claimed.has(String(turn.id)))
      findings.add(`${where}.moved_to_uncovered names turn ${json(turn.id)}, which claimed_ids does not hold.`);
    if (safe.has(String(turn.id))) findings.add(`${where}.moved_to_uncovered names turn ${json(turn.id)}, which safe_ids still holds.`);
  }
  for (const id of checkpoint.uncoveredIds) {
    if (safe.has(String(id))) findings.add(`${where}: turn ${json(id)} is in both safe_ids and uncovered_ids.`);
  }
}

function readCheckpoint(value: unknown, where: string, findings: Findings): CorrectedCheckpoint | undefined {
  if (!isObject(value)) {
    findings.add(`${where} must be an object.`);
    return undefined;
  }
  const { summary_id: summaryId, line, verdict, path } = value;
  if (typeof summaryId !== 'string' || summaryId === '') findings.add(`${where}.summary_id must be a non-empty string.`);
  if (!isLine(line)) findings.add(`${where}.line is ${json(line) ?? 'missing'}, not a line number.`);
  if (typeof verdict !== 'string' || !(VERDICTS as readonly string[]).includes(verdict))
    findings.add(`${where}.verdict is ${json(verdict) ?? 'missing'}; expected one of ${VERDICTS.join(', ')}.`);
  if (path !== 'A' && path !== 'B') findings.add(`${where}.path is ${json(path) ?? 'missing'}; expected "A" or "B".`);
  const checkpoint: CorrectedCheckpoint = {
    summaryId: summaryId as string,
    line: line as number,
    verdict: verdict as CorrectedCheckpoint['verdict'],
    path: path as CorrectedCheckpoint['path'],
    claimedIds: readIds(value.claimed_ids, `${where}.claimed_ids`, findings),
    safeIds: readIds(value.safe_ids, `${where}.safe_ids`, findings),
    uncoveredIds: readIds(value.uncovered_ids, `${where}.uncovered_ids`, findings),
    moved: readMoved(value.moved_to_uncovered, `${where}.moved_to_uncovered`, findings),
  };
  checkConsistency(checkpoint, where, findings);
  return checkpoint;
}

/**
 * Reads a sidecar document. Returns the document when every field is as docs/corrected-checkpoint.md says, and
 * otherwise no document and the problems (line 0: each message names the field, e.g. `checkpoints[0].safe_ids[3]`).
 */
export function readSidecar(text: string): { document?: CorrectedCheckpoints; problems: Problem[] } {
  const findings = new Findings();
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    findings.add(`not a Compaction Lens sidecar: the text is not JSON (${error instanceof Error ? error.message : String(error)}).`);
    return { problems: findings.list() };
  }
  if (!isObject(value) || value.schema !== SIDECAR_SCHEMA) {
    const schema = isObject(value) ? json(value.schema) : undefined;
    findings.add(`not a Compaction Lens sidecar: "schema" is ${schema ?? 'missing'}, expected ${json(SIDECAR_SCHEMA)}.`);
    return { problems: findings.list() };
  }
  const { version, source, format, checkpoints } = value;
  if (typeof version === 'number' && Number.isSafeInteger(version) && version > SIDECAR_VERSION) {
    findings.add(`the sidecar has version ${version}, newer than this Compaction Lens reads (${SIDECAR_VERSION}): update Compaction Lens.`);
    return { problems: findings.list() };
  }
  if (version !== SIDECAR_VERSION) findings.add(`"version" is ${json(version) ?? 'missing'}, expected ${SIDECAR_VERSION}.`);
  if (typeof source !== 'string' || source === '') findings.add('"source" must be the transcript\'s file name (a non-empty string).');
  if (typeof format !== 'string' || !isFormatId(format)) findings.add(`"format" is ${json(format) ?? 'missing'}, not a transcript format.`);
  if (!Array.isArray(checkpoints)) {
    findings.add('"checkpoints" must be an array.');
    return { problems: findings.list() };
  }
  const read = checkpoints.map((checkpoint: unknown, index) => readCheckpoint(checkpoint, `checkpoints[${index}]`, findings));
  if (!findings.ok) return { problems: findings.list() };
  return {
    document: { source: source as string, format: format as CorrectedCheckpoints['format'], checkpoints: read as CorrectedCheckpoint[] },
    problems: [],
  };
}
