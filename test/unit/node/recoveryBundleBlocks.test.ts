// The recovery bundle in blocks (src/core/recoveryBundle.ts): a shell counts a bundle of tens of megabytes block by
// block, never joined, so the blocks' tiktoken counts must add up to the whole bundle's. Checked with tiktoken itself
// on bundles of several blocks (the incident's every turn, and turns whose texts start and end with whitespace, `/`
// and backticks), and the rule a block boundary rests on (piecesRestartAfter) against the encodings' pre-tokenizer
// pieces on random texts over the characters that rule looks at.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import { bundleMarkdown, piecesRestartAfter, writeRecoveryBundle } from '../../../src/core/recoveryBundle';
import { piecesOf, type PiecePattern } from '../../../src/core/tokenPieces';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { incident, withDropped } from '../core/transcripts';

const PATTERNS: PiecePattern[] = ['o200k', 'cl100k'];
const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;

describe('core/recoveryBundle: its blocks, counted one by one', () => {
  const bundles = (() => {
    const t = incident(true);
    const every = writeRecoveryBundle(analyze(t, { countTokens: () => 1 }), t.turns, { kind: 'turns', ids: t.turns.map((x) => x.id) }, {});
    const edges = [' lead', '/etc/passwd', 'trail \n', '```', '\n\nx', "'s it", '\u00a0nbsp', 'x\u2028', '//', '😀'];
    const odd = withDropped(Array.from({ length: 600 }, (_, i) => `${edges[i % edges.length]} ${i} ${edges[(i * 7) % edges.length]}`));
    const dropped = writeRecoveryBundle(
      analyze(odd, { countTokens: () => 1 }),
      odd.turns,
      { kind: 'checkpoints', checkpointIndices: [0] },
      {},
    );
    return { "the incident's every turn": every, 'turns with whitespace, slashes and backticks at their ends': dropped };
  })();

  for (const [name, bundle] of Object.entries(bundles)) {
    it(`add up to the whole bundle's count: ${name}`, () => {
      assert.ok(bundle.blocks.length >= 2, `${bundle.blocks.length} blocks`);
      const markdown = bundleMarkdown(bundle);
      for (const encoding of ENCODINGS) {
        const count = createTokenCounter(encoding);
        const sum = bundle.blocks.reduce((total, block) => total + count(block), 0);
        assert.equal(sum, count(markdown), encoding);
      }
      assert.match(markdown, /[^\n]\n$/, 'one newline at the end');
      for (const block of bundle.blocks.slice(0, -1)) assert.match(block, /[^\n]\n\n$/, 'each other block ends with a blank line');
    });
  }

  it('a block boundary is taken only where the pieces of the join are the pieces of the two', () => {
    const char = fc.constantFrom(' ', '\n', '\r', '\t', '/', '`', '#', '.', "'", 's', 'a', 'Z', '7', '\u00a0', '\u2028', 'é', '😀');
    const text = fc.string({ unit: char, minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(text, text, (head, next) => {
        const block = `${head}\n\n`;
        if (!piecesRestartAfter(block, next)) return;
        for (const pattern of PATTERNS) {
          assert.deepEqual(piecesOf(block + next, pattern), [...piecesOf(block, pattern), ...piecesOf(next, pattern)], pattern);
        }
      }),
      { seed: 1347, numRuns: 5000 },
    );
  });

  it('is not taken before whitespace or a slash, nor after anything but a blank line', () => {
    assert.equal(piecesRestartAfter('x\n\n', 'y'), true);
    assert.equal(piecesRestartAfter('x \n\n', '`y'), true);
    assert.equal(piecesRestartAfter('x\n', 'y'), false);
    assert.equal(piecesRestartAfter('x\n\n', ' y'), false);
    assert.equal(piecesRestartAfter('x\n\n', '\ny'), false);
    assert.equal(piecesRestartAfter('x\n\n', '/y'), false);
    // Why the slash: o200k's punctuation piece takes it after the line ends ("```\n\n/").
    assert.notDeepEqual(piecesOf('```\n\n/y', 'o200k'), [...piecesOf('```\n\n', 'o200k'), ...piecesOf('/y', 'o200k')]);
  });
});
