// Packages the extension with vsce (as a user would install it) and checks that the .vsix holds the bundles
// and tiktoken's wasm, and that the packaged CLI counts tokens (in its worker) with node_modules out of reach.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');

describe('packaged .vsix', function () {
  this.timeout(300000);
  let dir: string;
  let files: string[];
  before(() => {
    // A folder outside the project, so nothing can be resolved from the project's node_modules.
    dir = mkdtempSync(join(tmpdir(), 'cl-vsix-'));
    const vsix = join(dir, 'compaction-lens.vsix');
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--no-rewrite-relative-links', '-o', vsix],
      { cwd: root, stdio: 'pipe' },
    );
    files = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).trim().split('\n');
    execFileSync('unzip', ['-q', vsix, '-d', join(dir, 'x')]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the bundles, the token and judging workers and tiktoken_bg.wasm, and no sources or node_modules', () => {
    for (const file of [
      'extension/dist/extension.js',
      'extension/dist/cli.js',
      'extension/dist/tokenWorker.js',
      'extension/dist/judgeWorker.js',
      'extension/dist/webview.js',
      'extension/dist/webview.css',
      'extension/dist/tiktoken_bg.wasm',
      'extension/package.json',
    ]) {
      assert.ok(files.includes(file), `${file} is in the .vsix`);
    }
    assert.deepEqual(
      files.filter((file) => /\/(src|node_modules|test|out)\//.test(file) || file.endsWith('.ts')),
      [],
    );
  });

  it('runs the packaged CLI, which loads the wasm from beside the bundle', () => {
    const extension = join(dir, 'x/extension');
    const result = spawnSync(
      process.execPath,
      [join(extension, 'dist/cli.js'), 'check', '--json', join(extension, 'samples/incident.jsonl')],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr, '', 'the packaged token worker started (no fallback to counting in the main thread)');
    const checkpoint = JSON.parse(result.stdout).files[0].checkpoints[0];
    assert.equal(checkpoint.verdict, 'fail-closed');
    assert.ok(
      checkpoint.summary_tokens > 4000 && checkpoint.summary_tokens <= 4096,
      `summary counted by tiktoken: ${checkpoint.summary_tokens}`,
    );
  });
});
