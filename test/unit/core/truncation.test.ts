// Tests for src/core/truncation.ts: the tells of a cut-off summary, and no false alarms on complete ones
// (including the real Claude Code summaries in the shared corpus, when it is present).
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { detectTruncation } from '../../../src/core/truncation';
import { skipWithoutShared } from '../../sharedFolder';

const CLAUDE_HINTS = {
  expectedClosings: ['Please continue the conversation'],
  expectedLastSection: 9,
};

function sections(upTo: number, tail = ''): string {
  const names = [
    'Primary Request and Intent',
    'Key Technical Concepts',
    'Files and Code Sections',
    'Errors and fixes',
    'Problem Solving',
    'All user messages',
    'Pending Tasks',
    'Current Work',
    'Optional Next Step',
  ];
  return (
    names
      .slice(0, upTo)
      .map((n, i) => `${i + 1}. ${n}:\n   - Worked on src/ledger.ts and ERR_LEDGER_4107.\n`)
      .join('\n') + tail
  );
}

describe('core/truncation: cut-off summaries', () => {
  it('an empty summary is truncated', () => {
    const r = detectTruncation('  \n ', 0, 4096, undefined);
    assert.equal(r.truncated, true);
    assert.deepEqual(r.reasons, ['summary is empty']);
    assert.equal(r.cutAt, 4);
  });

  it('ends mid-word: quotes the last ~30 characters', () => {
    const s = 'The ledger was migrated on Tuesday. Then, at the reconciliation step, you went fro';
    const r = detectTruncation(s, 1200, 4096, undefined);
    assert.equal(r.truncated, true);
    assert.deepEqual(r.reasons, ['ends mid-clause: “…reconciliation step, you went fro”']);
    assert.equal(r.cutAt, s.length);
  });

  it('ends on a comma, an opening bracket, a colon or a dash', () => {
    for (const s of ['We fixed the parser,', 'See the call (', 'Next steps:', 'The files are [', 'and then —']) {
      const r = detectTruncation(s, 10, undefined, undefined);
      assert.equal(r.truncated, true, s);
      assert.match(r.reasons[0], /^ends mid-clause: “/);
    }
  });

  it('a short summary is quoted whole, whitespace collapsed', () => {
    assert.deepEqual(detectTruncation('we\n  went', 2, undefined, undefined).reasons, ['ends mid-clause: “we went”']);
  });

  it('a last line without final punctuation is no tell when the summary leaves its lines so, unless it ends on a dangling word', () => {
    const styled =
      '**Tests**: 384 passing\n\n**Worktree**: /tmp/wt used for the fix\n\n**Setup**: Search "discord groups" for the multi-bot configuration';
    assert.equal(detectTruncation(styled, 10, undefined, undefined).truncated, false);
    assert.equal(detectTruncation(`${styled} and the`, 10, undefined, undefined).truncated, true);
    // A summary that punctuates its lines gives itself away when the last one stops.
    const punctuated = 'The parser was fixed.\nThe ledger tests pass.\nNext, the assistant was reading the config to see where';
    assert.equal(detectTruncation(punctuated, 10, undefined, undefined).truncated, true);
  });

  it('a list item or heading that ends on a dangling word is mid-clause', () => {
    assert.equal(detectTruncation('Pending:\n- Fix the parser and the', 10, undefined, undefined).truncated, true);
    assert.equal(detectTruncation('## Next steps for the', 10, undefined, undefined).truncated, true);
  });

  it('summary tokens at or within 3% of the budget', () => {
    const r = detectTruncation('A complete sentence.', 4093, 4096, undefined);
    assert.deepEqual(r.reasons, ['summary is at its budget: 4093 of 4096 tokens']);
    assert.equal(detectTruncation('Done.', 3974, 4096, undefined).truncated, true); // 4096 × 0.97 = 3973.12
    assert.equal(detectTruncation('Done.', 3973, 4096, undefined).truncated, false);
    assert.equal(detectTruncation('Done.', 3973, 4096, undefined, 0.05).truncated, true);
    assert.deepEqual(detectTruncation('Done.', 5000, 4096, undefined).reasons, ['summary is over its budget: 5000 of 4096 tokens']);
  });

  it('an unknown or nonsense budget adds no budget reason', () => {
    for (const b of [undefined, 0, -5, NaN, Infinity]) {
      assert.equal(detectTruncation('Done.', 4096, b, undefined).truncated, false, String(b));
    }
  });

  it('hints: missing closing line, unclosed raw output, missing last section', () => {
    const s = sections(7, '\nThe text stops here.');
    const r = detectTruncation(s, 100, undefined, {
      ...CLAUDE_HINTS,
      rawOutputClosed: false,
      rawClosingMarker: '</summary>',
    });
    assert.deepEqual(r.reasons, [
      'no closing “Please continue the conversation…” line',
      'last numbered section 9 is missing; the text stops in section 7',
      'raw summariser output has no closing </summary>',
    ]);
    assert.deepEqual(detectTruncation('No sections at all.', 5, undefined, { expectedLastSection: 9 }).reasons, [
      'last numbered section 9 is missing; the text has no numbered sections',
    ]);
    assert.deepEqual(detectTruncation('Done.', 5, undefined, { rawOutputClosed: false }).reasons, [
      'raw summariser output has no closing marker',
    ]);
  });

  it("the note's incident: several tells at once", () => {
    const s = sections(7, '\n8. Current Work:\n   Migrating the ledger; at turn 380 you went fro');
    const r = detectTruncation(s, 4093, 4096, CLAUDE_HINTS);
    assert.equal(r.truncated, true);
    assert.equal(r.reasons.length, 4);
    assert.match(r.reasons[0], /^ends mid-clause: “…/);
    assert.match(r.reasons[1], /4093 of 4096 tokens/);
    assert.match(r.reasons[3], /stops in section 8/);
  });
});

