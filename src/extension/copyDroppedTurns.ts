// "Compaction Lens: Copy Dropped Turns for the Agent" (compactionLens.copyDroppedTurns): copies to the clipboard
// the recovery bundle (core/recoveryBundle.ts) of one checkpoint — the raw text of the turns it claims but whose
// summary does not carry them, as Markdown to paste back into the agent's context. The checkpoint is the tree
// item's (a checkpoint or one of its claimed-missing ranges), else the active timeline's selected one, else the
// one of the active transcript that has claimed-missing turns (a quick pick when several do). Before copying, a
// modal dialog says the size in tokens (counted in the token pool's workers) and how many secrets-looking strings
// are masked, with "Copy", "Copy Unmasked" when some are, and "Save As…", which saves the masked bundle as a
// Markdown file instead (a save dialog starting beside the transcript, a modal question before replacing a file,
// written atomically; never the transcript). Past LARGE_BUNDLE_TOKENS the dialog says the bundle is too large to
// paste well and puts "Save As…" first; past COPY_MAX_TOKENS it offers "Save As…" alone (no agent could take the
// bundle whole, and VS Code's clipboard write of it would hold the extension host for seconds). From
// LONG_WORK_TURNS turns the writing and counting show in a notification with their progress and Cancel. The
// dialogs (and the progress) are the command's `CopyDroppedTurnsPrompts`: the window's by default, a caller's (an
// extension-host test) when passed as the second argument. Given `FoundTurns` as its argument (Where Did This
// Go?'s "Copy these turns" button), it copies the turns that hold a text instead. The command resolves with what
// it did.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { countOf, fileNameOf, groupDigits } from '../core/displayText';
import type { BundleSelection, RecoveryBundleText, TurnId } from '../core/model';
import {
  bundleMarkdown,
  bundleTurnCount,
  checkpointsWithDroppedTurns,
  recoveryBundleFileName,
  recoveryBundleInSteps,
} from '../core/recoveryBundle';
import { eachStep } from '../core/steps';
import { AtomicWriteError, writeFileAtomic } from '../node/atomicWrite';
import { abortError, inSlices } from '../node/inSlices';
import type { EncodingName } from '../node/tokenCounter';
import { activeEditorUri } from './activeTranscript';
import type { CheckpointTreeNode } from './checkpointTree';
import { transcriptUriOf } from './decompressedDocument';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import { readSettings } from './settings';
import type { TimelinePanels } from './timelinePanel';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';
import { capitalised, noLinks } from './notificationText';
import { confirmReplace } from './replaceDialog';
import { type ProgressRunner, withWorkProgress } from './longWork';

export const COPY_DROPPED_TURNS = 'compactionLens.copyDroppedTurns';

/**
 * A bundle of more tokens than this takes half or more of most agents' context windows (200,000 tokens or fewer),
 * or does not fit: the confirmation says so and offers "Save As…" first.
 */
export const LARGE_BUNDLE_TOKENS = 100_000;

/**
 * A bundle of more tokens than this is not copied, only saved: no agent's context window holds it (the largest hold
 * one or two million tokens), and VS Code writes the clipboard in one step on the extension host, which a bundle
 * this large holds for about a second or more (0.5–0.8 s for 28 MB, 1.9 s for a larger one; docs/performance.md).
 */
export const COPY_MAX_TOKENS = 2_000_000;

interface Services {
  store: TranscriptStore;
  panels: TimelinePanels;
  log: Log;
}

/** The turns a find matched, to copy instead of a checkpoint's dropped turns. */
export interface FoundTurns {
  uri: vscode.Uri;
  /** What was looked for, as the user wrote it. */
  query: string;
  turnIds: readonly TurnId[];
}

/** One checkpoint offered in the quick pick. */
export interface DroppedTurnsChoice {
  checkpointIndex: number;
  summaryId: string;
  line: number;
  /** Its claimed-missing turns. */
  dropped: number;
}

