// Tests of the Claude Code reader: the real sessions of the shared corpus (expected numbers counted independently,
// see the comments), small hand-written sessions for each compaction shape, and a fuzz test.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SideFile, TextKeeper, Transcript, Turn } from '../../../src/core/model';
import { TurnTextStore } from '../../../src/node/turnTextsOnDisk';
import { ClaudeCodeReader } from '../../../src/formats/claudeCode';
import { CORPUS, corpusBytes, feed, feedAppending, requireCorpus, splitLines } from './feedLines';
import { fuzzReader } from './fuzz';
import { analyze } from '../../../src/core/analyze';
import { cheapTokens } from '../fuzz/fuzzCore';

function sideFilesOf(relative: string): SideFile[] {
  const stem = relative.replace(/\.jsonl(\.gz)?$/, '');
  const folder = join(CORPUS, 'claude-code', stem, 'subagents');
  if (!existsSync(folder)) return [];
  return readdirSync(folder).map((name) => ({ path: join(folder, name), text: readFileSync(join(folder, name), 'utf8') }));
}

function readCorpus(relative: string): Transcript {
  const reader = new ClaudeCodeReader({ fileName: relative, sideFiles: sideFilesOf(relative), defaultBudget: 20000 });
  return feed(reader, corpusBytes(join('claude-code', relative)));
}

const OPENING = 'This session is being continued from a previous conversation that ran out of context.';

/*
 * Expected values, counted with one-off Python scripts over the decompressed files (not with this reader):
 *  - turns: distinct assistant message.id + user records that are not isMeta, isCompactSummary,
 *    isVisibleInTranscriptOnly or isSidechain (deduplicated by uuid);
 *  - claimed: walk parentUuid from logicalParentUuid (or, when it dangles, from the last user/assistant record before
 *    the boundary) until a compact_boundary or a missing parent; count distinct message.ids and non-meta user records
 *    on the chain, plus tool_result records answering a tool_use of a claimed message.id (parallel tool calls);
 *  - boundary lines and preTokens: grep -n compact_boundary, as listed in corpus/SOURCES.md.
 */
const SESSIONS = [
  {
    file: '258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz',
    turns: 343,
    boundary: 1256,
    summaryLine: 1257,
    claimed: 229,
    preTokens: 167094,
    trigger: 'auto',
  },
  {
    file: '4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz',
    turns: 292,
    boundary: 754,
    summaryLine: 755,
    claimed: 132,
    preTokens: 170251,
    trigger: 'auto',
  },
  {
    file: '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz',
    turns: 322,
    boundary: 714,
    summaryLine: 715,
    claimed: 160,
    preTokens: 167731,
    trigger: 'auto',
  },
  {
    file: 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.gz',
    turns: 463,
    boundary: 1481,
    summaryLine: 1482,
    claimed: 287,
    preTokens: 142431,
    trigger: 'manual',
  },
];

