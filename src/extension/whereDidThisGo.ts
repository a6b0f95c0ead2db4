// "Compaction Lens: Where Did This Go?" (compactionLens.whereDidThisGo): finds the selected text (or text or a
// /regex/ typed in an input box) in a transcript — the active timeline's, the active editor's, the last timeline
// opened, or the one analysed transcript (else the user picks one) — and shows core/findFact's answer in a quick
// pick: each matching turn with its route per checkpoint ("claimed by S1 but absent from its summary; raw log
// line 409", flagged; "from summary S1"). Choosing a turn reveals its raw record lines (and selects it in the
// transcript's timeline when one is open); choosing a summary that holds the text reveals the checkpoint. The
// quick pick's copy button (and its last item, for the keyboard) runs Copy Dropped Turns for the Agent on the
// matching turns. The command resolves with the answer shown, for tests and other callers.
import * as vscode from 'vscode';
import { countOf, fileNameOf, shortTurnId } from '../core/displayText';
import { findFact, parseFactQuery, plainTextQuery } from '../core/findFact';
import type { FactAnswer, FactMatch, FactQuery } from '../core/model';
import { STATUS_ICONS } from '../statusWords';
import { activeEditorUri, matchesTranscriptGlobs } from './activeTranscript';
import { COPY_DROPPED_TURNS, type FoundTurns } from './copyDroppedTurns';
import { revealLines, revealTurn } from './editorReveal';
import type { Log } from './log';
import { openTranscript } from './openTranscript';
import { readSettings } from './settings';
import type { TimelinePanels } from './timelinePanel';
import type { AnalysedTranscript, TranscriptStore } from './transcriptStore';
import { noLinks } from './notificationText';

export const WHERE_DID_THIS_GO = 'compactionLens.whereDidThisGo';

interface Services {
  store: TranscriptStore;
  panels: TimelinePanels;
  log: Log;
}

/** One line of the quick pick, as shown. */
export interface ShownItem {
  label: string;
  description?: string;
  detail?: string;
}

/** What the command resolves with: the answer it showed (and the quick pick's items), or why it showed none. */
export type WhereDidThisGoResult =
  { kind: 'answer'; uri: string; answer: FactAnswer; items: ShownItem[] } | { kind: 'refused'; message: string } | { kind: 'cancelled' };

interface PickItem extends vscode.QuickPickItem {
  turnIndex?: number;
  checkpointLine?: number;
  /** The item that copies the matching turns for the agent. */
  copy?: true;
}

const FLAG_WORDS = 'flagged: the pointer set alone would have said it never existed';