/** What the confirmation says before copying. */
export interface CopyOffer {
  /** The checkpoint whose dropped turns are copied ('' when they are the turns a find matched). */
  summaryId: string;
  /** Set when the turns are those that hold this text (a find's), not a checkpoint's dropped turns. */
  query?: string;
  fileName: string;
  turns: number;
  /** Tokens of the masked bundle (what "Copy" copies). */
  tokens: number;
  /** Secrets-looking strings masked in it. */
  masked: number;
  /** Tokens of the unmasked bundle, when something is masked ("Copy Unmasked" is then offered). */
  unmaskedTokens?: number;
  encoding: string;
  /** More than LARGE_BUNDLE_TOKENS tokens: saving it to a file is offered first. */
  large: boolean;
  /** At most COPY_MAX_TOKENS tokens: "Copy" is offered; past it, only "Save As…" (and `unmaskedTokens` is not counted). */
  copyable: boolean;
}

/** What the confirmation chose: copy the masked bundle or the unmasked one, or save the masked one to a file. */
export type CopyChoice = 'masked' | 'unmasked' | 'save';

/** The dialogs the command shows. */
export interface CopyDroppedTurnsPrompts {
  /** Which checkpoint, when several have claimed-missing turns; undefined when cancelled. */
  pickCheckpoint(choices: DroppedTurnsChoice[], fileName: string): Thenable<number | undefined>;
  /** Copy the masked bundle, the unmasked one, save the masked one, or nothing (undefined). A modal dialog. */
  confirmCopy(offer: CopyOffer): Thenable<CopyChoice | undefined>;
  /** Where to save the bundle ("Save As…"); undefined when cancelled. */
  chooseFile(options: vscode.SaveDialogOptions): Thenable<vscode.Uri | undefined>;
  /** The chosen file exists: replace it? (modal) */
  confirmOverwrite(uri: vscode.Uri): Thenable<boolean>;
  /** Shows the bundle's writing and counting while it runs: vscode.window.withProgress when not given. */
  withProgress?: ProgressRunner;
}

/** What the command did. */
export type CopyDroppedTurnsResult =
  | { kind: 'copied'; summaryId: string; query?: string; turnIds: string[]; tokens: number; masked: number; unmasked: boolean }
  | { kind: 'saved'; summaryId: string; query?: string; path: string; turnIds: string[]; tokens: number; masked: number }
  | { kind: 'nothing'; message: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; message: string };

const COPY = 'Copy';
const COPY_UNMASKED = 'Copy Unmasked';
const SAVE_AS = 'Save As…';
const OPEN = 'Open';

const windowPrompts: CopyDroppedTurnsPrompts = {
  pickCheckpoint: async (choices, fileName) => {
    const picked = await vscode.window.showQuickPick(
      choices.map((choice) => ({
        checkpointIndex: choice.checkpointIndex,
        label: choice.summaryId,
        description: `line ${choice.line} · ${countOf(choice.dropped, 'claimed-missing turn')}`,
      })),
      { title: `Copy the dropped turns of which checkpoint of ${fileName}?`, placeHolder: 'A checkpoint with claimed-missing turns' },
    );
    return picked?.checkpointIndex;
  },
  confirmCopy: async (offer) => {
    const copies = !offer.copyable ? [] : offer.unmaskedTokens !== undefined ? [COPY, COPY_UNMASKED] : [COPY];
    const buttons = offer.large ? [SAVE_AS, ...copies] : [...copies, SAVE_AS];
    const choice = await vscode.window.showInformationMessage(
      offerQuestion(offer),
      { modal: true, detail: describeOffer(offer) },
      ...buttons,
    );
    return choice === COPY ? 'masked' : choice === COPY_UNMASKED ? 'unmasked' : choice === SAVE_AS ? 'save' : undefined;
  },
  chooseFile: (options) => vscode.window.showSaveDialog(options),
  confirmOverwrite: (uri) => confirmReplace(uri, 'The turns to recover will replace its content. The transcript itself is never written.'),
};

/** The dialog's question: copy the bundle, or (a large one) save it to a file. */
export function offerQuestion(offer: CopyOffer): string {
  if (!offer.large) return `Copy ${subjectOf(offer)} for the agent: ${groupDigits(offer.tokens)} tokens?`;
  const subject = `${capitalised(subjectOf(offer))} ${offer.turns === 1 ? 'comes' : 'come'} to ${groupDigits(offer.tokens)} tokens`;
  const why = offer.copyable ? 'too many to paste well' : "more than any agent's context window holds";
  return `${subject}, ${why}. Save ${offer.turns === 1 ? 'it' : 'them'} to a file for the agent?`;
}

