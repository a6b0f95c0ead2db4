// Builds the bundles: the extension host (node, cjs), the CLI (node, cjs), the token-counting worker they both
// start and the judging worker the extension starts (node, cjs; found beside them), the webview (browser) and the library for Node programs (node, cjs;
// package.json's "exports", its types emitted by tsconfig.library.json).
// tiktoken's .wasm is copied beside the node bundles, where tiktoken looks for it first.
// Usage: node esbuild.mjs [--production] [--watch]
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const require = createRequire(import.meta.url);

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  logLevel: 'info',
};

const builds = [
  {
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    define: { PACKAGE_VERSION: JSON.stringify(require('./package.json').version) },
  },
  {
    ...common,
    entryPoints: ['src/node/tokenWorker.ts'],
    outfile: 'dist/tokenWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: ['src/node/judgeWorker.ts'],
    outfile: 'dist/judgeWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    ...common,
    entryPoints: ['src/library.ts'],
    outfile: 'dist/library.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
];

mkdirSync('dist', { recursive: true });
const wasm = join(dirname(require.resolve('tiktoken')), 'tiktoken_bg.wasm');
copyFileSync(wasm, 'dist/tiktoken_bg.wasm');

if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
