// A plain copy of a turn, to change in its place once a reader has handed the turn over (ReaderContext.keepTurn):
// the Claude Code reader's reply whose record comes after the next turn began, and the Letta reader's label made
// again once an agent's in-context ids are known.
import type { Turn } from '../core/model';

/**
 * A plain object with a turn's fields: a turn handed over may keep its text, id, role, span and recorded tokens
 * elsewhere (getters, not fields of its own), so they are read here one by one. Its text is then in memory.
 */
export function plainCopy(turn: Turn): Turn {
  const copy: Turn = { ...turn, id: turn.id, role: turn.role, text: turn.text, span: turn.span };
  if (turn.tokens !== undefined) copy.tokens = turn.tokens;
  return copy;
}