/** "40 dropped turns of checkpoint S1", or "2 turns that hold “ERR_X”": what is copied, in a few words. */
function subjectOf(offer: CopyOffer): string {
  return offer.query !== undefined
    ? `${countOf(offer.turns, 'turn')} that ${offer.turns === 1 ? 'holds' : 'hold'} “${offer.query}”`
    : `${countOf(offer.turns, 'dropped turn')} of checkpoint ${offer.summaryId}`;
}

/** The dialog's detail: what is copied, its size, what is masked, and what saving it does instead. */
export function describeOffer(offer: CopyOffer): string {
  const which =
    offer.query !== undefined
      ? `the turns of ${offer.fileName} that hold “${offer.query}”, each saying which checkpoint claims it and whether its summary carries it`
      : `the turns that ${offer.summaryId} (${offer.fileName}) claims but whose summary does not carry them`;
  const lines = [
    `Markdown holding the raw text of ${which}, with each turn's id, source line and role: ${groupDigits(offer.tokens)} tokens (${offer.encoding}).`,
  ];
  if (offer.masked > 0) {
    const unmasked =
      offer.copyable && offer.unmaskedTokens !== undefined
        ? `"Copy Unmasked" copies them as they are (${groupDigits(offer.unmaskedTokens)} tokens).`
        : 'From a terminal, `compaction-lens bundle FILE --no-mask` writes the turns unmasked.';
    lines.push(
      `${countOf(offer.masked, 'string')} that looked like secrets (keys, tokens, passwords) ${offer.masked === 1 ? 'is' : 'are'} masked. ${unmasked}`,
    );
  } else lines.push('Nothing in these turns looks like a secret.');
  const masked = offer.masked > 0 ? ', its secrets masked' : '';
  if (!offer.copyable) {
    lines.push(
      `That is more than ${groupDigits(COPY_MAX_TOKENS)} tokens, more than the largest context windows hold, so it is not copied. "Save As…" saves it as a Markdown file${masked}: give the agent the file's path, and it reads what it needs.${offer.query === undefined ? ' Where Did This Go? copies only the turns that hold a text.' : ''}`,
    );
    return lines.join('\n\n');
  }
  lines.push(
    offer.large
      ? `That is more than ${groupDigits(LARGE_BUNDLE_TOKENS)} tokens: pasted whole, it would take half or more of most agents' context windows, or not fit at all. "Save As…" saves it as a Markdown file${masked}: give the agent the file's path, and it reads what it needs.${offer.query === undefined ? ' Where Did This Go? copies only the turns that hold a text.' : ''}`
      : `"Save As…" saves it as a Markdown file${masked} instead.`,
  );
  return lines.join('\n\n');
}

