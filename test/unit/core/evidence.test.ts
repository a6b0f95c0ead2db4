// Tests for src/core/evidence.ts and the way analyze uses it: tool calls split out of a turn's text (splitCalls)
// and what a turn holds (turnPieces: a result takes its identity from its call, confirmations and bare lookups
// hold nothing to check, a confirmation is judged by what it confirms), finding pieces in a summary
// (SummaryMatcher), weighing them (weightOf, judge), sharing
// among the claimed turns, verdicts that never change when lines are appended after their checkpoint, and no
// vacuous verdict (empty or encrypted summary, claimed turns without text, mostly nothing to check).
import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { analyze } from '../../../src/core/analyze';
import {
  CARRIED_AT_LENGTH,
  coveredAt,
  DEFAULT_COVERAGE_THRESHOLD,
  judge,
  MAX_EVIDENCE,
  SALIENCE,
  SHARED_FREELY,
  turnPieces,
  weightOf,
  type Sharing,
} from '../../../src/core/evidence';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { extractPieces } from '../../../src/core/evidenceText';
import { SummaryMatcher } from '../../../src/core/summaryMatcher';
import { callTexts, literalOfPattern, NARROW_READ_LINES, readsAFile, splitCalls } from '../../../src/core/toolCalls';
import type { AnalysisOptions, CheckpointAnalysis, Turn, TurnStatus } from '../../../src/core/model';
import { checkpoint, transcript, turn } from './transcripts';
import { turnReason } from '../../../src/core/reweigh';

const OPTS: AnalysisOptions = { countTokens: (t) => t.split(/\s+/).filter(Boolean).length };
const ALONE = (): Sharing => ({ count: 1, first: true });

function statuses(cp: CheckpointAnalysis): TurnStatus[] {
  return cp.turns.map((t) => t.status);
}

function call(name: string, args: unknown): string {
  return `[tool call ${name}] ${JSON.stringify(args)}`;
}

function result(id: number, text: string, callTurn: number, callText: string): Turn {
  return turn(id, text, { role: 'tool', answers: { turnId: callTurn, callText } });
}

