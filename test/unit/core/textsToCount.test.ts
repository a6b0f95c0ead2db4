// Tests for textsToCount (src/core/analyze.ts): it names exactly the texts analyze tokenizes — on a hand-made
// transcript with every case spelled out, and on random transcripts where, once its turns are in the cache
// and its summaries are served from a map, analyze calls the token counter zero times and gives the same
// analysis as with a plain counter.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze, textsToCount, textsToCountInSteps } from '../../../src/core/analyze';
import { runSteps } from '../../../src/core/steps';
import type { Checkpoint, TokenCache, Transcript, Turn, TurnId } from '../../../src/core/model';
import { checkpoint, incident, span, transcript, turn } from './transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;

/** analyze with the cache filled and the summaries served as textsToCount says; counts other counter calls. */
function analyzePrecounted(t: Transcript, cache: TokenCache = new Map()) {
  const { turns, summaries } = textsToCount(t, cache);
  for (const turn of turns) {
    const text = typeof turn.text === 'string' ? turn.text : '';
    cache.set(text, words(text));
  }
  const served = new Map(summaries.map((s) => [s, words(s)]));
  const unexpected: string[] = [];
  const analysis = analyze(t, {
    countTokens: (text) => {
      const n = served.get(text);
      if (n !== undefined) return n;
      unexpected.push(text);
      return words(text);
    },
    tokenCache: cache,
  });
  return { analysis, unexpected, turns, summaries };
}

