// The README's layout table must match the tree: every folder of the project (and of src/ and test/) is named in
// it, and every path it names exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
/** Folders that are generated, installed or local, and so not part of the layout. */
const NOT_LAYOUT = new Set(['.git', '.tools', '.test-runs', '.vscode-test', 'node_modules', 'out', 'dist']);

function layoutPaths(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Layout'), readme.indexOf('\n## ', readme.indexOf('## Layout') + 1));
  const paths: string[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const firstCell = line.split('|')[1];
    for (const match of firstCell.matchAll(/`([^`]+)`/g)) paths.push(match[1].replace(/\/$/, ''));
  }
  return paths;
}

function folders(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_LAYOUT.has(entry.name))
    .map((entry) => (dir === '.' ? entry.name : `${dir}/${entry.name}`));
}

describe("README's layout table", () => {
  it('names every folder of the project, of src/ and of test/', () => {
    const named = new Set(layoutPaths());
    for (const folder of [...folders('.'), ...folders('src'), ...folders('test')]) {
      if (folder === 'src' || folder === 'test') continue; // named by their subfolders
      assert.ok(
        named.has(folder) || [...named].some((path) => path.startsWith(`${folder}/`)),
        `${folder}/ is missing from the layout table`,
      );
    }
  });

  it('names nothing that does not exist', () => {
    for (const path of layoutPaths()) assert.ok(existsSync(join(root, path)), `${path} is in the layout table but not in the tree`);
  });
});
