// Tests for EvidenceCache (src/core/evidenceCache.ts): a hit gives exactly what turnPieces gives, for any turn
// and any mix of turns sharing a text but differing in role, call answered, error flag, reasoning or whether
// their calls are answered separately; an analysis with a kept cache equals one without, and the second
// analysis computes nothing again; judgeAhead works out all analyze looks up (with checkpoints that see a
// call answered and not yet answered), and the analysis that takes its judgements equals one without; the bound on the characters kept holds, least recently used out first (as a model of
// it answers);
// a long pass (piecesInLongPass) answers what is cached and keeps nothing new but a text met again at another turn,
// and a checkpoint with more claimed text than the cache is judged as one (keeping the texts its turns repeat).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze, judgeAhead } from '../../../src/core/analyze';
import { turnPieces } from '../../../src/core/evidence';
import { EvidenceCache, EvidenceSlots, REPEAT_SLOTS } from '../../../src/core/evidenceCache';
import { hashOfText } from '../../../src/core/turnIdIndex';
import { JudgementCache } from '../../../src/core/judgementCache';
import { runSteps } from '../../../src/core/steps';
import type { Role, Turn } from '../../../src/core/model';
import { checkpoint, incident, transcript, turn } from './transcripts';

const OPTS = { countTokens: (t: string) => t.split(/\s+/).filter(Boolean).length };

/** Texts with evidence of every kind, short enough to collide often. */
const TEXTS = [
  '',
  'ok',
  'Fixed src/ledger/batch_7.ts: LEDGER_ENTRY_1007 now posts 42 entries.',
  '[tool call Read] {"file_path":"/home/u/src/a.ts"}',
  '[tool call Bash] {"command":"git commit -m \\"Closed bead\\"","description":"Commit the fix"}',
  '[tool call Edit] {"file_path":"lib/x.ex","old_string":"foo_bar","new_string":"foo_baz"}',
  'error: ENOENT: no such file or directory, open /tmp/missing.json',
  'The user asked to "keep the retry path" and to rename HTMLParser to MarkupReader in parser.go.',
];

const arbTurn: fc.Arbitrary<Turn> = fc
  .record({
    text: fc.oneof(fc.constantFrom(...TEXTS), fc.string({ maxLength: 40 })),
    role: fc.constantFrom<Role>('user', 'assistant', 'tool', 'system'),
    callText: fc.option(fc.constantFrom(...TEXTS), { nil: undefined }),
    error: fc.option(fc.boolean(), { nil: undefined }),
    reasoning: fc.option(fc.oneof(fc.constantFrom(...TEXTS), fc.string({ maxLength: 20 })), { nil: undefined }),
  })
  .map(({ text, role, callText, error, reasoning }, i = 0) => {
    const t = turn(i, text, { role });
    if (callText !== undefined) t.answers = { turnId: 0, callText };
    if (error !== undefined) t.error = error;
    if (reasoning !== undefined) t.reasoning = reasoning;
    return t;
  });

