// The timeline's search box, answered on the host: core/findFact on the panel's transcript, reduced to what the
// webview shows for the selected checkpoint (each matching turn's index, id, line, excerpt and that checkpoint's
// route). A refused query comes back as an `error` sentence, never as an exception. Pure: no vscode import.
import { findFact, parseFactQuery } from '../core/findFact';
import type { Analysis, Transcript } from '../core/model';
import type { FactFoundResponse, FoundTurn } from '../protocol';

/** Turns listed in the panel; the rest are counted. */
export const MAX_FOUND_TURNS = 200;

export function factFound(transcript: Transcript, analysis: Analysis, checkpointIndex: number, query: string): FactFoundResponse {
  const parsed = parseFactQuery(query);
  if ('error' in parsed) return { checkpointIndex, query, error: parsed.error, turns: [], omitted: 0, flagged: 0 };
  const answer = findFact(transcript, analysis, parsed.query, { maxMatches: MAX_FOUND_TURNS });
  let flagged = 0;
  const turns = answer.matches.map((match): FoundTurn => {
    const route = match.routes.find((candidate) => candidate.checkpoint === checkpointIndex);
    const found: FoundTurn = {
      index: match.turnIndex,
      id: match.turnId,
      line: match.line,
      excerpt: match.excerpt,
      route: route?.route ?? 'not-compacted',
      flagged: route?.flagged ?? false,
      why: route?.why ?? 'the transcript has no checkpoint',
      says: route?.says ?? 'in the context as written',
    };
    if (route?.status !== undefined) found.status = route.status;
    if (found.flagged) flagged++;
    return found;
  });
  return { checkpointIndex, query, turns, omitted: answer.omitted, flagged };
}
