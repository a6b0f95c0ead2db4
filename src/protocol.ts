// The one place host <-> webview messages are declared. Imported by src/extension and by webview/.
// Requests carry a `requestId`; the host answers with the same id. The webview starts with `ready`
// and is answered with `init`. Large data is paged: the webview asks for ranges of timeline rows.

import type { Evidence, FormatId, IdRange, Problem, TokenSource, TruncationReport, TurnId, TurnStatus, Verdict } from './core/model';

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
  claimedMissingRanges: IdRange[];
  /** Indexes (into turns, ascending) of the claimed-missing turns: lets the webview's `n`/`p` keys jump without paging. */
  claimedMissingIndexes: number[];
  /** Index (into turns) of the last turn of the safe pointer set's run from the start; -1 when empty. */
  safeBoundaryIndex: number;
  safeCoveredCount: number;
  notes: string[];
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
// Host -> webview

export type HostMessage =
  | {
      type: 'init';
      file: FileInfo;
      checkpoints: CheckpointHeader[];
      problems: Problem[];
      /** View state to restore (after a reload), if any. */
      restore?: ViewState;
    }
  | { type: 'updated'; file: FileInfo; checkpoints: CheckpointHeader[]; problems: Problem[] }
  | { type: 'rows'; requestId: number; checkpointIndex: number; start: number; rows: TimelineRow[] }
  | { type: 'turnDetails'; requestId: number; checkpointIndex: number; details: TurnDetails }
  | { type: 'summary'; requestId: number; details: SummaryDetails }
  | { type: 'error'; requestId?: number; message: string }
  /** The host asks the webview to select a turn (e.g. from "Reveal Turn…" or the tree). */
  | { type: 'selectTurn'; checkpointIndex: number; turnIndex: number };

// ---------------------------------------------------------------------------------------------------------
// Webview -> host

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'getRows'; requestId: number; checkpointIndex: number; start: number; count: number }
  | { type: 'getTurnDetails'; requestId: number; checkpointIndex: number; turnIndex: number }
  | { type: 'getSummary'; requestId: number; checkpointIndex: number }
  | { type: 'openTurn'; turnIndex: number }
  | { type: 'openCheckpoint'; checkpointIndex: number }
  | { type: 'copySafePointerSet'; checkpointIndex: number }
  | { type: 'viewState'; state: ViewState };
