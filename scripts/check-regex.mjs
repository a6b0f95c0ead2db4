// Lint rule: no regular expression in src/ or webview/ may backtrack super-linearly on what it is given (issue 10:
// transcripts are untrusted, and one crafted file must not freeze the extension host). It reads every regex
// literal, and every `new RegExp('…')` / `RegExp('…')` whose pattern is a plain string, and flags:
//  - a nested quantifier: a group repeated without bound that holds a quantifier of variable count, up to more
//    than one ((a+)+, (\w*)*, (?:x{1,3})+);
//  - overlapping alternatives repeated without bound: two alternatives that can start with the same character
//    ((a|ab)*, (\w|\d)+);
//  - overlapping quantifiers in a row: two unbounded quantifiers whose characters overlap with only optional
//    items, or single characters both can take, between them (.*.*, \s*\s*, \s*:?\s*, \S*[/\\]\S*, \w+\d+);
//  - an unanchored pattern that starts with an unbounded quantifier (after single characters it also takes) and
//    can fail after it: the engine retries from every position of a long run, so the search is quadratic
//    (\s+$, [^x]+$, (^|\n)\s*x, \$\([^)]*\)). A negative lookbehind of the run's own characters just before it
//    ((?<![,.])[,.]+$) makes each run start once: that is linear, and passes.
// Characters are compared on a sample of code points, asking the regex engine itself which ones an atom takes; the
// parsing and that analysis are src/core/regexShape.ts, shared with the guard for patterns users type.
// A pattern known to be safe (its input is short and ours) is passed by ALLOWED below, or by a comment
// `check-regex: allow <why>` on its line or the line above. Exits 1 listing each finding as file:line.
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOTS = ['src', 'webview'];

/** Findings judged safe, with why: files this rule cannot ask to change their pattern. */
const ALLOWED = [
  {
    file: 'src/extension/statusBar.ts',
    source: '\\$\\([^)]*\\)\\s*',
    why: 'strips $(icon) names from the status bar text Compaction Lens itself writes (a few dozen characters)',
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The rules, on the analysis of src/core/regexShape.ts (shared with the guard for patterns users type; TypeScript,
// so bundled here in memory by esbuild and imported from the bundle's text)

const shapeBundle = esbuild.buildSync({
  entryPoints: [fileURLToPath(new URL('../src/core/regexShape.ts', import.meta.url))],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  logLevel: 'silent',
});
const { parse, shapes, srcOf, unbounded } = await import(
  `data:text/javascript;base64,${Buffer.from(shapeBundle.outputFiles[0].text).toString('base64')}`
);

function findings(source, flags) {
  let tree;
  try {
    tree = parse(source, flags);
  } catch {
    return [];
  }
  const found = shapes(tree, flags, { group: unbounded, run: unbounded }).map((shape) => {
    if (shape.rule === 'nested') return `nested quantifier: ${shape.group.src} repeated without bound holds a quantifier of variable count`;
    if (shape.rule === 'alternatives') return `overlapping alternatives repeated without bound in ${shape.group.src}`;
    if (shape.rule === 'inRow')
      return `overlapping quantifiers in a row: ${srcOf(shape.first)} … ${srcOf(shape.next)} can take the same characters`;
    return `unanchored search over a run: ${srcOf(shape.run)} can fail after it, so it is retried from every position of a long run (quadratic)`;
  });
  return [...new Set(found)];
}

// ---------------------------------------------------------------------------------------------------------------
// Files

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|tsx|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** Regex literals and plain-string RegExp constructions in a file: { line, text, source, flags }. */
function regexesIn(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(file);
      const slash = literal.lastIndexOf('/');
      out.push({ node, text: literal, source: literal.slice(1, slash), flags: literal.slice(slash + 1) });
    } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(file) === 'RegExp') {
      const [pattern, flags] = node.arguments ?? [];
      if (pattern && ts.isStringLiteralLike(pattern) && (!flags || ts.isStringLiteralLike(flags))) {
        out.push({ node, text: node.getText(file), source: pattern.text, flags: flags ? flags.text : '' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const lines = text.split('\n');
  return out.map((r) => {
    const line = file.getLineAndCharacterOfPosition(r.node.getStart(file)).line;
    const allowed = [lines[line], lines[line - 1] ?? ''].some((l) => /check-regex: allow \S/.test(l));
    return { line: line + 1, text: r.text, source: r.source, flags: r.flags, allowed };
  });
}

const failures = [];
let count = 0;
for (const root of ROOTS) {
  for (const path of files(root)) {
    const name = relative('.', path).split('\\').join('/');
    for (const regex of regexesIn(path, readFileSync(path, 'utf8'))) {
      count++;
      if (regex.allowed || ALLOWED.some((a) => a.file === name && a.source === regex.source)) continue;
      for (const why of findings(regex.source, regex.flags)) failures.push(`${name}:${regex.line}: ${regex.text.slice(0, 120)} — ${why}`);
    }
  }
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  console.error(
    `check-regex: ${failures.length} pattern${failures.length === 1 ? '' : 's'} can backtrack super-linearly on a transcript's text. ` +
      'Scan by hand, or make the pattern unambiguous (see the header of scripts/check-regex.mjs).',
  );
  process.exit(1);
}
console.log(`check-regex: ${count} regular expressions in ${ROOTS.join('/ and ')}/, none with nested or overlapping quantifiers`);