describe('core/EvidenceCache', () => {
  it('gives what turnPieces gives, for turns that share texts but differ in everything else', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(arbTurn, fc.boolean()), { minLength: 1, maxLength: 40 }), fc.nat(4000), (cases, maxChars) => {
        const caches = [new EvidenceCache(), new EvidenceCache({ maxChars })];
        // Twice over: the second pass is answered from the cache (when it kept the entry).
        for (let pass = 0; pass < 2; pass++) {
          for (const [t, separately] of cases) {
            const expected = turnPieces(t, separately);
            for (const cache of caches) assert.deepEqual(cache.piecesOf(t, separately), expected);
          }
        }
        assert.ok(caches[1].size <= maxChars);
      }),
      { numRuns: 300 },
    );
  });

  it('answers a repeated turn from the cache, and tells apart turns whose key parts could run together', () => {
    const cache = new EvidenceCache();
    const a = turn(0, 'Fixed parser.go', { role: 'assistant', reasoning: 'x', answers: { turnId: 1, callText: 'y' } });
    const b = turn(1, 'Fixed parser.go', { role: 'assistant', reasoning: 'x:y' });
    const c = turn(2, 'Fixed parser.go', { role: 'assistant', reasoning: 'x', answers: { turnId: 1, callText: 'y' } });
    cache.piecesOf(a, false);
    cache.piecesOf(b, false);
    assert.deepEqual(cache.stats, { hits: 0, misses: 2 });
    assert.equal(cache.piecesOf(c, false), cache.piecesOf(a, false));
    assert.deepEqual(cache.stats, { hits: 2, misses: 2 });
    cache.piecesOf(a, true);
    assert.deepEqual(cache.stats, { hits: 2, misses: 3 });
    assert.equal(cache.texts, 1);
    // The text's second and third variants are answered from the cache too, not only its first.
    assert.equal(cache.piecesOf(b, false), cache.piecesOf(b, false));
    cache.piecesOf(a, true);
    assert.deepEqual(cache.stats, { hits: 5, misses: 3 });
  });

  it("keeps an analysis the same, and a second analysis with the kept cache works out no turn's evidence again", () => {
    for (const t of [incident(false), incident(true)]) {
      const plain = analyze(t, OPTS);
      const cache = new EvidenceCache();
      const first = analyze(t, { ...OPTS, evidenceCache: cache });
      const misses = cache.stats.misses;
      const second = analyze(t, { ...OPTS, evidenceCache: cache });
      assert.deepEqual(first, plain);
      assert.deepEqual(second, plain);
      assert.equal(cache.stats.misses, misses);
    }
  });

  it('keeps an analysis the same when it holds too few pieces for a checkpoint (let go, then worked out again)', () => {
    const turns = Array.from({ length: 60 }, (_, i) =>
      i % 4 === 3
        ? turn(i, `wrote ${i} lines to src/mod_${i - 1}.ts`, {
            role: 'tool',
            answers: { turnId: i - 1, callText: `[tool call Write] {"file_path":"src/mod_${i - 1}.ts"}` },
          })
        : turn(i, `Updated src/mod_${i}.ts and closed TASK-${i % 7}; ${i % 3 === 0 ? 'ok' : `wrote ${i} tests`}.`, { tokens: 10 }),
    );
    const summary = Array.from({ length: 30 }, (_, i) => `src/mod_${i}.ts TASK-${i}`).join(', ');
    const cps = [30, 60].map((n) =>
      checkpoint({ summary, summaryBudget: 4096, claimedIds: turns.slice(0, n).map((t) => t.id), turnsBefore: n }),
    );
    for (const t of [incident(false), transcript(turns, cps)]) {
      const plain = analyze(t, OPTS);
      const unbounded = new EvidenceCache();
      analyze(t, { ...OPTS, evidenceCache: unbounded });
      for (const maxChars of [0, 200]) {
        const cache = new EvidenceCache({ maxChars });
        assert.deepEqual(analyze(t, { ...OPTS, evidenceCache: cache }), plain);
        // More work than with room for every turn: pieces the cache let go were worked out again.
        assert.ok(cache.stats.misses > unbounded.stats.misses, `${cache.stats.misses} against ${unbounded.stats.misses}`);
      }
    }
  });

  it('analyses a grown transcript (lines appended) as a fresh analysis would, computing only the new turns', () => {
    const turns = Array.from({ length: 60 }, (_, i) =>
      turn(i, `Updated src/mod_${i}.ts and closed TASK-${i}; ${i % 3 === 0 ? 'ok' : `wrote ${i} tests`}.`, { tokens: 10 }),
    );
    const summary = Array.from({ length: 40 }, (_, i) => `src/mod_${i}.ts TASK-${i}`).join(', ');
    const cp = (n: number) => checkpoint({ summary, summaryBudget: 4096, claimedIds: turns.slice(0, n).map((t) => t.id), turnsBefore: n });
    const cache = new EvidenceCache();
    analyze(transcript(turns.slice(0, 50), [cp(50)]), { ...OPTS, evidenceCache: cache });
    const before = cache.stats.misses;
    const grown = transcript(turns, [cp(50), cp(60)]);
    assert.deepEqual(analyze(grown, { ...OPTS, evidenceCache: cache }), analyze(grown, OPTS));
    assert.ok(cache.stats.misses - before <= 10, `recomputed ${cache.stats.misses - before} turns for 10 appended`);
  });

  it('is filled by judgeAhead with everything analyze then looks up; the analysis taking its judgements equals one without', () => {
    const turns = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 2
        ? turn(i, `wrote ${i} lines to notes_${i}.md`, {
            role: 'tool',
            answers: { turnId: i - 1, callText: `[tool call Read] {"file_path":"notes_${i}.md"}` },
          })
        : turn(i, `[tool call Read] {"file_path":"notes_${i + 1}.md"} and TASK-${i}`, { role: 'assistant' }),
    );
    const cps = [10, 20, 30].map((n, k) =>
      checkpoint({
        summaryId: `S${k}`,
        summary: 'notes_3.md TASK-4',
        summaryBudget: 4096,
        claimedIds: turns.slice(0, n).map((t) => t.id),
        turnsBefore: n,
      }),
    );
    for (const t of [incident(false), transcript(turns, cps), transcript(turns.slice(0, 29), cps.slice(0, 2))]) {
      const cache = new EvidenceCache();
      const judgements = new JudgementCache();
      runSteps(judgeAhead(t, { evidenceCache: cache, judgements }));
      const { misses, hits } = cache.stats;
      assert.ok(misses > 0);
      assert.ok(
        t.checkpoints.every((_, i) => judgements.has(i)),
        'every checkpoint judged',
      );
      const taking = analyze(t, { ...OPTS, evidenceCache: cache, judgements });
      assert.deepEqual(cache.stats, { ...cache.stats, misses, hits }, 'analyze looked up no evidence: it took the judgements');
      assert.deepEqual(taking, analyze(t, OPTS));
    }
  });

  it('in a long pass, answers a cached text from the cache and keeps no other', () => {
    const cache = new EvidenceCache({ maxChars: 100_000 });
    const texts = Array.from({ length: 200 }, (_, i) => `Changed src/file_${i}.ts: case ENTRY_${i} ${'x'.repeat(i % 37)}`);
    const turns = texts.map((text, i) => turn(i, text));
    for (const t of turns.slice(0, 10)) cache.piecesOf(t, false);
    const size = cache.size;
    for (let pass = 0; pass < 2; pass++) {
      for (const t of turns) assert.deepEqual(cache.piecesInLongPass(t, false), turnPieces(t, false));
    }
    assert.deepEqual(cache.stats, { hits: 2 * 10, misses: 10 + 2 * 190 });
    assert.equal(cache.texts, 10);
    assert.equal(cache.size, size);
  });

  it('judges a checkpoint whose claimed turns hold more text than the cache as one long pass: the same analysis, nothing kept', () => {
    const turns = Array.from({ length: 80 }, (_, i) =>
      turn(i, `Updated src/mod_${i}.ts and closed TASK-${i % 9}; wrote ${i} tests for ${i % 2 === 0 ? 'LedgerSync' : 'PayoutBatch'}.`),
    );
    const summary = Array.from({ length: 30 }, (_, i) => `src/mod_${i}.ts TASK-${i % 9}`).join(', ');
    const cp = checkpoint({ summary, summaryBudget: 4096, claimedIds: turns.map((t) => t.id), turnsBefore: turns.length });
    const t = transcript(turns, [cp]);
    const chars = turns.reduce((n, x) => n + x.text.length, 0);
    const cache = new EvidenceCache({ maxChars: Math.floor(chars / 2) });
    // Ten turns cached before (an earlier analysis of a shorter transcript): each pass finds them there.
    for (const x of turns.slice(0, 10)) cache.piecesOf(x, false);
    const before = cache.stats;
    assert.deepEqual(analyze(t, { ...OPTS, evidenceCache: cache }), analyze(t, OPTS));
    // Sharing's two passes and the judging meet each turn once each.
    assert.deepEqual(cache.stats, { hits: before.hits + 3 * 10, misses: before.misses + 3 * 70 });
    assert.equal(cache.texts, 10, 'none of the turns computed was kept');
  });

  it('in a long pass asked by index, keeps a text met again at another turn while it fits, not one met again at the same turn', () => {
    const cache = new EvidenceCache({ maxChars: 100_000 });
    const slots = new EvidenceSlots(100);
    // RepeatedTexts keeps one text per slot, by a hash seeded at random for each process: two texts in one slot lose
    // their repeats, by design (about one run in two hundred with fifty texts). These fall in slots of their own.
    const texts: string[] = [];
    const taken = new Set<number>();
    for (let k = 0; texts.length < 50; k++) {
      const text = `Changed src/file_${k}.ts: case ENTRY_${k} ${'x'.repeat(k % 37)}`;
      const slot = (hashOfText(text) | 0) & (REPEAT_SLOTS - 1);
      if (taken.has(slot)) continue;
      taken.add(slot);
      texts.push(text);
    }
    const long = (index: number, text: string) => cache.piecesAt(slots, index, turn(index, text), false, false);
    // Turns 0–49 each hold a text of their own, met again at the same index in a second pass: never kept.
    for (let pass = 0; pass < 2; pass++) {
      texts.forEach((text, i) => assert.deepEqual(long(i, text), turnPieces(turn(i, text), false)));
    }
    assert.equal(cache.texts, 0);
    assert.deepEqual(cache.stats, { hits: 0, misses: 100 });
    // Turns 50–99 hold the texts of turns 0–49 again: each is computed once more and kept, then answered from the cache.
    texts.forEach((text, i) => long(50 + i, text));
    assert.equal(cache.texts, 50);
    for (const [i, text] of texts.entries()) assert.deepEqual(long(i, text), turnPieces(turn(i, text), false));
    assert.deepEqual(cache.stats, { hits: 50, misses: 150 });
    // Asked without an index (an analysis of one checkpoint), nothing is kept, as before.
    const plain = new EvidenceCache({ maxChars: 100_000 });
    for (let k = 0; k < 3; k++) plain.piecesInLongPass(turn(k, texts[0]), false);
    assert.equal(plain.texts, 0);
    // A text that does not fit without letting another go is not kept.
    const small = new EvidenceCache({ maxChars: texts[0].length + texts[1].length + 20 });
    const smallSlots = new EvidenceSlots(10);
    for (const [index, text] of [texts[0], texts[1], texts[2], texts[0], texts[1], texts[2]].entries()) {
      small.piecesAt(smallSlots, index, turn(index, text), false, false);
    }
    assert.equal(small.texts, 2, 'the first two texts met again are kept; the third does not fit');
  });

  it('a long pass over turns that repeat a few texts keeps those texts when there are several checkpoints: the same analysis', () => {
    const texts = Array.from(
      { length: 4 },
      (_, i) => `Updated src/mod_${i}.ts and closed TASK-${i}; wrote ${i} tests for LedgerSync.${' Checked it again.'.repeat(20)}`,
    );
    const turns = Array.from({ length: 120 }, (_, i) => turn(i, texts[i % texts.length]));
    const summary = 'src/mod_0.ts TASK-0, src/mod_2.ts';
    const cps = [40, 80, 120].map((before, k) =>
      checkpoint({
        summaryId: `c${k}`,
        summary,
        summaryBudget: 4096,
        claimedIds: turns.slice(0, before).map((t) => t.id),
        turnsBefore: before,
      }),
    );
    for (const checkpoints of [cps.slice(2), cps]) {
      const t = transcript(turns, checkpoints);
      // Less than one checkpoint's claimed text, more than the four texts: every pass is long.
      const cache = new EvidenceCache({ maxChars: texts.join('').length * 2 });
      assert.deepEqual(analyze(t, { ...OPTS, evidenceCache: cache }), analyze(t, OPTS));
      if (checkpoints.length === 1) {
        // One checkpoint: its three passes keep nothing, as before.
        assert.equal(cache.stats.misses, 3 * 120);
        assert.equal(cache.texts, 0);
      } else {
        assert.equal(cache.stats.misses, 2 * texts.length, 'each text computed at its first two turns');
        assert.equal(cache.texts, texts.length);
      }
    }
  });

  it('stays within its bound, dropping the least recently used texts first', () => {
    const cache = new EvidenceCache({ maxChars: 1000 });
    const texts = Array.from({ length: 200 }, (_, i) => `Changed src/file_${i}.ts: case ENTRY_${i} ${'x'.repeat(i % 37)}`);
    const keep = turn(0, texts[0]);
    for (const [i, text] of texts.entries()) {
      cache.piecesOf(turn(i, text), false);
      cache.piecesOf(keep, false); // used all along: never the least recently used
      assert.ok(cache.size <= 1000, `size ${cache.size} after ${i + 1} texts`);
    }
    const { misses } = cache.stats;
    cache.piecesOf(keep, false);
    assert.equal(cache.stats.misses, misses, 'the text used all along is still cached');
    cache.piecesOf(turn(1, texts[1]), false);
    assert.equal(cache.stats.misses, misses + 1, 'an early, unused text was dropped');
    // A text larger than the whole bound is computed, never kept.
    const big = turn(9, 'Wrote docs/notes_1.md '.repeat(100));
    assert.deepEqual(cache.piecesOf(big, false), turnPieces(big, false));
    assert.ok(cache.size <= 1000);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.texts, 0);
  });

  describe('least recently used out first', () => {
    const texts = Array.from({ length: 12 }, (_, i) => `Changed src/file_${i}.ts: case ENTRY_${i} ${'x'.repeat((i * 7) % 40)}`);
    // The characters each text's entry holds: its size in a cache of its own.
    const chars = texts.map((text, i) => {
      const probe = new EvidenceCache();
      probe.piecesOf(turn(i, text), false);
      return probe.size;
    });

    /** Asks a cache of `maxChars` for the texts in turn; each is answered from it exactly when the model holds it. */
    function asksAsModelled(asks: readonly number[], maxChars: number): void {
      const cache = new EvidenceCache({ maxChars });
      let model: number[] = []; // least recently used first
      for (const [n, i] of asks.entries()) {
        const { misses } = cache.stats;
        cache.piecesOf(turn(i, texts[i]), false);
        const hit = model.includes(i);
        assert.equal(cache.stats.misses === misses, hit, `ask ${n}: text ${i} answered from the cache`);
        model = model.filter((k) => k !== i);
        if (hit || chars[i] <= maxChars) model.push(i);
        while (model.reduce((sum, k) => sum + chars[k], 0) > maxChars) model.shift();
        assert.equal(cache.texts, model.length, `ask ${n}: texts held`);
      }
    }

    it('property: answers from the cache exactly the asks a model of its bound answers', () => {
      fc.assert(
        fc.property(fc.array(fc.nat(texts.length - 1), { maxLength: 300 }), fc.integer({ min: 0, max: 600 }), (asks, maxChars) =>
          asksAsModelled(asks, maxChars),
        ),
        { numRuns: 200 },
      );
    });

    it('answers as the model over long runs, one text asked again and again among others', () => {
      // Thousands of uses: the order's stale records are dropped many times over.
      let seed = 7;
      const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
      const random = Array.from({ length: 20_000 }, () => (next() % 3 === 0 ? 0 : next() % texts.length));
      // Texts left unused while a few are used thousands of times, then let go as the others come back.
      const idle = [...texts.keys(), ...Array.from({ length: 5000 }, (_, k) => 1 + (k % 4)), 5, 6, 7, 8, 9, 10, 11, 0, 5, 6];
      const asks = [...random, ...idle, ...idle];
      const all = chars.reduce((sum, c) => sum + c, 0);
      asksAsModelled(asks, 400); // a few texts held: most asks let one go
      asksAsModelled(asks, Math.floor(0.8 * all)); // most held: thousands of uses between two let go
      asksAsModelled(asks, all); // all held
    });

    it('keeps at most two records of use a text held, plus 1,024, however many texts pass through it', () => {
      const cache = new EvidenceCache({ maxChars: 5 * chars[0] });
      for (let i = 0; i < 20_000; i++) {
        cache.piecesOf(turn(i, `Changed src/file_${i}.ts: case ENTRY_${i}`), false); // a new text each time
        cache.piecesOf(turn(0, texts[0]), false);
        assert.ok(cache.orderRecords <= 2 * cache.texts + 1024 + 4, `${cache.orderRecords} records for ${cache.texts} texts`);
      }
    });
  });

  it('property: asked by index (piecesAt), gives what turnPieces gives, in any bound, kept or in a long pass', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(arbTurn, fc.boolean()), { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(29), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 80 }),
        fc.nat(3000),
        (turns, asks, maxChars) => {
          const cache = new EvidenceCache({ maxChars });
          const slots = new EvidenceSlots(turns.length);
          for (const [at, flip, keep] of asks) {
            const index = at % turns.length;
            const [t, separately] = turns[index];
            const asked = flip ? !separately : separately;
            assert.deepEqual(cache.piecesAt(slots, index, t, asked, keep), turnPieces(t, asked));
          }
          assert.ok(cache.size <= maxChars);
        },
      ),
      { seed: 20261204, numRuns: 400 },
    );
  });

  it('asked by index again, reads no text while the entry is cached; once it is let go, reads it again and keeps nothing of it', () => {
    let reads = 0;
    const counted = (i: number, text: string): Turn => {
      const t = turn(i, text, { role: 'user' });
      Object.defineProperty(t, 'text', {
        get: () => {
          reads++;
          return text;
        },
        enumerable: true,
      });
      return t;
    };
    const a = counted(0, 'Fixed src/ledger/batch_7.ts: LEDGER_ENTRY_1007 now posts 42 entries.');
    const b = counted(1, 'error: ENOENT: no such file or directory, open /tmp/missing.json');
    const cache = new EvidenceCache({ maxChars: 100 });
    const slots = new EvidenceSlots(2);
    const first = cache.piecesAt(slots, 0, a, false, true);
    const afterFirst = reads;
    assert.ok(afterFirst > 0);
    for (let k = 0; k < 5; k++) assert.equal(cache.piecesAt(slots, 0, a, false, true), first);
    assert.equal(reads, afterFirst, 'answered from its entry: no text read');
    // Asked with its calls answered separately, it is another variant: looked up by its text.
    cache.piecesAt(slots, 0, a, true, true);
    assert.ok(reads > afterFirst);
    // b's text pushes a's out of the cache (100 characters): a's slot no longer answers.
    cache.piecesAt(slots, 1, b, false, true);
    assert.equal(cache.texts, 1);
    const reads0 = reads;
    assert.deepEqual(cache.piecesAt(slots, 0, a, true, true), turnPieces(a, true));
    assert.ok(reads > reads0, 'its text read again');
    const released = (slots.entries.find((e) => e?.evicted) ?? {}) as { text?: string; pieces?: { pieces: unknown[] } };
    assert.equal(released.text, '', 'an entry let go of keeps no text');
    assert.deepEqual(released.pieces?.pieces, [], 'nor its pieces');
  });

  it('with more than one checkpoint, an analysis asks by index and equals one that does not', () => {
    const turns = Array.from({ length: 60 }, (_, i) => turn(i, `${TEXTS[i % TEXTS.length]} #${i % 7}`));
    const checkpoints = [20, 40, 60].map((end, k) =>
      checkpoint({
        summaryId: `S${k}`,
        summary: `${TEXTS[k + 2]} ${TEXTS[6]}`,
        claimedIds: turns.slice(0, end).map((t) => t.id),
        turnsBefore: end,
      }),
    );
    for (const maxChars of [400, 100000]) {
      const all = analyze(transcript(turns, checkpoints), { ...OPTS, evidenceCache: new EvidenceCache({ maxChars }) });
      // Each checkpoint alone (one checkpoint: no slots) is analysed as it is among the others.
      checkpoints.forEach((c, k) => {
        const alone = analyze(transcript(turns, [c]), { ...OPTS, evidenceCache: new EvidenceCache({ maxChars }) });
        assert.deepEqual({ ...all.checkpoints[k], index: 0 }, alone.checkpoints[0], `${c.summaryId}, cache of ${maxChars}`);
      });
    }
  });
});