/** Text from a transcript shown as it is: a `$(name)` in it is not rendered as an icon. */
function plain(text: string): string {
  return text.replace(/\$\(/g, '\\$(');
}

export function registerWhereDidThisGo(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand(WHERE_DID_THIS_GO, async (arg?: unknown): Promise<WhereDidThisGoResult> => {
    try {
      return await whereDidThisGo(services, typeof arg === 'string' ? arg : undefined);
    } catch (error) {
      services.log.error('Where Did This Go?', error);
      const message = `Compaction Lens: Where Did This Go? failed: ${error instanceof Error ? error.message : String(error)}.`;
      void vscode.window.showErrorMessage(`${message} Details are in the "Compaction Lens" output.`);
      return { kind: 'refused', message };
    }
  });
}

async function whereDidThisGo(services: Services, typed: string | undefined): Promise<WhereDidThisGoResult> {
  const entry = await transcriptToSearch(services);
  if (!entry) return { kind: 'cancelled' };
  const query = await queryToFind(entry, typed);
  if (query === undefined) return { kind: 'cancelled' };
  if ('error' in query) {
    void vscode.window.showWarningMessage(`Compaction Lens: ${query.error}`);
    return { kind: 'refused', message: query.error };
  }
  const answer = findFact(entry.transcript, entry.analysis, query.query);
  const items = pickItems(answer);
  if (answer.matches.length === 0 && answer.omitted === 0) {
    const mentioned = answer.summaryMentions.map((mention) => shortTurnId(mention.summaryId));
    const also = mentioned.length > 0 ? ` (only the summary of ${mentioned.join(', ')} mentions it)` : '';
    void vscode.window.showInformationMessage(noLinks(`No turn of ${entry.name} holds “${answer.query}”${also}.`));
  } else {
    showAnswer(entry, answer, items, services.panels);
  }
  return {
    kind: 'answer',
    uri: entry.uri.toString(),
    answer,
    items: items.map(({ label, description, detail }) => ({ label, description, detail })),
  };
}

/**
 * The transcript to search: the active timeline's; the active editor's (analysed, or a file matching the
 * transcript globs); the most recently active open timeline; the only analysed transcript; else one the user picks.
 */
async function transcriptToSearch(services: Services): Promise<AnalysedTranscript | undefined> {
  const { store, panels, log } = services;
  const timeline = panels.active() ?? undefined;
  if (timeline) return store.get(timeline.uri) ?? openTranscript(store, log, timeline.uri, { interactive: true });
  const uri = activeEditorUri();
  const shown = uri && store.get(uri);
  if (shown) return shown;
  const document = vscode.window.activeTextEditor?.document;
  if (uri?.scheme === 'file' && document && matchesTranscriptGlobs(document, readSettings().transcriptGlobs)) {
    const opened = await openTranscript(store, log, uri, { interactive: true });
    if (opened) return opened;
  }
  const lastTimeline = panels.all.at(-1);
  if (lastTimeline) return store.get(lastTimeline.uri) ?? openTranscript(store, log, lastTimeline.uri, { interactive: true });
  // Every analysed file, also those the store keeps only the digest of (loaded again when chosen).
  const analysed = store.digests();
  if (analysed.length === 1) return store.get(analysed[0].uri) ?? openTranscript(store, log, analysed[0].uri, { interactive: true });
  if (analysed.length === 0) {
    void vscode.window.showInformationMessage(
      'Where Did This Go? searches a transcript: open one, or its Compaction Lens timeline, first.',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    analysed.map((candidate) => ({
      label: fileNameOf(candidate.uri.path),
      description: vscode.workspace.asRelativePath(candidate.uri),
      candidate,
    })),
    { title: 'Where Did This Go? Search which transcript?' },
  );
  if (!picked) return undefined;
  return store.get(picked.candidate.uri) ?? openTranscript(store, log, picked.candidate.uri, { interactive: true });
}

/** The selection as plain text, or `typed` (text or /regex/), or what the user types in an input box. */
async function queryToFind(
  entry: AnalysedTranscript,
  typed: string | undefined,
): Promise<{ query: FactQuery } | { error: string } | undefined> {
  if (typed !== undefined) return parseFactQuery(typed);
  const editor = vscode.window.activeTextEditor;
  const selection = editor?.selections.find((candidate) => !candidate.isEmpty);
  if (editor && selection) return plainTextQuery(editor.document.getText(selection).trim());
  const input = await vscode.window.showInputBox({
    title: 'Compaction Lens: Where Did This Go?',
    prompt: `Text (case-insensitive) or a /regular expression/ to find in ${entry.name}`,
    placeHolder: 'ERR_LEDGER_4107  or  /ERR_[A-Z]+_\\d+/',
    validateInput: (value) =>
      value.trim() === '' ? undefined : ((found) => ('error' in found ? found.error : undefined))(parseFactQuery(value)),
  });
  return input === undefined || input.trim() === '' ? undefined : parseFactQuery(input);
}

/** The quick pick's items: one per matching turn, then the summaries that hold the text themselves. */
function pickItems(answer: FactAnswer): PickItem[] {
  const items: PickItem[] = answer.matches.map((match) => turnItem(match));
  if (answer.omitted > 0) {
    items.push({
      label: `… ${countOf(answer.omitted, 'more turn')} hold it`,
      description: 'narrow the search to see them',
      alwaysShow: true,
    });
  }
  if (answer.summaryMentions.length > 0) {
    items.push({ label: 'summaries that hold it themselves', kind: vscode.QuickPickItemKind.Separator });
    for (const mention of answer.summaryMentions) {
      const { before, match, after } = mention.excerpt;
      items.push({
        label: `$(note) summary ${plain(shortTurnId(mention.summaryId))}`,
        description: `line ${mention.line}`,
        detail: plain(`${before}${match}${after}`),
        checkpointLine: mention.line,
      });
    }
  }
  return items;
}

function turnItem(match: FactMatch): PickItem {
  const compacted = match.routes.filter((route) => route.compacted);
  const flagged = compacted.some((route) => route.flagged);
  // Where a reconstruction reads the fact now: the route of the last checkpoint that compacted the turn.
  const now = compacted.at(-1);
  const icon = flagged ? STATUS_ICONS['claimed-missing'] : now?.status !== undefined ? STATUS_ICONS[now.status] : STATUS_ICONS.after;
  const routes = compacted.map((route) => `${route.why}; ${route.says}${route.flagged ? ` (${FLAG_WORDS})` : ''}`);
  const { before, match: text, after } = match.excerpt;
  return {
    label: `${icon} turn ${plain(shortTurnId(match.turnId))} — ${plain(now ? now.says : 'not compacted')}`,
    description: `${match.role} · line ${match.line}${match.occurrences > 1 ? ` · ${match.occurrences}${match.more ? '+' : ''} times` : ''}`,
    detail: plain(`${routes.length > 0 ? routes.join(' · ') : 'no checkpoint compacted it'} — “${before}${text}${after}”`),
    turnIndex: match.turnIndex,
  };
}

function showAnswer(entry: AnalysedTranscript, answer: FactAnswer, shownItems: PickItem[], panels: TimelinePanels): void {
  let items = shownItems;
  const quickPick = vscode.window.createQuickPick<PickItem>();
  const total = answer.matches.length + answer.omitted;
  const flagged = answer.flagged > 0 ? ` · ${answer.flagged} flagged` : '';
  quickPick.title = plain(`Where did “${answer.query}” go? ${countOf(total, 'turn')} of ${entry.name}${flagged}`);
  quickPick.placeholder = 'Choose a turn to reveal its raw record (type to filter)';
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  // Copying the matching turns for the agent: a button on the list, and an item at its end for the keyboard.
  const copy: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('copy'), tooltip: 'Copy these turns for the agent' };
  const copyTurns = () => {
    const found: FoundTurns = { uri: entry.uri, query: answer.query, turnIds: answer.matches.map((match) => match.turnId) };
    void vscode.commands.executeCommand(COPY_DROPPED_TURNS, found);
  };
  if (answer.matches.length > 0) {
    quickPick.buttons = [copy];
    items = [
      ...items,
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: `$(copy) Copy ${countOf(answer.matches.length, 'matching turn')} for the agent…`, alwaysShow: true, copy: true },
    ];
  }
  quickPick.items = items;
  quickPick.onDidTriggerButton((button) => {
    if (button !== copy) return;
    quickPick.hide();
    copyTurns();
  });
  quickPick.onDidAccept(() => {
    const chosen = quickPick.selectedItems[0] ?? quickPick.activeItems[0];
    quickPick.hide();
    if (chosen?.copy) copyTurns();
    else if (chosen?.turnIndex !== undefined) {
      void revealTurn(entry, chosen.turnIndex);
      // An open timeline of the transcript selects the turn too (for the checkpoint it shows).
      const timeline = panels.get(entry.uri);
      const shown = timeline?.currentViewState?.checkpointIndex ?? 0;
      if (timeline && entry.analysis.checkpoints.length > 0) timeline.selectTurn(Math.max(0, shown), chosen.turnIndex);
    } else if (chosen?.checkpointLine !== undefined) void revealLines(entry.documentUri, chosen.checkpointLine, chosen.checkpointLine);
  });
  quickPick.onDidHide(() => quickPick.dispose());
  quickPick.show();
}
