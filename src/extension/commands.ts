// The "Compaction Lens" commands: Open Timeline (the explorer's entry is Open Compaction Timeline, apart from VS
// Code's own Open Timeline), Analyze Workspace Transcripts, Go to Next Claimed-Missing Turn, Reveal Turn…, Copy
// Safe Pointer Set, and the tree's internal reveal command. They act on the file the
// active editor shows: a text editor on a transcript or on a .jsonl.gz's decompressed view, or a .jsonl.gz tab
// (VS Code's binary placeholder), whose records open in the decompressed view. Reveal Turn… lists a transcript of
// more than a thousand turns a thousand at a time, those that hold what is typed (view/turnSearch.ts).
import * as vscode from 'vscode';
import { countOf, groupDigits } from '../core/displayText';
import type { TurnId, TurnStatus } from '../core/model';
import { inSlices } from '../node/inSlices';
import { UnusableTranscriptError } from '../node/transcriptFile';
import { activeEditorUri } from './activeTranscript';
import { REVEAL_COMMAND, type RevealTarget } from './checkpointTree';
import { transcriptUriOf } from './decompressedDocument';
import { revealLines, revealTurn } from './editorReveal';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import { joinGlobs, readSettings, splitGlobs } from './settings';
import { STATUS_ICONS, statusName } from '../statusWords';
import { copySafePointerSet, type TimelinePanels } from './timelinePanel';
import { turnResult, turnsBefore, worstVerdict } from '../view/timelineData';
import { linesHold, MAX_LISTED_TURNS, searchedText, turnsToListInSteps, type TurnLines } from '../view/turnSearch';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';
import { isAbort } from './userErrors';

/** Most files "Analyze Workspace Transcripts" looks at. */
const MAX_WORKSPACE_FILES = 5000;

interface Services {
  store: TranscriptStore;
  panels: TimelinePanels;
  log: Log;
}

/** Options of compactionLens.openTimeline after the file (CodeLens and tree pass them). */
interface OpenTimelineOptions {
  checkpointIndex?: number;
  turnIndex?: number;
}

/** The transcript a command acts on: the active timeline's, or the active editor's. */
interface CommandTarget {
  entry: AnalysedTranscript;
  /** The checkpoint selected in the timeline, when the command came from there. */
  checkpointIndex?: number;
  /** The turn selected in the timeline or under the cursor. */
  turnIndex?: number;
  /** For an editor: the 1-based line of the cursor. */
  cursorLine?: number;
  inTimeline: boolean;
}

