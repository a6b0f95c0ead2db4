// The pure-import lint rule (scripts/check-imports.mjs) passes on the project and fails on a tree whose
// core, formats or CLI import `vscode` (or whose core touches the file system).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const script = join(root, 'scripts/check-imports.mjs');

function lint(cwd: string) {
  return spawnSync(process.execPath, [script], { cwd, encoding: 'utf8' });
}

describe('check-imports lint rule', () => {
  it('passes on the project itself', () => {
    const result = lint(root);
    assert.equal(result.status, 0, result.stderr);
  });

  for (const [dir, line] of [
    ['src/core', "import * as vscode from 'vscode';"],
    ['src/formats', "const vscode = require('vscode');"],
    ['src/cli', "import { window } from 'vscode';"],
    ['src/core', "import { readFileSync } from 'node:fs';"],
  ]) {
    it(`fails when ${dir} has: ${line}`, () => {
      const tree = mkdtempSync(join(tmpdir(), 'cl-lint-'));
      try {
        mkdirSync(join(tree, dir), { recursive: true });
        writeFileSync(join(tree, dir, 'bad.ts'), `// a file\n${line}\n`);
        const result = lint(tree);
        assert.equal(result.status, 1);
        assert.match(result.stderr, new RegExp(`${dir}/bad\\.ts:2: ${dir} must stay pure`));
      } finally {
        rmSync(tree, { recursive: true, force: true });
      }
    });
  }
});
