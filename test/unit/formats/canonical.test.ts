// Unit tests for the canonical JSONL reader: records, pointer resolution, and every kind of bad line
// issue #2 names (each a problem with its line number; the rest still read).
import assert from 'node:assert/strict';
import type { Turn } from '../../../src/core/model';
import { CanonicalReader } from '../../../src/formats/canonical';
import { feed } from './feedLines';

const turn = (id: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'turn', id, role: 'user', content: `text of ${String(id)}`, ...extra });
const checkpoint = (extra: Record<string, unknown>) =>
  JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: 'sum', summary_budget: 100, ...extra });

function read(lines: string[], defaultBudget?: number) {
  return feed(new CanonicalReader({ fileName: 't.jsonl', defaultBudget }), lines.join('\n') + '\n');
}

describe('canonical reader', () => {
  it('reads turns and a checkpoint with a {from,to} range, keeping lines and offsets', () => {
    const t = read([
      turn(0, { tokens: 7, anchor: 'A0' }),
      turn('b'),
      turn(2),
      checkpoint({ covered: { from: 0, to: 'b' }, reported_ids: [0] }),
    ]);
    assert.deepEqual(t.problems, []);
    assert.equal(t.turns.length, 3);
    assert.deepEqual(t.turns[0], {
      id: 0,
      role: 'user',
      text: 'text of 0',
      tokens: 7,
      anchor: 'A0',
      span: { startLine: 1, endLine: 1, startOffset: 0, endOffset: turn(0, { tokens: 7, anchor: 'A0' }).length },
    });
    assert.equal(t.turns[1].span.startLine, 2);
    const cp = t.checkpoints[0];
    assert.deepEqual(cp.claimedIds, [0, 'b']);
    assert.deepEqual(cp.reportedIds, [0]);
    assert.equal(cp.turnsBefore, 3);
    assert.equal(cp.summaryBudget, 100);
    assert.equal(cp.span.startLine, 4);
  });

  it('accepts an explicit array of ids, matching "12" to id 12', () => {
    const t = read([turn(11), turn(12), checkpoint({ covered: ['12'] })]);
    assert.deepEqual(t.checkpoints[0].claimedIds, [12]);
  });

  it('reports invalid JSON, unknown types and missing fields by line, and reads the rest', () => {
    const t = read([
      '{not json',
      JSON.stringify({ type: 'note' }),
      JSON.stringify({ type: 'turn', role: 'user', content: 'x' }),
      turn(1),
      '[1,2]',
      JSON.stringify({ type: 'turn', id: 2, role: 'robot', content: 'x' }),
    ]);
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'error'],
        [2, 'error'],
        [3, 'error'],
        [5, 'error'],
        [6, 'error'],
      ],
    );
    assert.match(t.problems[0].message, /line 1 is not valid JSON/);
    assert.match(t.problems[1].message, /expected "turn" or "checkpoint"/);
    assert.match(t.problems[2].message, /no usable "id"/);
    assert.match(t.problems[4].message, /role "robot"/);
    assert.deepEqual(
      t.turns.map((x) => x.id),
      [1],
    );
  });

  it('reports a duplicate turn id naming both lines, and keeps the first', () => {
    const t = read([turn(1), turn(1)]);
    assert.equal(t.turns.length, 1);
    assert.equal(t.problems[0].line, 2);
    assert.match(t.problems[0].message, /turn id 1 on line 2 was already used on line 1/);
  });

  it('skips a checkpoint before any turn', () => {
    const t = read([checkpoint({ covered: { from: 0, to: 0 } }), turn(0)]);
    assert.equal(t.checkpoints.length, 0);
    assert.match(t.problems[0].message, /comes before any turn/);
  });

  it('skips a range written backwards', () => {
    const t = read([turn(0), turn(1), checkpoint({ covered: { from: 1, to: 0 } })]);
    assert.equal(t.checkpoints.length, 0);
    assert.match(t.problems[0].message, /turn 1 comes after turn 0 in the log/);
  });

  it('keeps a range whose end is not in the file: with integer ids in order it claims the turns up to it by id', () => {
    const t = read([turn(0), turn(1), checkpoint({ covered: { from: 0, to: 99 } })]);
    assert.deepEqual(t.checkpoints[0].claimedIds, [0, 1]);
    assert.equal(t.checkpoints[0].unverifiable, undefined);
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].severity, 'error');
    assert.match(
      t.problems[0].message,
      /claims a range from 0 to 99, but turn 99 is not in this file\. The checkpoint claims the readable turns of the range \(2 turns, 0–1\)/,
    );
  });

  it('one unreadable line at a range endpoint costs that turn, not the checkpoint (issue 10)', () => {
    const broken = '{"type":"turn","id":"a","role":"user","content":"cut off';
    // string ids: the range is placed by where the unreadable line was
    const atStart = read([broken, turn('b'), turn('c'), turn('d'), checkpoint({ covered: { from: 'a', to: 'c' } })]);
    assert.deepEqual(atStart.checkpoints[0].claimedIds, ['b', 'c']);
    assert.equal(atStart.checkpoints[0].unverifiable, undefined);
    assert.deepEqual(
      atStart.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'error'],
        [5, 'error'],
      ],
    );
    assert.match(
      atStart.problems[1].message,
      /turn "a" is on line 1, which could not be read\. The checkpoint claims the readable turns of the range \(2 turns, "b"–"c"\).*Fix the unreadable line/,
    );

    const brokenEnd = '{"type":"turn","id":"c","role":"user","content":"cut off';
    const atEnd = read([turn('a'), turn('b'), brokenEnd, turn('d'), checkpoint({ covered: { from: 'a', to: 'c' } })]);
    assert.deepEqual(atEnd.checkpoints[0].claimedIds, ['a', 'b']);

    // a turn that parses but is unusable (no content) leaves its place too
    const unusable = JSON.stringify({ type: 'turn', id: 0, role: 'user' });
    const numeric = read([unusable, turn(1), turn(2), checkpoint({ covered: { from: 0, to: 2 } })]);
    assert.deepEqual(numeric.checkpoints[0].claimedIds, [1, 2]);
    assert.match(numeric.problems[1].message, /turn 0 is on line 1, which could not be read/);
  });

  it('a range naming only unreadable turns claims nothing and is unverifiable; one naming an unknown string id is unverifiable', () => {
    const broken = '{"type":"turn","id":"x","role":"user","content":"cut';
    const only = read([turn('a'), broken, turn('b'), checkpoint({ covered: { from: 'x', to: 'x' } })]);
    assert.deepEqual(only.checkpoints[0].claimedIds, []);
    assert.match(only.checkpoints[0].unverifiable ?? '', /could not be read from this file/);

    const unknown = read([turn('a'), turn('b'), turn('c'), checkpoint({ covered: { from: 'zz', to: 'b' } })]);
    assert.equal(unknown.checkpoints.length, 1);
    assert.deepEqual(unknown.checkpoints[0].claimedIds, ['a', 'b']);
    assert.match(
      unknown.checkpoints[0].unverifiable ?? '',
      /names a turn not in this file \("zz"\), so which turns it claims is not known/,
    );
    assert.match(unknown.problems[0].message, /"zz" is not a turn before it.*cannot be checked \(fail closed\)/);
  });

  it('keeps the first 1,000 problems and counts the rest in one summary problem', () => {
    const lines = [turn(0), turn(1), checkpoint({ covered: { from: 0, to: 1 } })];
    for (let i = 0; i < 5000; i++) lines.push(i % 2 === 0 ? 'junk' : '{"broken": ');
    const t = read(lines);
    assert.equal(t.turns.length, 2);
    assert.equal(t.checkpoints.length, 1);
    assert.equal(t.problems.length, 1001);
    assert.equal(t.problems[999].line, 1003);
    const summary = t.problems[1000];
    assert.equal(summary.line, 1004);
    assert.equal(summary.severity, 'error');
    assert.match(
      summary.message,
      /^…and 4,000 more unreadable or unusable lines on lines 1,004–5,003 \(4,000 errors\), not listed one by one: only the first 1,000 problems are kept/,
    );
  });

  it('ignores pointers in an id list that do not exist, with a problem, and keeps the rest', () => {
    const t = read([turn(0), checkpoint({ covered: [0, 7, 8] })]);
    assert.deepEqual(t.checkpoints[0].claimedIds, [0]);
    assert.match(t.problems[0].message, /claims ids that are not turns before it: 7, 8/);
  });

  it('treats a negative budget as unknown (error) and a missing one as unknown or the assumed default (warning)', () => {
    const negative = read([turn(0), checkpoint({ covered: [0], summary_budget: -5 })]);
    assert.equal(negative.checkpoints[0].summaryBudget, undefined);
    assert.equal(negative.problems[0].severity, 'error');
    assert.match(negative.problems[0].message, /must be a positive number/);

    const missing = read([turn(0), checkpoint({ covered: [0], summary_budget: undefined })]);
    assert.equal(missing.checkpoints[0].summaryBudget, undefined);
    assert.match(missing.problems[0].message, /no "summary_budget": the ceiling cannot be checked/);

    const assumed = read([turn(0), checkpoint({ covered: [0], summary_budget: undefined })], 512);
    assert.equal(assumed.checkpoints[0].summaryBudget, 512);
    assert.equal(assumed.checkpoints[0].budgetAssumed, true);
  });

  it('reports a cut-off last line as incomplete (a warning), not as corrupt', () => {
    const reader = new CanonicalReader({ fileName: 't.jsonl' });
    const t = feed(reader, `${turn(0)}\n{"type":"turn","id":1,"ro`);
    assert.equal(t.turns.length, 1);
    assert.equal(t.problems[0].severity, 'warning');
    assert.match(t.problems[0].message, /line 2 is incomplete/);
  });

  it('keeps reading after finish(): a growing file', () => {
    const reader = new CanonicalReader({ fileName: 't.jsonl' });
    feed(reader, `${turn(0)}\n`);
    assert.equal(reader.finish().turns.length, 1);
    reader.push({ line: 2, offset: 100, endOffset: 120, text: turn(1), terminated: true });
    reader.push({ line: 3, offset: 121, endOffset: 150, text: checkpoint({ covered: [0, 1] }), terminated: true });
    const t = reader.finish();
    assert.equal(t.turns.length, 2);
    assert.deepEqual(t.checkpoints[0].claimedIds, [0, 1]);
  });

  it("hands each turn to the context's keepTurn once it is read, and keeps what it gives back in its place", () => {
    const given: unknown[] = [];
    const keepTurn = (t: Turn): Turn => {
      given.push(t.id);
      return { ...t, text: t.text.toUpperCase() };
    };
    const call = turn('c', { role: 'assistant', content: 'call' });
    const text = [turn(0), call, turn('r', { role: 'tool', answers: 'c' }), turn(0), checkpoint({ covered: [0, 'c', 'r'] })];
    const t = feed(new CanonicalReader({ fileName: 't.jsonl', keepTurn }), `${text.join('\n')}\n`);
    assert.deepEqual(given, [0, 'c', 'r'], 'each turn read, once; the duplicate was not');
    assert.deepEqual(
      t.turns.map((x) => x.text),
      ['TEXT OF 0', 'CALL', 'TEXT OF R'],
    );
    assert.deepEqual(t.turns[2].answers, { turnId: 'c', callText: 'CALL' }, 'the call is the kept turn');
    assert.deepEqual(t.checkpoints[0].claimedIds, [0, 'c', 'r']);
  });

  it('a turn answers the earlier turn its "answers" (or "reply_to") names, with that turn\'s text as the call', () => {
    const call = JSON.stringify({ type: 'turn', id: 'c', role: 'assistant', content: '[tool call read] {"path":"ledger.py"}' });
    const t = read([turn(0), call, turn('r1', { role: 'tool', answers: 'c' }), turn('r2', { role: 'tool', reply_to: 'c' }), turn(5)]);
    assert.deepEqual(t.problems, []);
    assert.deepEqual(t.turns[2].answers, { turnId: 'c', callText: '[tool call read] {"path":"ledger.py"}' });
    assert.deepEqual(t.turns[3].answers, { turnId: 'c', callText: '[tool call read] {"path":"ledger.py"}' });
    assert.equal(t.turns[4].answers, undefined);
    // ids are matched by their text, as in "covered"
    assert.deepEqual(read([turn(7), turn(8, { answers: '7' })]).turns[1].answers, { turnId: 7, callText: 'text of 7' });
  });

  it('two ids are one when their text is, whatever the number: a duplicate is found, and a pointer finds its turn', () => {
    const minusZero = '{"type":"turn","id":-0,"role":"user","content":"minus zero"}';
    const same: [string, string][] = [
      [turn(12), turn('12')],
      [turn('12'), turn(12)],
      [turn(-3), turn('-3')],
      [turn(0), turn('0')],
      [minusZero, turn('0')],
      [turn(1e15), turn('1000000000000000')],
      [turn(2 ** 53 - 1), turn('9007199254740991')],
      [turn(2 ** 53), turn('9007199254740992')],
      [turn(2 ** 60), turn(String(2 ** 60))],
    ];
    for (const [first, second] of same) {
      const t = read([first, second]);
      assert.equal(t.turns.length, 1, `${first} then ${second}`);
      assert.match(t.problems[0].message, /was already used on line 1/);
    }
    const different: [string, string][] = [
      [turn(12), turn('012')],
      [turn(12), turn('12.0')],
      [turn(5), turn(' 5')],
      [turn(0), turn('-0')],
      [turn(1000), turn('1e3')],
      [turn(2 ** 53), turn('9007199254740993')],
    ];
    for (const [first, second] of different) {
      const t = read([first, second]);
      assert.deepEqual(t.problems, [], `${first} then ${second}`);
      assert.equal(t.turns.length, 2);
    }
    const pointers = read([turn(7), turn('x'), turn(2 ** 53), checkpoint({ covered: ['7', 'x', '9007199254740992', '07'] })]);
    assert.deepEqual(pointers.checkpoints[0].claimedIds, [7, 'x', 2 ** 53]);
    assert.match(pointers.problems[0].message, /claims ids that are not turns before it: "07"/);
  });

  it('an "answers" that is not an earlier turn id is a warning, and the turn answers nothing', () => {
    const t = read([turn(0, { answers: 0 }), turn(1, { answers: 9 }), turn(2, { reply_to: { id: 1 } }), turn(3, { answers: 4 }), turn(4)]);
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'warning'],
        [2, 'warning'],
        [3, 'warning'],
        [4, 'warning'],
      ],
    );
    assert.match(t.problems[1].message, /turn 1 on line 2 answers turn 9, which is not a turn before it in this file/);
    assert.match(t.problems[2].message, /has "reply_to" \{"id":1\}, not a turn id/);
    assert.ok(t.turns.every((x) => x.answers === undefined));
  });

  it('turns with no text, and an empty summary, are warnings', () => {
    const t = read([turn(0, { content: '' }), turn(1, { content: ' ' }), checkpoint({ covered: [0, 1], summary: '' })]);
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'warning'],
        [3, 'warning'],
      ],
    );
    assert.match(t.problems[0].message, /no text could be read from any of its 2 turns: the canonical reader/);
    assert.match(t.problems[1].message, /the summary of checkpoint S1 has no readable text/);
  });
});