describe('core/evidence: splitCalls', () => {
  it('separates "[tool call NAME] ARGS" lines from the prose and parses their JSON arguments', () => {
    const text = [
      'Let me look.',
      call('Read', { file_path: '/repo/src/core/analyze.ts' }),
      call('Bash', { command: 'git commit -m "fix"' }),
      'Done.',
    ].join('\n');
    const { prose, calls } = splitCalls(text);
    assert.equal(prose, 'Let me look.\nDone.');
    assert.deepEqual(calls, [
      { name: 'Read', args: { file_path: '/repo/src/core/analyze.ts' }, effect: 'lookup' },
      { name: 'Bash', args: { command: 'git commit -m "fix"' }, effect: 'change' },
    ]);
  });

  it('a text without calls is all prose; arguments that are not JSON are kept as text', () => {
    assert.deepEqual(splitCalls('just words'), { prose: 'just words', calls: [] });
    assert.deepEqual(splitCalls('[tool call Edit] {bad json').calls, [{ name: 'Edit', args: '{bad json', effect: 'change' }]);
    assert.deepEqual(splitCalls(42 as unknown as string), { prose: '', calls: [] });
  });

  it('tells lookups from changes and other actions', () => {
    const effect = (name: string, args: unknown) => splitCalls(call(name, args)).calls[0].effect;
    assert.equal(effect('Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }), 'change');
    assert.equal(effect('Write', { file_path: 'a.ts', content: 'x' }), 'change');
    assert.equal(effect('Grep', { pattern: 'TODO' }), 'lookup');
    assert.equal(effect('Bash', { command: 'ls -la src' }), 'lookup');
    assert.equal(effect('Bash', { command: 'npm test 2>&1' }), 'lookup');
    assert.equal(effect('Bash', { command: 'npm test > /dev/null' }), 'lookup');
    assert.equal(effect('Bash', { command: 'echo hi > out.txt' }), 'change');
    assert.equal(effect('Bash', { command: 'bd close spotter-fum.1' }), 'change');
    assert.equal(effect('str_replace_editor', { command: 'view', path: '/repo/x.py' }), 'lookup');
    assert.equal(effect('Deploy', { target: 'prod' }), 'action');
  });

  it('tells a read of a file (whole or wide) from a search in it and from a narrow read of a few lines', () => {
    const first = (text: string) => splitCalls(text).calls[0];
    assert.equal(readsAFile(first(call('Read', { file_path: '/repo/a.ts' }))), true);
    assert.equal(readsAFile(first(call('read', { path: '/repo/a.ts', offset: 800, limit: 200 }))), true);
    assert.equal(readsAFile(first(call('Read', { file_path: '/repo/a.ts', offset: 37, limit: 1 }))), false);
    assert.equal(readsAFile(first(call('read', { path: '/repo/a.ts', offset: 495, limit: NARROW_READ_LINES }))), false);
    assert.equal(readsAFile(first(call('str_replace_editor', { command: 'view', path: '/repo/a.ts', view_range: [1, 400] }))), true);
    assert.equal(readsAFile(first(call('str_replace_editor', { command: 'view', path: '/repo/a.ts', view_range: [10, 20] }))), false);
    assert.equal(readsAFile(first(call('Grep', { pattern: 'agentId', path: '/repo/a.ts' }))), false);
    assert.equal(readsAFile(first(call('Bash', { command: 'mix test test/a_test.exs' }))), false);
    assert.equal(readsAFile(first(call('Write', { file_path: '/repo/a.ts', content: 'x' }))), false);
  });

  it("pi's edit tool: newText is what it writes, oldText what it replaces (left out of its identity)", () => {
    const parsed = splitCalls(call('edit', { path: 'src/ledger.ts', oldText: 'throw err', newText: 'return retryPost(entry)' })).calls[0];
    assert.equal(parsed.effect, 'change');
    assert.deepEqual(callTexts(parsed), {
      identity: ['src/ledger.ts'],
      content: ['return retryPost(entry)'],
      prose: [],
      previous: ['throw err'],
    });
  });
});

describe('core/evidence: what a turn holds (turnPieces)', () => {
  const readCall = call('Read', { file_path: '/repo/src/core/ledger_parser.ts' });

  it('a tool result takes its identity from its call (fromCall evidence), besides what it says itself', () => {
    const p = turnPieces(result(2, 'parse failed with ERR_PARSE_9 on line 3', 1, readCall), false);
    assert.equal(p.nothing, undefined);
    const path = p.pieces.find((x) => x.kind === 'path');
    assert.ok(path, JSON.stringify(p.pieces));
    assert.equal(path.text, '/repo/src/core/ledger_parser.ts');
    assert.equal(path.fromCall, true);
    const own = p.pieces.find((x) => x.text === 'ERR_PARSE_9');
    assert.ok(own && own.fromCall === undefined);
  });

  it('capitalised words in tool output are data, not proper nouns', () => {
    const p = turnPieces(
      result(2, 'Service Running on Postgres, code ERR_DB_7', 1, call('Bash', { command: 'systemctl status db' })),
      false,
    );
    assert.deepEqual(
      p.pieces.map((x) => x.text),
      ['ERR_DB_7'],
    );
  });

  it('a confirmation of a write or edit holds only what its call names, marked as a confirmation', () => {
    const edit = call('Edit', { file_path: '/repo/src/core/ledger_parser.ts', old_string: 'a', new_string: 'b' });
    const p = turnPieces(result(2, 'The file /repo/src/core/ledger_parser.ts has been updated successfully.', 1, edit), false);
    assert.equal(p.nothing, undefined);
    assert.equal(p.confirmation, true);
    assert.deepEqual(
      p.pieces.map((x) => [x.kind, x.text, x.fromCall]),
      [['path', '/repo/src/core/ledger_parser.ts', true]],
    );
  });

  it('a confirmation of a write or edit whose call names nothing is nothing-to-check: the change is in the call', () => {
    const edit = call('Edit', { old_string: 'a', new_string: 'b' });
    const p = turnPieces(result(2, 'The edit was applied successfully.', 1, edit), false);
    assert.deepEqual(p, { pieces: [], nothing: 'a confirmation of a write or edit: the change itself is in the call' });
  });

  it('a change whose result only counts what it did (bytes written, characters replaced) is a confirmation', () => {
    const edit = call('edit', { path: '/repo/src/core/session.ts', oldText: 'a = 1', newText: 'a = 2' });
    const replaced = 'Successfully replaced text in /repo/src/core/session.ts. Changed 155 characters to 158 characters.';
    const p = turnPieces(result(2, replaced, 1, edit), false);
    assert.equal(p.confirmation, true);
    assert.deepEqual(
      p.pieces.map((x) => [x.kind, x.text]),
      [['path', '/repo/src/core/session.ts']],
    );
    const write = call('write', { path: '/repo/src/modes/rpc.ts', content: 'export const RPC_MODE = 1;' });
    assert.equal(turnPieces(result(2, 'Successfully wrote 2345 bytes to /repo/src/modes/rpc.ts', 1, write), false).confirmation, true);
    // A result with a fact of its own beside its figures is not a confirmation.
    const commit = call('Bash', { command: 'git commit -m "Add RPC mode"' });
    const created = '[main 4f2a9c1] Add RPC mode\n 2 files changed, 86 insertions(+)\n create mode 100644 src/modes/rpc.ts';
    const committed = turnPieces(result(2, created, 1, commit), false);
    assert.equal(committed.confirmation, undefined);
    assert.ok(committed.pieces.some((x) => x.text === 'src/modes/rpc.ts'));
    // Without it, the commit's result confirms the commit (its short hash is weak evidence, its figures its size).
    const plain = turnPieces(result(2, '[main 4f2a9c1] Add RPC mode\n 2 files changed, 86 insertions(+)', 1, commit), false);
    assert.equal(plain.confirmation, true);
  });

  it('the names an edit removes are its own, as the names it introduces are', () => {
    const edit = call('Edit', {
      file_path: '/repo/lib/session_live.ex',
      old_string: 'defp type_color(:user), do: "blue"\ndefp anchor_color(kind), do: kind\n',
      new_string: '',
    });
    const p = turnPieces(turn(1, edit, { role: 'assistant' }), false);
    const removed = p.pieces.filter((x) => x.introduced).map((x) => x.text);
    assert.ok(removed.includes('type_color'), JSON.stringify(removed));
    assert.ok(removed.includes('anchor_color'), JSON.stringify(removed));
    // What the edit keeps is not removed.
    const kept = call('Edit', { file_path: '/repo/lib/a.ex', old_string: 'alias Foo.Bar\nalias Foo.Baz', new_string: 'alias Foo.Bar' });
    const q = turnPieces(turn(1, kept, { role: 'assistant' }), false);
    assert.ok(!q.pieces.some((x) => x.introduced && x.text.includes('Foo.Bar')), JSON.stringify(q.pieces));
    assert.ok(
      q.pieces.some((x) => x.introduced && x.text.includes('Foo.Baz')),
      JSON.stringify(q.pieces),
    );
  });

  it('marks what an edit introduces on copies that share a few hidden classes (a spread gave each its own)', () => {
    // V8's %HaveSameMap, compiled while the flag is set, as gcSettings.ts makes V8's gc available.
    setFlagsFromString('--allow-natives-syntax');
    const sameClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    setFlagsFromString('--no-allow-natives-syntax');
    const introduced = [];
    for (let i = 0; i < 200; i++) {
      const edit = call('Edit', {
        file_path: `/repo/lib/part_${i}.ex`,
        old_string: `defp old_name_${i}(x), do: x`,
        new_string: `defp new_name_${i}(x), do: x + ${i} # see src/flow_${i}/handler.ts and ERR_${i}`,
      });
      introduced.push(...turnPieces(turn(i, edit, { role: 'assistant' }), false).pieces.filter((x) => x.introduced));
    }
    assert.ok(introduced.length >= 400, `${introduced.length} introduced pieces`);
    const classes: object[] = [];
    for (const p of introduced) if (!classes.some((c) => sameClass(c, p))) classes.push(p);
    assert.ok(classes.length <= 16, `${classes.length} hidden classes for ${introduced.length} introduced pieces`);
  });

  it("a failed call's error is weighed by its own words, not by what it echoes of the call", () => {
    const edit = call('Edit', { file_path: '/repo/lib/otel.ex', old_string: 'OtelSetup.install_propagators()', new_string: '' });
    const error = 'String to replace not found in file.\nString: OtelSetup.install_propagators()';
    const p = turnPieces({ ...result(2, error, 1, edit), error: true }, false);
    assert.equal(p.error, true);
    assert.ok(!p.pieces.some((x) => !x.fromCall && x.text.includes('install_propagators')), JSON.stringify(p.pieces));
    // A summary that names the call's target but not the error does not carry the error.
    const turns = [
      turn(0, 'Fix ERR_OTEL_3 in otel.ex', { role: 'user' }),
      turn(1, edit, { role: 'assistant' }),
      { ...result(2, error, 1, edit), error: true },
    ];
    const cp = analyze(
      transcript(turns, [
        checkpoint({
          summary: 'Removed OtelSetup.install_propagators() from otel.ex (ERR_OTEL_3).',
          summaryBudget: 1000,
          claimedIds: [0, 1, 2],
          turnsBefore: 3,
        }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.turns[2].status, 'claimed-missing', cp.turns[2].reason);
  });

  it('a result that says nothing specific to a call that names nothing holds nothing', () => {
    assert.deepEqual(turnPieces(result(2, 'ok', 1, '[tool call TodoRead]'), false), {
      pieces: [],
      nothing: 'a result with nothing specific in it',
    });
  });

  it('a bare lookup call whose result is its own turn, with no prose, is nothing-to-check', () => {
    const p = turnPieces(turn(1, readCall, { role: 'assistant' }), true);
    assert.equal(p.nothing, 'a bare lookup: what it found is in its result');
    // The same call with its result in no turn of its own holds the path it read.
    const alone = turnPieces(turn(1, readCall, { role: 'assistant' }), false);
    assert.equal(alone.nothing, undefined);
    assert.equal(alone.pieces[0].text, '/repo/src/core/ledger_parser.ts');
    // Prose beside the lookup is weighed.
    const withProse = turnPieces(turn(1, `The parser fails on ERR_PARSE_9.\n${readCall}`, { role: 'assistant' }), true);
    assert.equal(withProse.nothing, undefined);
    assert.ok(withProse.pieces.some((x) => x.text === 'ERR_PARSE_9'));
    assert.ok(!withProse.pieces.some((x) => x.kind === 'path'), "the path read is its result's");
    // Its words alone are weighed too, but as a lookup's: they can show it carried, never that it lost something.
    const wordsOnly = turnPieces(turn(1, `Checking the tokenizer implementation.\n${readCall}`, { role: 'assistant' }), true);
    assert.equal(wordsOnly.nothing, undefined);
    assert.equal(wordsOnly.lookupOnly, true);
  });

  it('a lookup whose purpose is only in its reasoning (thinking) is covered when the summary repeats it; reasoning is never counted', () => {
    const check = call('Bash', { command: 'mix compile' });
    const turns = [
      turn(0, 'Please wire the computer into SessionLive: LEDGER_SYNC_7', { role: 'user' }),
      {
        ...turn(1, check, { role: 'assistant' }),
        reasoning: 'Check that SessionLive compiles, then update toggle_debug and recompute_and_push_sync.',
      },
      result(2, 'Compiling 3 files (.ex)', 1, check),
    ];
    const mk = (summary: string) =>
      analyze(transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 })]), OPTS)
        .checkpoints[0];
    const carried = mk('SessionLive compiles; toggle_debug and recompute_and_push_sync now update the computer (LEDGER_SYNC_7).');
    assert.equal(carried.turns[1].status, 'covered', carried.turns[1].reason);
    assert.ok(
      carried.turns[1].evidence.some((e) => e.found && e.fromReasoning && e.text === 'toggle_debug'),
      'marked as from its reasoning',
    );
    const silent = mk('Fixed LEDGER_SYNC_7.');
    assert.equal(silent.turns[1].status, 'nothing-to-check', 'a lookup never loses anything');
    assert.equal(turnPieces(turns[1], true).lookupOnly, true);
    assert.equal(turnPieces({ ...turns[1], reasoning: undefined }, true).nothing, 'a bare lookup: what it found is in its result');
    const withoutReasoning = analyze(
      transcript(
        turns.map((t) => ({ ...t, reasoning: undefined })),
        [checkpoint({ summary: 'Fixed LEDGER_SYNC_7.', summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 })],
      ),
      OPTS,
    ).checkpoints[0];
    assert.equal(silent.prefixTokens, withoutReasoning.prefixTokens, 'reasoning is not part of the counted prefix');
  });

  it('a lookup is covered when the summary repeats enough of what it says and misses nothing only it holds; else nothing-to-check', () => {
    const check = call('Bash', { command: 'mix test test/ledger_test.exs' });
    const turns = [
      turn(0, 'Please make the ledger tests pass: LEDGER_SYNC_7 fails'),
      turn(1, `All 49 tests pass now. The credo warnings are next.\n${check}`, { role: 'assistant' }),
      result(2, '49 tests, 0 failures', 1, check),
      turn(3, `The only failing case was in sync_window; the ledger credo warnings and the flaky fixtures are next.\n${check}`, {
        role: 'assistant',
      }),
      result(4, '49 tests, 0 failures', 3, check),
    ];
    const mk = (summary: string) =>
      analyze(transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: [0, 1, 2, 3, 4], turnsBefore: 5 })]), OPTS)
        .checkpoints[0];
    const repeated = mk(
      'Fixed LEDGER_SYNC_7 in the ledger: all 49 tests pass; the credo warnings remain. sync_window was the failing case.',
    );
    assert.equal(repeated.turns[1].status, 'covered', repeated.turns[1].reason);
    assert.equal(repeated.turns[3].status, 'covered', repeated.turns[3].reason);
    // Words repeated, but the fact only turn 3 holds (sync_window) is gone: not covered, and not missing either.
    const lost = mk(
      'Fixed LEDGER_SYNC_7 in the ledger: all 49 tests pass; the credo warnings and flaky fixtures remain; the only failing case is fixed.',
    );
    assert.ok((lost.turns[3].score ?? 0) >= 1, `enough words repeated (score ${lost.turns[3].score})`);
    assert.equal(lost.turns[3].status, 'nothing-to-check', lost.turns[3].reason);
    const silent = mk('Worked on the ledger.');
    assert.equal(silent.turns[1].status, 'nothing-to-check');
  });

  it('a lookup whose narration the summary echoes (most of its weight, two pieces at least, nothing of its own lost) is covered', () => {
    const status = call('Bash', { command: 'git status' });
    const turns = [
      turn(0, 'Please add the ledger panel and commit it: LEDGER_SYNC_7'),
      turn(1, `Now let me commit the changes together.\n${status}`, { role: 'assistant' }),
      result(2, 'modified: lib/ledger_panel.ex', 1, status),
      turn(3, `Only the changes remain.\n${status}`, { role: 'assistant' }),
      result(4, 'modified: lib/ledger_panel.ex', 3, status),
      turn(5, `Now let me commit the changes, reviewing everything carefully, slowly.\n${status}`, { role: 'assistant' }),
      result(6, 'modified: lib/ledger_panel.ex', 5, status),
    ];
    const summary = 'LEDGER_SYNC_7: added LedgerPanel (lib/ledger_panel.ex); committed the changes.';
    const cp = analyze(
      transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: [0, 1, 2, 3, 4, 5, 6], turnsBefore: 7 })]),
      OPTS,
    ).checkpoints[0];
    const narration = cp.turns[1];
    assert.ok((narration.score ?? 0) < DEFAULT_COVERAGE_THRESHOLD, `below the threshold on its own (score ${narration.score})`);
    assert.equal(narration.status, 'covered', narration.reason);
    // One piece alone is loose topical overlap, not the step recorded.
    assert.equal(cp.turns[3].status, 'nothing-to-check', cp.turns[3].reason);
    // Two pieces repeated but most of its weight not: still nothing to check, never missing.
    assert.equal(cp.turns[5].status, 'nothing-to-check', cp.turns[5].reason);
  });

  it('a call without arguments is known by its name, which the summary may write as prose ("Entered plan mode")', () => {
    const enter = call('EnterPlanMode', {});
    const turns = [
      turn(0, 'Plan the LEDGER_SYNC_7 fix first.'),
      turn(1, enter, { role: 'assistant' }),
      result(2, 'Entered plan mode. Weigh the trade-offs, then use ExitPlanMode or AskUserQuestion.', 1, enter),
    ];
    const mk = (summary: string) =>
      analyze(transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 })]), OPTS)
        .checkpoints[0];
    const entered = mk('LEDGER_SYNC_7: entered plan mode, wrote the plan, got approval.');
    assert.equal(entered.turns[2].status, 'covered', entered.turns[2].reason);
    assert.ok(entered.turns[2].evidence.some((e) => e.found && e.fromCall && e.text === 'EnterPlanMode'));
    assert.equal(mk('LEDGER_SYNC_7: wrote the plan, got approval.').turns[2].status, 'claimed-missing');
    // Only a call without arguments that is not a lookup (what a lookup found is in its result, not its name).
    const read = call('Read', { file_path: '/repo/a.ts' });
    assert.ok(!turnPieces(result(4, 'x', 3, read), false).pieces.some((p) => p.text === 'Read'));
    assert.equal(turnPieces(result(4, 'ok', 3, call('TodoRead', {})), false).nothing, 'a result with nothing specific in it');
  });

  it('a search pattern is read for the names it looks for, without its escapes', () => {
    assert.equal(literalOfPattern('TranscriptRenderer\\.render\\b'), 'TranscriptRenderer.render ');
    assert.equal(literalOfPattern('length\\('), 'length(');
    assert.equal(literalOfPattern('a\\sb\\'), 'a b\\');
    const grep = call('Grep', { pattern: 'TranscriptRenderer\\.render\\b', path: '/repo/lib/session_live.ex' });
    const pieces = turnPieces(result(2, 'lib/session_live.ex:322: TranscriptRenderer.render(messages)', 1, grep), false).pieces;
    assert.ok(
      pieces.some((p) => p.kind === 'identifier' && p.text === 'TranscriptRenderer.render'),
      JSON.stringify(pieces.map((p) => [p.kind, p.text])),
    );
    assert.ok(!pieces.some((p) => p.text.includes('\\')), 'no piece keeps a regex escape (it is no path)');
  });

  it('a write carries its substance in the call: the path and the names it writes', () => {
    const write = call('Write', { file_path: '/repo/src/jobs.ts', content: 'export const ledgerSyncJob = 1' });
    const p = turnPieces(turn(1, write, { role: 'assistant' }), true);
    assert.deepEqual(
      p.pieces.map((x) => [x.kind, x.text]),
      [
        ['path', '/repo/src/jobs.ts'],
        ['identifier', 'ledgerSyncJob'],
      ],
    );
  });

  it('"PR #8021" in an otherwise plain turn is evidence, not nothing-to-check', () => {
    const p = turnPieces(turn(5, 'Opened PR #8021 for it.', { role: 'assistant' }), false);
    assert.equal(p.nothing, undefined);
    assert.deepEqual(
      p.pieces.map((x) => [x.kind, x.text]),
      [['reference', '#8021']],
    );
    const cp = analyze(
      transcript(
        [turn(4, 'Fix ERR_LEDGER_4107 please'), turn(5, 'Opened PR #8021 for it.', { role: 'assistant' })],
        [checkpoint({ summary: 'ERR_LEDGER_4107 is fixed in PR #8021.', summaryBudget: 1000, claimedIds: [4, 5], turnsBefore: 2 })],
      ),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(cp), ['covered', 'covered']);
    assert.equal(cp.verdict, 'reversible');
  });

  it('acknowledgements, weak-only turns and empty turns hold nothing to check', () => {
    assert.equal(turnPieces(turn(0, 'ok, sounds good, go ahead'), false).nothing, 'no names, paths, numbers or other specifics to carry');
    const weak = turnPieces(turn(0, 'see #ff00aa', { role: 'assistant' }), false);
    assert.equal(weak.nothing, 'no names, paths, numbers or other specifics to carry');
    assert.deepEqual(
      weak.pieces.map((x) => x.kind),
      ['weak'],
      'weak pieces are kept for display',
    );
    assert.deepEqual(turnPieces(turn(0, '   '), false), { pieces: [], nothing: 'the turn has no text' });
  });
});

