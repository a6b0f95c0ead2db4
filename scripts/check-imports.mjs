// Lint rule: the pure parts (src/core, src/formats, src/cli, src/node) must not import `vscode`, and
// src/core and src/formats must not import the file system either. (The DOM is kept out by tsconfig.json,
// whose lib has no DOM: any DOM use in src/ fails the type check.) Exits 1 listing each offending line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const rules = [
  { dir: 'src/core', banned: [/['"]vscode['"]/, /['"](node:)?fs(\/promises)?['"]/] },
  { dir: 'src/formats', banned: [/['"]vscode['"]/, /['"](node:)?fs(\/promises)?['"]/] },
  { dir: 'src/cli', banned: [/['"]vscode['"]/] },
  { dir: 'src/node', banned: [/['"]vscode['"]/] },
];
const importLine = /^\s*(import\b|export\b.*\bfrom\b|.*\brequire\()/;

function* files(dir) {
  let entries = [];
  try { entries = readdirSync(dir); } catch { return; }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const failures = [];
for (const rule of rules) {
  for (const file of files(rule.dir)) {
    readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
      for (const pattern of rule.banned) {
        if (importLine.test(text) && pattern.test(text)) {
          failures.push(`${file}:${i + 1}: ${rule.dir} must stay pure, but this line uses ${pattern}: ${text.trim()}`);
        }
      }
    });
  }
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log('check-imports: src/core, src/formats, src/cli and src/node import no vscode; src/core and src/formats no fs');