export function registerCommands(services: Services): vscode.Disposable[] {
  const { store, panels } = services;

  async function currentTarget(): Promise<CommandTarget | undefined> {
    const timeline = panels.active();
    if (timeline) {
      const entry = store.get(timeline.uri) ?? (await openTranscript(store, services.log, timeline.uri, { interactive: true }));
      if (!entry) return undefined;
      const state = timeline.currentViewState;
      return {
        entry,
        inTimeline: true,
        checkpointIndex: state && state.checkpointIndex >= 0 ? state.checkpointIndex : undefined,
        turnIndex: state && state.selectedTurn >= 0 ? state.selectedTurn : undefined,
      };
    }
    const uri = activeEditorUri();
    if (uri?.scheme === 'file') {
      const entry = await openTranscript(store, services.log, uri, { interactive: true });
      if (!entry) return undefined;
      // A text editor on the file or its decompressed view (same lines); a .gz tab has no cursor.
      const editor = vscode.window.activeTextEditor;
      if (!editor) return { entry, inTimeline: false };
      const cursorLine = editor.selection.active.line + 1;
      return { entry, inTimeline: false, cursorLine, turnIndex: entry.turnAtLine(cursorLine) };
    }
    void vscode.window.showInformationMessage('Open a transcript file or its Compaction Lens timeline first.');
    return undefined;
  }

  /** Shows a turn where the user is: selected in the timeline, or revealed in the editor. */
  async function goToTurn(target: CommandTarget, turnIndex: number, checkpointIndex?: number): Promise<void> {
    const timeline = panels.get(target.entry.uri);
    if (target.inTimeline && timeline) {
      timeline.selectTurn(checkpointIndex ?? target.checkpointIndex ?? 0, turnIndex);
    } else {
      await revealTurn(target.entry, turnIndex);
    }
  }

  async function openTimeline(arg?: unknown, options?: OpenTimelineOptions): Promise<void> {
    // The editor title passes its resource (a decompressed view's URI stands for its .gz).
    let uri = arg instanceof vscode.Uri ? transcriptUriOf(arg) : undefined;
    if (!uri) {
      const active = activeEditorUri();
      if (active?.scheme === 'file') uri = active;
    }
    if (!uri) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: 'Open Timeline',
        title: 'Compaction Lens: choose a transcript',
        filters: { Transcripts: ['jsonl', 'json', 'gz', 'af'], 'All files': ['*'] },
      });
      uri = picked?.[0];
      if (!uri) return;
    }
    const entry = await openTranscript(store, services.log, uri, { interactive: true });
    if (!entry) return;
    let selection: { checkpointIndex: number; turnIndex: number } | undefined;
    const checkpointIndex = options?.checkpointIndex;
    if (Number.isSafeInteger(checkpointIndex) && entry.analysis.checkpoints[checkpointIndex!]) {
      const turnIndex = Number.isSafeInteger(options?.turnIndex) ? options!.turnIndex! : defaultTurn(entry, checkpointIndex!);
      selection = { checkpointIndex: checkpointIndex!, turnIndex };
    }
    panels.show(entry, selection);
  }

  async function analyzeWorkspace(): Promise<void> {
    if (!vscode.workspace.workspaceFolders?.length) {
      void vscode.window.showInformationMessage(
        'Analyze Workspace Transcripts needs an open folder. To check a single file, use "Compaction Lens: Open Timeline".',
      );
      return;
    }
    const settings = readSettings();
    const { include, exclude } = splitGlobs(settings.transcriptGlobs);
    const includeGlob = joinGlobs(include);
    if (!includeGlob) {
      void vscode.window.showWarningMessage('The setting compactionLens.transcriptGlobs has no include pattern.');
      return;
    }
    const counts = { analysed: 0, skipped: 0, failed: 0, verdicts: { reversible: 0, conditional: 0, 'fail-closed': 0 } };
    const cancelled = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Compaction Lens: analysing transcripts', cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const subscription = token.onCancellationRequested(() => abort.abort());
        try {
          progress.report({ message: 'finding files…' });
          const files = await vscode.workspace.findFiles(includeGlob, joinGlobs(exclude), MAX_WORKSPACE_FILES, token);
          files.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
          // Each file's full entry is let go once analysed unless something holds it (the store keeps its digest
          // for the tree and at most RECENT_FULL_ENTRIES others in full).
          for (const [position, uri] of files.entries()) {
            if (token.isCancellationRequested) return true;
            progress.report({
              message: `${position + 1}/${files.length}: ${vscode.workspace.asRelativePath(uri)}`,
              increment: 100 / files.length,
            });
            try {
              const { digest } = await store.load(uri, { signal: abort.signal });
              counts.analysed++;
              const verdict = worstVerdict(digest.analysis);
              if (verdict) counts.verdicts[verdict]++;
            } catch (error) {
              if (isAbort(error)) return true;
              if (error instanceof UnusableTranscriptError) {
                counts.skipped++;
                services.log.info(`skipped ${uri.fsPath}: ${error.message}`);
              } else {
                counts.failed++;
                services.log.error(`analysing ${uri.fsPath}`, error);
              }
            }
          }
          return false;
        } finally {
          subscription.dispose();
        }
      },
    );
    const verdicts = Object.entries(counts.verdicts)
      .filter(([, count]) => count > 0)
      .map(([verdict, count]) => `${count} ${verdict}`)
      .join(', ');
    let message = `Compaction Lens ${cancelled ? 'stopped after analysing' : 'analysed'} ${counts.analysed} transcript${counts.analysed === 1 ? '' : 's'}`;
    if (verdicts) message += ` (worst verdict per file: ${verdicts})`;
    if (counts.skipped) message += `; ${counts.skipped} file${counts.skipped === 1 ? ' was' : 's were'} not transcripts`;
    if (counts.failed) message += `; ${counts.failed} could not be read (see the "Compaction Lens" output)`;
    message += '.';
    if (counts.analysed > 0) void vscode.commands.executeCommand('compactionLens.checkpoints.focus');
    // Not awaited: a notification's promise settles only when the user dismisses it.
    void vscode.window
      .showInformationMessage(message, ...(counts.failed ? ['Show Output'] : []))
      .then((choice) => choice && services.log.show());
  }

  async function nextClaimedMissing(): Promise<void> {
    const target = await currentTarget();
    if (!target) return;
    const { entry } = target;
    const checkpoints =
      target.checkpointIndex !== undefined ? [entry.analysis.checkpoints[target.checkpointIndex]] : entry.analysis.checkpoints;
    const missing = new Set<number>();
    for (const checkpoint of checkpoints) {
      for (const result of checkpoint?.turns ?? []) if (result.status === 'claimed-missing') missing.add(result.index);
    }
    if (missing.size === 0) {
      void vscode.window.showInformationMessage(`${entry.name} has no claimed-missing turns.`);
      return;
    }
    const ordered = [...missing].sort((a, b) => a - b);
    let next: number | undefined;
    if (target.turnIndex !== undefined) {
      next = ordered.find((index) => index > target.turnIndex!);
    } else if (target.cursorLine !== undefined) {
      next = ordered.find((index) => entry.transcript.turns[index].span.startLine > target.cursorLine!);
    }
    await goToTurn(target, next ?? ordered[0]);
  }

  async function revealTurnCommand(arg?: unknown): Promise<RevealTurnResult | undefined> {
    if (isTurnReference(arg)) {
      const uri = transcriptUriOf(typeof arg.uri === 'string' ? vscode.Uri.parse(arg.uri) : arg.uri);
      if (!uri) return;
      const entry = store.get(uri) ?? (await openTranscript(store, services.log, uri, { interactive: true }));
      if (entry && entry.transcript.turns[arg.turnIndex]) await revealTurn(entry, arg.turnIndex);
      return;
    }
    const target = await currentTarget();
    if (!target) return;
    const { entry } = target;
    const { turns } = entry.transcript;
    const linesOf = (index: number): TurnLines => {
      const turn = turns[index];
      const statuses = statusesOf(entry, index);
      const described = statuses.map(({ summaryId, status }) => `${summaryId}: ${statusName(status)}`).join(', ');
      return {
        label: `${STATUS_ICONS[worstStatus(statuses)]} ${String(turn.id)}`,
        description: `${turn.role}${turn.label ? ` · ${turn.label}` : ''} · line ${turn.span.startLine}${described ? ` · ${described}` : ''}`,
        detail: turn.text.slice(0, 200).replace(/\s+/g, ' '),
      };
    };
    const itemOf = (index: number): TurnItem => ({ turnIndex: index, ...linesOf(index) });
    const typed = isTurnQuery(arg) ? arg.query : '';
    const title = `Reveal Turn in ${entry.name}`;
    const quickPick = vscode.window.createQuickPick<TurnItem>();
    quickPick.title = title;
    quickPick.placeholder = 'Type a turn id, a role or words from the turn';
    quickPick.matchOnDescription = true;
    quickPick.matchOnDetail = true;
    let more = false;
    let job: AbortController | undefined;
    if (turns.length <= MAX_LISTED_TURNS) {
      const items = turns.map((_, index) => itemOf(index));
      quickPick.items = items;
      // Active: the first turn that holds the text given, else the turn the user is on.
      const searched = searchedText(typed);
      const current =
        searched !== ''
          ? items.find((item) => linesHold(item, searched))
          : target.turnIndex !== undefined
            ? items[target.turnIndex]
            : undefined;
      quickPick.value = typed;
      if (current) quickPick.activeItems = [current];
    } else {
      // Too many to list whole: at most MAX_LISTED_TURNS for what is typed, found in time slices (a new key stops
      // the search before it).
      quickPick.placeholder = `Type a turn id, a role or words from the turn (${groupDigits(turns.length)} turns, ${groupDigits(MAX_LISTED_TURNS)} listed at a time)`;
      const list = async (value: string): Promise<void> => {
        job?.abort();
        const mine = new AbortController();
        job = mine;
        quickPick.busy = true;
        try {
          const listed = await inSlices(turnsToListInSteps(turns.length, value, linesOf, target.turnIndex), mine.signal);
          const items = listed.indices.map(itemOf);
          more = listed.more;
          quickPick.items = items;
          quickPick.title = listedTitle(title, searchedText(value) !== '', items.length, listed.more, turns.length);
          const current = searchedText(value) === '' ? items.find((item) => item.turnIndex === target.turnIndex) : items[0];
          if (current) quickPick.activeItems = [current];
        } catch (error) {
          if (!isAbort(error)) services.log.error('Reveal Turn', error);
        } finally {
          if (job === mine) quickPick.busy = false;
        }
      };
      quickPick.value = typed;
      quickPick.onDidChangeValue((value) => void list(value));
      void list(typed);
    }
    const chosen = await new Promise<TurnItem | undefined>((resolve) => {
      quickPick.onDidAccept(() => resolve(quickPick.selectedItems[0] ?? quickPick.activeItems[0]));
      quickPick.onDidHide(() => resolve(undefined));
      quickPick.show();
    });
    job?.abort();
    const listed = quickPick.items.length;
    quickPick.dispose();
    if (chosen) await goToTurn(target, chosen.turnIndex);
    return { listed, more, chosen: chosen?.turnIndex };
  }

  async function copySafePointerSetCommand(): Promise<void> {
    const target = await currentTarget();
    if (!target) return;
    const { entry } = target;
    const checkpoints = entry.analysis.checkpoints;
    if (checkpoints.length === 0) {
      void vscode.window.showInformationMessage(`${entry.name} has no compaction checkpoints.`);
      return;
    }
    let checkpointIndex = target.checkpointIndex;
    if (checkpointIndex === undefined && checkpoints.length === 1) checkpointIndex = 0;
    if (checkpointIndex === undefined) {
      const picked = await vscode.window.showQuickPick(
        checkpoints.map((checkpoint, index) => ({
          index,
          label: checkpoint.summaryId,
          description: `line ${checkpoint.line} · ${checkpoint.verdict} · ${checkpoint.safeCovered.length} safe`,
        })),
        { title: 'Copy the safe pointer set of which checkpoint?' },
      );
      if (!picked) return;
      checkpointIndex = picked.index;
    }
    await copySafePointerSet(entry, checkpointIndex);
  }

  async function revealItem(target: RevealTarget): Promise<void> {
    if (!target || typeof target.uri !== 'string') return;
    const uri = vscode.Uri.parse(target.uri);
    // A file the store demoted to its digest is read again.
    const entry = store.get(uri) ?? (await openTranscript(store, services.log, uri, { interactive: true }));
    if (!entry) return;
    const checkpoint = target.checkpointIndex !== undefined ? entry.analysis.checkpoints[target.checkpointIndex] : undefined;
    if (!checkpoint || target.checkpointIndex === undefined) {
      await vscode.commands.executeCommand('vscode.open', entry.documentUri);
      return;
    }
    const range = target.rangeIndex !== undefined ? checkpoint.claimedMissingRanges[target.rangeIndex] : undefined;
    const turnIndex = range ? entry.turnIndexOfId(range.from) : undefined;
    const timeline = panels.get(uri);
    if (timeline) {
      timeline.reveal();
      timeline.selectTurn(target.checkpointIndex, turnIndex ?? defaultTurn(entry, target.checkpointIndex));
    } else if (turnIndex !== undefined) {
      await revealTurn(entry, turnIndex, { preserveFocus: true });
    } else {
      await revealLines(entry.documentUri, checkpoint.line, checkpoint.endLine, { preserveFocus: true });
    }
  }

  const run =
    <A extends unknown[], R>(name: string, handler: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await handler(...args);
      } catch (error) {
        services.log.error(name, error);
        void vscode.window.showErrorMessage(
          `Compaction Lens: ${name} failed: ${error instanceof Error ? error.message : String(error)}. Details are in the "Compaction Lens" output.`,
        );
        return undefined;
      }
    };

  return [
    vscode.commands.registerCommand('compactionLens.openTimeline', run('Open Timeline', openTimeline)),
    // The explorer's entry, named "Open Compaction Timeline" apart from VS Code's own "Open Timeline" there.
    vscode.commands.registerCommand('compactionLens.openTimelineFromExplorer', run('Open Compaction Timeline', openTimeline)),
    vscode.commands.registerCommand('compactionLens.analyzeWorkspace', run('Analyze Workspace Transcripts', analyzeWorkspace)),
    vscode.commands.registerCommand('compactionLens.nextClaimedMissing', run('Go to Next Claimed-Missing Turn', nextClaimedMissing)),
    vscode.commands.registerCommand('compactionLens.revealTurn', run('Reveal Turn', revealTurnCommand)),
    vscode.commands.registerCommand('compactionLens.copySafePointerSet', run('Copy Safe Pointer Set', copySafePointerSetCommand)),
    vscode.commands.registerCommand(REVEAL_COMMAND, run('Reveal', revealItem)),
  ];
}

