// The turns' judgements of one transcript snapshot's checkpoints: each earlier turn's status, evidence and
// reason, which is everything of a checkpoint's analysis that does not depend on token counts. A shell judges
// the checkpoints while the tokens are counted elsewhere (core/analyze.ts, judgeAhead); the analysis from the
// tokens' bounds (core/tokenBounds.ts) and the exact analysis then take these judgements instead of judging every
// turn again. An entry is used only for the same turn array (a snapshot's own: readers return a new array for
// each snapshot), the same checkpoint record, prefix length, coverage threshold and turn sink, so a cache kept too long
// gives nothing rather than something stale. It never changes a result, only what it costs. Pure.
import type { Checkpoint, JudgedTurns, Turn, TurnResult, TurnSink } from './model';

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
  /** The checkpoint's turns as judged, without token figures. Never modified once kept. */
  judged: JudgedTurns;
}

export class JudgementCache {
  private readonly entries = new Map<number, Entry>();
  private unclaimedTurns: readonly Turn[] | undefined;
  private unclaimedResults: TurnResult[] = [];

  /**
   * Where the judgements of `turns` keep each turn's one result for the checkpoints that do not claim it (by the
   * turn's index; core/analyze.ts unclaimedResult), so the judgements made ahead and the analysis share them. A new
   * array for another snapshot.
   */
  unclaimedOf(turns: readonly Turn[]): TurnResult[] {
    if (this.unclaimedTurns !== turns) {
      this.unclaimedTurns = turns;
      this.unclaimedResults = [];
    }
    return this.unclaimedResults;
  }

  /** The judgement kept for checkpoint `index` when it was made from exactly `key`. */
  get(index: number, key: JudgementKey): JudgedTurns | undefined {
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
    return entry.judged;
  }

  set(index: number, key: JudgementKey, judged: JudgedTurns): void {
    this.entries.set(index, { ...key, judged });
  }

  /** The judgement kept for checkpoint `index`, made from any key (a judging worker's cache is its own). */
  judgedAt(index: number): JudgedTurns | undefined {
    return this.entries.get(index)?.judged;
  }

  /** Whether checkpoint `index` has a judgement kept (made from any key). */
  has(index: number): boolean {
    return this.entries.has(index);
  }
}