describe('core/evidence: SummaryMatcher', () => {
  const summary = 'Fixed ERR_X_1 in src/core\nanalyze.ts; the Foo module and agent_id. Ledger-7 too.';
  const m = new SummaryMatcher(summary);

  it('finds the words of a key in a row, case-insensitively, at offsets of the original summary', () => {
    const span = m.findSpan('err x 1');
    assert.ok(span);
    assert.equal(summary.slice(span.at, span.end), 'ERR_X_1');
    assert.equal(m.findKey('agent id'), summary.indexOf('agent_id'));
    assert.equal(m.findKey('x err'), undefined, 'words in order');
    assert.equal(m.findKey(''), undefined);
    assert.equal(m.findKey('nowhere'), undefined);
  });

  it('never matches across a line break', () => {
    assert.equal(m.findKey('src core analyze ts'), undefined);
    assert.equal(m.findKey('core analyze'), undefined);
    assert.ok(m.findKey('analyze ts') !== undefined);
  });

  it('strict: not inside a longer name', () => {
    const s = new SummaryMatcher('see my_agent_id and agent_ids, not agent id-x');
    assert.ok(s.findSpan('agent id') !== undefined, 'loosely, inside my_agent_id');
    assert.equal(s.findSpan('agent id', true), undefined);
    assert.ok(new SummaryMatcher('the agent_id, now').findSpan('agent id', true) !== undefined);
  });

  it('findStemSpan: words with the same stems in a row, at name boundaries, never across a line break', () => {
    const s = new SummaryMatcher('Entered plan mode, wrote the plan.\nenter\nplan mode again; replanned modes');
    assert.deepEqual(s.findStemSpan('enter plan mode'), { at: 0, end: 'Entered plan mode'.length });
    assert.equal(new SummaryMatcher('enter\nplan mode').findStemSpan('enter plan mode'), undefined);
    assert.equal(new SummaryMatcher('reenter plan modes').findStemSpan('enter plan mode'), undefined);
    assert.equal(new SummaryMatcher('enter plan mode_x').findStemSpan('enter plan mode'), undefined, 'not inside a longer name');
  });

  it('findExact is the note\'s `in`: case-sensitive, and "" is found at 0', () => {
    assert.equal(m.findExact('Foo'), summary.indexOf('Foo'));
    assert.equal(m.findExact('foo'), undefined);
    assert.equal(m.findExact('ledger-7'), undefined);
    assert.equal(m.findExact(''), 0);
  });

  it('offsets stay right after “İ” (a letter whose lower case is longer)', () => {
    const s = 'İİİİ ERR_X_1';
    const span = new SummaryMatcher(s).findSpan('err x 1');
    assert.ok(span);
    assert.equal(s.slice(span.at, span.end), 'ERR_X_1');
  });
});