describe('formats/claudeCode: real sessions of the corpus', function () {
  this.timeout(20000);
  before(function () {
    requireCorpus(this);
  });

  for (const s of SESSIONS) {
    describe(s.file, () => {
      let t: Transcript;
      before(() => {
        t = readCorpus(s.file);
      });
      it('reads its turns and one checkpoint at the boundary line', () => {
        assert.equal(t.format, 'claude-code');
        assert.equal(t.turns.length, s.turns);
        assert.equal(t.checkpoints.length, 1);
        const cp = t.checkpoints[0];
        assert.equal(cp.span.startLine, s.boundary);
        assert.equal(cp.span.endLine, s.summaryLine);
        assert.ok(cp.summary.startsWith(OPENING), cp.summary.slice(0, 80));
        assert.equal(cp.recordedPrefixTokens, s.preTokens);
        assert.ok(cp.notes?.some((n) => n.startsWith('preTokens ') && n.includes('recorded by Claude Code')));
        assert.ok(cp.notes?.includes(`trigger: ${s.trigger}`));
      });
      it('claims the turns on the parentUuid chain', () => {
        const cp = t.checkpoints[0];
        assert.equal(cp.claimedIds.length, s.claimed);
        assert.equal(cp.turnsBefore, s.claimed); // every turn before the boundary is on the chain in these sessions
        const ids = new Set(t.turns.slice(0, cp.turnsBefore).map((turn) => turn.id));
        for (const id of cp.claimedIds) assert.ok(ids.has(id));
      });
      it('uses the acompact side file: the raw output closed </summary>', () => {
        const hints = t.checkpoints[0].truncationHints!;
        assert.equal(hints.rawOutputClosed, true); // all four raw outputs end with "</summary>" (tail -c of each file)
        assert.equal(hints.rawClosingMarker, '</summary>');
        assert.equal(hints.expectedLastSection, 9);
        if (s.trigger === 'auto') assert.deepEqual(hints.expectedClosings, ['Please continue the conversation']);
        else assert.equal(hints.expectedClosings, undefined); // a manual /compact gets no "Please continue" line
      });
      it('links every tool result to the reply whose tool_use it answers', () => {
        const byId = new Map(t.turns.map((turn) => [turn.id, turn]));
        const results = t.turns.filter((turn) => turn.role === 'tool');
        assert.ok(results.length > 0);
        for (const result of results) {
          assert.ok(result.answers, `turn ${result.id} answers nothing`);
          const call = byId.get(result.answers.turnId);
          assert.equal(call?.role, 'assistant');
          for (const text of result.answers.callText.split('\n'))
            assert.ok(text.startsWith('[tool call ') && call.text.includes(text), `${result.id}: ${text}`);
        }
      });
      it('marks the budget as assumed, and records reply sizes from usage', () => {
        const cp = t.checkpoints[0];
        assert.equal(cp.summaryBudget, 20000);
        assert.equal(cp.budgetAssumed, true);
        assert.ok(t.turns.filter((turn) => turn.role === 'assistant').every((turn) => turn.tokens === undefined || turn.tokens > 0));
        assert.ok(t.turns.filter((turn) => turn.role !== 'assistant').every((turn) => turn.tokens === undefined));
      });
    });
  }

  it('258c7280: an assistant reply split over records spans them all and keeps the final output_tokens', () => {
    const t = readCorpus(SESSIONS[0].file);
    // msg_01EEiRWuVvwAmenNJXZcerPY is written on lines 6, 7, 8, 9, 14 and 15; output_tokens 10 on all but line 15 (441)
    const turn = t.turns.find((x) => x.id === 'msg_01EEiRWuVvwAmenNJXZcerPY')!;
    assert.equal(turn.span.startLine, 6);
    assert.equal(turn.span.endLine, 15);
    assert.equal(turn.tokens, 441);
  });

  it('4d5611e5: the dangling logicalParentUuid is a problem and a note, and the claim is inferred from line 753', () => {
    const t = readCorpus(SESSIONS[1].file);
    const cp = t.checkpoints[0];
    const problem = t.problems.find((p) => p.line === 754);
    assert.ok(problem, JSON.stringify(t.problems));
    assert.equal(problem.severity, 'warning');
    assert.match(problem.message, /459e838f-d7ea-4f7d-94ad-2cb4d227dc77 is not in this file/);
    assert.match(problem.message, /line 753/);
    assert.ok(cp.notes?.some((n) => /logicalParentUuid 459e838f… is not in this file/.test(n)));
  });

  it('session_with_compact: the continued session reports the parent session and claims nothing', () => {
    const t = readCorpus('wpfleger96/session_with_compact.jsonl');
    // 40 assistant message.ids + 51 user records (38 tool results), counted as above; the 2 "Warmup" records are sidechain
    assert.equal(t.turns.length, 91);
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.span.startLine, 12);
    assert.equal(cp.span.endLine, 13);
    // the summary is an array of text blocks (v2.0.19)
    assert.ok(
      cp.summary.startsWith(
        'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
      ),
    );
    assert.deepEqual(cp.claimedIds, []);
    assert.equal(cp.turnsBefore, 0);
    assert.equal(cp.recordedPrefixTokens, 86039);
    const problem = t.problems.find((p) => p.line === 12);
    assert.ok(problem, JSON.stringify(t.problems));
    assert.match(problem.message, /parent session b7cdaede-8019-4996-a292-76cc672c3c63/);
    assert.ok(cp.notes?.some((n) => n.includes('parent session b7cdaede')));
    assert.match(
      cp.unverifiable ?? '',
      /parent session b7cdaede-8019-4996-a292-76cc672c3c63's file/,
      'judged unverifiable, not vacuously reversible',
    );
    // line 1 is a type:"summary" title record, not a compaction
    assert.ok(!t.problems.some((p) => p.line === 1));
  });

  const baselines = [
    { file: 'short.jsonl', turns: 5 },
    { file: 'tool_heavy.jsonl', turns: 16 },
    { file: 'wpfleger96/forked_session.jsonl', turns: 9 },
  ];
  for (const b of baselines) {
    it(`${b.file}: ${b.turns} turns, no checkpoint, no problem`, () => {
      const t = readCorpus(b.file);
      assert.equal(t.turns.length, b.turns);
      assert.equal(t.checkpoints.length, 0);
      assert.deepEqual(
        t.problems.filter((p) => p.severity !== 'info'),
        [],
      );
    });
  }

  it('every turn span points at its own record bytes', () => {
    const bytes = corpusBytes(join('claude-code', SESSIONS[2].file));
    const t = readCorpus(SESSIONS[2].file);
    for (const turn of t.turns.slice(0, 40)) {
      const raw = bytes.subarray(turn.span.startOffset, turn.span.endOffset).toString('utf8');
      assert.ok(raw.startsWith('{') && raw.endsWith('}'));
      assert.ok(raw.includes(String(turn.id)), `turn ${turn.id}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Hand-written sessions

type Rec = Record<string, unknown>;
const S = 'sess-1';
const user = (uuid: string, parent: string | null, content: unknown, extra: Rec = {}): Rec => ({
  type: 'user',
  uuid,
  parentUuid: parent,
  sessionId: S,
  message: { role: 'user', content },
  ...extra,
});
const reply = (uuid: string, parent: string | null, id: string, content: unknown[], out = 5): Rec => ({
  type: 'assistant',
  uuid,
  parentUuid: parent,
  sessionId: S,
  message: { id, role: 'assistant', content, usage: { output_tokens: out } },
});
const boundary = (uuid: string, logical: string, meta: Rec = { trigger: 'auto', preTokens: 1000 }, extra: Rec = {}): Rec => ({
  type: 'system',
  subtype: 'compact_boundary',
  uuid,
  parentUuid: null,
  logicalParentUuid: logical,
  sessionId: S,
  compactMetadata: meta,
  ...extra,
});
const summaryRec = (uuid: string, parent: string, text: string, extra: Rec = {}): Rec => ({
  type: 'user',
  uuid,
  parentUuid: parent,
  sessionId: S,
  isCompactSummary: true,
  isVisibleInTranscriptOnly: true,
  message: { role: 'user', content: text },
  ...extra,
});
const jsonl = (records: Rec[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

const SUMMARY = `${OPENING}\n\n1. Primary Request and Intent: fix ERR_4107\n9. Optional Next Step: run tests\nPlease continue the conversation from where we left off.`;

function session(): Rec[] {
  return [
    { type: 'summary', summary: 'A title', leafUuid: 'zz' },
    user('u1', null, 'Fix ERR_4107 in ledger.ts'),
    { type: 'progress', uuid: 'p1', parentUuid: 'u1', sessionId: S, data: { type: 'hook_progress' } },
    reply('a1', 'p1', 'msg_A', [{ type: 'text', text: 'Looking.' }], 3),
    reply('a2', 'a1', 'msg_A', [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'ledger.ts' } }], 3),
    reply('a3', 'a2', 'msg_A', [{ type: 'tool_use', id: 'tu2', name: 'Grep', input: { pattern: 'ERR' } }], 40),
    user('r1', 'a3', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'contents of ledger.ts' }]),
    user('r2', 'a3', [{ type: 'tool_result', tool_use_id: 'tu2', content: 'ledger.ts:12 ERR_4107' }]),
    user('m1', 'r2', 'hook reminder', { isMeta: true }),
    reply(
      'a4',
      'm1',
      'msg_B',
      [
        { type: 'thinking', thinking: 'secret' },
        { type: 'text', text: 'Fixed.' },
      ],
      9,
    ),
    { type: 'system', subtype: 'turn_duration', uuid: 's1', parentUuid: 'a4', sessionId: S },
    boundary('b1', 's1'),
    summaryRec('sum1', 'b1', SUMMARY),
    user('u2', 'sum1', 'thanks, now run the tests'),
  ];
}

describe('formats/claudeCode: compaction shapes', () => {
  it('groups records by message.id, makes tool results tool turns, skips noise, meta and titles', () => {
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(session()));
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        ['u1', 'user'],
        ['msg_A', 'assistant'],
        ['r1', 'tool'],
        ['r2', 'tool'],
        ['msg_B', 'assistant'],
        ['u2', 'user'],
      ],
    );
    const a = t.turns[1];
    assert.equal(a.span.startLine, 4);
    assert.equal(a.span.endLine, 6);
    assert.equal(a.tokens, 40);
    assert.match(a.text, /\[tool call Read\] \{"file_path":"ledger.ts"\}/);
    assert.equal(a.label, 'Read, Grep');
    assert.equal(t.turns[2].label, 'Read result');
    assert.ok(!t.turns[4].text.includes('secret'), 'thinking is not part of the text');
    assert.equal(t.turns[4].reasoning, 'secret', "but it is kept as the turn's reasoning, never counted");
    assert.deepEqual(t.problems, []);
  });

  it('claims the chain from logicalParentUuid, with sibling tool results, and reads the checkpoint facts', () => {
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl', defaultBudget: 2048 }), jsonl(session()));
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'b1');
    assert.equal(cp.turnsBefore, 5);
    // r1 is off the chain (a parallel sibling of r2) but answers tu1 of msg_A
    assert.deepEqual(cp.claimedIds, ['u1', 'msg_A', 'r1', 'r2', 'msg_B']);
    assert.equal(cp.summary, SUMMARY);
    assert.equal(cp.recordedPrefixTokens, 1000);
    assert.deepEqual(cp.notes?.slice(0, 2), ['preTokens 1,000 (recorded by Claude Code)', 'trigger: auto']);
    assert.equal(cp.summaryBudget, 2048);
    assert.equal(cp.budgetAssumed, true);
    assert.deepEqual(cp.truncationHints, { expectedClosings: ['Please continue the conversation'], expectedLastSection: 9 });
  });

  it('leaves the budget undefined when no default is given', () => {
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(session()));
    assert.equal(t.checkpoints[0].summaryBudget, undefined);
    assert.equal(t.checkpoints[0].budgetAssumed, undefined);
  });

  it('a second compaction claims only back to the previous boundary, minus its preservedSegment', () => {
    const records = [
      ...session(),
      reply('a5', 'u2', 'msg_C', [{ type: 'text', text: 'Tests pass.' }]),
      user('u3', 'a5', 'commit it'),
      reply('a6', 'u3', 'msg_D', [{ type: 'text', text: 'Committed.' }]),
      boundary('b2', 'a6', { trigger: 'manual', preTokens: 500, preservedSegment: { headUuid: 'u3', anchorUuid: 'sum2', tailUuid: 'a6' } }),
      summaryRec('sum2', 'b2', 'Summary: tests pass'),
    ];
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    assert.equal(t.checkpoints.length, 2);
    const cp = t.checkpoints[1];
    assert.deepEqual(cp.claimedIds, ['u2', 'msg_C']);
    assert.ok(cp.notes?.some((n) => n.startsWith('2 turns kept verbatim')));
    assert.equal(cp.truncationHints?.expectedClosings, undefined);
    assert.equal(cp.truncationHints?.expectedLastSection, undefined);
  });

  it('newer compactMetadata: postTokens is the recorded summary size when nothing was preserved; the rest are notes', () => {
    const records = session().map((r) =>
      r.uuid === 'b1'
        ? {
            ...r,
            level: 'info',
            compactMetadata: {
              trigger: 'auto',
              preTokens: 1000,
              postTokens: 240,
              durationMs: 54116,
              cumulativeDroppedTokens: 113485,
              preCompactDiscoveredTools: ['mcp__a__x', 'mcp__b__y'],
            },
          }
        : r,
    );
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl', defaultBudget: 2048 }), jsonl(records));
    const cp = t.checkpoints[0];
    assert.deepEqual(cp.claimedIds, ['u1', 'msg_A', 'r1', 'r2', 'msg_B']); // parentUuid null, level: the walk is unchanged
    assert.equal(cp.recordedSummaryTokens, 240);
    assert.equal(cp.recordedPrefixTokens, 1000);
    assert.deepEqual(cp.notes?.slice(0, 5), [
      'preTokens 1,000 (recorded by Claude Code)',
      'trigger: auto',
      'the compaction took 54.1 s (durationMs)',
      "cumulativeDroppedTokens 113,485 (tokens dropped by this session's compactions so far, recorded by Claude Code)",
      '2 tools discovered before the compaction (preCompactDiscoveredTools)',
    ]);
    assert.ok(
      cp.notes?.includes(
        "postTokens 240 (the conversation right after the compaction, recorded by Claude Code): taken as the summary's size",
      ),
    );
    assert.deepEqual(t.problems, []);
    assert.equal(analyze(t, { countTokens: (x) => x.length }).checkpoints[0].summaryTokens, 240);
  });

  it('newer preservedMessages {anchorUuid, uuids, allUuids}: the kept turns are uncovered, the anchor is the summary', () => {
    const records = [
      ...session(),
      reply('a5', 'u2', 'msg_C', [{ type: 'text', text: 'Tests pass: 49 of 49.' }]),
      user('u3', 'a5', 'commit it'),
      reply('a6', 'u3', 'msg_D', [{ type: 'text', text: 'Committed as 1a2b3c.' }]),
      boundary(
        'b2',
        'a6',
        {
          trigger: 'manual',
          preTokens: 500,
          postTokens: 300,
          preservedSegment: { headUuid: 'u3', anchorUuid: 'sum2', tailUuid: 'a6' },
          preservedMessages: { anchorUuid: 'sum2', uuids: ['u3', 'a6'], allUuids: ['u3', 'a6', 'gone-1'] },
        },
        { parentUuid: null, level: 'info' },
      ),
      // parented elsewhere: found through the anchorUuid
      summaryRec('sum2', 'a6', 'Summary: the tests pass (49 of 49) after the ERR_4107 fix in ledger.ts'),
    ];
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl', defaultBudget: 2048 }), jsonl(records));
    const cp = t.checkpoints[1];
    assert.equal(cp.summary, 'Summary: the tests pass (49 of 49) after the ERR_4107 fix in ledger.ts');
    assert.deepEqual(cp.claimedIds, ['u2', 'msg_C']);
    assert.equal(cp.recordedSummaryTokens, undefined, 'postTokens includes the preserved messages');
    assert.ok(cp.notes?.includes('2 turns kept verbatim after the summary (preserved) are not claimed'));
    assert.ok(cp.notes?.includes('1 of the 3 preservedMessages uuids are not in this file'));
    assert.ok(cp.notes?.some((n) => n.startsWith('postTokens 300') && n.includes('includes the preserved messages')));
    assert.deepEqual(t.problems, []);
    const a = analyze(t, { countTokens: (x) => x.length }).checkpoints[1];
    const status = new Map(a.turns.map((r) => [r.id, r.status]));
    assert.equal(status.get('u3'), 'uncovered');
    assert.equal(status.get('msg_D'), 'uncovered');
    // the same with preservedMessages alone (it supersedes preservedSegment)
    const alone = records.map((r) =>
      r.uuid === 'b2'
        ? { ...r, compactMetadata: { trigger: 'manual', preservedMessages: { anchorUuid: 'sum2', uuids: ['u3', 'a6'] } } }
        : r,
    );
    assert.deepEqual(feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(alone)).checkpoints[1].claimedIds, ['u2', 'msg_C']);
  });

  it("a compaction summary marked isSidechain is not the main session's, and the warning says so", () => {
    const records = session().map((r) => (r.uuid === 'sum1' ? { ...r, isSidechain: true } : r));
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    assert.equal(t.checkpoints[0].summary, '');
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [12, 'warning'],
        [12, 'warning'],
      ],
    ); // and: the summary has no readable text
    assert.ok(t.problems.some((p) => /the compaction summary at line 13 is marked isSidechain/.test(p.message)));
  });

  it('uses an acompact side file whose raw output has no closing </summary>', () => {
    const raw = `<analysis>thinking</analysis>\n<summary>\n1. Primary Request and Intent: fix ERR_4107\n9. Optional Next Step: run`;
    const side: SideFile = {
      path: '/p/sess-1/subagents/agent-acompact-abc.jsonl',
      text: JSON.stringify({ type: 'assistant', message: { id: 'm', content: [{ type: 'text', text: raw }] } }) + '\n',
    };
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl', sideFiles: [side] }), jsonl(session()));
    const hints = t.checkpoints[0].truncationHints!;
    assert.equal(hints.rawOutputClosed, false);
    assert.equal(hints.rawClosingMarker, '</summary>');
    assert.ok(t.checkpoints[0].notes?.some((n) => n.includes('agent-acompact-abc.jsonl') && n.includes('no closing </summary>')));
  });

  it('ignores a side file that belongs to another compaction', () => {
    const side: SideFile = {
      path: '/p/agent-acompact-zzz.jsonl',
      text: JSON.stringify({
        type: 'assistant',
        message: { id: 'm', content: [{ type: 'text', text: '<summary>Something else entirely, about a different session</summary>' }] },
      }),
    };
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl', sideFiles: [side] }), jsonl(session()));
    assert.equal(t.checkpoints[0].truncationHints?.rawOutputClosed, undefined);
  });

  it('a dangling logicalParentUuid in the same session is inferred from the last message, with a problem', () => {
    const records = session().map((r) => (r.uuid === 'b1' ? { ...r, logicalParentUuid: 'gone' } : r));
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    const cp = t.checkpoints[0];
    assert.deepEqual(cp.claimedIds, ['u1', 'msg_A', 'r1', 'r2', 'msg_B']);
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].line, 12);
    assert.match(t.problems[0].message, /logicalParentUuid gone is not in this file/);
  });

  it('a boundary from another session claims nothing and says where the turns are', () => {
    const records = session().map((r) =>
      r.uuid === 'b1' || r.uuid === 'sum1' ? { ...r, sessionId: 'parent-9', logicalParentUuid: r.uuid === 'b1' ? 'gone' : undefined } : r,
    );
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    assert.deepEqual(t.checkpoints[0].claimedIds, []);
    assert.match(t.problems[0].message, /parent session parent-9/);
  });

  it('a boundary without its summary yet is shown with an empty summary and a warning', () => {
    const records = session().slice(0, 12);
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    assert.equal(t.checkpoints.length, 1);
    assert.equal(t.checkpoints[0].summary, '');
    assert.match(t.problems[0].message, /has no summary record/);
    // the cause, then what it means (said for every reader by unreadableText.ts)
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [12, 'warning'],
        [12, 'warning'],
      ],
    );
    assert.match(t.problems[1].message, /the summary of checkpoint b1 has no readable text/);
  });

  it('can finish again after more lines are pushed (an agent still writing)', () => {
    const all = splitLines(Buffer.from(jsonl(session())));
    const reader = new ClaudeCodeReader({ fileName: 'x.jsonl' });
    for (const line of all.slice(0, 12)) reader.push(line);
    assert.equal(reader.finish().checkpoints[0].summary, '');
    for (const line of all.slice(12)) reader.push(line);
    const t = reader.finish();
    assert.equal(t.checkpoints[0].summary, SUMMARY);
    assert.equal(t.turns.length, 6);
    assert.equal(reader.finish().turns.length, 6);
  });

  it('bad lines are problems; an unterminated bad last line is only a warning', () => {
    const text = `${JSON.stringify(session()[1])}\nnot json\n[1,2]\n{"type":"user","uuid":"x`;
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), text);
    assert.equal(t.turns.length, 1);
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [2, 'error'],
        [3, 'error'],
        [4, 'warning'],
      ],
    );
    assert.equal(
      t.problems[2].message,
      'line 4 is incomplete (the agent may still be writing): it is not valid JSON yet and was skipped; it is read once it is complete.',
    );
  });

  it('a message.id reused after a compaction starts a new reply, whose later records join it', () => {
    const records = [
      ...session(),
      reply('a5', 'u2', 'msg_A', [{ type: 'text', text: 'Running.' }]),
      reply('a6', 'a5', 'msg_A', [{ type: 'text', text: 'All pass.' }]),
    ];
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    // Line 15 is a5's record (the title is line 1).
    assert.deepEqual(
      t.turns.slice(5).map((x) => [x.id, x.text]),
      [
        ['u2', 'thanks, now run the tests'],
        ['msg_A@15', 'Running.\nAll pass.'],
      ],
    );
  });

  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    fuzzReader(() => new ClaudeCodeReader({ fileName: 'x.jsonl', defaultBudget: 100 }), jsonl(session()).trimEnd());
  });
});