/** The turn's status for each checkpoint whose compacted prefix holds it. */
function statusesOf(entry: AnalysedTranscript, turnIndex: number): { summaryId: string; status: TurnStatus }[] {
  const statuses: { summaryId: string; status: TurnStatus }[] = [];
  for (const checkpoint of entry.analysis.checkpoints) {
    const result = turnResult(checkpoint, turnIndex);
    if (result) statuses.push({ summaryId: checkpoint.summaryId, status: result.status });
  }
  return statuses;
}

/** Statuses from the one that most needs attention to the least, for the quick pick's icon. */
const ATTENTION_ORDER: readonly TurnStatus[] = ['claimed-missing', 'covered', 'unverifiable', 'nothing-to-check', 'uncovered'];

function worstStatus(statuses: { status: TurnStatus }[]): TurnStatus | 'after' {
  return ATTENTION_ORDER.find((candidate) => statuses.some(({ status }) => status === candidate)) ?? 'after';
}

/** The turn to select when a checkpoint is chosen: its first claimed-missing turn, else its last compacted turn. */
function defaultTurn(entry: AnalysedTranscript, checkpointIndex: number): number {
  const checkpoint = entry.analysis.checkpoints[checkpointIndex];
  const missing = checkpoint.turns.find((result) => result.status === 'claimed-missing');
  if (missing) return missing.index;
  return Math.max(0, Math.min(turnsBefore(entry.transcript, checkpoint), entry.transcript.turns.length) - 1);
}

