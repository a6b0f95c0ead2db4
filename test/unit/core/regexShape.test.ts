// Tests for src/core/regexShape.ts: the parse of a pattern into quantified atoms, the characters an atom takes,
// widths, and the shapes that backtrack, each under the lint rule's repeats (unbounded only) and the user guard's
// (any variable count).
import * as assert from 'node:assert/strict';
import {
  type Construct,
  type Item,
  INF,
  atomSet,
  charSet,
  firstSet,
  overlaps,
  parse,
  shapes,
  srcOf,
  unbounded,
  width,
} from '../../../src/core/regexShape';

const LINT = { group: unbounded, run: unbounded };
const varies = (item: Item) => item.min !== item.max && width(item.atom).max > 0;
const USER = { group: (item: Item) => varies(item) && item.max > 1, run: varies };

/** The rules found, in order, as `rule:what`. */
function found(source: string, flags = '', repeats = LINT): string[] {
  return shapes(parse(source, flags), flags, repeats).map((s) =>
    s.rule === 'nested' || s.rule === 'alternatives'
      ? `${s.rule}:${s.group.src}`
      : s.rule === 'inRow'
        ? `inRow:${srcOf(s.first)} ${srcOf(s.next)}`
        : `leadingRun:${srcOf(s.run)}`,
  );
}

describe('core/regexShape', () => {
  it('parses alternatives of quantified atoms', () => {
    const tree = parse('a+|(?:b|c){2,5}?\\d*$', '');
    assert.equal(tree.length, 2);
    assert.deepEqual(tree[0], [{ atom: { kind: 'char', src: 'a' }, min: 1, max: INF }]);
    const [group, digits, end] = tree[1];
    assert.equal(group.atom.kind, 'group');
    assert.deepEqual([group.min, group.max], [2, 5]);
    assert.equal(group.atom.kind === 'group' && group.atom.src, '(?:b|c)');
    assert.equal(group.atom.kind === 'group' && group.atom.alts.length, 2);
    assert.deepEqual(digits, { atom: { kind: 'char', src: '\\d' }, min: 0, max: INF });
    assert.deepEqual(end.atom, { kind: 'assert', which: '$' });
  });

  it('reads lookarounds, backreferences, classes and escapes as one atom each', () => {
    const [seq] = parse('(?<!x)(?=y)[^\\]a]\\u{1F600}\\k<n>\\12\\p{L}', 'u');
    assert.deepEqual(
      seq.map((i) =>
        i.atom.kind === 'group' ? `${i.atom.look}${i.atom.negative ? '!' : ''}` : i.atom.kind === 'char' ? i.atom.src : i.atom.kind,
      ),
      ['behind!', 'ahead', '[^\\]a]', '\\u{1F600}', 'backref', 'backref', '\\p{L}'],
    );
    assert.equal(parse('[a[bc]]+', 'v')[0].length, 1, 'a nested class under v is one atom');
  });

  it('reports what a caller may refuse, in source order, before reading it', () => {
    const met: Construct[] = [];
    parse('(?=a)b{2,7}(?i:c)\\1x{12345678901}', '', (c) => met.push(c));
    assert.deepEqual(met, [
      { kind: 'lookaround' },
      { kind: 'repeat', min: 2, max: 7, text: '{2,7}' },
      { kind: 'modifiers' },
      { kind: 'backreference' },
      { kind: 'repeat', min: 12345678901, max: 12345678901, text: '{12345678901}' },
    ]);
    assert.throws(
      () =>
        parse('a{3}(?!b)', '', (c) => {
          if (c.kind === 'lookaround') throw new RangeError('no');
        }),
      RangeError,
    );
  });

  it('asks the engine which characters an atom takes, with the flags', () => {
    const a = charSet('a', '');
    assert.ok(!overlaps(a, charSet('A', '')));
    assert.ok(overlaps(charSet('a', 'i'), charSet('A', '')));
    assert.ok(overlaps(charSet('\\w', ''), charSet('\\d', '')));
    assert.ok(!overlaps(charSet('\\s', ''), charSet('\\S', '')));
    assert.ok(overlaps(charSet('\\u0307', ''), charSet('[\\u0300-\\u036f]', '')), 'combining marks are sampled');
    const [[group]] = parse('(?:x|[0-9])', '');
    assert.ok(overlaps(atomSet(group.atom, ''), charSet('7', '')));
    assert.ok(overlaps(firstSet(parse('a?b', '')[0], ''), charSet('b', '')), 'an optional atom lets the next one start');
    assert.ok(!overlaps(firstSet(parse('ab', '')[0], ''), charSet('b', '')));
  });

  it('measures widths', () => {
    const [[group]] = parse('(?:ab|c{2,4}d?)', '');
    assert.deepEqual(width(group.atom), { min: 2, max: 5 });
    assert.deepEqual(width(parse('(?=abc)', '')[0][0].atom), { min: 0, max: 0 });
  });

  it('finds a repeated group holding a repeat of its own, and overlapping alternatives', () => {
    assert.deepEqual(found('^(a+)+x'), ['nested:(a+)']);
    assert.deepEqual(found('^(?:a|ab)*c'), ['alternatives:(?:a|ab)']);
    assert.deepEqual(found('^(?:a|b)*c'), []);
    assert.deepEqual(found('^(a|a){1,50}b'), [], 'the lint rule repeats without bound only');
    assert.deepEqual(found('^(a|a){1,50}b', '', USER), ['alternatives:(a|a)']);
  });

  it('finds overlapping quantifiers in a row, through optional and shared items', () => {
    assert.deepEqual(found('^.*.*x'), ['inRow:.* .*']);
    assert.deepEqual(found('^x\\s*:?\\s*y'), ['inRow:\\s* \\s*']);
    assert.deepEqual(found('^\\w+\\d+x'), ['inRow:\\w+ \\d+']);
    assert.deepEqual(found('^\\s*\\S+\\s*x'), []);
    assert.deepEqual(found('^a?a?b'), []);
    assert.deepEqual(found('^a?a?b', '', USER), ['inRow:a? a?']);
  });

  it('finds an unanchored search that starts with a run and can fail after it', () => {
    assert.deepEqual(found('\\s+$'), ['leadingRun:\\s+']);
    assert.deepEqual(found('error.*timeout'), ['leadingRun:.*']);
    assert.deepEqual(found('[^x]+$', 'y'), [], 'sticky: tried at one position');
    assert.deepEqual(found('^\\s+$'), [], 'anchored');
    assert.deepEqual(found('^\\s+$', 'm'), ['leadingRun:\\s+'], 'each line start is a new try');
    assert.deepEqual(found('(?<![,.])[,.]+$'), [], 'its own lookbehind makes each run start once');
    assert.deepEqual(found('[\\s\\S]*$'), [], 'takes anything up to the end: cannot fail');
    assert.deepEqual(found('.*$'), ['leadingRun:.*'], 'stops at a line break, then fails at $');
  });

  it('writes an item as its atom and quantifier', () => {
    const [seq] = parse('a{2,}b{3}c{1,4}d?', '');
    assert.deepEqual(seq.map(srcOf), ['a{2,}', 'b{3}', 'c{1,4}', 'd?']);
  });
});
