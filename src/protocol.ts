// The one place host <-> webview messages are declared. Imported by src/extension and by webview/.
// The webview starts with `ready` and is answered with `init`. Requests (the `Requests` map, in the style of
// GitLens's IpcRequest<Params, Response>) carry a `requestId`; the host answers every one with the reply type
// the map ties to it, or with an `error` carrying the same id when the request is invalid or stale (an unknown
// checkpoint, a turn out of range, an analysis that was superseded), so no pane waits forever. Large data is
// paged: the webview asks for ranges of timeline rows.
// Turns are named by the transcript's own ids everywhere (src/core/displayText.ts's turn naming); `index`
// fields are positions in the log (0-based), used to page and select, never shown as a turn's name.

import type { Evidence, FactRouteKind, FormatId, Problem, TokenSource, TruncationReport, TurnId, TurnStatus, Verdict } from './core/model';

/** Status of a row for the selected checkpoint; 'after' = the turn comes after that checkpoint. */
export type RowStatus = TurnStatus | 'after';

/** A checkpoint without its per-turn data (that is paged). */
export interface CheckpointHeader {
  index: number;
  summaryId: string;
  line: number;
  /** Index of the first turn after the checkpoint (= number of turns before it). */
  turnsBefore: number;
  verdict: Verdict;
  reasons: string[];
  path: 'A' | 'B';
  prefixTokens: number;
  prefixTokenSource: TokenSource | 'mixed';
  recordedPrefixTokens?: number;
  summaryTokens: number;
  summaryBudget?: number;
  budgetAssumed: boolean;
  ceiling?: number;
  ratioFloor: number;
  /** True when the summary is encrypted or otherwise unreadable: coverage cannot be checked. */
  opaque: boolean;
  /** Why coverage cannot be checked in this file although the summary is readable, when it cannot. */
  unverifiable?: string;
  truncation: TruncationReport;
  /** Turns per status (the compacted prefix only; the webview counts the turns after the checkpoint). */
  counts: Record<TurnStatus, number>;
  /**
   * Indexes (into turns, ascending) of the claimed-missing turns: lets the webview's `n`/`p` keys jump without paging.
   * (The id ranges are not sent: the webview does not show them, and on a large log they were most of `init`.)
   */
  claimedMissingIndexes: number[];
  /** Index (into turns) of the last turn of the safe pointer set's run from the start; -1 when empty. */
  safeBoundaryIndex: number;
  /** The id of that turn (what the panel names it by); absent when the run is empty. */
  safeBoundaryId?: TurnId;
  safeCoveredCount: number;
  notes: string[];
}

/** Consecutive rows of one checkpoint's view (-1: the view without a checkpoint), from `start`. */
export interface FirstRows {
  checkpointIndex: number;
  start: number;
  rows: TimelineRow[];
}

export interface TimelineRow {
  index: number;
  id: TurnId;
  role: string;
  label?: string;
  status: RowStatus;
  tokens?: number;
  line: number;
  /** First characters of the turn's text, single line. Plain text: render with textContent only. */
  preview: string;
}

export interface TurnDetails {
  index: number;
  id: TurnId;
  role: string;
  label?: string;
  status: RowStatus;
  tokens?: number;
  line: number;
  endLine: number;
  reason: string;
  /** The evidence weighed for the turn, heaviest first; its `text` is transcript text (plain). */
  evidence: Evidence[];
  /** Summed weight of the evidence found, when a score was computed (Path B, readable summary, claimed turn). */
  score?: number;
  /** The score a turn needs to count as covered, when a score was computed. */
  threshold?: number;
  externalSource?: string;
  /** The turn's text, capped in length (`textTruncated` says so). Plain text. */
  text: string;
  textTruncated: boolean;
}

export interface SummaryDetails {
  checkpointIndex: number;
  summaryId: string;
  /** Plain text. */
  text: string;
  foundAnchors: { anchor: string; at: number }[];
  cutAt?: number;
}

/** View state the webview persists with setState (never the data). */
export interface ViewState {
  version: 1;
  file: string;
  checkpointIndex: number;
  selectedTurn: number;
  scrollTop: number;
  /** How the panel is laid out. Optional: the webview reads it back from its own getState(); the host may drop it. */
  layout?: PanelLayout;
}

/** The panel's layout, remembered across reloads (any file). */
export interface PanelLayout {
  /** The header's "Details" section (reasons, figures, glossary) is expanded. */
  detailsOpen: boolean;
  /** Share (0..1) of the body the turn list takes, beside or above the details pane. */
  listShare: number;
  /** Share (0..1) of the details pane the selected turn takes, above the summary. */
  turnShare: number;
}

export interface FileInfo {
  path: string;
  name: string;
  format: FormatId;
  turnCount: number;
}

// ---------------------------------------------------------------------------------------------------------
// Requests: each request type tied to its parameters, its reply's message type and the reply's payload.

export interface Requests {
  /** A page of timeline rows (checkpoint -1: no checkpoint selected). */
  getRows: { reply: 'rows'; params: { checkpointIndex: number; start: number; count: number }; response: RowsResponse };
  getTurnDetails: { reply: 'turnDetails'; params: { checkpointIndex: number; turnIndex: number }; response: TurnDetailsResponse };
  getSummary: { reply: 'summary'; params: { checkpointIndex: number }; response: SummaryResponse };
  /** Where did this fact go: the turns whose text holds `query` (text, or /regex/flags), with the checkpoint's route. */
  findFact: { reply: 'factFound'; params: { checkpointIndex: number; query: string }; response: FactFoundResponse };
}

