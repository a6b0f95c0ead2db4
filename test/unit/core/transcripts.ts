// Builders for the core tests: turns, checkpoints and transcripts in the model's shape, and the note's
// incident (420 turns, budget 4096, a summary that stops mid-sentence at turn 380).
import type { Checkpoint, Transcript, Turn, TurnId } from '../../../src/core/model';

export function span(line: number, endLine = line) {
  return { startLine: line, endLine, startOffset: line * 100, endOffset: line * 100 + 99 };
}

export function turn(id: TurnId, text: string, extra: Partial<Turn> = {}, line?: number): Turn {
  const l = line ?? (typeof id === 'number' ? id + 1 : 1);
  return { id, role: 'user', text, span: span(l), ...extra };
}

export function checkpoint(extra: Partial<Checkpoint> & { claimedIds: TurnId[]; turnsBefore: number }): Checkpoint {
  return { summaryId: 'S1', summary: '', span: span(9999), ...extra };
}

export function transcript(turns: Turn[], checkpoints: Checkpoint[]): Transcript {
  return { format: 'canonical', turns, checkpoints, problems: [], lineCount: turns.length + checkpoints.length };
}

/** A transcript whose one checkpoint claims every turn of `texts` and whose summary carries only turn 0's anchor. */
export function withDropped(texts: string[], extra: Partial<Turn> = {}): Transcript {
  const turns = texts.map((text, i) => turn(i, text, { tokens: 10, anchor: `ANCHOR-${i}-`, ...extra }));
  const cp = checkpoint({
    summary: 'Carried ANCHOR-0- only.',
    summaryBudget: 4096,
    claimedIds: turns.map((t) => t.id),
    turnsBefore: turns.length,
    span: span(turns.length + 1),
  });
  return transcript(turns, [cp]);
}

export const INCIDENT_TURNS = 420;
export const INCIDENT_CUT = 380;

/**
 * The note's incident. With `explicit`, each turn carries its anchor token; otherwise the anchors must be
 * derived from the text (each turn names its own ledger entry and file). The summary covers turns 0..379 and
 * stops mid-sentence; the pointer set claims 0..419.
 */
export function incident(explicit: boolean, reportedIds?: TurnId[]): Transcript {
  const turns = Array.from({ length: INCIDENT_TURNS }, (_, i) =>
    turn(
      i,
      `Posted ledger entry LEDGER_ENTRY_${1000 + i} and updated src/ledger/batch_${i}.ts; amount ${i}.`,
      explicit ? { tokens: 100, anchor: `FACT-${i}-` } : { tokens: 100 },
    ),
  );
  const facts = Array.from({ length: INCIDENT_CUT }, (_, i) =>
    explicit ? `Turn ${i} established FACT-${i}-.` : `Entry LEDGER_ENTRY_${1000 + i} was posted.`,
  );
  const summary = '1. Primary Request and Intent:\n' + facts.join(' ') + '\n\n2. Current Work:\n   Then, at the migration, you went fro';
  const cp = checkpoint({
    summary,
    summaryBudget: 4096,
    claimedIds: turns.map((t) => t.id),
    turnsBefore: INCIDENT_TURNS,
    span: span(INCIDENT_TURNS + 1),
    recordedSummaryTokens: 4093,
    ...(reportedIds ? { reportedIds } : {}),
  });
  return transcript(turns, [cp]);
}

export function range(from: number, toInclusive: number): number[] {
  return Array.from({ length: toInclusive - from + 1 }, (_, i) => from + i);
}

/** Three checkpoints over sixty turns (without recorded counts), one of them encrypted, with words and facts found or not. */
export function threeCheckpoints(): Transcript {
  const turns = Array.from({ length: 60 }, (_, i) =>
    turn(i, i % 7 === 3 ? 'ok' : `Changed src/part_${i % 20}.ts for TASK-${100 + i}; the “ledger” check ${i % 2 ? 'passed' : 'failed'}`),
  );
  return transcript(turns, [
    checkpoint({
      summaryId: 'S1',
      summary: 'TASK-101, src/part_2.ts and the ledger',
      summaryBudget: 50,
      claimedIds: range(0, 19),
      turnsBefore: 20,
    }),
    checkpoint({ summaryId: 'S2', summary: 'opaque', opaque: true, summaryBudget: 500, claimedIds: range(0, 39), turnsBefore: 40 }),
    checkpoint({
      summaryId: 'S3',
      summary: 'TASK-130 TASK-141 src/part_5.ts passed',
      summaryBudget: 5000,
      claimedIds: range(20, 59),
      turnsBefore: 60,
    }),
  ]);
}
