// Tests for CheckpointMemo (src/core/checkpointMemo.ts) through analyze: on random transcripts that grow by
// appended lines (and now and then change an earlier turn or checkpoint, the options or the token cache), an
// analysis with the file's memo deep-equals one without; a checkpoint nothing before it changed in is reused as
// the same object; and each thing it depends on, changed alone, makes it analysed again. textsToCount with the
// memo still names everything analyze then counts, and judgeAhead judges every checkpoint the memo cannot give.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze, judgeAhead, textsToCount } from '../../../src/core/analyze';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { JudgementCache } from '../../../src/core/judgementCache';
import { runSteps } from '../../../src/core/steps';
import type { Analysis, AnalysisOptions, Checkpoint, JudgedTurns, TokenCache, Transcript, Turn, TurnId } from '../../../src/core/model';
import { verdictFromBounds } from '../../../src/core/tokenBounds';
import { checkpoint, span, transcript, turn } from './transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;

/** A plain analysis: no memo, no caches kept. */
/**
 * What a memo's indexes say of every id the turns and checkpoints name (and one none does), and of every turn's
 * index, to compare by what they hold (their tables may have grown and been filled in another order).
 */
function indexesOf(indexes: ReturnType<CheckpointMemo['sync']>, turns: readonly Turn[], checkpoints: readonly Checkpoint[]): unknown {
  const ids = new Set<TurnId>(['no such id', 1e9]);
  for (const t of turns) {
    ids.add(t.id);
    if (t.answers) ids.add(t.answers.turnId);
  }
  for (const cp of checkpoints) for (const id of cp.claimedIds) ids.add(id);
  const byId = [...ids].map((id) => [id, indexes.indexOfId.get(id), indexes.firstAnswer.get(id), indexes.claimedByAny.has(id)]);
  const byTurn = turns.map((_, i) => {
    const first = indexes.firstOf(i);
    return first === undefined ? [] : [first, indexes.firstAnswer.atTurn(first), indexes.claimedByAny.atTurn(first)];
  });
  return { byId, byTurn };
}

function fresh(t: Transcript, options: Partial<AnalysisOptions> = {}): Analysis {
  return analyze(t, { countTokens: words, ...options });
}

/** A file's analyses: its memo and caches, kept between them as the extension keeps them. */
class File {
  memo = new CheckpointMemo();
  tokenCache: TokenCache = new Map();
  evidenceCache = new EvidenceCache();
  analyse(t: Transcript, options: Partial<AnalysisOptions> = {}): Analysis {
    return analyze(t, {
      countTokens: words,
      tokenCache: this.tokenCache,
      evidenceCache: this.evidenceCache,
      checkpointMemo: this.memo,
      ...options,
    });
  }
}

/** Twelve turns that share and differ in facts, a call answered by its result, and a checkpoint after turn 8. */
function base(): { turns: Turn[]; cp: Checkpoint } {
  const turns: Turn[] = [
    turn(0, 'Fix the failing build in src/ledger/post.ts, error LEDGER_4107'),
    turn(1, '[tool call Read] {"file_path":"src/ledger/post.ts"}', { role: 'assistant' }),
    turn(2, 'export function post(entry) { return ledger.add(entry) }', {
      role: 'tool',
      answers: { turnId: 1, callText: '[tool call Read] {"file_path":"src/ledger/post.ts"}' },
    }),
    turn(3, 'Renamed parseEntry to parseLedgerEntry in src/ledger/parse.ts'),
    turn(4, 'Ran npm test: 49 tests passed'),
    turn(5, 'ok, go ahead'),
    turn(6, 'Bumped lodash to v4.17.21 for JIRA-881'),
    turn(7, 'The anchored one', { anchor: 'FACT-7' }),
    turn(8, 'Recorded count turn about src/payout/run.ts', { tokens: 12 }),
    turn(9, 'After the checkpoint: src/after/one.ts'),
    turn(10, 'After the checkpoint: SETTLEMENT_77'),
    turn(11, 'After the checkpoint: thanks!'),
  ];
  const cp = checkpoint({
    summaryId: 'S1',
    summary: 'Fixed LEDGER_4107 in src/ledger/post.ts; renamed parseEntry to parseLedgerEntry; 49 tests passed. FACT-7',
    summaryBudget: 20,
    claimedIds: [0, 1, 2, 3, 4, 6, 7],
    turnsBefore: 9,
    span: span(10),
  });
  return { turns, cp };
}

