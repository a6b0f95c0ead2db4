// The turns' judgements of one transcript snapshot's checkpoints: each earlier turn's status, evidence and
// reason, which is everything of a checkpoint's analysis that does not depend on token counts. A shell judges
// the checkpoints while the tokens are counted elsewhere (core/analyze.ts, judgeAhead); the analysis from the
// tokens' bounds (core/tokenBounds.ts) and the exact analysis then take these judgements instead of judging every
// turn again. An entry is used only for the same turn array (a snapshot's own: readers return a new array for
// each snapshot), the same checkpoint record, prefix length, coverage threshold and turn sink, so a cache kept too long
// gives nothing rather than something stale. It never changes a result, only what it costs. Pure.
import type { Checkpoint, Turn, TurnResult, TurnSink } from './model';

/** What a checkpoint's judgement was made from, besides the evidence (pure functions of the turns). */
export interface JudgementKey {
  turns: readonly Turn[];
  checkpoint: Checkpoint;
  /** How many turns precede the checkpoint. */
  before: number;
  threshold: number;
  /** The turn sink the full results went to (then the results kept are slimmed), or none. */
  sink: TurnSink | undefined;
}

interface Entry extends JudgementKey {
  /** One result per turn before the checkpoint, without token figures. Never modified once kept. */
  results: readonly TurnResult[];
}

export class JudgementCache {
  private readonly entries = new Map<number, Entry>();

  /** The results kept for checkpoint `index` when they were made from exactly `key`. */
  get(index: number, key: JudgementKey): readonly TurnResult[] | undefined {
    const entry = this.entries.get(index);
    if (
      !entry ||
      entry.turns !== key.turns ||
      entry.checkpoint !== key.checkpoint ||
      entry.before !== key.before ||
      entry.threshold !== key.threshold ||
      entry.sink !== key.sink
    ) {
      return undefined;
    }
    return entry.results;
  }

  set(index: number, key: JudgementKey, results: readonly TurnResult[]): void {
    this.entries.set(index, { ...key, results });
  }

  /** Whether checkpoint `index` has a judgement kept (made from any key). */
  has(index: number): boolean {
    return this.entries.has(index);
  }
}
