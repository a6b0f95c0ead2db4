// Hover on a turn record of an analysed transcript: the turn's status for each checkpoint whose
// compacted prefix contains it (covered / claimed-missing / uncovered) and why.
import * as vscode from 'vscode';
import { turnResult } from './timelineData';
import type { TranscriptStore } from './transcriptStore';

const STATUS_ICONS = { covered: '$(pass)', 'claimed-missing': '$(warning)', uncovered: '$(circle-outline)' } as const;

export class TurnHoverProvider implements vscode.HoverProvider {
  constructor(private readonly store: TranscriptStore) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const entry = this.store.get(document.uri);
    if (!entry) return undefined;
    const turnIndex = entry.turnAtLine(position.line + 1);
    if (turnIndex === undefined) return undefined;
    const turn = entry.transcript.turns[turnIndex];
    const markdown = new vscode.MarkdownString(undefined, true);
    markdown.appendMarkdown('**Compaction Lens** · ');
    markdown.appendText(`turn ${String(turn.id)} (${turn.role}${turn.label ? `, ${turn.label}` : ''})`);
    let listed = 0;
    for (const checkpoint of entry.analysis.checkpoints) {
      const result = turnResult(checkpoint, turnIndex);
      if (!result) continue;
      listed++;
      markdown.appendMarkdown(`\n\n${STATUS_ICONS[result.status]} `);
      markdown.appendText(`${checkpoint.summaryId}: ${result.status}${result.claimed ? '' : ' (not claimed)'} — ${result.reason}`);
    }
    if (listed === 0) markdown.appendMarkdown('\n\nNo checkpoint compacts this turn: it is kept verbatim.');
    const start = turn.span.startLine - 1;
    const end = turn.span.endLine - 1;
    return new vscode.Hover(markdown, new vscode.Range(start, 0, end, document.lineAt(Math.min(end, document.lineCount - 1)).text.length));
  }
}