/** A quick pick's item for a turn: its lines, and which turn it is. */
interface TurnItem extends vscode.QuickPickItem {
  turnIndex: number;
  description: string;
  detail: string;
}

/** What Reveal Turn… did: how many turns it listed last, whether more held the text, and the turn chosen. */
export interface RevealTurnResult {
  listed: number;
  more: boolean;
  chosen?: number;
}

/** Reveal Turn…'s argument that starts its list with this text typed. */
function isTurnQuery(value: unknown): value is { query: string } {
  return typeof value === 'object' && value !== null && typeof (value as { query?: unknown }).query === 'string';
}

/** The quick pick's title for a list of a large transcript's turns: what it shows of them. */
function listedTitle(title: string, searched: boolean, listed: number, more: boolean, total: number): string {
  if (!searched) return `${title}: ${groupDigits(listed)} of ${groupDigits(total)} turns listed; type to find others`;
  if (more) return `${title}: the first ${groupDigits(listed)} turns that hold it; type more to narrow`;
  return `${title}: ${countOf(listed, 'turn')} hold${listed === 1 ? 's' : ''} it`;
}

function isTurnReference(value: unknown): value is { uri: string | vscode.Uri; turnIndex: number; id?: TurnId } {
  if (!value || typeof value !== 'object') return false;
  const candidate = value as { uri?: unknown; turnIndex?: unknown };
  return (
    (typeof candidate.uri === 'string' || candidate.uri instanceof vscode.Uri) &&
    Number.isSafeInteger(candidate.turnIndex) &&
    (candidate.turnIndex as number) >= 0
  );
}
