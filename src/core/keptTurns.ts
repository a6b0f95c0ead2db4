// The few turn results a one-shot command shows, kept from an analysis whose turns go to a sink. `find` shows a
// few hundred matching turns and `bundle` only which turns each checkpoint dropped, yet with every result kept a
// 1M-turn transcript held 1.5–2.7 GB for them (docs/performance-history.md, "`find` and `bundle` keep only the
// turns they show…"). This sink keeps the full result only of the turns asked for (`wants`, which may be settled once the
// transcript is read, before the judging begins), and of every checkpoint the indexes of its claimed-missing
// turns (a number each). Pure: no I/O.
import type { KeptResults, TurnResult, TurnSink } from './model';

export class KeptTurns implements TurnSink, KeptResults {
  /** Whether the turn at an index is one whose full result is kept; none until set. */
  private wants: (index: number) => boolean = () => false;
  private readonly results = new Map<number, Map<number, TurnResult>>();
  private readonly droppedOf = new Map<number, number[]>();
  private current: { results: Map<number, TurnResult>; dropped: number[] } | undefined;

  /** Which turns' full results to keep from now on: set before the judging begins. */
  keep(wants: (index: number) => boolean): void {
    this.wants = wants;
  }

  begin(index: number): void {
    // A checkpoint begun again starts empty.
    const results = new Map<number, TurnResult>();
    const dropped: number[] = [];
    this.results.set(index, results);
    this.droppedOf.set(index, dropped);
    this.current = { results, dropped };
  }

  turn(result: TurnResult): void {
    const current = this.current;
    if (!current) throw new Error('a turn came before its checkpoint began');
    if (result.status === 'claimed-missing') current.dropped.push(result.index);
    if (this.wants(result.index)) current.results.set(result.index, result);
  }

  result(checkpoint: number, index: number): TurnResult | undefined {
    return this.results.get(checkpoint)?.get(index);
  }

  dropped(checkpoint: number): readonly number[] {
    return this.droppedOf.get(checkpoint) ?? [];
  }
}
