// The library as a Node program outside the project uses it: a temp folder whose node_modules/compaction-lens
// links to this repository, so `require('compaction-lens')` and `import … from 'compaction-lens'` resolve
// through package.json's exports to dist/library.js and dist/types/library.d.ts (npm run build makes both).
// The examples of docs/library.md are taken from the doc itself, type-checked against the published types,
// run as child processes, and their output compared with what the doc says they print, so the doc cannot drift.
// And the entry stays an entry: nothing in src imports it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');

/** The fenced block that follows the `<!-- example: NAME … -->` (or `<!-- output: NAME -->`) comment in the doc. */
function blockAfter(doc: string, marker: string): string {
  const at = doc.indexOf(`<!-- ${marker}`);
  assert.ok(at >= 0, `docs/library.md has a "<!-- ${marker}" comment`);
  const open = doc.indexOf('```', at);
  const start = doc.indexOf('\n', open) + 1;
  const end = doc.indexOf('\n```', start);
  assert.ok(open >= 0 && end > start, `a fenced block follows "<!-- ${marker}"`);
  return doc.slice(start, end + 1);
}

function run(file: string, args: string[], cwd: string): string {
  const result = spawnSync(process.execPath, [file, ...args], { cwd, encoding: 'utf8' });
  assert.equal(result.stderr, '', `${file} wrote nothing to stderr`);
  assert.equal(result.status, 0, `${file} exited with 0`);
  return result.stdout;
}

/** Runs tsc on `files` in `dir`; returns its output, and whether it passed. */
function typeCheck(dir: string, project: object): { ok: boolean; output: string } {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(project, null, 2));
  const result = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/**
 * A strict consumer project resolving `compaction-lens` as Node 16+ does (exports), or as older tools do (types).
 * The published declarations themselves are checked (not skipped) once, under node16.
 */
function projectFor(files: string[], resolution: 'node16' | 'node10', options: { checkDeclarations: boolean }): object {
  return {
    compilerOptions: {
      strict: true,
      target: 'es2022',
      module: resolution === 'node16' ? 'node16' : 'commonjs',
      moduleResolution: resolution,
      outDir: 'out',
      skipLibCheck: !options.checkDeclarations,
      // Node's types come from the project's copy.
      typeRoots: [join(root, 'node_modules/@types')],
      types: ['node'],
    },
    files,
  };
}

describe('library (require("compaction-lens"))', function () {
  this.timeout(120000);
  const doc = readFileSync(join(root, 'docs/library.md'), 'utf8');
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-library-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules/compaction-lens'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'agent', private: true }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exports the note’s API, analyze, findFact, correctCheckpoint, the recovery bundle, the file helper and turnReason, from a plain Node program and from an ES module', () => {
    writeFileSync(join(dir, 'names.js'), `console.log(Object.keys(require('compaction-lens')).sort().join(' '));\n`);
    assert.equal(
      run('names.js', [], dir).trim(),
      'COMPRESSION_RATIO_LOW CompactionReversibilityError ENCODINGS TURN_STATUSES UnusableTranscriptError analyze ' +
        'analyzeTranscriptFile buildCheckpoint buildRecoveryBundle checkpointsWithDroppedTurns correctCheckpoint ' +
        'correctedCheckpoints createTokenCounter findFact parseFactQuery reconstruct safePointerSet turnReason writeRecoveryBundle',
    );
    writeFileSync(
      join(dir, 'named.mjs'),
      `import { buildCheckpoint, COMPRESSION_RATIO_LOW } from 'compaction-lens';\n` +
        `console.log(COMPRESSION_RATIO_LOW, buildCheckpoint([{ id: 1, anchorToken: 'x', tokens: 1 }], 'x', 1).coveredIds.join());\n`,
    );
    assert.equal(run('named.mjs', [], dir), '5 1\n');
  });

  it('runs the doc’s audit.js on the incident sample and prints what the doc shows', () => {
    writeFileSync(join(dir, 'audit.js'), blockAfter(doc, 'example: audit.js'));
    assert.equal(run('audit.js', [join(root, 'samples/incident.jsonl'), 'nightly reconcile'], dir), blockAfter(doc, 'output: audit.js'));
  });

  it('says why when the file is no transcript (audit.js exits 2 with the message)', () => {
    writeFileSync(join(dir, 'audit.js'), blockAfter(doc, 'example: audit.js'));
    writeFileSync(join(dir, 'notes.txt'), 'just some notes\n');
    const result = spawnSync(process.execPath, ['audit.js', join(dir, 'notes.txt'), 'nightly reconcile'], { cwd: dir, encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /notes\.txt .*not a transcript/);
  });

  for (const resolution of ['node16', 'node10'] as const) {
    it(`type-checks the doc’s compaction step against the published .d.ts (moduleResolution ${resolution}), runs it, and prints what the doc shows`, () => {
      const consumer = join(dir, resolution);
      mkdirSync(consumer);
      writeFileSync(join(consumer, 'compaction-step.ts'), blockAfter(doc, 'example: compaction-step.ts'));
      const checked = typeCheck(consumer, projectFor(['compaction-step.ts'], resolution, { checkDeclarations: resolution === 'node16' }));
      assert.ok(checked.ok, checked.output);
      assert.equal(run(join(consumer, 'out/compaction-step.js'), [], dir), blockAfter(doc, 'output: compaction-step.ts'));
    });
  }

  it('the published types are precise: a turn without its token count does not type-check', () => {
    const consumer = join(dir, 'wrong');
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'wrong.ts'),
      `import { buildCheckpoint } from 'compaction-lens';\nbuildCheckpoint([{ id: 1, anchorToken: 'x' }], 'x', 1);\n`,
    );
    const checked = typeCheck(consumer, projectFor(['wrong.ts'], 'node16', { checkDeclarations: false }));
    assert.ok(!checked.ok, 'tsc rejects it');
    assert.match(checked.output, /wrong\.ts\(2,17\): error TS2345[^]*Property 'tokens' is missing in type/);
  });
});

/** Every .ts file under `dir`, relative to the project's root. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourcesUnder(`${dir}/${entry.name}`) : entry.name.endsWith('.ts') ? [`${dir}/${entry.name}`] : [],
  );
}

describe('library build', () => {
  it('src/library.ts is only the public entry: nothing in src imports it', () => {
    const importers = sourcesUnder('src').filter((file) =>
      /from '(?:\.\.\/)+library'|from '\.\/library'/.test(readFileSync(join(root, file), 'utf8')),
    );
    assert.deepEqual(importers, []);
  });

  it('package.json points exports and types at the library, and main stays the extension', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    assert.equal(manifest.main, './dist/extension.js');
    assert.equal(manifest.types, './dist/types/library.d.ts');
    assert.deepEqual(manifest.exports['.'], {
      types: './dist/types/library.d.ts',
      require: './dist/library.js',
      default: './dist/library.js',
    });
    // The bundle never loads vscode; the token worker and tiktoken's wasm it starts sit beside it.
    assert.doesNotMatch(readFileSync(join(root, 'dist/library.js'), 'utf8'), /require\("vscode"\)/);
    for (const file of ['tokenWorker.js', 'tiktoken_bg.wasm', 'types/library.d.ts']) assert.ok(existsSync(join(root, 'dist', file)), file);
  });
});
