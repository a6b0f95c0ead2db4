// The host's answers to the webview's requests, pure: every request message gets exactly one reply, the one
// src/protocol.ts's `Requests` map ties to its type, or an error carrying its id when it is malformed, names a
// checkpoint or turn that does not exist, was asked against a superseded analysis, or cannot be answered (no
// analysis yet, a handler that threw). The extension's timeline panel and the webview tests' fake host both
// answer through here. No vscode import.
import type { Analysis, Transcript } from '../core/model';
import {
  isRequestType,
  REPLY_TYPES,
  type ErrorMessage,
  type ReplyMessage,
  type RequestHandlers,
  type RequestMessage,
  type RequestParams,
  type RequestResponse,
  type RequestType,
} from '../protocol';
import { factFound } from './factSearch';
import { validateWebviewMessage, type MessageBounds } from './messageValidation';
import { summaryDetails, timelineRows, turnDetails } from './timelineData';

/** What requests are answered from: a transcript and its analysis. */
export interface AnalysedData {
  transcript: Transcript;
  analysis: Analysis;
}

/** One handler per request type; `satisfies` makes a missing type, or a wrong response, a compile error. */
export const requestHandlers = {
  getRows: ({ checkpointIndex, start, count }, { transcript, analysis }) => ({
    checkpointIndex,
    start,
    rows: timelineRows(transcript, analysis, checkpointIndex, start, count),
  }),
  getTurnDetails: ({ checkpointIndex, turnIndex }, { transcript, analysis }) => ({
    checkpointIndex,
    details: turnDetails(transcript, analysis, checkpointIndex, turnIndex),
  }),
  getSummary: ({ checkpointIndex }, { transcript, analysis }) => ({
    details: summaryDetails(transcript, analysis, checkpointIndex),
  }),
  findFact: ({ checkpointIndex, query }, { transcript, analysis }) => factFound(transcript, analysis, checkpointIndex, query),
} satisfies RequestHandlers<AnalysedData>;

export function boundsOf(data: AnalysedData | undefined): MessageBounds {
  return { checkpointCount: data?.analysis.checkpoints.length ?? 0, turnCount: data?.transcript.turns.length ?? 0 };
}

/** The requestId of a message that looks like a request (a request type and a usable id), else undefined. */
export function requestIdOf(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { type, requestId } = raw as Record<string, unknown>;
  return isRequestType(type) && Number.isSafeInteger(requestId) && (requestId as number) >= 0 ? (requestId as number) : undefined;
}

/** Runs the handler of a valid request and wraps its response in the request's reply message. */
export function dispatchRequest<K extends RequestType, C>(
  message: RequestMessage<K>,
  handlers: RequestHandlers<C>,
  context: C,
): ReplyMessage<K> {
  const handler = handlers[message.type as RequestType] as unknown as (params: RequestParams<K>, context: C) => RequestResponse<K>;
  const response = handler(message as RequestParams<K>, context);
  return { ...response, type: REPLY_TYPES[message.type as RequestType], requestId: message.requestId } as ReplyMessage<K>;
}

export interface AnswerOptions {
  /** The file the panel shows (view states are checked against it). */
  file: string;
  /** The version of the analysis the webview was last sent; a request asked against another one is stale. */
  version?: number;
}

/**
 * The reply to `raw` when it is a request: its reply message, or an error with its id. Undefined when `raw`
 * is not a request at all (the caller handles other messages, or ignores them when they carry no request id).
 */
export function answerRequest(
  raw: unknown,
  data: AnalysedData | undefined,
  options: AnswerOptions,
): ReplyMessage | ErrorMessage | undefined {
  return answerWith(raw, requestHandlers, data, boundsOf(data), options);
}

/**
 * answerRequest over any handlers and context (the webview tests' fake host answers through here too): the
 * stale check, the validation against `bounds`, the handler, and an error for each way that can fail.
 */
export function answerWith<C>(
  raw: unknown,
  handlers: RequestHandlers<C>,
  context: C | undefined,
  bounds: MessageBounds,
  options: AnswerOptions,
): ReplyMessage | ErrorMessage | undefined {
  const requestId = requestIdOf(raw);
  if (requestId === undefined) return undefined;
  const { type, version } = raw as { type: RequestType; version?: unknown };
  const error = (reason: ErrorMessage['reason'], message: string): ErrorMessage => ({ type: 'error', requestId, reason, message });
  if (typeof version === 'number' && options.version !== undefined && version !== options.version) {
    return error('stale', 'The transcript was analysed again since this was asked; showing the new analysis.');
  }
  if (context === undefined) return error('unavailable', 'The transcript is not analysed (any more): reopen the timeline.');
  const validation = validateWebviewMessage(raw, options.file, bounds);
  if (!validation.ok) return error('invalid', `Cannot answer ${type}: ${validation.reason}.`);
  try {
    return dispatchRequest(validation.message as RequestMessage, handlers, context);
  } catch (thrown) {
    return error('failed', `Could not ${type}: ${(thrown as Error).message}`);
  }
}