describe('formats/claudeCode: tool results answer their calls', () => {
  it('a tool_result answers the reply (grouped by message.id) whose tool_use has its tool_use_id', () => {
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(session()));
    const [r1, r2] = [t.turns[2], t.turns[3]];
    assert.deepEqual(r1.answers, { turnId: 'msg_A', callText: '[tool call Read] {"file_path":"ledger.ts"}' });
    assert.deepEqual(r2.answers, { turnId: 'msg_A', callText: '[tool call Grep] {"pattern":"ERR"}' });
    assert.ok(t.turns.filter((turn) => turn.role !== 'tool').every((turn) => turn.answers === undefined));
  });

  it('one record answering two calls gets both, one a line; a call not in the file gives no answers', () => {
    const records = [
      user('u1', null, 'Fix ERR_4107'),
      reply('a1', 'u1', 'msg_A', [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a.ts' } }]),
      reply('a2', 'a1', 'msg_A', [{ type: 'tool_use', id: 'tu2', name: 'Bash', input: { command: 'npm test' } }]),
      user('r1', 'a2', [
        { type: 'tool_result', tool_use_id: 'tu1', content: 'a' },
        { type: 'tool_result', tool_use_id: 'tu2', content: '3 passing' },
      ]),
      user('r2', 'r1', [{ type: 'tool_result', tool_use_id: 'tu_gone', content: 'from an earlier session' }]),
    ];
    const t = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl(records));
    assert.deepEqual(t.turns[2].answers, {
      turnId: 'msg_A',
      callText: '[tool call Read] {"file_path":"a.ts"}\n[tool call Bash] {"command":"npm test"}',
    });
    assert.equal(t.turns[3].answers, undefined);
  });

  it('the links are the same when the file is read as it grows', () => {
    const text = jsonl(session());
    const whole = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), text);
    for (const cut of [5, 6, 7, 11]) {
      const grown = feedAppending(new ClaudeCodeReader({ fileName: 'x.jsonl' }), text, cut);
      assert.deepEqual(
        grown.turns.map((turn) => turn.answers),
        whole.turns.map((turn) => turn.answers),
        `cut after line ${cut}`,
      );
    }
  });
});

