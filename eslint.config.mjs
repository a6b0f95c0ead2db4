// ESLint (flat config) for the whole project: typescript-eslint's recommended rules everywhere, plus the layering
// rules that keep the pure folders pure. src/core and src/formats import neither `vscode`, the file system nor the
// DOM; src/cli, src/node, src/view and the library entry (src/library.ts) never import `vscode`; the webview never
// imports `vscode` or Node. A static import, a multi-line one, `import type`, `export … from`, a dynamic
// `import()`, `require()` and `import x = require()` are all caught (test/unit/lint/layers.test.ts proves it on
// fixtures).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const VSCODE = { name: 'vscode', message: 'This folder must stay pure: only src/extension talks to VS Code.' };
const FILE_SYSTEM = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
  name,
  message: 'The core and the readers get their input from src/node; they never touch the file system.',
}));
const DOM_GLOBALS = ['window', 'document', 'navigator', 'localStorage', 'HTMLElement', 'customElements', 'DOMParser'].map((name) => ({
  name,
  message: 'The core and the readers run without a DOM.',
}));

/** `no-restricted-syntax` selectors that catch what `no-restricted-imports` cannot see. */
function dynamicImportsOf(names, why) {
  const pattern = `/^(${names.map((n) => n.replace(/[/.]/g, '\\$&')).join('|')})$/`;
  return [
    { selector: `ImportExpression[source.value=${pattern}]`, message: why },
    { selector: 'ImportExpression[source.type!="Literal"]', message: 'A computed import() hides what a pure folder depends on.' },
    { selector: `CallExpression[callee.name="require"][arguments.0.value=${pattern}]`, message: why },
    { selector: `TSImportType[argument.literal.value=${pattern}]`, message: why },
  ];
}

function layer(files, paths, globals = []) {
  const names = paths.map((p) => p.name);
  const why = paths[0].message;
  return {
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths }],
      'no-restricted-syntax': ['error', ...dynamicImportsOf(names, why)],
      ...(globals.length > 0 ? { 'no-restricted-globals': ['error', ...globals] } : {}),
    },
  };
}

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', '.tools/**', 'node_modules/**', 'media/**', 'test/unit/lint/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Finding and escaping control characters in untrusted transcript text is part of the job.
      'no-control-regex': 'off',
    },
  },
  { files: ['scripts/**/*.mjs', '*.mjs'], languageOptions: { globals: globals.node } },
  {
    files: ['scripts/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  layer(['src/core/**/*.ts', 'src/formats/**/*.ts'], [VSCODE, ...FILE_SYSTEM], DOM_GLOBALS),
  layer(['src/cli/**/*.ts', 'src/node/**/*.ts', 'src/view/**/*.ts', 'src/library.ts'], [VSCODE]),
  layer(
    ['webview/**/*.ts'],
    [
      VSCODE,
      ...['fs', 'path', 'child_process', 'os']
        .flatMap((n) => [n, `node:${n}`])
        .map((name) => ({ name, message: 'The webview runs in a browser sandbox.' })),
    ],
  ),
);