function isPrompts(value: unknown): value is CopyDroppedTurnsPrompts {
  if (!value || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return ['pickCheckpoint', 'confirmCopy', 'chooseFile', 'confirmOverwrite'].every((name) => typeof candidate[name] === 'function');
}

export function registerCopyDroppedTurns(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand(COPY_DROPPED_TURNS, async (arg?: unknown, prompts?: unknown): Promise<CopyDroppedTurnsResult> => {
    try {
      return await copyDroppedTurns(services, arg, isPrompts(prompts) ? prompts : windowPrompts);
    } catch (error) {
      services.log.error('Copy Dropped Turns for the Agent', error);
      const message = `Compaction Lens: Copy Dropped Turns for the Agent failed: ${error instanceof Error ? error.message : String(error)}. Details are in the "Compaction Lens" output.`;
      void vscode.window.showErrorMessage(message);
      return { kind: 'failed', message };
    }
  });
}

/** A tree item's node (a checkpoint or one of its ranges): the command was run from its context menu. */
function isCheckpointNode(value: unknown): value is Extract<CheckpointTreeNode, { checkpointIndex: number }> {
  if (!value || typeof value !== 'object') return false;
  const node = value as { kind?: unknown; uri?: unknown; checkpointIndex?: unknown };
  return (
    (node.kind === 'checkpoint' || node.kind === 'range') && node.uri instanceof vscode.Uri && Number.isSafeInteger(node.checkpointIndex)
  );
}

function isFoundTurns(value: unknown): value is FoundTurns {
  if (!value || typeof value !== 'object') return false;
  const found = value as Partial<FoundTurns>;
  return found.uri instanceof vscode.Uri && typeof found.query === 'string' && Array.isArray(found.turnIds);
}

/** The transcript and, when the caller says which, the checkpoint or the turns a find matched. */
async function targetOf(
  services: Services,
  arg: unknown,
): Promise<{ entry: AnalysedTranscript; checkpointIndex?: number; found?: FoundTurns } | undefined> {
  const { store, log } = services;
  const open = async (uri: vscode.Uri) => store.get(uri) ?? (await openTranscript(store, log, uri, { interactive: true }));
  if (isFoundTurns(arg)) {
    const entry = await open(arg.uri);
    return entry && { entry, found: arg };
  }
  if (isCheckpointNode(arg)) {
    const entry = await open(arg.uri);
    return entry && { entry, checkpointIndex: arg.checkpointIndex };
  }
  // A menu's resource: a transcript, or the decompressed view of one (anything else, e.g. a webview's, is not).
  const resource = arg instanceof vscode.Uri ? transcriptUriOf(arg) : undefined;
  if (resource?.scheme === 'file') {
    const entry = await open(resource);
    return entry ? { entry } : undefined;
  }
  const timeline = services.panels.active();
  if (timeline) {
    const entry = await open(timeline.uri);
    const selected = timeline.currentViewState?.checkpointIndex;
    // The timeline's checkpoint, if it dropped turns; otherwise the choice below.
    const useSelected =
      entry && selected !== undefined && selected >= 0 && entry.analysis.checkpoints[selected]?.counts['claimed-missing'] > 0;
    return entry && { entry, checkpointIndex: useSelected ? selected : undefined };
  }
  const active = activeEditorUri();
  if (active?.scheme === 'file') {
    const entry = await open(active);
    return entry ? { entry } : undefined;
  }
  return undefined;
}

async function copyDroppedTurns(services: Services, arg: unknown, prompts: CopyDroppedTurnsPrompts): Promise<CopyDroppedTurnsResult> {
  const target = await targetOf(services, arg);
  if (!target) return nothing('Open a transcript file or its Compaction Lens timeline first.');
  const { entry } = target;
  if (target.found) {
    if (target.found.turnIds.length === 0) return nothing(`No turn of ${entry.name} holds “${target.found.query}”: nothing to copy.`);
    return copyBundle(services, entry, { kind: 'turns', ids: target.found.turnIds }, prompts, { summaryId: '', query: target.found.query });
  }
  const { checkpoints } = entry.analysis;
  let checkpointIndex = target.checkpointIndex;
  if (checkpointIndex !== undefined) {
    const checkpoint = checkpoints[checkpointIndex];
    if (!checkpoint) return nothing(`${entry.name} has changed: that checkpoint is gone.`);
    if (checkpoint.counts['claimed-missing'] === 0) {
      return nothing(`Checkpoint ${checkpoint.summaryId} of ${entry.name} has no claimed-missing turns: nothing to copy.`);
    }
  } else {
    const candidates = checkpointsWithDroppedTurns(entry.analysis);
    if (candidates.length === 0) {
      return nothing(
        checkpoints.length === 0
          ? `${entry.name} has no compaction checkpoints: nothing to copy.`
          : `No checkpoint of ${entry.name} has claimed-missing turns: nothing to copy.`,
      );
    }
    if (candidates.length === 1) checkpointIndex = candidates[0];
    else {
      const choices = candidates.map((index) => ({
        checkpointIndex: index,
        summaryId: checkpoints[index].summaryId,
        line: checkpoints[index].line,
        dropped: checkpoints[index].counts['claimed-missing'],
      }));
      checkpointIndex = await prompts.pickCheckpoint(choices, entry.name);
      if (checkpointIndex === undefined || !candidates.includes(checkpointIndex)) return { kind: 'cancelled' };
    }
  }
  const selection = { kind: 'checkpoints', checkpointIndices: [checkpointIndex] } as const;
  return copyBundle(services, entry, selection, prompts, { summaryId: checkpoints[checkpointIndex].summaryId });
}

/** Builds the bundle of `selection`, says its size, and copies the version the user chooses. */
async function copyBundle(
  services: Services,
  entry: AnalysedTranscript,
  selection: BundleSelection,
  prompts: CopyDroppedTurnsPrompts,
  subject: { summaryId: string; query?: string },
): Promise<CopyDroppedTurnsResult> {
  const fileName = fileNameOf(entry.uri.path);
  const { encoding } = readSettings();
  const made = await makeBundles(services, entry, selection, prompts, { fileName, encoding });
  if (!made) return { kind: 'cancelled' };
  const { masked, unmasked, counts } = made;
  const offer: CopyOffer = {
    summaryId: subject.summaryId,
    ...(subject.query !== undefined ? { query: subject.query } : {}),
    fileName,
    turns: masked.turnIds.length,
    tokens: counts[0],
    masked: masked.masked,
    unmaskedTokens: unmasked ? counts[1] : undefined,
    encoding,
    large: counts[0] > LARGE_BUNDLE_TOKENS,
    copyable: counts[0] <= COPY_MAX_TOKENS,
  };
  const choice = await prompts.confirmCopy(offer);
  if (choice === 'save') return saveBundle(entry, masked, offer, prompts);
  // A bundle past COPY_MAX_TOKENS is never copied, whatever a caller's prompts answer.
  if (choice === undefined || !offer.copyable) return { kind: 'cancelled' };
  const chosen: RecoveryBundleText = choice === 'unmasked' && unmasked ? unmasked : masked;
  const tokens = chosen === unmasked ? counts[1] : counts[0];
  await vscode.env.clipboard.writeText(bundleMarkdown(chosen));
  const what = chosen === unmasked ? ', secrets unmasked' : masked.masked > 0 ? `, ${countOf(masked.masked, 'secret')} masked` : '';
  void vscode.window.showInformationMessage(
    noLinks(`Copied ${subjectOf(offer)} (${groupDigits(tokens)} tokens${what}): paste them into the agent's context.`),
  );
  return {
    kind: 'copied',
    summaryId: subject.summaryId,
    ...(subject.query !== undefined ? { query: subject.query } : {}),
    turnIds: chosen.turnIds.map(String),
    tokens,
    masked: chosen.masked,
    unmasked: chosen === unmasked,
  };
}

/**
 * Writes the masked bundle of `selection` and counts its tokens, then the unmasked one when it could be copied (some
 * strings masked, at most COPY_MAX_TOKENS tokens). Written in time slices: the bundle of a checkpoint that dropped
 * tens of thousands of turns takes seconds. From LONG_WORK_TURNS turns this shows in a notification, with the
 * turns written so far and a Cancel button (undefined when pressed); below, in the status bar.
 */
async function makeBundles(
  services: Services,
  entry: AnalysedTranscript,
  selection: BundleSelection,
  prompts: CopyDroppedTurnsPrompts,
  { fileName, encoding }: { fileName: string; encoding: EncodingName },
): Promise<{ masked: RecoveryBundleText; unmasked?: RecoveryBundleText; counts: number[] } | undefined> {
  const { analysis } = entry;
  const { turns } = entry.transcript;
  const total = bundleTurnCount(analysis, selection);
  const titles = {
    short: 'Compaction Lens: writing and counting the turns to copy',
    long: `Compaction Lens: ${groupDigits(total)} turns for the agent`,
  };
  const runner = prompts.withProgress?.bind(prompts);
  return withWorkProgress(
    total,
    titles,
    async (report, signal) => {
      // The bar: each bundle's turns written take a quarter, its count a quarter (the unmasked bundle's half is
      // skipped when it is not made).
      const make = async (mask: boolean, from: number) => {
        const what = mask ? 'masking and writing' : 'writing unmasked';
        let written = 0;
        const onTurn = () => {
          written = Math.min(written + 1, total);
          report(() => `${what}: ${groupDigits(written)} of ${groupDigits(total)} turns`, from + (25 * written) / Math.max(total, 1));
        };
        const steps = eachStep(recoveryBundleInSteps(analysis, turns, selection, { fileName, mask }), onTurn);
        const bundle = await inSlices(steps, signal);
        const counting = `counting the ${mask ? '' : 'unmasked '}tokens (${encoding})`;
        report(counting);
        const onCounted = (done: number, all: number) => report(counting, from + 25 + (25 * done) / Math.max(all, 1));
        const tokens = sum(await services.store.tokenPool.count(bundle.blocks, encoding, signal, onCounted));
        return { bundle, tokens };
      };
      const masked = await make(true, 0);
      const unmasked = masked.bundle.masked === 0 || masked.tokens > COPY_MAX_TOKENS ? undefined : await make(false, 50);
      // Cancel pressed as the last count came back: nothing has been done yet, so nothing is offered.
      if (signal.aborted) throw abortError();
      if (!unmasked) return { masked: masked.bundle, counts: [masked.tokens] };
      return { masked: masked.bundle, unmasked: unmasked.bundle, counts: [masked.tokens, unmasked.tokens] };
    },
    runner,
  );
}

function sum(counts: readonly number[]): number {
  let total = 0;
  for (const count of counts) total += count;
  return total;
}

/** "Save As…": asks where, asks before replacing a file, writes the masked bundle atomically and says where it went. */
async function saveBundle(
  entry: AnalysedTranscript,
  bundle: RecoveryBundleText,
  offer: CopyOffer,
  prompts: CopyDroppedTurnsPrompts,
): Promise<CopyDroppedTurnsResult> {
  const transcript = entry.uri.fsPath;
  const name = recoveryBundleFileName(transcript, offer.query === undefined ? offer.summaryId : undefined);
  const chosen = await prompts.chooseFile({
    title: `Save ${subjectOf(offer)} of ${entry.name} for the agent`,
    saveLabel: 'Save',
    defaultUri: vscode.Uri.file(join(dirname(transcript), name)),
    filters: { Markdown: ['md'] },
  });
  if (!chosen) return { kind: 'cancelled' };
  if (chosen.scheme !== 'file') return failed(`Compaction Lens saves the turns to local files only, not ${chosen.scheme}: URIs.`);
  let overwrite = false;
  if (existsSync(chosen.fsPath)) {
    overwrite = await prompts.confirmOverwrite(chosen);
    if (!overwrite) return { kind: 'cancelled' };
  }
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Compaction Lens: saving ${subjectOf(offer)}` },
      // A write a block (each lets the extension host's event loop run); the bundle is never joined whole here.
      () => writeFileAtomic(chosen.fsPath, bundle.blocks, { overwrite, protectedPaths: [transcript] }),
    );
  } catch (error) {
    if (error instanceof AtomicWriteError) return failed(`Compaction Lens: ${capitalised(error.message)}`);
    throw error;
  }
  const what = bundle.masked > 0 ? `, ${countOf(bundle.masked, 'secret')} masked` : '';
  const message = noLinks(
    `Saved ${subjectOf(offer)} (${groupDigits(offer.tokens)} tokens${what}) to ${fileNameOf(chosen.fsPath)}: give the agent the file's path.`,
  );
  // Not awaited: a notification's promise settles only when the user dismisses it.
  void Promise.resolve(vscode.window.showInformationMessage(message, OPEN)).then((button) => {
    if (button === OPEN) void vscode.commands.executeCommand('vscode.open', chosen);
  });
  return {
    kind: 'saved',
    summaryId: offer.summaryId,
    ...(offer.query !== undefined ? { query: offer.query } : {}),
    path: chosen.fsPath,
    turnIds: bundle.turnIds.map(String),
    tokens: offer.tokens,
    masked: bundle.masked,
  };
}

function failed(message: string): CopyDroppedTurnsResult {
  void vscode.window.showErrorMessage(message);
  return { kind: 'failed', message };
}

function nothing(message: string): CopyDroppedTurnsResult {
  void vscode.window.showInformationMessage(noLinks(message));
  return { kind: 'nothing', message };
}
