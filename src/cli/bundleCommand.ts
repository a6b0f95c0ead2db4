// `compaction-lens bundle FILE [--checkpoint ID | --turns ID,ID… | --find QUERY] [--no-mask]`: opens and
// analyses the transcript and builds the recovery bundle (core/recoveryBundle.ts): the raw text of the turns a
// checkpoint claims but whose summary does not carry them — every such checkpoint's, or the one named — or of
// the turns named, or of those that hold --find's text (as `find` reads it), as Markdown for the agent's
// context. The Markdown goes to stdout; its size in tokens and the count of masked secrets go to stderr, so a
// pipe gets the bundle only. Every failure is a one-line message for exit status 2.
import { countOf, groupDigits } from '../core/displayText';
import type { Analysis, BundleSelection, RecoveryBundle, Transcript } from '../core/model';
import { findFact, parseFactQuery } from '../core/findFact';
import { buildRecoveryBundle, checkpointsWithDroppedTurns } from '../core/recoveryBundle';
import { fileNameOf } from '../core/displayText';
import { createTokenCounter } from '../node/tokenCounter';
import type { BundleCommandOptions } from './args';
import { cliTokenPool, openErrorText, openForCli } from './checkFiles';
import { shownName } from './standardInput';
import { terminalText } from './terminalText';

export type BundleOutcome =
  | { kind: 'error'; message: string }
  /** `output` for stdout (empty when there is nothing to recover), `note` for stderr. */
  | { kind: 'done'; output: string; note: string };

export async function runBundle(options: BundleCommandOptions): Promise<BundleOutcome> {
  const opened = await openAnalysed(options);
  if ('error' in opened) return { kind: 'error', message: opened.error };
  const { transcript, analysis } = opened;
  const name = shownName(options.file);
  const selection = selectionOf(options, transcript, analysis);
  if ('error' in selection) return { kind: 'error', message: `${name}: ${selection.error}` };
  if (selection.kind === 'checkpoints' && selection.checkpointIndices.length === 0) {
    const none =
      analysis.checkpoints.length === 0
        ? 'has no compaction checkpoints'
        : `has no claimed-missing turns in its ${countOf(analysis.checkpoints.length, 'checkpoint')}`;
    return { kind: 'done', output: '', note: terminalText(`${name} ${none}: nothing to recover.`) };
  }
  if (selection.kind === 'turns' && selection.ids.length === 0) {
    return {
      kind: 'done',
      output: '',
      note: terminalText(`${name}: no turn holds ${JSON.stringify(options.find)}: nothing to recover.`),
    };
  }
  const bundle = buildRecoveryBundle(analysis, transcript.turns, selection, {
    countTokens: createTokenCounter(options.encoding),
    mask: options.mask,
    fileName: fileNameOf(name),
  });
  if (bundle.unknownIds.length > 0) {
    const ids = bundle.unknownIds.map((id) => JSON.stringify(String(id))).join(', ');
    return { kind: 'error', message: `${name}: no turn has the id ${ids} (turn ids are as the transcript spells them)` };
  }
  return { kind: 'done', output: bundle.markdown, note: terminalText(describeBundle(bundle, options)) };
}

/** "40 turns, 4,321 tokens (o200k_base), 2 secrets masked": what stderr says about the bundle. */
function describeBundle(bundle: RecoveryBundle, options: BundleCommandOptions): string {
  const masked = options.mask ? `${countOf(bundle.masked, 'secrets-looking string')} masked` : 'nothing masked (--no-mask)';
  return `recovery bundle: ${countOf(bundle.turnIds.length, 'turn')}, ${groupDigits(bundle.tokens)} tokens (${options.encoding}), ${masked}`;
}

/**
 * The turns to bundle: those named by --turns, those that hold --find's text, else the claimed-missing turns of
 * --checkpoint or of every checkpoint.
 */
function selectionOf(options: BundleCommandOptions, transcript: Transcript, analysis: Analysis): BundleSelection | { error: string } {
  if (options.turns !== undefined) return { kind: 'turns', ids: options.turns };
  if (options.find !== undefined) {
    const parsed = parseFactQuery(options.find);
    if ('error' in parsed) return parsed;
    const answer = findFact(transcript, analysis, parsed.query, { maxMatches: Number.MAX_SAFE_INTEGER });
    return { kind: 'turns', ids: answer.matches.map((match) => match.turnId) };
  }
  if (options.checkpoint === undefined) return { kind: 'checkpoints', checkpointIndices: checkpointsWithDroppedTurns(analysis) };
  const index = analysis.checkpoints.findIndex((checkpoint) => checkpoint.summaryId === options.checkpoint);
  if (index >= 0) return { kind: 'checkpoints', checkpointIndices: [index] };
  const ids = analysis.checkpoints.map((checkpoint) => checkpoint.summaryId);
  return {
    error:
      ids.length === 0
        ? `no checkpoint ${JSON.stringify(options.checkpoint)}: the transcript has no compaction checkpoints`
        : `no checkpoint ${JSON.stringify(options.checkpoint)}; its checkpoints are ${ids.map((id) => JSON.stringify(id)).join(', ')}`,
  };
}

async function openAnalysed(options: BundleCommandOptions): Promise<{ transcript: Transcript; analysis: Analysis } | { error: string }> {
  const pool = cliTokenPool();
  const opened = await openForCli(options.file, options, pool).finally(() => pool.disposeAndWait());
  return 'error' in opened ? { error: openErrorText(opened) } : { transcript: opened.file.transcript, analysis: opened.analysis };
}
