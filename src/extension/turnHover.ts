// Hover on a turn record of an analysed transcript: for each checkpoint whose compacted prefix contains the
// turn, its status in plain words and why, then its evidence found and not found in the summary (heaviest
// first, with kind and weight) and its score against the coverage threshold. For a .jsonl.gz, in its
// decompressed view.
import * as vscode from 'vscode';
import { fullTurnId, isShortenedTurnId, turnName } from '../core/displayText';
import type { Evidence, TurnResult } from '../core/model';
import { byWeight, describeEvidence, describeScore, STATUS_ICONS, statusName } from '../statusWords';
import { turnResult } from '../view/timelineData';
import type { TranscriptStore } from './transcriptStore';
import { turnReason } from '../core/reweigh';

/** Pieces of evidence listed per group (found / not found); the rest are counted. */
const MAX_LISTED = 5;
/** Characters of one piece of evidence shown (a command can be long). */
const MAX_EVIDENCE_CHARS = 80;

export class TurnHoverProvider implements vscode.HoverProvider {
  constructor(private readonly store: TranscriptStore) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const entry = this.store.forDocument(document.uri);
    if (!entry) return undefined;
    const turnIndex = entry.turnAtLine(position.line + 1);
    if (turnIndex === undefined) return undefined;
    const turn = entry.transcript.turns[turnIndex];
    const markdown = new vscode.MarkdownString(undefined, true);
    markdown.appendMarkdown('**Compaction Lens** · ');
    markdown.appendText(`${turnName(turn.id)} (${turn.role}${turn.label ? `, ${turn.label}` : ''})`);
    if (isShortenedTurnId(turn.id)) {
      markdown.appendMarkdown('\n\n');
      markdown.appendText(`id ${fullTurnId(turn.id)}`);
    }
    let listed = 0;
    for (const checkpoint of entry.analysis.checkpoints) {
      const result = turnResult(checkpoint, turnIndex);
      if (!result) continue;
      listed++;
      markdown.appendMarkdown(`\n\n${STATUS_ICONS[result.status]} `);
      markdown.appendText(`${checkpoint.summaryId}: ${statusName(result.status)} — ${turnReason(result)}`);
      appendEvidence(markdown, result);
    }
    if (listed === 0) markdown.appendMarkdown('\n\nNo checkpoint compacts this turn: it is kept verbatim.');
    const start = turn.span.startLine - 1;
    const end = turn.span.endLine - 1;
    return new vscode.Hover(markdown, new vscode.Range(start, 0, end, document.lineAt(Math.min(end, document.lineCount - 1)).text.length));
  }
}

/** "Evidence (score 0.6 of 1.0 needed):" then found / not found lists, as text (evidence is transcript text). */
function appendEvidence(markdown: vscode.MarkdownString, result: TurnResult): void {
  const score = describeScore(result);
  if (result.evidence.length === 0) {
    if (score) {
      markdown.appendMarkdown('\n\n');
      markdown.appendText(`Evidence: none (${score})`);
    }
    return;
  }
  const ordered = byWeight(result.evidence);
  const found = ordered.filter((evidence) => evidence.found);
  const missing = ordered.filter((evidence) => !evidence.found);
  markdown.appendMarkdown('\n\n');
  markdown.appendText(`Evidence${score ? ` (${score})` : ''}:`);
  markdown.appendMarkdown('\n');
  if (found.length > 0) {
    markdown.appendMarkdown('\n- ');
    markdown.appendText(`found in the summary: ${listEvidence(found)}`);
  }
  if (missing.length > 0) {
    markdown.appendMarkdown('\n- ');
    markdown.appendText(`not found: ${listEvidence(missing)}`);
  }
}

function listEvidence(evidence: Evidence[]): string {
  const shown = evidence.slice(0, MAX_LISTED).map((piece) => `“${oneLine(piece.text)}” (${describeEvidence(piece)})`);
  if (evidence.length > MAX_LISTED) shown.push(`and ${evidence.length - MAX_LISTED} more`);
  return shown.join('; ');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_EVIDENCE_CHARS ? `${flat.slice(0, MAX_EVIDENCE_CHARS - 1)}…` : flat;
}
