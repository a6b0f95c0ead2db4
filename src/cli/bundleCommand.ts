// `compaction-lens bundle FILE [--checkpoint ID | --turns ID,ID… | --find QUERY] [--no-mask]`: opens and
// analyses the transcript and builds the recovery bundle (core/recoveryBundle.ts): the raw text of the turns a
// checkpoint claims but whose summary does not carry them — every such checkpoint's, or the one named — or of
// the turns named, or of those that hold --find's text (as `find` reads it), as Markdown for the agent's
// context. The analysis keeps only which turns each checkpoint dropped (core/keptTurns.ts), and the Markdown goes
// to stdout a block at a time as it is made, never held whole; its size in tokens and the count of masked secrets
// go to stderr, so a pipe gets the bundle only; on a terminal, stderr shows the progress of the analysis, then of
// the bundle's masking and writing. Every failure is a one-line message for exit status 2, said before anything is
// written.
import { countOf, groupDigits } from '../core/displayText';
import type { Analysis, BundleSelection, KeptResults, Transcript, Turn } from '../core/model';
import { matchingTurns, parseFactQuery } from '../core/findFact';
import { KeptTurns } from '../core/keptTurns';
import { bundledTurns, checkpointsWithDroppedTurns, maskedInTurns, recoveryBundleInSteps } from '../core/recoveryBundle';
import { eachStep, runSteps } from '../core/steps';
import { fileNameOf } from '../core/displayText';
import { createTokenCounter } from '../node/tokenCounter';
import type { BundleCommandOptions } from './args';
import { cliTokenPool, type FileProgress, openErrorText, openForCli, progressFor } from './checkFiles';
import { shownName } from './standardInput';
import { terminalText } from './terminalText';

export type BundleOutcome =
  | { kind: 'error'; message: string }
  /** The bundle went to the output (nothing, when there is nothing to recover); `note` is for stderr. */
  | { kind: 'done'; note: string };

/**
 * Where the bundle goes (stdout): `write` says false when what it was given waits in memory (a pipe whose reader is
 * behind), and the next block then waits for `drained`, so that a bundle of hundreds of MB is not queued whole.
 */
export interface BundleOutput {
  write(text: string): boolean;
  drained(): Promise<void>;
}

/** What a bundle written says of itself on stderr. */
interface WrittenBundle {
  turns: number;
  masked: number;
  tokens: number;
}

/**
 * `output` takes the Markdown a block at a time, as it is made (stdout); nothing is written when the command fails.
 * `onProgress`: a terminal's progress line, for the analysis and then the bundle's masking and writing.
 */
export async function runBundle(options: BundleCommandOptions, output: BundleOutput, onProgress?: FileProgress): Promise<BundleOutcome> {
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
    return { kind: 'done', note: terminalText(`${name} ${none}: nothing to recover.`) };
  }
  if (selection.kind === 'turns' && selection.ids.length === 0) {
    return { kind: 'done', note: terminalText(`${name}: no turn holds ${JSON.stringify(options.find)}: nothing to recover.`) };
  }
  const { indexes, unknownIds } = bundledTurns(analysis, transcript.turns, selection, kept);
  if (unknownIds.length > 0) {
    const ids = unknownIds.map((id) => JSON.stringify(String(id))).join(', ');
    return { kind: 'error', message: `${name}: no turn has the id ${ids} (turn ids are as the transcript spells them)` };
  }
  const bundle = await writeAndCount(analysis, kept, transcript.turns, selection, indexes, options, output, (fraction, message) =>
    onProgress?.progress(name, fraction, message),
  );
  return { kind: 'done', note: terminalText(describeBundle(bundle, options)) };
}

/** The share of the bundle's progress its first pass takes, which counts the strings masking will replace. */
const MASK_PASS_SHARE = 0.4;

/**
 * The bundle of `selection` (the turns at `indexes`) written to `output` as it is made, each block counted as it
 * goes (the blocks' counts add up to the whole's, see BundleWriter). With masking, a first pass over the turns
 * counts what it will replace, so that the note saying so, which comes before the turns, is written in its place
 * and nothing need be kept until the end: the turns' text is masked twice, and the bundle is never held whole.
 */
async function writeAndCount(
  analysis: Analysis,
  kept: KeptResults,
  turns: readonly Turn[],
  selection: BundleSelection,
  indexes: readonly number[],
  options: BundleCommandOptions,
  output: BundleOutput,
  progress: (fraction: number, message: string) => void,
): Promise<WrittenBundle> {
  const total = Math.max(indexes.length, 1);
  const writeFrom = options.mask ? MASK_PASS_SHARE : 0;
  let looked = 0;
  const maskedAhead = options.mask
    ? runSteps(
        eachStep(maskedInTurns(turns, indexes), () => progress((writeFrom * Math.min(++looked, total)) / total, 'looking for secrets')),
      )
    : 0;
  const countTokens = createTokenCounter(options.encoding);
  let tokens = 0;
  let wait = false;
  const onBlock = (block: string): void => {
    tokens += countTokens(block);
    if (!output.write(block)) wait = true;
  };
  let written = 0;
  const steps = recoveryBundleInSteps(analysis, turns, selection, {
    mask: options.mask,
    fileName: fileNameOf(shownName(options.file)),
    kept,
    stream: { onBlock, maskedAhead },
  });
  let step = steps.next();
  while (!step.done) {
    progress(writeFrom + ((1 - writeFrom) * Math.min(++written, total)) / total, 'writing the bundle');
    if (wait) {
      wait = false;
      await output.drained();
    }
    step = steps.next();
  }
  const text = step.value;
  return { turns: text.turnIds.length, masked: text.masked, tokens };
}

/** "40 turns, 4,321 tokens (o200k_base), 2 secrets masked": what stderr says about the bundle. */
function describeBundle(bundle: WrittenBundle, options: BundleCommandOptions): string {
  const masked = options.mask ? `${countOf(bundle.masked, 'secrets-looking string')} masked` : 'nothing masked (--no-mask)';
  return `recovery bundle: ${countOf(bundle.turns, 'turn')}, ${groupDigits(bundle.tokens)} tokens (${options.encoding}), ${masked}`;
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