describe('formats/claudeCode: a checkpoint depends only on the records up to it (stable history, issue #10)', () => {
  const intro = (session = 's') => ({
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    sessionId: session,
    message: { role: 'user', content: 'Fix ERR_4107 in ledger.ts' },
  });
  const summaryOf = (session = 's', extra = '') => ({
    type: 'user',
    uuid: 's1',
    parentUuid: 'b1',
    sessionId: session,
    isCompactSummary: true,
    message: { role: 'user', content: `${OPENING}\n\n1. Primary Request and Intent: fix ERR_4107 in ledger.ts${extra}` },
  });
  const boundaryOf = (logical: string, session = 's', trigger = 'auto') => ({
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'b1',
    parentUuid: null,
    logicalParentUuid: logical,
    sessionId: session,
    compactMetadata: { trigger, preTokens: 1000 },
  });

  /** The first checkpoint of the first `cut` records and of all of them: same claim, same analysis. */
  function assertSame(records: Rec[], cut: number) {
    const read = (rs: Rec[]) => feed(new ClaudeCodeReader({ fileName: 'x.jsonl', defaultBudget: 20000 }), jsonl(rs));
    const prefix = read(records.slice(0, cut));
    const whole = read(records);
    const [a, b] = [prefix, whole].map((t) => analyze(t, { countTokens: cheapTokens }).checkpoints[0]);
    assert.deepEqual(whole.checkpoints[0].claimedIds, prefix.checkpoints[0].claimedIds);
    assert.deepEqual(
      b.turns.map((t) => [t.id, t.status]),
      a.turns.map((t) => [t.id, t.status]),
    );
    assert.equal(b.verdict, a.verdict);
    assert.deepEqual(b.safeCovered, a.safeCovered);
    return { prefix, whole, before: a, after: b };
  }

  it('bug 1: a record after the checkpoint reusing an earlier message.id starts a new turn, not the earlier one', () => {
    const records = [
      intro(),
      {
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        sessionId: 's',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Looking.' }] },
      },
      boundaryOf('a1'),
      summaryOf('s', ', ran npm test'),
      {
        type: 'assistant',
        uuid: 'a2',
        parentUuid: 's1',
        sessionId: 's',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] },
      },
    ];
    const { whole, after } = assertSame(records, 4);
    assert.deepEqual(
      whole.turns.map((t) => t.id),
      ['u1', 'm1', 'm1@5'],
    );
    assert.equal(whole.turns.find((t) => t.id === 'm1')!.text, 'Looking.');
    assert.equal(after.turns.find((t) => t.id === 'm1')!.status, 'nothing-to-check');
    // a copy of the earlier record after the checkpoint adds no turn
    const copied = feed(new ClaudeCodeReader({ fileName: 'x.jsonl' }), jsonl([...records.slice(0, 4), records[1]]));
    assert.equal(copied.turns.length, 2);
  });

  it('bug 2: a record after the checkpoint cannot complete its dangling logicalParentUuid', () => {
    const records = [
      intro(),
      boundaryOf('x9'),
      summaryOf(),
      { type: 'user', uuid: 'x9', parentUuid: 's1', sessionId: 's', message: { role: 'user', content: 'thanks' } },
    ];
    const { whole } = assertSame(records, 3);
    assert.deepEqual(whole.checkpoints[0].claimedIds, ['u1']);
    assert.ok(whole.checkpoints[0].notes?.some((n) => /logicalParentUuid x9 is not in this file/.test(n)));
  });

  it('bug 2: nor a missing link of the parent chain', () => {
    const records = [
      intro(),
      { type: 'user', uuid: 'u2', parentUuid: 'gap', sessionId: 's', message: { role: 'user', content: 'and bump lodash' } },
      boundaryOf('u2'),
      summaryOf(),
      { type: 'user', uuid: 'gap', parentUuid: 'u1', sessionId: 's', message: { role: 'user', content: 'late' } },
    ];
    const { whole } = assertSame(records, 4);
    assert.deepEqual(whole.checkpoints[0].claimedIds, ['u2']);
  });

  it('bug 3: the main session is decided from the records before the checkpoint', () => {
    const records = [
      intro('old'),
      boundaryOf('gone', 'old', 'manual'),
      summaryOf('old'),
      { type: 'user', uuid: 'n1', parentUuid: 's1', sessionId: 'new', message: { role: 'user', content: 'go on' } },
      {
        type: 'assistant',
        uuid: 'n2',
        parentUuid: 'n1',
        sessionId: 'new',
        message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      },
      { type: 'user', uuid: 'n3', parentUuid: 'n2', sessionId: 'new', message: { role: 'user', content: 'and then' } },
    ];
    const { whole } = assertSame(records, 3);
    assert.deepEqual(whole.checkpoints[0].claimedIds, ['u1']);
    assert.equal(whole.checkpoints[0].unverifiable, undefined);
  });

  it('bug 3: session_with_compact gives the same fail-closed checkpoint read up to line 13 and whole', function () {
    requireCorpus(this);
    const bytes = corpusBytes(join('claude-code', 'wpfleger96/session_with_compact.jsonl'));
    const lines = bytes.toString('utf8').split('\n');
    const read = (text: string) => feed(new ClaudeCodeReader({ fileName: 'session_with_compact.jsonl', defaultBudget: 20000 }), text);
    for (const cut of [13, 23, lines.length]) {
      const t = read(lines.slice(0, cut).join('\n') + '\n');
      const cp = analyze(t, { countTokens: cheapTokens }).checkpoints[0];
      assert.match(t.checkpoints[0].unverifiable ?? '', /parent session b7cdaede/, `read up to line ${cut}`);
      assert.equal(cp.verdict, 'fail-closed', `read up to line ${cut}`);
    }
  });
});