export interface RowsResponse {
  checkpointIndex: number;
  start: number;
  rows: TimelineRow[];
}

export interface TurnDetailsResponse {
  checkpointIndex: number;
  details: TurnDetails;
}

export interface SummaryResponse {
  details: SummaryDetails;
}

/** One turn that holds the text searched for, with the selected checkpoint's route to it (core/findFact). */
export interface FoundTurn {
  index: number;
  id: TurnId;
  line: number;
  /** The first match with some text either side, on one line. Plain text: render with textContent only. */
  excerpt: { before: string; match: string; after: string };
  route: FactRouteKind;
  status?: TurnStatus;
  /** Claimed by the checkpoint but not carried by its summary: the pointer set would give a false negative. */
  flagged: boolean;
  /** Why the route is what it is, and the route as said to a user ("raw log line 409"). */
  why: string;
  says: string;
}

export interface FactFoundResponse {
  checkpointIndex: number;
  query: string;
  /** Why the query was refused (a pattern that could backtrack, empty text…); there are no matches then. */
  error?: string;
  turns: FoundTurn[];
  /** Matching turns not listed (over the cap). */
  omitted: number;
  /** Listed turns claimed-missing for the checkpoint (flagged). */
  flagged: number;
}

export type RequestType = keyof Requests;
export type RequestParams<K extends RequestType> = Requests[K]['params'];
export type RequestResponse<K extends RequestType> = Requests[K]['response'];

/** The reply message type of each request type (the wire names). */
export const REPLY_TYPES = {
  getRows: 'rows',
  getTurnDetails: 'turnDetails',
  getSummary: 'summary',
  findFact: 'factFound',
} as const satisfies { [K in RequestType]: Requests[K]['reply'] };

export const REQUEST_TYPES = Object.keys(REPLY_TYPES) as RequestType[];

export function isRequestType(type: unknown): type is RequestType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(REPLY_TYPES, type);
}

/**
 * What a request carries besides its parameters: its id, and the analysis version it was asked against (the
 * `version` of the last init / updated the webview saw). A request for another version is stale: it is answered
 * with an error. Without a version, the current analysis is meant.
 */
export interface RequestEnvelope {
  requestId: number;
  version?: number;
}

/** The request message of type K, as the webview sends it. */
export type RequestMessage<K extends RequestType = RequestType> = K extends RequestType
  ? { type: K } & RequestEnvelope & RequestParams<K>
  : never;

/** The reply message to a request of type K, as the host sends it. */
export type ReplyMessage<K extends RequestType = RequestType> = K extends RequestType
  ? { type: Requests[K]['reply']; requestId: number } & RequestResponse<K>
  : never;

/** The error answer to a request (invalid, stale or failed); without a requestId, a message for the banner. */
export interface ErrorMessage {
  type: 'error';
  requestId?: number;
  message: string;
  /** Why a request was refused: it was malformed or named what does not exist, or the analysis moved on. */
  reason?: 'invalid' | 'stale' | 'failed' | 'unavailable';
}

/**
 * The host's side of the requests: one handler per request type, each bound to return its type's response.
 * A map missing a request type, or returning another type's response, does not compile.
 */
export type RequestHandlers<Context> = { [K in RequestType]: (params: RequestParams<K>, context: Context) => RequestResponse<K> };

// ---------------------------------------------------------------------------------------------------------
// Host -> webview

export type HostMessage =
  | {
      type: 'init';
      file: FileInfo;
      checkpoints: CheckpointHeader[];
      problems: Problem[];
      /** View state to restore (after a reload), if any. */
      restore?: ViewState;
      /** The analysis version requests are asked against (see RequestEnvelope); absent = not versioned. */
      version?: number;
      /**
       * The rows the timeline shows when it opens, in the view `restore` scrolled to or the default one
       * (src/view/firstView.ts), so it draws them without asking; any other row is asked for with getRows, as usual.
       */
      rows?: FirstRows;
    }
  | {
      type: 'updated';
      file: FileInfo;
      checkpoints: CheckpointHeader[];
      problems: Problem[];
      version?: number;
      /**
       * True when the checkpoints are those the last init / updated carried (an append changed none of them):
       * they are left out (`checkpoints` is empty), so a live 100k-turn file's headers are not sent again.
       */
      sameCheckpoints?: boolean;
      /**
       * With `sameCheckpoints`: the rows from `start` to the end, when only those changed (new turns, or a last
       * turn the reader replaced). They come after every checkpoint, so they are every checkpoint's rows (or, with
       * no checkpoint, the rows without one); the rows before `start` are as they were. Absent: the webview asks
       * again for the rows from the last checkpoint on.
       */
      tail?: { start: number; rows: TimelineRow[] };
      /**
       * When the checkpoints changed: the rows of the view the webview last reported (its view state; the default
       * view before it reported one), as `init` carries them, so it draws them without asking.
       */
      rows?: FirstRows;
    }
  | ReplyMessage
  | ErrorMessage
  /** The host asks the webview to select a turn (e.g. from "Reveal Turn…" or the tree). */
  | ({ type: 'selectTurn' } & TurnSelection);

/** A turn the host asks the timeline to select, on one checkpoint's view. */
export interface TurnSelection {
  checkpointIndex: number;
  turnIndex: number;
}

// ---------------------------------------------------------------------------------------------------------
// Webview -> host

export type WebviewMessage =
  | { type: 'ready' }
  | RequestMessage
  | { type: 'openTurn'; turnIndex: number }
  | { type: 'openCheckpoint'; checkpointIndex: number }
  | { type: 'copySafePointerSet'; checkpointIndex: number }
  | { type: 'viewState'; state: ViewState };
