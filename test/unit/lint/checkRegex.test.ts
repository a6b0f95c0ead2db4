// The regex lint rule (scripts/check-regex.mjs) passes on the project and flags patterns with nested or
// overlapping quantifiers, line by line, in a tree of bad and good patterns (src/ and webview/).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const script = join(root, 'scripts/check-regex.mjs');

function lint(cwd: string) {
  return spawnSync(process.execPath, [script], { cwd, encoding: 'utf8' });
}

/** Super-linear on some input: each must be flagged. */
const BAD = [
  '/(a+)+$/',
  '/^(\\w*)*x/',
  '/(?:\\d{1,3})+x/',
  '/^(?:a|ab)*c/',
  '/^(\\w|\\d)+!/',
  '/^.*.*x/',
  '/^\\s*\\s*x/',
  '/^x\\s*:?\\s*y/',
  '/(^|\\n)\\s*\\**1\\.\\s*\\**\\s*Primary Request and Intent/i', // NINE_SECTIONS, before issue 10
  '/^\\S*[/\\\\]\\S*\\.[A-Za-z0-9]{1,8}$/', // isPathOrUrl, before issue 10
  "/([\\p{L}\\p{N}_'’-]+)\\W*$/u", // midClauseEnding, before issue 10
  '/[^\\p{L}\\p{M}\\p{N}_$#]+$/u', // anchors.ts trimming, before issue 10
  '/^["\'`(\\[*]+|["\'`)\\],.;:!?*]+$/g', // the prose-word trim, before issue 10
  '/^\\w+\\d+x/',
  '/^\\s*\\S*\\s*x/',
  '/\\s+$/',
  '/[^x]+$/',
  '/\\s*:/',
  '/\\$\\([^)]*\\)/',
  '/<\\/summary>.*$/',
  "new RegExp('(a+)+b')",
  "RegExp('^(x|xy)+z', 'i')",
];

/** Linear: none may be flagged. */
const GOOD = [
  '/\\s+/g',
  '/^\\s*\\S+$/',
  '/"kind"\\s*:\\s*"(MessageEvent|ActionEvent)"/',
  '/^"(?:\\\\.|[^"\\\\])*"$/',
  '/\\B(?=(\\d{3})+(?!\\d))/g',
  '/>\\s*\\/dev\\/null/',
  '/(?:^|\\n)[^\\S\\n]*\\**1\\.\\s*(?:\\*+\\s*)?Primary Request and Intent/i', // NINE_SECTIONS now
  '/(?<!["\'`)\\],.;:!?*])["\'`)\\],.;:!?*]+$/', // the prose-word trim now
  '/<\\/summary>[\\s\\S]*$/',
  '/-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?/y',
  "/^[a-z]+(?:['’][a-z]+)?$/i",
  '/[^x]+$/y',
  '/"message_type"\\s*:\\s*"\\w+_message"/',
  '/^(?:#{1,6}[ \\t]*)?(?:\\*\\*)?(\\d{1,2})[.)][ \\t]+\\S/gm',
  '/^agent-acompact-.*\\.jsonl(\\.gz)?$/',
  '/[.!?…]$/',
  '/^\\|.*\\|$/',
  "new RegExp('^[a-z]+$')",
  '/(a+)+$/ // check-regex: allow (a test of the allow comment)',
];

describe('check-regex lint rule', function () {
  this.timeout(30000);
  let tree: string;
  before(() => {
    tree = mkdtempSync(join(tmpdir(), 'cl-regex-'));
    mkdirSync(join(tree, 'src', 'core'), { recursive: true });
    mkdirSync(join(tree, 'webview'), { recursive: true });
  });
  after(() => rmSync(tree, { recursive: true, force: true }));

  it('passes on the project itself', () => {
    const result = lint(root);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /none with nested or overlapping quantifiers/);
  });

  for (const [dir, name] of [
    ['src/core', 'bad.ts'],
    ['webview', 'bad.ts'],
  ]) {
    it(`flags each bad pattern in ${dir}, on its own line`, () => {
      writeFileSync(join(tree, dir, name), BAD.map((p, i) => `export const p${i} = ${p};`).join('\n') + '\n');
      try {
        const result = lint(tree);
        assert.equal(result.status, 1);
        const flagged = new Set([...result.stderr.matchAll(new RegExp(`^${dir}/${name}:(\\d+): `, 'gm'))].map((m) => Number(m[1])));
        BAD.forEach((pattern, i) => assert.ok(flagged.has(i + 1), `not flagged: ${pattern}\n${result.stderr}`));
        assert.match(result.stderr, /can backtrack super-linearly/);
      } finally {
        rmSync(join(tree, dir, name));
      }
    });
  }

  it('passes every good pattern', () => {
    writeFileSync(join(tree, 'src/core', 'good.ts'), GOOD.map((p, i) => `export const p${i} = ${p};`).join('\n') + '\n');
    const result = lint(tree);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`check-regex: ${GOOD.length} regular expressions`));
  });

  it('says why: nested, overlapping alternatives, overlapping quantifiers in a row, unanchored search over a run', () => {
    writeFileSync(
      join(tree, 'src/core', 'why.ts'),
      ['/(a+)+$/', '/^(\\w|\\d)+!/', '/^.*.*x/', '/\\s+$/'].map((p, i) => `export const p${i} = ${p};`).join('\n'),
    );
    try {
      const { stderr } = lint(tree);
      assert.match(stderr, /why\.ts:1: \/\(a\+\)\+\$\/ — nested quantifier/);
      assert.match(stderr, /why\.ts:2: .* — overlapping alternatives repeated without bound/);
      assert.match(stderr, /why\.ts:3: .* — overlapping quantifiers in a row: \.\* … \.\*/);
      assert.match(stderr, /why\.ts:4: .* — unanchored search over a run: \\s\+ can fail after it/);
    } finally {
      rmSync(join(tree, 'src/core', 'why.ts'));
    }
  });
});
