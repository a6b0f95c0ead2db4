// Checks every message a timeline webview sends before the host acts on it: known type, integer fields
// in range, known checkpoint and turn indexes. A webview renders untrusted transcript text, so its messages
// are treated as untrusted too. Pure: no vscode import.
import type { ViewState, WebviewMessage } from '../protocol';
import { MAX_ROWS_PER_REQUEST } from './timelineData';

/** What the current analysis holds, to check indexes against. */
export interface MessageBounds {
  checkpointCount: number;
  turnCount: number;
}

export type Validation = { ok: true; message: WebviewMessage } | { ok: false; reason: string };

const MAX_SCROLL = 1e9;
/** Longest find query accepted (core/findFact refuses longer text with a sentence; this bounds the message). */
const MAX_QUERY_LENGTH = 4000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isIndex(value: unknown, below: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < below;
}

function isRequestId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** A request's optional analysis version: absent, or a non-negative integer. */
function isVersion(value: unknown): value is number | undefined {
  return value === undefined || (Number.isSafeInteger(value) && (value as number) >= 0);
}

/** `{ version }` when the request carries one, else nothing (so the typed message has no undefined key). */
function versionOf(value: number | undefined): { version?: number } {
  return value === undefined ? {} : { version: value };
}

/** A checkpoint index, or -1 ("no checkpoint selected") for row and turn requests. */
function isRowCheckpoint(value: unknown, bounds: MessageBounds): value is number {
  return value === -1 || isIndex(value, bounds.checkpointCount);
}

function fail(reason: string): Validation {
  return { ok: false, reason };
}

/** A version-1 view state of any file (what a serializer is handed after a reload), or undefined. */
export function viewStateShape(value: unknown): ViewState | undefined {
  if (!isObject(value) || typeof value.file !== 'string' || value.file === '') return undefined;
  return validateViewState(value, value.file, { checkpointCount: Number.MAX_SAFE_INTEGER, turnCount: Number.MAX_SAFE_INTEGER });
}

export function validateViewState(value: unknown, file: string, bounds: MessageBounds): ViewState | undefined {
  if (!isObject(value)) return undefined;
  const { version, checkpointIndex, selectedTurn, scrollTop } = value;
  if (version !== 1 || value.file !== file) return undefined;
  if (!(checkpointIndex === -1 || isIndex(checkpointIndex, Math.max(bounds.checkpointCount, 1)))) return undefined;
  if (!(selectedTurn === -1 || isIndex(selectedTurn, Math.max(bounds.turnCount, 1)))) return undefined;
  if (typeof scrollTop !== 'number' || !Number.isFinite(scrollTop) || scrollTop < 0 || scrollTop > MAX_SCROLL) return undefined;
  return { version: 1, file, checkpointIndex: checkpointIndex as number, selectedTurn: selectedTurn as number, scrollTop };
}

/**
 * Returns the message typed when it is valid for a panel showing `file` with `bounds`; otherwise why not.
 * Only the listed fields are copied, so extra properties never reach the handlers.
 */
export function validateWebviewMessage(raw: unknown, file: string, bounds: MessageBounds): Validation {
  if (!isObject(raw)) return fail('not an object');
  const type = raw.type;
  switch (type) {
    case 'ready':
      return { ok: true, message: { type } };
    case 'getRows': {
      const { requestId, checkpointIndex, start, count, version } = raw;
      if (!isRequestId(requestId)) return fail('getRows: requestId must be a non-negative integer');
      if (!isVersion(version)) return fail('getRows: version must be a non-negative integer');
      if (!isRowCheckpoint(checkpointIndex, bounds)) return fail(`getRows: unknown checkpoint ${String(checkpointIndex)}`);
      if (!(Number.isSafeInteger(start) && (start as number) >= 0 && (start as number) <= bounds.turnCount)) {
        return fail(`getRows: start ${String(start)} is outside 0..${bounds.turnCount}`);
      }
      if (!(Number.isSafeInteger(count) && (count as number) >= 1 && (count as number) <= MAX_ROWS_PER_REQUEST)) {
        return fail(`getRows: count ${String(count)} is outside 1..${MAX_ROWS_PER_REQUEST}`);
      }
      return {
        ok: true,
        message: { type, requestId, ...versionOf(version), checkpointIndex, start: start as number, count: count as number },
      };
    }
    case 'getTurnDetails': {
      const { requestId, checkpointIndex, turnIndex, version } = raw;
      if (!isRequestId(requestId)) return fail('getTurnDetails: requestId must be a non-negative integer');
      if (!isVersion(version)) return fail('getTurnDetails: version must be a non-negative integer');
      if (!isRowCheckpoint(checkpointIndex, bounds)) return fail(`getTurnDetails: unknown checkpoint ${String(checkpointIndex)}`);
      if (!isIndex(turnIndex, bounds.turnCount)) {
        return fail(`getTurnDetails: no turn at position ${String(turnIndex)} (the transcript has ${bounds.turnCount})`);
      }
      return { ok: true, message: { type, requestId, ...versionOf(version), checkpointIndex, turnIndex } };
    }
    case 'getSummary': {
      const { requestId, checkpointIndex, version } = raw;
      if (!isRequestId(requestId)) return fail('getSummary: requestId must be a non-negative integer');
      if (!isVersion(version)) return fail('getSummary: version must be a non-negative integer');
      if (!isIndex(checkpointIndex, bounds.checkpointCount)) return fail(`getSummary: unknown checkpoint ${String(checkpointIndex)}`);
      return { ok: true, message: { type, requestId, ...versionOf(version), checkpointIndex } };
    }
    case 'findFact': {
      const { requestId, checkpointIndex, query, version } = raw;
      if (!isRequestId(requestId)) return fail('findFact: requestId must be a non-negative integer');
      if (!isVersion(version)) return fail('findFact: version must be a non-negative integer');
      if (!isRowCheckpoint(checkpointIndex, bounds)) return fail(`findFact: unknown checkpoint ${String(checkpointIndex)}`);
      if (typeof query !== 'string' || query.length > MAX_QUERY_LENGTH) {
        return fail(`findFact: the query must be text of at most ${MAX_QUERY_LENGTH} characters`);
      }
      return { ok: true, message: { type, requestId, ...versionOf(version), checkpointIndex, query } };
    }
    case 'openTurn': {
      const { turnIndex } = raw;
      if (!isIndex(turnIndex, bounds.turnCount)) {
        return fail(`openTurn: no turn at position ${String(turnIndex)} (the transcript has ${bounds.turnCount})`);
      }
      return { ok: true, message: { type, turnIndex } };
    }
    case 'openCheckpoint':
    case 'copySafePointerSet': {
      const { checkpointIndex } = raw;
      if (!isIndex(checkpointIndex, bounds.checkpointCount)) return fail(`${type}: unknown checkpoint ${String(checkpointIndex)}`);
      return { ok: true, message: { type, checkpointIndex } };
    }
    case 'viewState': {
      const state = validateViewState(raw.state, file, bounds);
      if (!state) return fail('viewState: not a version-1 view state of this file');
      return { ok: true, message: { type, state } };
    }
    default:
      return fail(`unknown message type ${JSON.stringify(String(type)).slice(0, 60)}`);
  }
}
