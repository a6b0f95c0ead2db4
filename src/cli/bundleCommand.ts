// `compaction-lens bundle FILE [--checkpoint ID | --turns ID,ID… | --find QUERY] [--no-mask]`: opens and
// analyses the transcript and builds the recovery bundle (core/recoveryBundle.ts): the raw text of the turns a
// checkpoint claims but whose summary does not carry them — every such checkpoint's, or the one named — or of
// the turns named, or of those that hold --find's text (as `find` reads it), as Markdown for the agent's
// context. The analysis keeps only which turns each checkpoint dropped (core/keptTurns.ts). The Markdown goes to
// stdout a block at a time, never joined; its size in tokens and the count of masked secrets go to stderr, so a
// pipe gets the bundle only; on a terminal, stderr shows the progress of the analysis, then of the bundle's writing
// and count. Every failure is a one-line message for exit status 2.
import { countOf, groupDigits } from '../core/displayText';
import type { Analysis, BundleSelection, KeptResults, RecoveryBundleText, Transcript, Turn } from '../core/model';
import { matchingTurns, parseFactQuery } from '../core/findFact';
import { KeptTurns } from '../core/keptTurns';
import { bundleTurnCount, checkpointsWithDroppedTurns, recoveryBundleInSteps } from '../core/recoveryBundle';
import { eachStep, runSteps } from '../core/steps';
import { fileNameOf } from '../core/displayText';
import { createTokenCounter } from '../node/tokenCounter';
import type { BundleCommandOptions } from './args';
import { cliTokenPool, type FileProgress, openErrorText, openForCli, progressFor } from './checkFiles';
import { shownName } from './standardInput';
import { terminalText } from './terminalText';

export type BundleOutcome =
  | { kind: 'error'; message: string }
  /**
   * `blocks` for stdout, written one after the other (none when there is nothing to recover): a bundle is never
   * joined into one string, which could pass V8's longest; `note` for stderr.
   */
  | { kind: 'done'; blocks: readonly string[]; note: string };

/** The bundle as written and counted, its blocks not joined. */
interface CountedBundle extends RecoveryBundleText {
  tokens: number;
}

/** `onProgress`: a terminal's progress line, for the analysis and then the bundle's writing and count. */
export async function runBundle(options: BundleCommandOptions, onProgress?: FileProgress): Promise<BundleOutcome> {
  const name = shownName(options.file);
  const opened = await openAnalysed(options, name, onProgress);
  if ('error' in opened) return { kind: 'error', message: opened.error };
  const { transcript, analysis, kept } = opened;
  const selection = selectionOf(options, transcript, analysis);
  if ('error' in selection) return { kind: 'error', message: `${name}: ${selection.error}` };
  if (selection.kind === 'checkpoints' && selection.checkpointIndices.length === 0) {
    const none =
      analysis.checkpoints.length === 0
        ? 'has no compaction checkpoints'
        : `has no claimed-missing turns in its ${countOf(analysis.checkpoints.length, 'checkpoint')}`;
    return { kind: 'done', blocks: [], note: terminalText(`${name} ${none}: nothing to recover.`) };
  }
  if (selection.kind === 'turns' && selection.ids.length === 0) {
    return {
      kind: 'done',
      blocks: [],
      note: terminalText(`${name}: no turn holds ${JSON.stringify(options.find)}: nothing to recover.`),
    };
  }
  const bundle = writeAndCount(analysis, kept, transcript.turns, selection, options, (fraction, message) =>
    onProgress?.progress(name, fraction, message),
  );
  if (bundle.unknownIds.length > 0) {
    const ids = bundle.unknownIds.map((id) => JSON.stringify(String(id))).join(', ');
    return { kind: 'error', message: `${name}: no turn has the id ${ids} (turn ids are as the transcript spells them)` };
  }
  return { kind: 'done', blocks: bundle.blocks, note: terminalText(describeBundle(bundle, options)) };
}

/**
 * The bundle of `selection`, written (the first half of the progress, a turn at a time) and counted (the second, a
 * block at a time: the blocks' counts add up to the whole's, see BundleWriter.finish), as buildRecoveryBundle gives it.
 */
function writeAndCount(
  analysis: Analysis,
  kept: KeptResults,
  turns: readonly Turn[],
  selection: BundleSelection,
  options: BundleCommandOptions,
  progress: (fraction: number, message: string) => void,
): CountedBundle {
  const total = Math.max(bundleTurnCount(analysis, selection), 1);
  let written = 0;
  const steps = recoveryBundleInSteps(analysis, turns, selection, {
    mask: options.mask,
    fileName: fileNameOf(shownName(options.file)),
    kept,
  });
  const text = runSteps(eachStep(steps, () => progress((0.5 * Math.min(++written, total)) / total, 'writing the bundle')));
  const countTokens = createTokenCounter(options.encoding);
  let tokens = 0;
  text.blocks.forEach((block, k) => {
    tokens += countTokens(block);
    progress(0.5 + (0.5 * (k + 1)) / text.blocks.length, 'counting its tokens');
  });
  return { ...text, tokens };
}

/** "40 turns, 4,321 tokens (o200k_base), 2 secrets masked": what stderr says about the bundle. */
function describeBundle(bundle: CountedBundle, options: BundleCommandOptions): string {
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
    const indexes = matchingTurns(transcript, parsed.query, Number.MAX_SAFE_INTEGER);
    return { kind: 'turns', ids: indexes.map((index) => transcript.turns[index].id) };
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

async function openAnalysed(
  options: BundleCommandOptions,
  name: string,
  onProgress: FileProgress | undefined,
): Promise<{ transcript: Transcript; analysis: Analysis; kept: KeptResults } | { error: string }> {
  const pool = cliTokenPool();
  // No turn's result is shown: only which turns each checkpoint dropped is kept (core/keptTurns.ts).
  const kept = new KeptTurns();
  const opened = await openForCli(options.file, options, pool, progressFor(name, onProgress), kept).finally(() => pool.disposeAndWait());
  return 'error' in opened ? { error: openErrorText(opened) } : { transcript: opened.file.transcript, analysis: opened.analysis, kept };
}