describe('core/textsToCount', () => {
  it('names the claimed, unrecorded, uncached turns before a checkpoint, and the unrecorded summaries', () => {
    const shared = turn(3, 'shared object');
    const turns: Turn[] = [
      turn(0, 'claimed, counted'),
      turn(1, 'claimed, recorded', { tokens: 7 }),
      turn(2, 'not claimed by anyone'),
      shared,
      shared, // the same Turn object twice: counted once
      turn(8, 'claimed, counted'), // another turn with the same text: counted once
      turn('s', 'claimed by the second checkpoint only'),
      turn(6, 'claimed, bad recorded count', { tokens: -1 }),
      turn(7, 'claimed, but after every checkpoint'),
    ];
    const t = transcript(turns, [
      checkpoint({ summaryId: 'A', summary: 'same summary', claimedIds: [0, 1, 3, 7, 8], turnsBefore: 3 }),
      checkpoint({ summaryId: 'B', summary: 'same summary', claimedIds: ['s', 6], turnsBefore: 8 }),
      checkpoint({ summaryId: 'C', summary: 'recorded', recordedSummaryTokens: 2, claimedIds: [], turnsBefore: 0 }),
      checkpoint({ summaryId: 'D', summary: 'encrypted', opaque: true, claimedIds: [], turnsBefore: 1 }),
    ]);
    const { turns: counted, summaries } = textsToCount(t);
    assert.deepEqual(counted, [turns[0], shared, turns[6], turns[7]]);
    assert.deepEqual(summaries, ['same summary', 'encrypted']);
    // Keeping repeats (texts read back from disk): every such turn is named, a repeated text or turn too.
    const kept = runSteps(textsToCountInSteps(t, new Map([[turns[7].text, 1]]), undefined, true));
    assert.deepEqual(kept.turns, [turns[0], shared, shared, turns[5], turns[6]]);
    assert.deepEqual(kept.summaries, summaries);
  });

  it('needs nothing for a rebuilt transcript (new Turn objects, same texts), as readers that re-read after an append make', () => {
    const build = () => transcript([turn(0, 'alpha beta'), turn(1, 'gamma')], [checkpoint({ claimedIds: [0, 1], turnsBefore: 2 })]);
    const cache: TokenCache = new Map();
    analyze(build(), { countTokens: words, tokenCache: cache });
    const rebuilt = build();
    assert.deepEqual(textsToCount(rebuilt, cache).turns, []);
    const { unexpected } = analyzePrecounted(rebuilt, cache);
    assert.deepEqual(unexpected, []);
  });

  it('leaves out turns already in the cache', () => {
    const t = transcript([turn(0, 'a b'), turn(1, 'c d')], [checkpoint({ claimedIds: [0, 1], turnsBefore: 2 })]);
    const cache: TokenCache = new Map([[t.turns[0].text, 2]]);
    assert.deepEqual(textsToCount(t, cache).turns, [t.turns[1]]);
  });

  it('reaches as far as a checkpoint whose position is clamped, and skips records that are not objects', () => {
    const turns = [turn(0, 'x'), turn(1, 'y')];
    const t = transcript(turns, [
      null as unknown as Checkpoint,
      { ...checkpoint({ claimedIds: [0, 1], turnsBefore: 0 }), turnsBefore: Number.NaN, summary: 42 as unknown as string },
    ]);
    const { turns: counted, summaries } = textsToCount(t);
    assert.deepEqual(counted, turns);
    assert.deepEqual(summaries, ['']); // analyze counts a non-string summary as ''
    assert.deepEqual(analyzePrecounted(t).unexpected, []);
  });

  it('names nothing for a transcript without checkpoints, or for garbage', () => {
    assert.deepEqual(textsToCount(transcript([turn(0, 'x')], [])), { turns: [], summaries: [] });
    assert.deepEqual(textsToCount(undefined as unknown as Transcript), { turns: [], summaries: [] });
  });

  it("the note's incident: nothing (its turns and its summary record their tokens), or just the summary", () => {
    const t = incident(false);
    assert.deepEqual(textsToCount(t), { turns: [], summaries: [] });
    const unrecorded = { ...t, checkpoints: [{ ...t.checkpoints[0], recordedSummaryTokens: undefined }] };
    const { turns, summaries } = textsToCount(unrecorded);
    assert.equal(turns.length, 0);
    assert.equal(summaries.length, 1);
    assert.ok(summaries[0] === t.checkpoints[0].summary, 'the summary text');
  });

  it('after pre-counting, analyze calls countTokens zero times and gives the same analysis (random transcripts)', () => {
    const ids: TurnId[] = [0, 1, 2, 3, 4, 5, 'a', 'b'];
    const turnArb = fc.record({
      id: fc.constantFrom(...ids),
      text: fc.oneof(fc.constantFrom('alpha beta', 'gamma', '', 'src/x.ts ERR_9'), fc.constant(undefined)),
      tokens: fc.option(fc.constantFrom(0, 5, -1, Number.NaN, 1.5), { nil: undefined }),
    });
    const cpArb = fc.record({
      summary: fc.option(fc.constantFrom('alpha', 'gamma src/x.ts', ''), { nil: undefined }),
      claimedIds: fc.subarray(ids),
      turnsBefore: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constant(Number.NaN), fc.constant(2.5)),
      recordedSummaryTokens: fc.option(fc.constantFrom(3, -1), { nil: undefined }),
      opaque: fc.boolean(),
      budget: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 10 }), fc.array(cpArb, { maxLength: 4 }), fc.boolean(), (specs, cps, reuse) => {
        const turns: Turn[] = specs.map((s, i) => ({
          id: s.id,
          role: 'user',
          text: s.text as string,
          ...(s.tokens !== undefined ? { tokens: s.tokens } : {}),
          span: span(i + 1),
        }));
        if (reuse && turns.length > 1) turns[turns.length - 1] = turns[0];
        const checkpoints: Checkpoint[] = cps.map((c, i) => ({
          summaryId: `S${i}`,
          summary: c.summary as string,
          claimedIds: c.claimedIds,
          turnsBefore: c.turnsBefore,
          opaque: c.opaque,
          span: span(100 + i),
          ...(c.recordedSummaryTokens !== undefined ? { recordedSummaryTokens: c.recordedSummaryTokens } : {}),
          ...(c.budget !== undefined ? { summaryBudget: c.budget } : {}),
        }));
        const t = transcript(turns, checkpoints);
        const { analysis, unexpected } = analyzePrecounted(t);
        assert.deepEqual(unexpected, []);
        assert.deepEqual(analysis, analyze(t, { countTokens: words, tokenCache: new Map() }));
      }),
      { numRuns: 400 },
    );
  });

  it('names nothing new after an analysis filled the cache, and only the new turns after an append', () => {
    const turns = [turn(0, 'one two'), turn(1, 'three')];
    const t = transcript(turns, [checkpoint({ claimedIds: [0, 1, 2], turnsBefore: 2 })]);
    const cache: TokenCache = new Map();
    analyze(t, { countTokens: words, tokenCache: cache });
    assert.deepEqual(textsToCount(t, cache).turns, []);
    const grown = transcript(
      [...turns, turn(2, 'four'), turn(3, 'five')],
      [
        checkpoint({ claimedIds: [0, 1, 2], turnsBefore: 2 }),
        checkpoint({ summaryId: 'S2', summary: 'later', claimedIds: [2, 3], turnsBefore: 4 }),
      ],
    );
    const { turns: counted, unexpected } = analyzePrecounted(grown, cache);
    assert.deepEqual(counted, [grown.turns[2], grown.turns[3]]);
    assert.deepEqual(unexpected, []);
  });
});
