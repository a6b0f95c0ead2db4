// Matching a file path against the `transcriptGlobs` setting without a text document (a .jsonl.gz opens in VS
// Code's binary placeholder, which languages.match cannot see): `**`, `*`, `?`, `[…]` and `{a,b}` as VS Code
// reads them, against the whole path with forward slashes, so `**/*.jsonl.gz` matches at any depth. Pure, and
// only ever given the user's own globs and a path, never transcript text.

/** A RegExp equivalent to one glob. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` is any number of whole folders (none included); a bare `**` is anything.
        if (glob[i + 2] === '/') {
          source += '(?:[^/]*/)*';
          i += 2;
        } else {
          source += '.*';
          i += 1;
        }
      } else {
        source += '[^/]*';
      }
    } else if (c === '?') {
      source += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) {
        source += '\\[';
      } else {
        const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else if (c === '{') {
      braces++;
      source += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (c === ',' && braces > 0) {
      source += '|';
    } else {
      source += /[.+^$()|\\]/.test(c) || c === '}' ? `\\${c}` : c;
    }
  }
  source += ')'.repeat(braces);
  return new RegExp(`^${source}$`);
}

/** True when `path` matches one of `include` and none of `exclude` (globs without their `!`). */
export function matchesGlobs(path: string, include: readonly string[], exclude: readonly string[]): boolean {
  const normalised = path.replace(/\\/g, '/');
  // As languages.match reads a string pattern: against the whole path ("*.jsonl" alone matches no absolute path).
  const test = (glob: string) => globToRegExp(glob.replace(/\\/g, '/')).test(normalised);
  return include.some(test) && !exclude.some(test);
}
