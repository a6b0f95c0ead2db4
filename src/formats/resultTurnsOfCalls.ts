// The turns holding the results of each turn's tool calls, by turn index, joined as the calls and the results are
// read, in whichever order they come. The Claude Code reader's claim takes, for each turn on its parentUuid chain,
// the results of that turn's calls (parallel calls' results are siblings of the chain, not on it). Joined here as
// the records are read, in the read's slices, rather than by looking every call's id up when the claim is made: at
// 100k turns those lookups were about 15 ms of one block on the extension host (docs/performance-history.md, "A Claude
// Code claim joined as read; the read's last step a block of its own").
// Pure: no I/O.

export class ResultTurnsOfCalls {
  /** The first turn that made each call (by its tool_use id). */
  private readonly callerOf = new Map<string, number>();
  /** The turns holding each call id's results, in the order read. */
  private readonly resultsOfCall = new Map<string, number[]>();
  /** Per turn, the results of the calls it made first, in the order joined. */
  private readonly resultsOfTurn = new Map<number, number[]>();
  /**
   * Per turn, the ids of its calls that another turn made first (a session's history copied after a compaction):
   * their results are looked up when asked for, so each result is joined once, to one turn.
   */
  private readonly laterCallsOfTurn = new Map<number, string[]>();

  /** Turn `turn` makes the call `callId` (a reply's records may come after other turns': in any order). */
  addCall(turn: number, callId: string): void {
    const first = this.callerOf.get(callId);
    if (first === undefined) {
      this.callerOf.set(callId, turn);
      for (const result of this.resultsOfCall.get(callId) ?? []) this.join(turn, result);
    } else if (first !== turn) {
      const later = this.laterCallsOfTurn.get(turn);
      if (later === undefined) this.laterCallsOfTurn.set(turn, [callId]);
      else if (later[later.length - 1] !== callId) later.push(callId);
    }
  }

  /** Turn `turn` holds a result of the call `callId`. */
  addResult(turn: number, callId: string): void {
    const results = this.resultsOfCall.get(callId);
    if (results === undefined) this.resultsOfCall.set(callId, [turn]);
    else if (results[results.length - 1] === turn) return;
    else results.push(turn);
    const first = this.callerOf.get(callId);
    if (first !== undefined) this.join(first, turn);
  }

  /** Gives `visit` each turn holding a result of a call turn `turn` made (a turn may come more than once). */
  forEachResultOf(turn: number, visit: (result: number) => void): void {
    const joined = this.resultsOfTurn.get(turn);
    if (joined !== undefined) for (const result of joined) visit(result);
    const later = this.laterCallsOfTurn.get(turn);
    if (later === undefined) return;
    for (const callId of later) for (const result of this.resultsOfCall.get(callId) ?? []) visit(result);
  }

  private join(caller: number, result: number): void {
    const results = this.resultsOfTurn.get(caller);
    if (results === undefined) this.resultsOfTurn.set(caller, [result]);
    else if (results[results.length - 1] !== result) results.push(result);
  }
}