describe('core/evidence: weighing (weightOf, judge)', () => {
  it("a piece weighs its kind's salience, in full up to SHARED_FREELY sharers, then falling as 1/shared", () => {
    assert.equal(SHARED_FREELY, 3);
    assert.equal(DEFAULT_COVERAGE_THRESHOLD, 1);
    assert.equal(weightOf('path', 1), SALIENCE.path);
    assert.equal(weightOf('path', 3), SALIENCE.path);
    assert.equal(weightOf('path', 6), SALIENCE.path * (SHARED_FREELY / 6));
    assert.equal(weightOf('identifier', 6), SALIENCE.identifier * (SHARED_FREELY / 6));
    assert.equal(weightOf('identifier', 12), SALIENCE.identifier * (SHARED_FREELY / 12));
    assert.equal(weightOf('weak', 1), SALIENCE.weak);
    assert.equal(weightOf('path', 0), SALIENCE.path, 'nonsense sharing counts as one');
    for (const kind of Object.keys(SALIENCE) as (keyof typeof SALIENCE)[]) {
      for (let n = 1; n < 40; n++) assert.ok(weightOf(kind, n + 1) <= weightOf(kind, n), `${kind} ${n}`);
    }
    // Weak pieces weigh least; names of things (paths, ids, error codes) most.
    for (const kind of Object.keys(SALIENCE) as (keyof typeof SALIENCE)[])
      if (kind !== 'weak') assert.ok(SALIENCE.weak < SALIENCE[kind], kind);
    for (const kind of ['path', 'reference', 'error-code', 'explicit'] as const)
      assert.equal(SALIENCE[kind], DEFAULT_COVERAGE_THRESHOLD, kind);
    assert.ok(SALIENCE.name < SALIENCE.identifier && SALIENCE.term < SALIENCE.identifier);
  });

  it('judge: found evidence first, heaviest first; the score is the weight found; covered from the threshold', () => {
    const pieces = extractPieces('Fixed ERR_LEDGER_4107 in src/ledger/post_entry.ts; renamed parseEntry, colour #ff00aa');
    const m = new SummaryMatcher('We fixed err-ledger-4107, renamed parseEntry and changed the colour #ff00aa.');
    const j = judge(pieces, m, ALONE);
    assert.deepEqual(
      j.evidence.map((e) => [e.text, e.kind, e.found, e.weight]),
      [
        ['ERR_LEDGER_4107', 'error-code', true, SALIENCE['error-code']],
        ['parseEntry', 'identifier', true, SALIENCE.identifier],
        ['#ff00aa', 'weak', true, SALIENCE.weak],
        ['src/ledger/post_entry.ts', 'path', false, SALIENCE.path],
      ],
    );
    const total = Math.round((SALIENCE['error-code'] + SALIENCE.identifier + SALIENCE.weak) * 1000) / 1000;
    assert.equal(j.score, total);
    assert.equal(coveredAt(j.rule, j.score, 1), true);
    assert.equal(coveredAt(j.rule, j.score, total), true);
    assert.equal(coveredAt(j.rule, j.score, total + 0.01), false);
    const found = j.evidence[0];
    assert.equal(m.summary.slice(found.at, (found.at ?? 0) + (found.length ?? 0)), 'err-ledger-4107');
  });

  it('judge: shows at most MAX_EVIDENCE pieces, found ones first, and three absent ones at the least', () => {
    const names = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, k) => `${prefix}_${k}_id`);
    const shown = (found: number, absent: number): [number, number] => {
      const text = [...names('kept', found), ...names('lost', absent)].join(' ');
      const j = judge(extractPieces(text), new SummaryMatcher(names('kept', found).join(', ')), ALONE);
      const shownFound = j.evidence.filter((e) => e.found).length;
      // Found ones come first.
      assert.ok(j.evidence.slice(0, shownFound).every((e) => e.found));
      return [shownFound, j.evidence.length - shownFound];
    };
    assert.deepEqual(shown(2, 3), [2, 3]); // all of it
    assert.deepEqual(shown(5, 20), [5, MAX_EVIDENCE - 5]);
    assert.deepEqual(shown(11, 20), [11, 3]);
    assert.deepEqual(shown(20, 20), [MAX_EVIDENCE, 3]);
    assert.deepEqual(shown(20, 0), [MAX_EVIDENCE, 0]);
  });

  it('judge: evidence is ordered found first, heavier first, and otherwise as the pieces come, however many', () => {
    // Short lists are sorted by insertion, long ones by the built-in sort: both must give this stable order.
    const kinds = ['path', 'name', 'term', 'number', 'weak', 'quoted'] as const;
    let seed = 11;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const n = next(70);
      const pieces = Array.from({ length: n }, (_, k) => {
        const key = `w${k}x`;
        return { text: key, kind: kinds[next(kinds.length)], key, shareKey: key };
      });
      const found = pieces.map(() => next(3) === 0);
      const summary = pieces
        .filter((_, k) => found[k])
        .map((p) => p.key)
        .join(' ');
      const j = judge(pieces, new SummaryMatcher(summary || 'nothing'), ALONE);
      const order = pieces
        .map((_, k) => k)
        .sort((a, b) => Number(found[b]) - Number(found[a]) || SALIENCE[pieces[b].kind] - SALIENCE[pieces[a].kind]);
      const foundOrder = order.filter((k) => found[k]);
      const absentOrder = order.filter((k) => !found[k]);
      const shownFound = Math.min(foundOrder.length, MAX_EVIDENCE);
      const expected = [...foundOrder.slice(0, shownFound), ...absentOrder.slice(0, Math.max(3, MAX_EVIDENCE - shownFound))];
      assert.deepEqual(
        j.evidence.map((e) => e.text),
        expected.map((k) => pieces[k].text),
        `${n} pieces`,
      );
    }
  });

  it('judge: a path found by its file name says what was matched, and carries fromCall', () => {
    const { pieces } = turnPieces(result(2, 'nothing new', 1, call('Read', { file_path: '/repo/src/core/ledger_parser.ts' })), false);
    const j = judge(pieces, new SummaryMatcher('Read ledger_parser.ts.'), ALONE);
    assert.equal(j.evidence[0].found, true);
    assert.equal(j.evidence[0].matched, 'ledger_parser.ts');
    assert.equal(j.evidence[0].fromCall, true);
    assert.equal(coveredAt(j.rule, j.score, 1), true);
  });

  it('judge: a piece shared widely weighs less, unless this turn introduced it', () => {
    const pieces = extractPieces('Edited src/core/analyze.ts');
    const m = new SummaryMatcher('analyze.ts changed');
    const later = judge(pieces, m, () => ({ count: 6, first: false }));
    assert.equal(later.evidence[0].weight, SALIENCE.path * (SHARED_FREELY / 6));
    assert.equal(later.evidence[0].sharedBy, 6);
    assert.equal(coveredAt(later.rule, later.score, 1), false);
    const first = judge(pieces, m, () => ({ count: 6, first: true }));
    assert.equal(first.evidence[0].weight, 1);
    assert.equal(coveredAt(first.rule, first.score, 1), true);
  });
});

