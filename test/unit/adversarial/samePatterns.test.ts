// The linear replacements of issue 10 match what the super-linear patterns they replaced matched: checked on
// short random strings over the characters that matter (where the old patterns are still fast).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPathWithExtension } from '../../../src/core/truncation';
import { MessageArrayReader } from '../../../src/formats/messageArray';
import { feed } from '../formats/feedLines';

const OLD_PATH_OR_URL = /^\S*[/\\]\S*\.[A-Za-z0-9]{1,8}$/;
const OLD_NINE_SECTIONS = /(^|\n)\s*\**1\.\s*\**\s*Primary Request and Intent/i;

const textOf = (parts: readonly string[], maxLength: number) => fc.array(fc.constantFrom(...parts), { maxLength }).map((a) => a.join(''));

describe('adversarial: the linear patterns match what the old ones matched', () => {
  it('isPathWithExtension = /^\\S*[/\\\\]\\S*\\.[A-Za-z0-9]{1,8}$/', () => {
    const parts = ['/', '\\', '.', 'a', 'Z', '9', ' ', '\t', '\u00a0', 'é', '-', ':', 'abcdefghi', 'src/a.ts'];
    fc.assert(
      fc.property(textOf(parts, 14), (word) => {
        assert.equal(isPathWithExtension(word), OLD_PATH_OR_URL.test(word), JSON.stringify(word));
      }),
      { numRuns: 20000 },
    );
  });

  it('the nine-section summary hint (message-array reader) = /(^|\\n)\\s*\\**1\\.\\s*\\**\\s*Primary Request and Intent/i', () => {
    const parts = [
      ' ',
      '\n',
      '\t',
      '\r',
      '*',
      '**',
      '1',
      '.',
      '1.',
      'x',
      '\u00a0',
      '\u2028',
      'Primary Request and Intent',
      'PRIMARY request AND intent',
      '# ',
    ];
    fc.assert(
      fc.property(textOf(parts, 10), (text) => {
        const summary = `Here is a summary of the conversation to date:${text}`;
        const chat = [
          { role: 'user', content: 'Fix ERR_4107' },
          { role: 'user', content: summary },
        ];
        const cp = feed(new MessageArrayReader({ fileName: 'chat.json' }), JSON.stringify(chat)).checkpoints[0];
        assert.equal(cp.truncationHints?.expectedLastSection === 9, OLD_NINE_SECTIONS.test(summary), JSON.stringify(summary));
      }),
      { numRuns: 2000 },
    );
  });
});
