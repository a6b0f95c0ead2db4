// The package's public API for Node programs (`require('compaction-lens')`, bundled to dist/library.js, its
// types in dist/types/library.d.ts; docs/library.md shows it in use). It is the one deliberate re-export
// module, not a barrel for internal use: nothing inside src imports it, and what it names is what agent
// builders may rely on — the design note's buildCheckpoint / reconstruct / CompactionReversibilityError,
// the non-throwing analyze, where a fact went (findFact), the corrected pointer sets (correctCheckpoint), the
// recovery bundle (buildRecoveryBundle), a one-call analysis of a transcript file, and the types they speak.

// The note's reference API: raises where the note raises.
export { buildCheckpoint, reconstruct, CompactionReversibilityError, COMPRESSION_RATIO_LOW } from './core/reference';
export type { ReferenceTurn, ReferenceCheckpoint } from './core/reference';

// The analysis that explains instead of raising.
export { analyze } from './core/analyze';
export { turnReason } from './core/reweigh';
export { TURN_STATUSES } from './core/model';
export type {
  Analysis,
  AnalysisOptions,
  Checkpoint,
  CheckpointAnalysis,
  Evidence,
  EvidenceKind,
  FormatId,
  IdRange,
  Problem,
  Role,
  Severity,
  SourceSpan,
  TokenCache,
  TokenCounter,
  TokenSource,
  Transcript,
  TruncationHints,
  TruncationReport,
  Turn,
  TurnId,
  TurnResult,
  TurnStatus,
  Verdict,
} from './core/model';

// Where did a fact go (each checkpoint's route to the turns that hold a text), the repaired pointer sets, and
// the recovery bundle (the dropped turns' raw text as Markdown to paste back into an agent's context).
export { findFact, parseFactQuery } from './core/findFact';
export { correctCheckpoint, correctedCheckpoints, safePointerSet } from './core/correctedCheckpoint';
export type {
  CorrectedCheckpoint,
  CorrectedCheckpoints,
  FactAnswer,
  FactMatch,
  FactQuery,
  FactRoute,
  FactRouteKind,
  FindOptions,
  MovedTurn,
  SafePointerSet,
  SummaryMention,
} from './core/model';
export { buildRecoveryBundle, checkpointsWithDroppedTurns, writeRecoveryBundle } from './core/recoveryBundle';
export type { BundleOptions, BundleSelection, BundleWriteOptions, RecoveryBundle, RecoveryBundleText } from './core/model';

// Node helpers: count tokens as the CLI does, and analyse a transcript file in one call.
export { createTokenCounter, ENCODINGS } from './node/tokenCounter';
export type { EncodingName } from './node/tokenCounter';
export { analyzeTranscriptFile } from './node/analyzeTranscriptFile';
export type { TranscriptFileAnalysis, TranscriptFileOptions } from './node/analyzeTranscriptFile';
export { UnusableTranscriptError } from './node/transcriptFile';
