// Matching a path against transcriptGlobs without a document: the default globs, exclusions, braces, classes.
import assert from 'node:assert/strict';
import { globToRegExp, matchesGlobs } from '../../../src/extension/globMatch';

describe('extension/globMatch', () => {
  const include = ['**/*.jsonl', '**/*.jsonl.gz', '**/*.json', '**/*.af'];
  const exclude = ['**/node_modules/**', '**/.git/**', '**/package.json'];

  it('matches the default globs at any depth and honours the exclusions', () => {
    assert.equal(matchesGlobs('/home/u/.claude/projects/p/s.jsonl.gz', include, exclude), true);
    assert.equal(matchesGlobs('/w/a.af', include, exclude), true);
    assert.equal(matchesGlobs('C:\\w\\s.jsonl.gz', include, exclude), true);
    assert.equal(matchesGlobs('/w/node_modules/x/s.jsonl.gz', include, exclude), false);
    assert.equal(matchesGlobs('/w/package.json', include, exclude), false);
    assert.equal(matchesGlobs('/w/s.jsonl.gz.bak', include, exclude), false);
    assert.equal(matchesGlobs('/w/notes.txt', include, exclude), false);
  });

  it('reads *, ?, **, [...] and {a,b} as VS Code does, escaping the rest', () => {
    assert.equal(globToRegExp('**/*.{jsonl,json}').test('/a/b/c.json'), true);
    assert.equal(globToRegExp('src/[!a]?.ts').test('src/bc.ts'), true);
    assert.equal(globToRegExp('src/[!a]?.ts').test('src/ac.ts'), false);
    assert.equal(globToRegExp('*.jsonl').test('/w/s.jsonl'), false, 'a single * never crosses a folder');
    assert.equal(globToRegExp('a+b(1).jsonl').test('a+b(1).jsonl'), true);
    assert.equal(globToRegExp('**').test('/any/thing'), true);
  });
});