describe('formats/claudeCode: the shape fixture of the corpus (shapes only, trimmed content)', function () {
  before(function () {
    requireCorpus(this);
  });

  /*
   * jazzyalex/agent-sessions' stage0 claude fixture: every uuid after line 42 is "[trimmed for fixture]" and the
   * numbers are 0, so only the shapes can be checked. Line 21: the boundary s4, whose logicalParentUuid s3 is a
   * system record with no parent (the turns before it are sidechain records), and whose only summary (line 22) is
   * marked isSidechain. Line 51: parentUuid null, logicalParentUuid, level, and every newer compactMetadata key;
   * no summary record follows it. Neither checkpoint can be judged covered: both are fail-closed, nothing vacuous.
   */
  it('shape-fixtures/agent-sessions-small.jsonl: newer compactMetadata keys read, nothing claimed, nothing vacuous', () => {
    const t = feed(
      new ClaudeCodeReader({ fileName: 'agent-sessions-small.jsonl', defaultBudget: 20000 }),
      corpusBytes(join('claude-code', 'shape-fixtures', 'agent-sessions-small.jsonl')),
    );
    assert.deepEqual(
      t.checkpoints.map((c) => [c.span.startLine, c.claimedIds.length, c.summary]),
      [
        [21, 0, ''],
        [51, 0, ''],
      ],
    );
    const [s4, last] = t.checkpoints;
    assert.equal(s4.recordedPrefixTokens, 120000);
    assert.ok(s4.notes?.includes('the chain from logicalParentUuid s3 holds no turn of this session: nothing is claimed'));
    assert.ok(last.notes?.includes('11 tools discovered before the compaction (preCompactDiscoveredTools)'));
    assert.ok(last.notes?.includes('1 turn kept verbatim after the summary (preserved) is not claimed'));
    assert.ok(last.notes?.includes('postTokens 0 recorded: not a usable size, the summary is counted'));
    assert.equal(last.recordedSummaryTokens, undefined);
    const warnings = t.problems.filter((p) => p.severity !== 'info');
    // per boundary: no summary record of this session, and so no readable summary text
    assert.deepEqual(
      warnings.map((p) => p.line),
      [21, 21, 51, 51],
    );
    assert.ok(warnings.some((p) => /line 22 is marked isSidechain/.test(p.message)));
    assert.ok(
      !t.problems.some((p) =>
        /compactMetadata|preserved|postTokens|record type (ai-title|mode|permission-mode|worktree-state)\b/.test(p.message),
      ),
    );
    for (const cp of analyze(t, { countTokens: cheapTokens }).checkpoints) {
      assert.equal(cp.verdict, 'fail-closed');
      assert.equal(cp.counts.covered, 0);
      assert.deepEqual(cp.safeCovered, []);
    }
  });
});

