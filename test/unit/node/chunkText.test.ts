// Tests for chunkText (src/node/tokenCounter.ts): its fast path (a text with nothing to cut is returned whole
// without the regular expression's split) gives exactly the pieces the split gives — for every UTF-16 code
// unit as the only break in a run over the limit, and for random texts of runs and whitespace of every kind
// around the run and chunk limits.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { chunkText } from '../../../src/node/tokenCounter';

const RUN_CHARS = 100;
const CHUNK_CHARS = 8000;

/** chunkText as it was before the fast path: the regular expression's split, always. */
function splitChunks(text: string): string[] {
  if (text.length <= RUN_CHARS) return [text];
  const words = text.match(new RegExp(`\\s+|\\S{1,${RUN_CHARS}}`, 'g')) ?? [];
  const chunks: string[] = [];
  let current = '';
  for (const word of words) {
    const continuesRun = current !== '' && !/\s/.test(word[0]) && !/\s/.test(current[current.length - 1]);
    if (continuesRun || current.length + word.length > CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
    current += word;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

describe('node/chunkText', () => {
  it('splits as the regular expression does with any code unit as the only break of a long run', () => {
    for (let c = 0; c < 0x10000; c++) {
      const text = `${'a'.repeat(60)}${String.fromCharCode(c)}${'b'.repeat(60)}`;
      assert.deepEqual(chunkText(text), splitChunks(text), `code unit ${c.toString(16)}`);
    }
  });

  it('splits random texts of runs and whitespace as the regular expression does', () => {
    const space = fc.constantFrom(' ', '\n', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u200b', '\u0085', '\u180e');
    const run = fc.integer({ min: 1, max: 130 }).map((n) => 'x'.repeat(n));
    const text = fc
      .array(fc.oneof(run, space, fc.string({ maxLength: 5 }), fc.constant('y'.repeat(2000))), { maxLength: 80 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => assert.deepEqual(chunkText(t), splitChunks(t))),
      { numRuns: 1000 },
    );
    for (const n of [99, 100, 101, 7999, 8000, 8001]) {
      const t = 'word '.repeat(Math.ceil(n / 5)).slice(0, n);
      assert.deepEqual(chunkText(t), splitChunks(t), `${n} characters`);
    }
  });
});