describe('core/evidence in analyze: sharing, calls and results', () => {
  it('sharing: each name counts the turns that name it, however many names there are (hash buckets shared)', () => {
    // 2,000 turns naming 2 of 1,597 identifiers each: thousands of forms in the hash table, so some share a bucket;
    // the counts shown must still be the plain counts, for names held once, a few times or many times.
    const names = (i: number) => [`widget_${i % 1500}_id`, `gadget_${i % 97}_id`];
    const turns = Array.from({ length: 2000 }, (_, i) => turn(i, `Touched ${names(i).join(' and ')} here.`));
    const expected = new Map<string, number>();
    for (let i = 0; i < turns.length; i++) for (const n of names(i)) expected.set(n, (expected.get(n) ?? 0) + 1);
    const cp = analyze(
      transcript(turns, [
        checkpoint({ claimedIds: turns.map((t) => t.id), turnsBefore: turns.length, summary: 'widget_3_id and gadget_21_id' }),
      ]),
      OPTS,
    ).checkpoints[0];
    let checked = 0;
    for (const r of cp.turns) {
      for (const e of r.evidence.filter((x) => x.kind === 'identifier')) {
        assert.equal(e.sharedBy, expected.get(e.text), `${e.text} in turn ${r.id}`);
        checked++;
      }
    }
    assert.equal(checked, 4000);
    assert.ok([...expected.values()].some((n) => n === 1) && [...expected.values()].some((n) => n > SHARED_FREELY));
  });

  it('sharing is the same whether the evidence cache holds every turn or almost none (each pass asks it again)', () => {
    // 300 units: prose naming a few of 40 identifiers, and calls whose results count with them; some results
    // answer a call outside the claimed turns. A cache of 500 characters lets go of nearly every turn between
    // the two passes over the units and the judging, so each works the pieces out again.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const turns: Turn[] = [];
    while (turns.length < 300) {
      const id = turns.length;
      const names = [`widget_${next(40)}_id`, `gadget_${next(12)}_id`].join(' and ');
      if (next(3) === 0) {
        const read = call('Read', { file_path: `/repo/src/mod_${next(9)}.ts` });
        turns.push(turn(id, read, { role: 'assistant' }));
        turns.push(result(id + 1, `export const ${names.replace(' and ', ' = ')};`, id, read));
      } else {
        turns.push(turn(id, `Touched ${names} in /repo/src/mod_${next(9)}.ts here.`));
      }
    }
    const claimedIds = turns.filter((_, i) => i % 7 !== 3).map((t) => t.id);
    const cp = checkpoint({ claimedIds, turnsBefore: turns.length, summary: 'widget_3_id, gadget_2_id and mod_4.ts' });
    const mk = (evidenceCache: EvidenceCache) => analyze(transcript(turns, [cp]), { ...OPTS, evidenceCache }).checkpoints[0];
    const full = mk(new EvidenceCache());
    const small = mk(new EvidenceCache({ maxChars: 500 }));
    assert.deepEqual(small.turns, full.turns);
    // And the plain counts: the units (a result with its call) among the claimed turns naming each identifier.
    const unitsNaming = new Map<string, Set<number>>();
    for (const t of turns.filter((x) => claimedIds.includes(x.id))) {
      const unit = Number(t.answers?.turnId ?? t.id);
      for (const name of t.text.match(/\b(?:widget|gadget)_\d+_id\b/g) ?? []) {
        unitsNaming.set(name, (unitsNaming.get(name) ?? new Set()).add(unit));
      }
    }
    let checked = 0;
    for (const e of full.turns.flatMap((r) => r.evidence).filter((x) => x.kind === 'identifier')) {
      assert.equal(e.sharedBy, unitsNaming.get(e.text)?.size, e.text);
      checked++;
    }
    assert.ok(checked > 300, `${checked} identifiers checked`);
  });

  it(`a turn the summary carries at length (score ≥ ${CARRIED_AT_LENGTH} × threshold) is covered though every piece is shared`, () => {
    // Eight turns name the same seven modules; the last also says what it did with them.
    const names = 'LedgerSync, PayoutBatch, RefundQueue, InvoiceMailer, TaxRules, FxRates and AuditTrail';
    const turns = [0, 1, 2, 3, 4, 5, 6].map((i) => turn(i, `Step ${i} touched ${names}.`, { role: 'assistant' }));
    turns.push(turn(7, `Wired ${names} into the nightly job.`, { role: 'assistant' }));
    const ids = turns.map((_, i) => i);
    const mk = (summary: string) =>
      analyze(transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: ids, turnsBefore: 8 })]), OPTS).checkpoints[0];
    const atLength = mk(`The nightly job now runs ${names}.`);
    assert.ok((atLength.turns[7].score ?? 0) >= CARRIED_AT_LENGTH, `score ${atLength.turns[7].score}`);
    assert.equal(atLength.turns[7].status, 'covered', atLength.turns[7].reason);
    // Two of the seven shared names: over the threshold, but not at length, and none is its own.
    const briefly = mk('The nightly job now runs LedgerSync and PayoutBatch.');
    assert.ok((briefly.turns[7].score ?? 0) < CARRIED_AT_LENGTH);
    assert.equal(briefly.turns[7].status, 'claimed-missing', briefly.turns[7].reason);
  });

  it('a name shared by many claimed turns weighs less for each; the turn that introduced it counts it in full', () => {
    const turns = [0, 1, 2, 3, 4, 5].map((i) => turn(i, `Edited src/core/analyze.ts again, step ${i}`, { role: 'assistant' }));
    const cp = analyze(
      transcript(turns, [
        checkpoint({ summary: 'We edited analyze.ts several times.', summaryBudget: 1000, claimedIds: [0, 1, 2, 3, 4, 5], turnsBefore: 6 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(cp), [
      'covered',
      'claimed-missing',
      'claimed-missing',
      'claimed-missing',
      'claimed-missing',
      'claimed-missing',
    ]);
    const pathOf = (i: number) => cp.turns[i].evidence.find((e) => e.kind === 'path');
    assert.deepEqual([pathOf(0)?.weight, pathOf(0)?.sharedBy], [1, 6]);
    for (let i = 1; i < 6; i++)
      assert.deepEqual([pathOf(i)?.weight, pathOf(i)?.sharedBy, pathOf(i)?.found], [SALIENCE.path * (SHARED_FREELY / 6), 6, true]);
    assert.match(turnReason(cp.turns[3]), /is shared with other turns or weak \(score 0\.50 of 1\.00 needed\)$/);
    // Up to SHARED_FREELY turns share a name at no cost.
    const three = analyze(
      transcript(turns.slice(0, 3), [
        checkpoint({ summary: 'We edited analyze.ts several times.', summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(three), ['covered', 'covered', 'covered']);
  });

  it("a call and its result count once for sharing, and the result is judged by its call's identity", () => {
    const readCall = call('Read', { file_path: '/repo/src/core/ledger_parser.ts' });
    const turns = [
      turn(0, 'Please look into ERR_PARSE_9'),
      turn(1, readCall, { role: 'assistant' }),
      result(2, '   1\texport function parse() {}', 1, readCall),
    ];
    const cp = analyze(
      transcript(turns, [
        checkpoint({ summary: 'Looked into ERR_PARSE_9 in ledger_parser.ts.', summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(cp), ['covered', 'nothing-to-check', 'covered']);
    assert.equal(cp.turns[1].reason, 'nothing worth carrying: a bare lookup: what it found is in its result');
    const e = cp.turns[2].evidence[0];
    assert.deepEqual([e.kind, e.found, e.fromCall, e.sharedBy, e.matched], ['path', true, true, 1, 'ledger_parser.ts']);
  });

  it('a read of a file is covered when the summary names the file, however many turns name it; a narrow read is not', () => {
    const path = '/repo/src/core/session.ts';
    // Eight turns name the file before it is read: the file is no longer this read's own.
    const before = Array.from({ length: 8 }, (_, i) => turn(1 + i, `Edited ${path}: step ${i}`, { role: 'assistant' }));
    const mk = (args: Record<string, unknown>, summary: string) => {
      const read = call('Read', { file_path: path, ...args });
      const turns = [
        turn(0, 'Please refactor SessionCore'),
        ...before,
        turn(9, read, { role: 'assistant' }),
        result(10, '40\tconst SESSION_TIMEOUT_MS = 5000;', 9, read),
      ];
      const cp = checkpoint({ summary, summaryBudget: 1000, claimedIds: turns.map((t) => t.id), turnsBefore: turns.length });
      return analyze(transcript(turns, [cp]), OPTS).checkpoints[0].turns[10];
    };
    const named = 'Refactored SessionCore; read src/core/session.ts, the session model.';
    const whole = mk({}, named);
    assert.equal(whole.status, 'covered', whole.reason);
    const fileEvidence = whole.evidence.find((e) => e.kind === 'path');
    assert.ok(fileEvidence && fileEvidence.sharedBy > SHARED_FREELY && fileEvidence.weight === 1, JSON.stringify(fileEvidence));
    const narrow = mk({ offset: 40, limit: 5 }, named);
    assert.equal(narrow.status, 'claimed-missing', narrow.reason);
    const unnamed = mk({}, 'Refactored SessionCore.');
    assert.equal(unnamed.status, 'claimed-missing', unnamed.reason);
  });

  it('where a search looked (the folder it searched) cannot make its result covered alone; what it searched for can', () => {
    const grep = call('Grep', { pattern: 'put_flash', path: '/repo/lib/web' });
    const turns = [turn(0, 'Please find ERR_FLASH_2'), turn(1, grep, { role: 'assistant' }), result(2, 'No files found', 1, grep)];
    const mk = (summary: string) =>
      analyze(transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 })]), OPTS)
        .checkpoints[0];
    const folderOnly = mk('Looked for ERR_FLASH_2 under /repo/lib/web.');
    assert.equal(folderOnly.turns[2].status, 'claimed-missing', folderOnly.turns[2].reason);
    const found = folderOnly.turns[2].evidence.find((e) => e.found);
    assert.equal(found?.text, '/repo/lib/web', 'still shown as found');
    const withPattern = mk('Looked for ERR_FLASH_2: no put_flash under /repo/lib/web.');
    assert.equal(withPattern.turns[2].status, 'covered', withPattern.turns[2].reason);
  });

  it('a confirmation of an edit is covered when the summary knows what it confirms, claimed-missing when not', () => {
    const edit = call('Edit', {
      file_path: '/repo/src/jobs.ts',
      old_string: 'a',
      new_string: 'export const ledgerSyncJob = retryPolicyFor(2)',
    });
    const turns = [
      turn(0, 'Make ERR_JOB_3 go away'),
      turn(1, edit, { role: 'assistant' }),
      result(2, 'The file /repo/src/jobs.ts has been updated successfully.', 1, edit),
    ];
    const mk = (summary: string) =>
      analyze(transcript(turns, [checkpoint({ summary, summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 })]), OPTS)
        .checkpoints[0];
    const known = mk('Fixed ERR_JOB_3 by changing ledgerSyncJob in src/jobs.ts.');
    assert.deepEqual(statuses(known), ['covered', 'covered', 'covered']);
    assert.equal(known.verdict, 'reversible');
    const e = known.turns[2].evidence[0];
    assert.deepEqual([e.kind, e.found, e.fromCall], ['path', true, true]);
    // The edit is judged by the names it introduces; the confirmation by the file it confirms.
    const unknown = mk('Fixed ERR_JOB_3: ledgerSyncJob now uses retryPolicyFor.');
    assert.deepEqual(statuses(unknown), ['covered', 'covered', 'claimed-missing']);
    assert.equal(unknown.verdict, 'conditional');
  });
});

describe('core/evidence in analyze: false alarms', () => {
  it('a turn whose only evidence is words of its prose is never claimed-missing when the summary repeats them', () => {
    const turns = [turn(0, 'Fix ERR_LEDGER_4107 please'), turn(1, 'I will refactor the parser module.', { role: 'assistant' })];
    const cp = analyze(
      transcript(turns, [
        checkpoint({
          summary: 'Fixed ERR_LEDGER_4107; next the assistant will refactor the parser module.',
          summaryBudget: 1000,
          claimedIds: [0, 1],
          turnsBefore: 2,
        }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.notEqual(cp.turns[1].status, 'claimed-missing');
    assert.equal(cp.verdict, 'reversible');
  });

  // Was a false alarm while an identifier or key=value weighed 0.8 (< the threshold of 1); fixed in 1da51b6.
  it('a turn whose one fact is an identifier or a key=value, carried verbatim, is covered', () => {
    const turns = [
      turn(0, 'Renamed ledger_sync_job.', { role: 'assistant' }),
      turn(1, 'Ran it with --status=in_progress', { role: 'assistant' }),
    ];
    const cp = analyze(
      transcript(turns, [
        checkpoint({
          summary: 'Renamed ledger_sync_job. Ran it with --status=in_progress.',
          summaryBudget: 1000,
          claimedIds: [0, 1],
          turnsBefore: 2,
        }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(cp), ['covered', 'covered']);
  });
});

describe('core/evidence in analyze: lines appended after a checkpoint never change it', () => {
  const base = [
    turn(0, 'Fix ERR_LEDGER_4107 in src/ledger.ts'),
    turn(1, 'ok, go ahead'),
    turn(2, 'Renamed parseEntry to readEntry in src/ledger.ts', { role: 'assistant' }),
    turn(3, 'Edited src/ledger.ts and src/entry.ts', { role: 'assistant' }),
  ];
  const cp1 = checkpoint({
    summary: 'We fixed ERR_LEDGER_4107 in src/ledger.ts and renamed parseEntry.',
    summaryBudget: 1000,
    claimedIds: [0, 1, 2, 3],
    turnsBefore: 4,
  });

  it('unrelated turns, turns naming the same files, and later checkpoints leave it as it was', () => {
    const before = analyze(transcript(base, [cp1]), OPTS);
    const appended = [
      turn(4, 'Edited src/ledger.ts again', { role: 'assistant' }),
      turn(5, 'Edited src/ledger.ts once more; parseEntry is gone', { role: 'assistant' }),
      turn(6, 'Unrelated: bumped ERR_OTHER_1', { role: 'assistant' }),
      result(7, 'parseEntry readEntry src/ledger.ts', 6, call('Read', { file_path: '/repo/src/ledger.ts' })),
    ];
    const cp2 = checkpoint({
      summaryId: 'S2',
      summary: 'src/ledger.ts edited.',
      summaryBudget: 1000,
      claimedIds: [0, 1, 2, 3, 4, 5, 6, 7],
      turnsBefore: 8,
    });
    const after = analyze(transcript([...base, ...appended], [cp1, cp2]), OPTS);
    assert.deepEqual(after.checkpoints[0], before.checkpoints[0]);
    assert.equal(after.checkpoints.length, 2);
  });

  it('a result appended after the checkpoint, answering a call before it, leaves it as it was', () => {
    const readCall = call('Read', { file_path: '/repo/src/core/ledger_parser.ts' });
    const turns = [turn(0, 'Please look into ERR_PARSE_9'), turn(1, readCall, { role: 'assistant' })];
    const cp = checkpoint({ summary: 'Looked into ERR_PARSE_9.', summaryBudget: 1000, claimedIds: [0, 1], turnsBefore: 2 });
    const before = analyze(transcript(turns, [cp]), OPTS).checkpoints[0];
    const after = analyze(transcript([...turns, result(2, 'export const x = 1', 1, readCall)], [cp]), OPTS).checkpoints[0];
    assert.deepEqual(after, before);
  });
});

describe('core/evidence in analyze: no vacuous verdict', () => {
  const turns = [turn(0, 'Fix ERR_LEDGER_4107'), turn(1, 'Opened PR #8021'), turn(2, 'ok, go ahead')];
  const cpWith = (extra: Partial<Parameters<typeof checkpoint>[0]>) =>
    analyze(transcript(turns, [checkpoint({ summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3, ...extra })]), OPTS).checkpoints[0];

  it('an empty summary: fail-closed, its claimed turns not carried', () => {
    for (const summary of ['', '  \n\t']) {
      const cp = cpWith({ summary });
      assert.equal(cp.verdict, 'fail-closed');
      assert.equal(cp.reasons[0], 'the summary is empty: there is no positive evidence of coverage, so none may be claimed (fail closed)');
      assert.deepEqual(statuses(cp), ['claimed-missing', 'claimed-missing', 'nothing-to-check']);
      assert.equal(cp.turns[0].reason, 'the summary is empty: it carries nothing of this turn');
      assert.deepEqual(cp.safeCovered, []);
    }
  });

  it('an encrypted summary: fail-closed, its claimed turns unverifiable', () => {
    const cp = cpWith({ summary: 'gAAAAABk…', opaque: true });
    assert.equal(cp.verdict, 'fail-closed');
    assert.deepEqual(statuses(cp), ['unverifiable', 'unverifiable', 'unverifiable']);
    assert.equal(cp.counts.covered, 0);
    assert.deepEqual(cp.safeCovered, []);
  });

  it('claimed turns without text: fail-closed, whatever the summary says', () => {
    const empty = [turn(0, ''), turn(1, '  ')];
    const cp = analyze(
      transcript(empty, [checkpoint({ summary: 'Everything was done.', summaryBudget: 1000, claimedIds: [0, 1], turnsBefore: 2 })]),
      OPTS,
    ).checkpoints[0];
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(
      cp.reasons[0],
      'none of its claimed turns has any text: there is no positive evidence of coverage, so none may be claimed (fail closed)',
    );
    assert.deepEqual(statuses(cp), ['nothing-to-check', 'nothing-to-check']);
    assert.equal(cp.turns[0].reason, 'nothing worth carrying: the turn has no text');
    assert.deepEqual(cp.safeCovered, []);
  });

  it('more than half the claimed turns with nothing to check: fail-closed; exactly half: judged as usual', () => {
    const mostly = [turn(0, 'Fix ERR_LEDGER_4107'), turn(1, 'ok'), turn(2, 'thanks, go ahead')];
    const cp = analyze(
      transcript(mostly, [checkpoint({ summary: 'Fixed ERR_LEDGER_4107.', summaryBudget: 1000, claimedIds: [0, 1, 2], turnsBefore: 3 })]),
      OPTS,
    ).checkpoints[0];
    assert.deepEqual(statuses(cp), ['covered', 'nothing-to-check', 'nothing-to-check']);
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(
      cp.reasons[0],
      '2 of its 3 claimed turns hold nothing to check: there is no positive evidence of coverage, so none may be claimed (fail closed)',
    );
    assert.deepEqual(cp.safeCovered, []);
    const half = analyze(
      transcript(mostly.slice(0, 2), [
        checkpoint({ summary: 'Fixed ERR_LEDGER_4107.', summaryBudget: 1000, claimedIds: [0, 1], turnsBefore: 2 }),
      ]),
      OPTS,
    ).checkpoints[0];
    assert.equal(half.verdict, 'reversible');
    assert.deepEqual(half.safeCovered, [0]);
  });

  it('with positive evidence for every claimed turn that holds something: reversible', () => {
    const cp = cpWith({ summary: 'Fixed ERR_LEDGER_4107; PR #8021 is open.' });
    assert.equal(cp.verdict, 'reversible');
    assert.deepEqual(statuses(cp), ['covered', 'covered', 'nothing-to-check']);
    assert.deepEqual(cp.safeCovered, [0, 1]);
  });
});