describe('core/checkpointMemo', () => {
  it('reuses an unchanged checkpoint as the same object after appended turns, equal to a plain analysis', () => {
    const { turns, cp } = base();
    const file = new File();
    const first = file.analyse(transcript(turns.slice(0, 10), [cp]));
    assert.deepEqual(first, fresh(transcript(turns.slice(0, 10), [cp])));
    const grown = transcript(turns.slice(0, 12), [cp]);
    const second = file.analyse(grown);
    assert.equal(second.checkpoints[0], first.checkpoints[0], 'the same object');
    assert.equal(second.turnCount, 12);
    assert.deepEqual(second, fresh(grown));
  });

  it('of one snapshot: gives the same analyses and indexes without copying its array, and refuses any other array', () => {
    const { turns, cp } = base();
    const t = transcript(turns, [cp]);
    const memo = new CheckpointMemo({ oneSnapshot: true });
    const plain = new CheckpointMemo();
    const options = { countTokens: words };
    assert.deepEqual(analyze(t, { ...options, checkpointMemo: memo }), fresh(t));
    // Synced again with the same array (as the counting, the judging and the analysis each sync it): the same.
    assert.deepEqual(analyze(t, { ...options, checkpointMemo: memo }), fresh(t));
    assert.deepEqual(
      indexesOf(memo.sync(t.turns, t.checkpoints), t.turns, t.checkpoints),
      indexesOf(plain.sync(t.turns, t.checkpoints), t.turns, t.checkpoints),
    );
    assert.equal((memo as unknown as { turns: unknown }).turns, t.turns, 'the array itself, not a copy');
    assert.notEqual((plain as unknown as { turns: unknown }).turns, t.turns, 'a copy');
    // Another array, even with the same turns, or this one grown: refused, never compared against itself.
    assert.throws(() => memo.sync(t.turns.slice(), t.checkpoints), /one snapshot/);
    const grown = t.turns as Turn[];
    grown.push(turn(12, 'appended in place'));
    assert.throws(() => memo.sync(grown, t.checkpoints), /one snapshot/);
    const analysis = analyze({ ...t, turns: grown }, { ...options, checkpointMemo: memo });
    assert.match(analysis.problems.map((p) => p.message).join('\n'), /could not analyse the transcript: a memo of one snapshot/);
  });

  it('keeps no checkpoint whose position is out of range: it is analysed again, with its warning', () => {
    const { turns, cp } = base();
    const file = new File();
    const bad = { ...cp, summaryId: 'S2', turnsBefore: 99 }; // clamped, with a warning: never kept
    const t = transcript(turns.slice(0, 10), [cp, bad]);
    const first = file.analyse(t);
    assert.equal(first.problems.length, 1);
    const again = file.analyse(transcript(turns.slice(0, 11), [cp, bad]));
    assert.equal(again.checkpoints[0], first.checkpoints[0]);
    assert.notEqual(again.checkpoints[1], first.checkpoints[1]);
    assert.equal(again.problems.length, 1, 'the warning is given again, once');
    assert.deepEqual(again, fresh(transcript(turns.slice(0, 11), [cp, bad])));
  });

  describe('analyses again when what a checkpoint depends on changed', () => {
    /** Analyses `before`, then `after` (made by `change`) with the same file, and checks the result. */
    function changed(change: (turns: Turn[], cp: Checkpoint, file: File) => { t: Transcript; options?: Partial<AnalysisOptions> }) {
      const { turns, cp } = base();
      const file = new File();
      const first = file.analyse(transcript(turns.slice(0, 10), [cp]));
      const { t, options } = change(turns.slice(0, 10), cp, file);
      const second = file.analyse(t, options);
      assert.notEqual(second.checkpoints[0], first.checkpoints[0], 'analysed again');
      assert.deepEqual(second, fresh(t, options));
      // …and the new analysis is the one kept from then on.
      const third = file.analyse({ ...t, turns: [...t.turns, turn(50, 'later')] }, options);
      assert.equal(third.checkpoints[0], second.checkpoints[0]);
      return { first, second };
    }

    it('an earlier turn replaced by a new object (its text changed)', () => {
      const { first, second } = changed((turns, cp) => {
        turns[3] = { ...turns[3], text: 'Renamed something else entirely in lib/other.rs' };
        return { t: transcript(turns, [cp]) };
      });
      assert.notDeepEqual(second.checkpoints[0].turns[3], first.checkpoints[0].turns[3]);
    });

    /** The file read anew: every turn a new object, equal field by field, but turn `at` changed by `change`. */
    function readAnewWith(at: number, change: (t: Turn) => Turn) {
      return changed((turns, cp) => ({
        t: transcript(
          structuredClone(turns).map((x, i) => (i === at ? change(x) : x)),
          [cp],
        ),
      }));
    }

    it('the file read anew with a turn changed deep inside (the text of the call its result answers)', () => {
      readAnewWith(2, (t) => ({ ...t, answers: { turnId: 1, callText: `${t.answers?.callText} and more` } }));
    });

    it('the file read anew with a turn moved to another line', () => {
      readAnewWith(4, (t) => ({ ...t, span: span(40) }));
    });

    it('the file read anew with a turn given a field more (even one holding undefined)', () => {
      readAnewWith(6, (t) => ({ ...t, reasoning: undefined }));
    });

    it('the file read anew with a recorded count of -0 where it was 0', () => {
      const { turns, cp } = base();
      const file = new File();
      const zero = transcript([...turns.slice(0, 8), { ...turns[8], tokens: 0 }, turns[9]], [cp]);
      const first = file.analyse(zero);
      const t = transcript(
        structuredClone(zero.turns).map((x, i) => (i === 8 ? { ...x, tokens: -0 } : x)),
        [cp],
      );
      const second = file.analyse(t);
      assert.notEqual(second.checkpoints[0], first.checkpoints[0], 'analysed again');
      assert.deepEqual(second, fresh(t));
    });

    it('an earlier turn dropped (a shorter snapshot, as after a rewrite)', () => {
      changed((turns, cp) => ({ t: transcript([...turns.slice(0, 2), ...turns.slice(3)], [cp]) }));
    });

    it('the checkpoint record changed in place (its summary)', () => {
      changed((turns, cp) => {
        cp.summary = cp.summary.replace('FACT-7', 'FACT-8'); // as many words: the same count
        return { t: transcript(turns, [cp]) };
      });
    });

    it('the checkpoint record changed in place (one claimed id)', () => {
      changed((turns, cp) => {
        cp.claimedIds[0] = 5;
        return { t: transcript(turns, [cp]) };
      });
    });

    it('the checkpoint record replaced by another with an extra field', () => {
      changed((turns, cp) => ({ t: transcript(turns, [{ ...cp, notes: ['a note'] }]) }));
    });

    it('another ratio floor', () => {
      changed((turns, cp) => ({ t: transcript(turns, [cp]), options: { ratioFloor: 3 } }));
    });

    it('another coverage threshold', () => {
      changed((turns, cp) => ({ t: transcript(turns, [cp]), options: { coverageThreshold: 5 } }));
    });

    it('another near-budget fraction', () => {
      changed((turns, cp) => ({ t: transcript(turns, [cp]), options: { nearBudgetFraction: 0.5 } }));
    });

    it('a new token cache (as after a change of encoding)', () => {
      changed((turns, cp, file) => {
        file.tokenCache = new Map();
        return { t: transcript(turns, [cp]), options: { countTokens: (s) => 2 * words(s) } };
      });
    });

    it('another count of an unrecorded summary', () => {
      changed((turns, cp) => ({ t: transcript(turns, [cp]), options: { countTokens: (s) => (s === cp.summary ? 1 : words(s)) } }));
    });

    it('a new checkpoint that claims an earlier turn no checkpoint claimed (its tokens are shown then)', () => {
      const { second } = changed((turns, cp) => {
        const next = checkpoint({ summaryId: 'S2', summary: 'ok', claimedIds: [5, 9], turnsBefore: 10, span: span(12) });
        return { t: transcript([...turns], [cp, next]) };
      });
      assert.equal(second.checkpoints[0].turns[5].tokens, 3);
    });
  });

  it('reuses a checkpoint whose turns were read anew, each a new object equal field by field (the file read from its start)', () => {
    const { turns, cp } = base();
    const file = new File();
    const first = file.analyse(transcript(turns.slice(0, 10), [cp]));
    const reread = transcript(structuredClone(turns), [structuredClone(cp)]);
    const counted: string[] = [];
    const second = file.analyse(reread, {
      countTokens: (s) => {
        counted.push(s);
        return words(s);
      },
    });
    assert.equal(second.checkpoints[0], first.checkpoints[0], 'the same object');
    assert.deepEqual(counted, [cp.summary], 'no turn counted again (a summary is counted once per analysis)');
    assert.deepEqual(second, fresh(reread));
    // A turn that is not plain data (a class instance, as a turn whose text is on disk) is the same only as itself.
    class Kept {
      constructor(readonly id: number) {}
    }
    const odd = transcript([...turns.slice(0, 9), Object.assign(new Kept(9), turns[9]) as unknown as Turn], [cp]);
    const third = file.analyse(odd);
    assert.equal(third.checkpoints[0], first.checkpoints[0], 'a turn after the checkpoint changes nothing before it');
    const earlier = transcript([Object.assign(new Kept(0), structuredClone(turns[0])) as unknown as Turn, ...turns.slice(1)], [cp]);
    assert.notEqual(file.analyse(earlier).checkpoints[0], first.checkpoints[0], 'a class instance taken as the turn it copies');
  });

  it('takes the turns as judged from the memo when only the ratio floor, encoding, near-budget fraction or coverage threshold changed (re-weighed)', () => {
    const { turns, cp } = base();
    const t = transcript(turns.slice(0, 10), [cp]);
    const changes: { options: Partial<AnalysisOptions>; newCache?: boolean; rejudged: boolean }[] = [
      { options: { ratioFloor: 2 }, rejudged: false },
      { options: { nearBudgetFraction: 0.5 }, rejudged: false },
      { options: { countTokens: (text) => 2 * words(text) }, newCache: true, rejudged: false },
      { options: { coverageThreshold: 3 }, rejudged: false },
      { options: { coverageThreshold: 0.2, ratioFloor: 2 }, rejudged: false },
    ];
    for (const { options, newCache, rejudged } of changes) {
      const file = new File();
      const first = file.analyse(t);
      if (newCache) file.tokenCache = new Map();
      const misses = file.evidenceCache.stats.misses;
      const second = file.analyse(t, options);
      assert.notEqual(second.checkpoints[0], first.checkpoints[0], 'analysed again');
      assert.deepEqual(second, fresh(t, options), JSON.stringify(options));
      // The judged turns' evidence is the same array, not one judged again.
      const sameEvidence = second.checkpoints[0].turns[3].evidence === first.checkpoints[0].turns[3].evidence;
      assert.equal(sameEvidence, !rejudged, `${JSON.stringify(options)}: judged again: ${!sameEvidence}`);
      assert.equal(file.evidenceCache.stats.misses, misses);
    }
  });

  it('keeps reusing a checkpoint when a new one claims only turns already claimed or after it', () => {
    const { turns, cp } = base();
    const file = new File();
    const first = file.analyse(transcript(turns.slice(0, 10), [cp]));
    const next = checkpoint({ summaryId: 'S2', summary: 'src/after/one.ts', claimedIds: [0, 3, 9], turnsBefore: 10, span: span(12) });
    const t = transcript(turns, [cp, next]);
    const second = file.analyse(t);
    assert.equal(second.checkpoints[0], first.checkpoints[0]);
    assert.deepEqual(second, fresh(t));
  });

  it('forgets the id and call of a turn replaced by another, so a later call with that id is found where it is', () => {
    const call = '[tool call Read] {"file_path":"src/ledger/post.ts"}';
    const file = new File();
    const first = [turn(0, 'Fix src/ledger/post.ts'), turn('X', call, { role: 'assistant' }), turn(2, 'ok')];
    file.analyse(transcript(first, []));
    const turns = [
      first[0],
      turn('Y', 'Something else in lib/other.rs', { role: 'assistant' }), // replaces the call X
      first[2],
      turn('X', call, { role: 'assistant' }),
      turn(4, 'export function post() {} in src/ledger/post.ts', { role: 'tool', answers: { turnId: 'X', callText: call } }),
      turn(5, 'Changed src/ledger/post.ts again'),
    ];
    const cp = checkpoint({ summary: 'Read src/ledger/post.ts', summaryBudget: 100, claimedIds: [0, 'X', 4, 5], turnsBefore: 6 });
    const t = transcript(turns, [cp]);
    assert.deepEqual(file.analyse(t), fresh(t));
    assert.deepEqual(indexesOf(file.memo.sync(turns, [cp]), turns, [cp]), indexesOf(new CheckpointMemo().sync(turns, [cp]), turns, [cp]));
  });

  it('keeps no analysis made while a count failed, so the next analysis shows that count', () => {
    const { turns, cp } = base();
    const file = new File();
    const other = checkpoint({ summaryId: 'S2', summary: 'ok', claimedIds: [5], turnsBefore: 10, span: span(12) });
    const t = transcript(turns.slice(0, 10), [cp, other]);
    const failing = (s: string): number => {
      if (s === turns[5].text) throw new Error('no counter');
      return words(s);
    };
    const first = file.analyse(t, { countTokens: failing });
    assert.equal(first.checkpoints[0].turns[5].tokens, undefined);
    const second = file.analyse(t);
    assert.equal(second.checkpoints[0].turns[5].tokens, 3);
    assert.deepEqual(second, fresh(t));
  });

  it('is neither used nor filled by verdictFromBounds', () => {
    const { turns, cp } = base();
    const memo = new CheckpointMemo();
    const options = { ratioFloor: 5, checkpointMemo: memo } as unknown as Parameters<typeof verdictFromBounds>[2];
    assert.ok(verdictFromBounds(transcript(turns, [{ ...cp, summaryBudget: 10_000 }]), new Map(), options));
    memo.sync(turns, [{ ...cp, summaryBudget: 10_000 }]);
    assert.equal(memo.kept(0), undefined);
  });

  /** The indexes of the checkpoints judgeAhead judges for `t` with the file's memo. */
  /**
   * The checkpoints judgeAhead judges (by index). Those whose judgement the memo holds are handed to the judgements
   * as they are, or re-weighed (the same evidence) when it was made at another threshold, for the snapshot's other
   * analyses: every checkpoint is in them after judgeAhead.
   */
  function judgedAhead(t: Transcript, file: File, options: Partial<AnalysisOptions> = {}): number[] {
    const judgements = new JudgementCache();
    runSteps(
      judgeAhead(t, { tokenCache: file.tokenCache, evidenceCache: file.evidenceCache, checkpointMemo: file.memo, ...options, judgements }),
    );
    const indexes = t.checkpoints.map((_, i) => i);
    assert.deepEqual(
      indexes.filter((i) => !judgements.has(i)),
      [],
      'every checkpoint judged or handed over',
    );
    return indexes.filter((i) => !fromMemo(judgements.judgedAt(i)!, file.memo.kept(i)?.judged));
  }

  /** Whether a judgement is the memo's, or the memo's re-weighed: its results' evidence the same arrays. */
  function fromMemo(judged: JudgedTurns, kept: JudgedTurns | undefined): boolean {
    if (!kept) return false;
    return judged === kept || judged.results!.every((r, k) => r.evidence === kept.results![k].evidence);
  }

  it('with the memo, textsToCount and judgeAhead leave out only what an earlier analysis did', () => {
    const { turns, cp } = base();
    const file = new File();
    file.analyse(transcript(turns.slice(0, 10), [cp]));
    const later = checkpoint({ summaryId: 'S2', summary: 'ok', claimedIds: [0, 9], turnsBefore: 10, span: span(12) });
    const t = transcript(turns, [cp, later]);
    assert.deepEqual(
      textsToCount(t, file.tokenCache, file.memo).turns.map((x) => x.id),
      [9],
    );
    assert.deepEqual(judgedAhead(t, file), [1], 'the new checkpoint alone');
    // What the memo holds for S1 was made with another threshold: S1 is re-weighed, not judged. Another token cache
    // (an encoding) or ratio floor changes no judgement: S1's is handed over as it is.
    assert.deepEqual(judgedAhead(t, file, { coverageThreshold: 3 }), [1]);
    assert.deepEqual(judgedAhead(t, file, { tokenCache: new Map() }), [1]);
    assert.deepEqual(judgedAhead(t, file, { ratioFloor: 2 }), [1]);
    // A new checkpoint claiming an earlier turn no one claimed: that turn is counted, S1 is judged again.
    const claiming = { ...later, claimedIds: [5, 9] };
    const u = transcript(turns, [cp, claiming]);
    assert.deepEqual(
      textsToCount(u, file.tokenCache, file.memo).turns.map((x) => x.id),
      [5, 9],
    );
    assert.deepEqual(judgedAhead(u, file), [0, 1]);
  });

  it('on random growing transcripts, every analysis with the memo equals one without, and analyze counts only what textsToCount named', () => {
    fc.assert(
      fc.property(growingArb, ({ lines, steps }) => {
        const file = new File();
        let turns: Turn[] = [];
        let checkpoints: Checkpoint[] = [];
        let read = 0;
        let options: Partial<AnalysisOptions> = {};
        let previous: Analysis | undefined;
        for (const step of steps) {
          // Appended lines, read as a reader that keeps its objects does.
          const end = Math.min(lines.length, read + step.append);
          for (; read < end; read++) {
            const line = lines[read];
            if (line.kind === 'turn') turns.push(line.turn);
            else checkpoints.push(line.cp(turns));
          }
          turns = turns.slice();
          checkpoints = checkpoints.slice();
          if (step.change === 'turn' && turns.length > 0) {
            const i = step.at % turns.length;
            turns[i] = { ...turns[i], text: `${turns[i].text} and LEDGER_${step.at}` };
            if (step.at % 3 === 0) turns[i] = { ...turns[i], id: step.at % 31, answers: { turnId: step.at % 29, callText: 'x' } };
          } else if (step.change === 'rebuild') {
            turns = turns.map((x) => ({ ...x }));
          } else if (step.change === 'checkpoint' && checkpoints.length > 0) {
            const i = step.at % checkpoints.length;
            checkpoints[i] = { ...checkpoints[i], claimedIds: checkpoints[i].claimedIds.slice(1) };
          } else if (step.change === 'options') {
            options = { ratioFloor: 1 + (step.at % 4), coverageThreshold: [1, 0.5, 2, 0.1][(step.at >> 2) % 4] };
          } else if (step.change === 'cache') {
            file.tokenCache = new Map();
          }
          const t = transcript(turns, checkpoints);
          // What the shell counts beforehand; then analyze must count nothing else (summaries aside).
          const named = new Set(textsToCount(t, file.tokenCache, file.memo).turns.map((x) => x.text));
          // The shell judges ahead, as analyzeFile does, and the analysis takes those judgements.
          const judgements = new JudgementCache();
          runSteps(judgeAhead(t, { ...options, evidenceCache: file.evidenceCache, checkpointMemo: file.memo, judgements }));
          const asked: string[] = [];
          const summaries = new Set(checkpoints.map((c) => c.summary));
          const analysis = file.analyse(t, {
            ...options,
            judgements,
            countTokens: (s) => {
              if (!summaries.has(s)) asked.push(s);
              return words(s);
            },
          });
          assert.deepEqual(analysis, fresh(t, options));
          assert.deepEqual(
            indexesOf(file.memo.sync(turns, checkpoints), turns, checkpoints),
            indexesOf(new CheckpointMemo().sync(turns, checkpoints), turns, checkpoints),
            'the same indexes',
          );
          assert.deepEqual(
            asked.filter((s) => !named.has(s)),
            [],
            'counted a turn textsToCount left out',
          );
          if ((step.change === 'none' || step.change === 'rebuild') && previous) {
            // Appended turns alone (the earlier ones as they were, or new objects equal field by field): a
            // checkpoint is reused unless a new one claims an earlier turn no one did.
            const claimedBefore = new Set(previous.checkpoints.flatMap((c) => c.claimedIds));
            const firstNew = Math.min(
              ...checkpoints
                .slice(previous.checkpoints.length)
                .flatMap((c) => c.claimedIds.filter((id) => !claimedBefore.has(id)))
                .map((id) => turns.findIndex((x) => x.id === id))
                .filter((i) => i >= 0),
            );
            previous.checkpoints.forEach((old, i) => {
              if (checkpoints[i].turnsBefore <= firstNew) assert.equal(analysis.checkpoints[i], old, `checkpoint ${i} reused`);
            });
          }
          previous = analysis;
        }
      }),
      { numRuns: 150 },
    );
  });
});

