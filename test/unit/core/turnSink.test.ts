// Tests for the turn sink (AnalysisOptions.turnSink, src/core/analyze.ts): the sink receives each checkpoint's
// turns, once and in order, as the analysis without one gives them; the analysis with one is the same but for
// its turns, which it does not keep (it keeps their ids and lines in columns, turnPlaces); judgements made for
// another sink are not taken, and a checkpoint memo is neither taken from nor kept in.
import * as assert from 'node:assert/strict';
import { analyze, judgeAhead } from '../../../src/core/analyze';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { JudgementCache } from '../../../src/core/judgementCache';
import { runSteps } from '../../../src/core/steps';
import type { Analysis, AnalysisOptions, CheckpointAnalysis, Transcript, TurnResult, TurnSink } from '../../../src/core/model';
import { incident, range, threeCheckpoints } from './transcripts';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words, ratioFloor: 5 };

/** A sink that records what it receives: each begin, and the turns after it. */
class Recorder implements TurnSink {
  readonly begins: number[] = [];
  readonly turns = new Map<number, TurnResult[]>();
  private current = -1;
  begin(index: number): void {
    this.begins.push(index);
    this.current = index;
    this.turns.set(index, []);
  }
  turn(result: TurnResult): void {
    this.turns.get(this.current)?.push(result);
  }
}

const CASES: [string, () => Transcript][] = [
  ['the incident, derived anchors', () => incident(false)],
  ['the incident, explicit anchors', () => incident(true)],
  ['the incident, Path A', () => incident(false, range(0, 199))],
  ['three checkpoints', threeCheckpoints],
];

/** A result as the sink gets it: the analysis's without the token figure it adds (unless recorded). */
function withoutCountedTokens(result: TurnResult, recorded: number | undefined): TurnResult {
  const copy = { ...result };
  if (recorded === undefined) delete copy.tokens;
  return copy;
}

function withoutTurns(cp: CheckpointAnalysis): Omit<CheckpointAnalysis, 'turns' | 'turnsWritten' | 'turnsBefore'> {
  const { turns: _turns, turnsWritten: _written, turnsBefore: _before, ...rest } = cp;
  return rest;
}

describe('core/analyze with a turn sink', () => {
  for (const [name, make] of CASES) {
    it(`${name}: the sink gets every turn once, as the analysis without it gives them; the checkpoints keep their places`, () => {
      const t = make();
      const plain: Analysis = analyze(t, OPTS);
      const sink = new Recorder();
      const sunk: Analysis = analyze(t, { ...OPTS, turnSink: sink });
      assert.deepEqual(
        sink.begins,
        t.checkpoints.map((_, i) => i),
      );
      assert.equal(sunk.checkpoints.length, plain.checkpoints.length);
      plain.checkpoints.forEach((cp, i) => {
        const got = sunk.checkpoints[i];
        assert.equal(got.turnsWritten, true);
        assert.equal(cp.turnsWritten, undefined);
        assert.deepEqual(withoutTurns(got), withoutTurns(cp));
        assert.deepEqual(
          sink.turns.get(i),
          cp.turns.map((r) => withoutCountedTokens(r, t.turns[r.index].tokens)),
        );
        assert.deepEqual(got.turns, [], 'no turn kept');
        assert.equal(got.turnsBefore, cp.turns.length);
      });
      assert.deepEqual(sunk.problems, plain.problems);
      // The places of the turns before the farthest checkpoint: each result's id and lines.
      const farthest = plain.checkpoints.reduce((most, cp) => (cp.turns.length > most.length ? cp.turns : most), [] as TurnResult[]);
      assert.equal(plain.turnPlaces, undefined);
      assert.ok(sunk.turnPlaces);
      const places = sunk.turnPlaces;
      assert.equal(places.count, farthest.length);
      assert.deepEqual(
        farthest.map((_, i) => [places.id(i), places.line(i), places.endLine(i)]),
        farthest.map((r) => [r.id, r.line, r.endLine]),
      );
      // (Path A weighs no evidence: the summariser's report decides.)
      if (plain.checkpoints.some((cp) => cp.path === 'B' && !cp.opaque))
        assert.ok(
          plain.checkpoints.some((cp) => cp.foundAnchors.length > 0),
          'the found anchors (made without the results) were compared',
        );
    });
  }

  it('judges each checkpoint once for judgeAhead and the analyses that take its judgements, and never takes those of another sink', () => {
    const t = threeCheckpoints();
    const sink = new Recorder();
    const judgements = new JudgementCache();
    runSteps(judgeAhead(t, { judgements, turnSink: sink }));
    assert.deepEqual(sink.begins, [0, 1, 2]);
    const first = analyze(t, { ...OPTS, judgements, turnSink: sink });
    const second = analyze(t, { ...OPTS, judgements, turnSink: sink });
    assert.deepEqual(sink.begins, [0, 1, 2], 'judged once');
    assert.deepEqual(second, first);
    // Judgements made for one sink keep no results: another sink, or none, judges again and gets the full results.
    const other = new Recorder();
    analyze(t, { ...OPTS, judgements, turnSink: other });
    assert.deepEqual(other.begins, [0, 1, 2]);
    assert.deepEqual(analyze(t, { ...OPTS, judgements }), analyze(t, OPTS));
  });

  it('neither takes from a checkpoint memo nor keeps in it: every checkpoint reaches the sink, and no analysis without turns is kept', () => {
    const t = threeCheckpoints();
    const plain = analyze(t, OPTS);
    // A memo that holds every checkpoint: the sink still gets them all.
    const checkpointMemo = new CheckpointMemo();
    const tokenCache = new Map<string, number>();
    analyze(t, { ...OPTS, checkpointMemo, tokenCache });
    const sink = new Recorder();
    const sunk = analyze(t, { ...OPTS, checkpointMemo, tokenCache, turnSink: sink });
    assert.deepEqual(sink.begins, [0, 1, 2]);
    assert.ok(sunk.checkpoints.every((cp) => cp.turnsWritten === true));
    // A memo first used with a sink: the next analysis without one gets full turns, not none.
    const fresh = new CheckpointMemo();
    const freshCache = new Map<string, number>();
    analyze(t, { ...OPTS, checkpointMemo: fresh, tokenCache: freshCache, turnSink: new Recorder() });
    const after = analyze(t, { ...OPTS, checkpointMemo: fresh, tokenCache: freshCache });
    assert.deepEqual(after, plain);
  });

  it('ignores a sink without both methods', () => {
    const t = threeCheckpoints();
    const notASink = { begin: () => undefined } as unknown as TurnSink;
    assert.deepEqual(analyze(t, { ...OPTS, turnSink: notASink }), analyze(t, OPTS));
  });
});
