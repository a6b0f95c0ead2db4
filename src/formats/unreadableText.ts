// Problems for a transcript whose records were recognised but gave no text: every turn's text empty, or a
// checkpoint (not opaque) whose summary is empty. Without text, coverage cannot be checked, so a reader never
// returns such empties silently: every reader's result passes through withUnreadableTextProblems (the
// RebuildingReader base and the canonical reader call it).

import type { Problem, Transcript } from '../core/model';
import { countOf } from '../core/displayText';

/** What the transcript's empty texts say about it, one problem per finding. */
export function unreadableTextProblems(transcript: Transcript): Problem[] {
  const problems: Problem[] = [];
  const { turns } = transcript;
  if (turns.length > 0 && turns.every((turn) => turn.text.trim() === '')) {
    const line = turns[0].span.startLine;
    problems.push({
      line,
      severity: 'warning',
      message: `no text could be read from any of its ${countOf(turns.length, 'turn')}: the ${transcript.format} reader recognised the records but found no text in them, so whether a summary covers them cannot be checked. The file may be in another format, or in a version of this one that Compaction Lens does not read yet.`,
    });
  }
  for (const checkpoint of transcript.checkpoints) {
    if (checkpoint.opaque === true || checkpoint.summary.trim() !== '') continue;
    const line = checkpoint.span.startLine;
    problems.push({
      line,
      severity: 'warning',
      message: `line ${line}: the summary of checkpoint ${checkpoint.summaryId} has no readable text (it is empty, or in a shape this reader does not read), so it cannot show that it covers the ${countOf(checkpoint.claimedIds.length, 'turn')} it claims.`,
    });
  }
  return problems;
}

/** The transcript with its unreadable-text problems added, problems kept in line order. */
export function withUnreadableTextProblems(transcript: Transcript): Transcript {
  const extra = unreadableTextProblems(transcript);
  if (extra.length === 0) return transcript;
  const problems = [...transcript.problems, ...extra].sort((a, b) => a.line - b.line);
  return { ...transcript, problems };
}