describe('core/truncation: complete summaries are not flagged', () => {
  const complete = [
    'The user asked for a ledger migration. It is done.',
    'All tests pass!',
    'Is the parser fixed?',
    'We changed three files (src/a.ts, src/b.ts, src/c.ts)',
    'Results: [1, 2, 3]',
    'Config: {"a": 1}',
    'He said "ship it"',
    'She wrote ‘done’',
    'Example:\n```ts\nconst x = 1;\n```',
    'Pending tasks:\n- Fix the parser.\n- Run the tests.',
    'Pending tasks:\n- Fix the parser\n- Run the full test suite',
    'Pending tasks:\n1. Fix the parser\n2. Update src/core/analyze.ts',
    '| a | b |\n|---|---|\n| 1 | 2 |',
    'Wrapped up.\n\n---',
    '<summary>All done.</summary>',
    'It worked…',
    'The full transcript is at: /home/USER/.claude/projects/x/258c7280.jsonl',
    'The **bold claim**',
  ];
  for (const s of complete) {
    it(JSON.stringify(s.length > 40 ? s.slice(0, 40) + '…' : s), () => {
      const r = detectTruncation(s, 50, 4096, undefined);
      assert.deepEqual(r.reasons, []);
      assert.equal(r.truncated, false);
      assert.equal(r.cutAt, undefined);
    });
  }

  it('a complete Claude Code–shaped summary with its closing line and nine sections', () => {
    const s = sections(
      9,
      '\nPlease continue the conversation from where we left off without asking the user any further questions. Continue with the last task that you were asked to work on.\n',
    );
    assert.deepEqual(detectTruncation(s, 2000, 4096, CLAUDE_HINTS).reasons, []);
    // Closings are matched without regard to case, near the end.
    assert.deepEqual(detectTruncation(s.toUpperCase(), 2000, 4096, CLAUDE_HINTS).reasons, []);
  });

  it('the real Claude Code summaries in the corpus do not end mid-clause', function () {
    const dir = resolve(__dirname, '../../../../../shared/corpus/claude-code');
    skipWithoutShared(this, existsSync(dir), `the corpus at ${dir}`);
    let seen = 0;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl.gz'))) {
      for (const line of gunzipSync(readFileSync(join(dir, name)))
        .toString('utf8')
        .split('\n')) {
        if (!line.includes('"isCompactSummary":true')) continue;
        const record = JSON.parse(line) as { message: { content: string | { text?: string }[] } };
        const c = record.message.content;
        const text = typeof c === 'string' ? c : c.map((b) => b.text ?? '').join('');
        const r = detectTruncation(text, 3000, undefined, { expectedLastSection: 9 });
        assert.deepEqual(r.reasons, [], name);
        seen++;
      }
    }
    assert.equal(seen, 4);
  });
});