describe("formats/claudeCode: turns handed over as they are read (ReaderContext.keepTurn, a large file's texts on disk)", function () {
  this.timeout(60_000);

  /** The file read as readCorpus reads it, with its turns handed to a TurnTextStore as the reader is done with each. */
  function readHandingOver(relative: string, input: string | Buffer, readAhead?: number): { t: Transcript; handed: unknown[] } {
    const store = TurnTextStore.open();
    assert.ok(store, 'a temporary file for the texts');
    const handed: unknown[] = [];
    const keepTurn = (turn: Turn): Turn => {
      handed.push(turn.id);
      return store.keep(turn);
    };
    return { t: feed(readerOf(relative, keepTurn, readAhead, undefined, store), input), handed };
  }

  function readPlain(relative: string, input: string | Buffer, keepTurn?: (turn: Turn) => Turn, readAhead?: number): Transcript {
    return feed(readerOf(relative, keepTurn, readAhead), input);
  }

  function readerOf(
    relative: string,
    keepTurn?: (turn: Turn) => Turn,
    readAhead?: number,
    readOnce?: boolean,
    textKeeper?: TextKeeper,
  ): ClaudeCodeReader {
    const context = { fileName: relative, sideFiles: sideFilesOf(relative), defaultBudget: 20000, keepTurn, readOnce, textKeeper };
    return new ClaudeCodeReader(context, readAhead);
  }

  /** The records the reader's line buffer keeps (a private field, read for this test only). */
  const recordsKept = (reader: ClaudeCodeReader): number => (reader as unknown as { lines: { records: unknown[] } }).lines.records.length;

  it('lets its records go once read when read once or its lines are pushed once each, and keeps every one else (a file read again from a line needs them)', () => {
    const records = session();
    for (const readAhead of [1, 3, 512]) {
      const plain = readerOf('x.jsonl', undefined, readAhead);
      const expected = feed(plain, jsonl(records));
      assert.equal(recordsKept(plain), records.length, `read ahead ${readAhead}: all kept`);
      for (const [name, once] of [
        ['read once', readerOf('x.jsonl', undefined, readAhead, true)],
        ['turns handed over', readerOf('x.jsonl', (turn) => turn, readAhead)],
      ] as const) {
        assert.deepEqual(feed(once, jsonl(records)), expected, `${name}, read ahead ${readAhead}`);
        assert.equal(recordsKept(once), 0, `${name}, read ahead ${readAhead}: none kept once read`);
      }
      // Each line pushed once (as TranscriptFile pushes a file that grows): none kept, the same at every finish.
      const context = { fileName: 'x.jsonl', sideFiles: sideFilesOf('x.jsonl'), defaultBudget: 20000 };
      const growing = new ClaudeCodeReader({ ...context, linesOnce: true }, readAhead);
      const fresh = new ClaudeCodeReader(context, readAhead);
      splitLines(Buffer.from(jsonl(records), 'utf8')).forEach((line, k) => {
        growing.push(line);
        fresh.push(line);
        if (k % 3 !== 2) return;
        assert.deepEqual(growing.finish(), fresh.finish(), `lines pushed once, read ahead ${readAhead}, after line ${k + 1}`);
        assert.equal(recordsKept(growing), 0, `lines pushed once, read ahead ${readAhead}: none kept once read`);
      });
      assert.deepEqual(growing.finish(), expected, `lines pushed once, read ahead ${readAhead}`);
    }
  });

  /** As a report would write it: a turn kept on disk writes the fields it was read with. */
  const asJson = (t: Transcript): unknown => JSON.parse(JSON.stringify(t));

  it('reads what it reads without them, and hands each turn over once, a reply once its next turn begins', () => {
    const t = readPlain('x.jsonl', jsonl(session()));
    const { t: kept, handed } = readHandingOver('x.jsonl', jsonl(session()));
    assert.deepEqual(asJson(kept), asJson(t));
    assert.deepEqual(
      handed,
      t.turns.map((x) => x.id),
    );
    assert.ok(
      kept.turns.every((x) => !Object.hasOwn(x, 'text')),
      'every text on disk',
    );
  });

  it("copies a reply handed over when a record of it comes after the next turn began: the same turns, that one's text in memory", () => {
    // msg_A's second tool call is written after the first call's result.
    const late = [
      user('u1', null, 'Fix ERR_4107 in ledger.ts'),
      reply('a1', 'u1', 'msg_A', [{ type: 'text', text: 'Looking.' }], 3),
      reply('a2', 'a1', 'msg_A', [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'ledger.ts' } }], 3),
      user('r1', 'a2', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'contents of ledger.ts' }]),
      reply(
        'a3',
        'r1',
        'msg_A',
        [
          { type: 'text', text: 'Now the grep.' },
          { type: 'tool_use', id: 'tu2', name: 'Grep', input: { pattern: 'ERR' } },
        ],
        40,
      ),
      user('r2', 'a3', [{ type: 'tool_result', tool_use_id: 'tu2', content: 'ledger.ts:12 ERR_4107' }]),
      boundary('b1', 'r2'),
      summaryRec('sum1', 'b1', SUMMARY),
    ];
    const t = readPlain('x.jsonl', jsonl(late));
    assert.match(t.turns[1].text, /^Looking\.\n.*\nNow the grep\.\n/);
    assert.equal(t.turns[1].tokens, 40);
    const { t: kept, handed } = readHandingOver('x.jsonl', jsonl(late));
    assert.deepEqual(asJson(kept), asJson(t));
    assert.deepEqual(handed, ['u1', 'msg_A', 'r1', 'r2'], 'msg_A handed over once, when r1 began');
    assert.ok(Object.hasOwn(kept.turns[1], 'text'), "msg_A's copy keeps its text");
    assert.deepEqual(analyze(kept, { countTokens: cheapTokens, ratioFloor: 5 }), analyze(t, { countTokens: cheapTokens, ratioFloor: 5 }));
  });

  it('reads records in any order, repeated or left out, as it does without them (property, seeded)', () => {
    // Records of two sessions' worth of shapes: replies of several blocks, tool results, a meta record, progress,
    // two compactions, a reply id used again after a compaction, a record written twice.
    const pool = [
      ...session(),
      reply('a5', 'u2', 'msg_C', [{ type: 'text', text: 'Running the tests.' }], 4),
      reply('a6', 'a5', 'msg_C', [{ type: 'tool_use', id: 'tu3', name: 'Bash', input: { command: 'npm test' } }], 12),
      user('r3', 'a6', [{ type: 'tool_result', tool_use_id: 'tu3', content: '12 passing', is_error: false }]),
      reply('a7', 'r3', 'msg_A', [{ type: 'text', text: 'Done: ERR_4107 fixed in ledger.ts.' }], 7),
      boundary('b2', 'a7'),
      summaryRec('sum2', 'b2', `${SUMMARY}\nTests pass.`),
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(pool.length - 1), { minLength: 1, maxLength: 30 }), fc.constantFrom(1, 2, 5, 512), (picks, readAhead) => {
        const input = jsonl(picks.map((k) => pool[k]));
        // Records let go a batch at a time (or all at the end): the batches read as one read would.
        const { t: kept, handed } = readHandingOver('x.jsonl', input, readAhead);
        const t = readPlain('x.jsonl', input);
        assert.deepEqual(asJson(kept), asJson(t));
        assert.deepEqual(
          handed,
          t.turns.map((x) => x.id),
        );
      }),
      { seed: 14, numRuns: 200 },
    );
  });

  it('reads each real session of the corpus as it does without them, its checkpoints and their summaries included', function () {
    requireCorpus(this);
    for (const s of SESSIONS) {
      const bytes = corpusBytes(join('claude-code', s.file));
      const t = readCorpus(s.file);
      const { t: kept, handed } = readHandingOver(s.file, bytes);
      assert.deepEqual(asJson(kept), asJson(t), s.file);
      assert.equal(handed.length, t.turns.length, s.file);
      assert.ok(
        kept.checkpoints.every((cp) => cp.summary.length > 0),
        `${s.file}: summaries read`,
      );
    }
  });
});