const FRAGMENTS = [
  'ok, go ahead',
  'Fixed ERR_LEDGER_4107',
  'in src/core/ledger.ts',
  'renamed parseEntry',
  'bumped to v4.17.21',
  'see "reconciliation mismatch"',
  'ticket JIRA-881',
  'thanks!',
  'ran npm test',
  '',
];

type Line = { kind: 'turn'; turn: Turn } | { kind: 'checkpoint'; cp: (turns: readonly Turn[]) => Checkpoint };

/** Log lines (turns with repeated ids and answered calls now and then, checkpoints over what precedes them) and how they grow. */
const growingArb = fc
  .record({
    specs: fc.array(
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            kind: fc.constant('turn' as const),
            id: fc.integer({ min: 0, max: 30 }),
            parts: fc.subarray(FRAGMENTS, { minLength: 1, maxLength: 3 }),
            tokens: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
            anchor: fc.option(fc.constantFrom('ERR_LEDGER_4107', 'FACT-1', 'parseEntry'), { nil: undefined, freq: 4 }),
            answers: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined, freq: 3 }),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('checkpoint' as const),
            summary: fc.subarray(FRAGMENTS),
            claimMask: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
            extraIds: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 3 }),
            reported: fc.boolean(),
            budget: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
            recordedSummary: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
            opaque: fc.boolean(),
          }),
        },
      ),
      { maxLength: 40 },
    ),
    steps: fc.array(
      fc.record({
        append: fc.integer({ min: 0, max: 8 }),
        change: fc.constantFrom('none', 'none', 'none', 'none', 'turn', 'rebuild', 'checkpoint', 'options', 'cache'),
        at: fc.nat(),
      }),
      { minLength: 1, maxLength: 10 },
    ),
  })
  .map(({ specs, steps }) => {
    const lines: Line[] = specs.map((s, n) => {
      if (s.kind === 'turn') {
        const t: Turn = turn(s.id, s.parts.join(' '), {}, n + 1);
        if (s.tokens !== undefined) t.tokens = s.tokens;
        if (s.anchor !== undefined) t.anchor = s.anchor;
        if (s.answers !== undefined) t.answers = { turnId: s.answers, callText: `[tool call Read] {"file_path":"src/${s.answers}.ts"}` };
        return { kind: 'turn', turn: t };
      }
      return {
        kind: 'checkpoint',
        cp: (turns: readonly Turn[]): Checkpoint => {
          const claimedIds: TurnId[] = [...turns.filter((_, i) => s.claimMask[i % 40]).map((x) => x.id), ...s.extraIds];
          const cp = checkpoint({
            summaryId: `S${n}`,
            summary: s.summary.join(' '),
            claimedIds,
            turnsBefore: turns.length,
            span: span(n + 1),
            opaque: s.opaque,
          });
          if (s.reported) cp.reportedIds = claimedIds.filter((_, i) => i % 2 === 0);
          if (s.budget !== undefined) cp.summaryBudget = s.budget;
          if (s.recordedSummary !== undefined) cp.recordedSummaryTokens = s.recordedSummary;
          return cp;
        },
      };
    });
    return { lines, steps };
  });
