// Unit tests for the problem cap (src/formats/problemCap.ts) and the readers that use it: the first 1,000
// problems kept, the rest counted in one summary, summaries merged when lists are merged (issue 10).
import assert from 'node:assert/strict';
import type { Problem } from '../../../src/core/model';
import { ClaudeCodeReader } from '../../../src/formats/claudeCode';
import { MessageArrayReader } from '../../../src/formats/messageArray';
import { MAX_KEPT_PROBLEMS, ProblemList, capProblems, isOverflowSummary, problemCount } from '../../../src/formats/problemCap';
import { feed } from './feedLines';

const problem = (line: number, severity: Problem['severity'] = 'error'): Problem => ({ line, severity, message: `line ${line} is bad` });

describe('problem cap', () => {
  it('keeps the first N problems and counts the rest in one summary', () => {
    const list = new ProblemList(3);
    for (let line = 1; line <= 10; line++) list.add(line, line === 7 ? 'warning' : 'error', `line ${line} is bad`);
    const problems = list.list();
    assert.equal(problems.length, 4);
    assert.deepEqual(
      problems.slice(0, 3).map((p) => p.line),
      [1, 2, 3],
    );
    assert.equal(list.size, 10);
    assert.equal(problemCount(problems), 10);
    const summary = problems[3];
    assert.ok(isOverflowSummary(summary));
    assert.equal(summary.line, 4);
    assert.equal(summary.severity, 'error');
    assert.equal(summary.message.split(':')[0], '…and 7 more problems on lines 4–10 (6 errors, 1 warning), not listed one by one');
  });

  it('does not build a message it will not keep', () => {
    const list = new ProblemList(1);
    let built = 0;
    const message = () => {
      built++;
      return 'x';
    };
    for (let line = 1; line <= 100; line++) list.add(line, 'error', message);
    assert.equal(built, 1);
    assert.equal(list.size, 100);
  });

  it('merges summaries when lists are merged, and keeps short lists as they are', () => {
    const a = new ProblemList(2);
    const b = new ProblemList(2);
    for (let line = 1; line <= 5; line++) a.push(problem(line));
    for (let line = 100; line <= 104; line++) b.push(problem(line, 'info'));
    const merged = capProblems(
      [...a.list(), ...b.list()].sort((x, y) => x.line - y.line),
      4,
    );
    assert.equal(merged.length, 5);
    assert.deepEqual(
      merged.slice(0, 4).map((p) => p.line),
      [1, 2, 100, 101],
    );
    assert.equal(problemCount(merged), 10);
    assert.match(merged[4].message, /^…and 6 more problems on lines 3–104 \(3 errors, 3 notes\)/);
    const short = [problem(1), problem(2)];
    assert.deepEqual(capProblems(short), short);
    assert.equal(MAX_KEPT_PROBLEMS, 1000);
  });

  it('a Claude Code reader hands out at most 1,000 problems and the summary', () => {
    const record = JSON.stringify({ type: 'user', uuid: 'u1', sessionId: 's', message: { role: 'user', content: 'hello' } });
    const lines = [record, ...Array.from({ length: 3000 }, () => 'not json')];
    const t = feed(new ClaudeCodeReader({ fileName: 's.jsonl' }), lines.join('\n') + '\n');
    assert.equal(t.problems.length, 1001);
    assert.match(t.problems[1000].message, /^…and 2,000 more unreadable or unusable lines on lines 1,002–3,001/);
  });

  it('a document reader with 160,000 bad lines gives capped problems (spreading them all overflowed the stack)', function () {
    this.timeout(30_000);
    const record = JSON.stringify({
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ],
    });
    const t = feed(new MessageArrayReader({ fileName: 'm.jsonl' }), `${record}\n${'junk\n'.repeat(160_000)}`);
    assert.equal(t.turns.length, 2);
    assert.ok(t.problems.length <= 1002, `${t.problems.length} problems`);
    assert.equal(problemCount(t.problems), 160_000);
  });
});
