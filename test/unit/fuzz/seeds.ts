// Seeds for the fuzzer (scripts/fuzz.mjs and test/unit/fuzz/fuzz.test.ts): small well-formed transcripts of every
// format with compaction checkpoints (the shapes the reader tests use), the bundled sample, and — when the shared
// corpus is beside the project — the real sessions, read in place (never copied), large ones cut into windows of
// lines around their checkpoints so a mutant stays cheap to analyse.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FormatId, SideFile } from '../../../src/core/model';
import { lettaAgent, lettaAlert, lettaFile, lettaMessage } from '../formats/lettaRecords';
import { piCall, piHeader, piMessage, piReply, piResult, piUser } from '../formats/piRecords';

export interface Seed {
  /** Where it comes from (a fixture name, or a corpus path with the window of lines taken). */
  name: string;
  /** The format it is written in. */
  format: FormatId;
  /** The file name a reader is given (some readers look at the extension). */
  fileName: string;
  bytes: Buffer;
  sideFiles?: SideFile[];
  /** Relative chance of being picked among the seeds of its format (default 1). */
  weight?: number;
}

type Rec = Record<string, unknown>;
const jsonl = (records: readonly unknown[]): Buffer => Buffer.from(records.map((r) => JSON.stringify(r)).join('\n') + '\n', 'utf8');
const pretty = (value: unknown): Buffer => Buffer.from(JSON.stringify(value, null, 2) + '\n', 'utf8');

function canonicalSeeds(): Seed[] {
  const turn = (id: unknown, content: string, extra: Rec = {}) => ({ type: 'turn', id, role: 'assistant', content, ...extra });
  const derived = [
    turn(0, 'Please fix ERR_4107 in src/ledger/post.ts; the nightly batch fails.', { role: 'user' }),
    turn(1, '[tool call Read] {"file_path":"src/ledger/post.ts"}'),
    turn(2, 'export function post() { throw new LedgerError("ERR_4107") }', { role: 'tool', answers: 1 }),
    turn(3, '[tool call Edit] {"file_path":"src/ledger/post.ts","new_string":"return retryPost(entry)"}'),
    turn(4, 'The file src/ledger/post.ts has been updated successfully.', { role: 'tool', reply_to: 3 }),
    turn(5, 'ok, go ahead', { role: 'user' }),
    turn(6, 'Ran `npm test`: 49 tests pass, PORT=8080 kept, see JIRA-881.'),
    {
      type: 'checkpoint',
      summary_id: 'S1',
      summary: 'Fixed ERR_4107 in src/ledger/post.ts with retryPost; 49 tests pass.',
      summary_budget: 64,
      covered: { from: 0, to: 6 },
    },
    turn(7, 'Now the invoice flow: INVOICE_12 fails in src/invoice/handler.ts', { role: 'user' }),
    turn('t-8', 'Checked src/invoice/handler.ts: INVOICE_12 needs a guard.'),
    {
      type: 'checkpoint',
      summary_id: 'S2',
      summary: 'INVOICE_12 needs a guard in src/invoice/handler.ts. The next step is',
      summary_budget: 16,
      covered: [7, 't-8'],
    },
    turn(9, 'Added the guard.'),
  ];
  const anchored = [
    turn(0, 'a', { anchor: 'A0', tokens: 30 }),
    turn(1, 'b', { anchor: 'A1', tokens: 30 }),
    turn(2, 'c', { anchor: 'A2', tokens: 30 }),
    { type: 'checkpoint', summary_id: 'R', summary: 'A0 A2', summary_budget: 10, covered: { from: 0, to: 2 }, reported_ids: [0, 2] },
    turn(3, 'd', { anchor: 'A3', tokens: 30 }),
    { type: 'checkpoint', summary_id: 'B', summary: 'A0 A1 A3', summary_budget: 100, covered: { from: 0, to: 3 } },
  ];
  return [
    { name: 'fixture:canonical-derived', format: 'canonical', fileName: 'derived.jsonl', bytes: jsonl(derived), weight: 3 },
    { name: 'fixture:canonical-anchored', format: 'canonical', fileName: 'anchored.jsonl', bytes: jsonl(anchored), weight: 2 },
  ];
}

const OPENING = 'This session is being continued from a previous conversation that ran out of context.';

function claudeCodeSeeds(): Seed[] {
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
  const boundary = (uuid: string, logical: string, meta: Rec = { trigger: 'auto', preTokens: 1000 }): Rec => ({
    type: 'system',
    subtype: 'compact_boundary',
    uuid,
    parentUuid: null,
    logicalParentUuid: logical,
    sessionId: S,
    compactMetadata: meta,
  });
  const summary = (uuid: string, parent: string, text: string): Rec => ({
    type: 'user',
    uuid,
    parentUuid: parent,
    sessionId: S,
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
    message: { role: 'user', content: text },
  });
  const SUMMARY = `${OPENING}\n\n1. Primary Request and Intent: fix ERR_4107 in ledger.ts\n9. Optional Next Step: run tests\nPlease continue the conversation from where we left off.`;
  const session = [
    { type: 'summary', summary: 'A title', leafUuid: 'zz' },
    user('u1', null, 'Fix ERR_4107 in ledger.ts'),
    { type: 'progress', uuid: 'p1', parentUuid: 'u1', sessionId: S, data: { type: 'hook_progress' } },
    reply('a1', 'p1', 'msg_A', [{ type: 'text', text: 'Looking.' }], 3),
    reply('a2', 'a1', 'msg_A', [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'ledger.ts' } }], 3),
    reply('a3', 'a2', 'msg_A', [{ type: 'tool_use', id: 'tu2', name: 'Grep', input: { pattern: 'ERR' } }], 40),
    user('r1', 'a3', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'contents of ledger.ts' }]),
    user('r2', 'a3', [{ type: 'tool_result', tool_use_id: 'tu2', content: 'ledger.ts:12 ERR_4107', is_error: true }]),
    user('m1', 'r2', 'hook reminder', { isMeta: true }),
    reply(
      'a4',
      'm1',
      'msg_B',
      [
        { type: 'thinking', thinking: 'secret' },
        { type: 'text', text: 'Fixed ERR_4107 by guarding post() in ledger.ts.' },
      ],
      9,
    ),
    { type: 'system', subtype: 'turn_duration', uuid: 's1', parentUuid: 'a4', sessionId: S },
    boundary('b1', 's1'),
    summary('sum1', 'b1', SUMMARY),
    user('u2', 'sum1', 'thanks, now run the tests'),
    reply('a5', 'u2', 'msg_C', [{ type: 'tool_use', id: 'tu3', name: 'Bash', input: { command: 'npm test' } }], 7),
    user('r3', 'a5', [{ type: 'tool_result', tool_use_id: 'tu3', content: '49 passing' }]),
    reply('a6', 'r3', 'msg_D', [{ type: 'text', text: 'All 49 tests pass.' }], 4),
    boundary('b2', 'a6', { trigger: 'manual', preTokens: 500, preservedSegment: { headUuid: 'u2', anchorUuid: 'sum2', tailUuid: 'a6' } }),
    summary(
      'sum2',
      'b2',
      `${OPENING}\n\n1. Primary Request and Intent: tests pass (49 passing)\nPlease continue the conversation from where we left off.`,
    ),
    user('u3', 'sum2', 'great'),
  ];
  const side: SideFile = {
    path: '/fixture/sess-1/subagents/agent-acompact-0001.jsonl',
    text: jsonl([
      { type: 'user', message: { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' } },
      {
        type: 'assistant',
        message: {
          id: 'm',
          role: 'assistant',
          content: [
            {
              type: 'text',
              text: `<analysis>x</analysis>\n<summary>\n1. Primary Request and Intent: fix ERR_4107 in ledger.ts\n9. Optional Next Step: run tests\n</summary>`,
            },
          ],
        },
      },
    ]).toString('utf8'),
  };
  return [
    { name: 'fixture:claude-code-session', format: 'claude-code', fileName: 'sess-1.jsonl', bytes: jsonl(session), weight: 3 },
    {
      name: 'fixture:claude-code-session+acompact',
      format: 'claude-code',
      fileName: 'sess-1.jsonl',
      bytes: jsonl(session),
      sideFiles: [side],
      weight: 2,
    },
  ];
}

function codexSeeds(): Seed[] {
  const line = (type: string, payload: unknown) => ({ timestamp: '2026-01-01T00:00:00Z', type, payload });
  const msg = (role: string, text: string) => ({
    type: 'message',
    role,
    content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
  });
  const tokens = (input: number, total: number) =>
    line('event_msg', {
      type: 'token_count',
      info: { last_token_usage: { input_tokens: input, output_tokens: total - input, total_tokens: total }, model_context_window: 200000 },
    });
  const summary = 'Another language model started to solve this problem and produced a summary: ledger.rs fixed (ERR_4107).';
  const rollout = (compacted: unknown) => [
    line('session_meta', { id: 's' }),
    line('response_item', msg('developer', 'You are Codex.')),
    line('response_item', msg('user', 'Fix ERR_4107 in ledger.rs')),
    line('event_msg', { type: 'user_message', message: 'Fix ERR_4107 in ledger.rs' }),
    line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Look at ledger.rs' }], encrypted_content: 'xx' }),
    line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["cat","ledger.rs"]}', call_id: 'c1' }),
    line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'fn post() { ERR_4107 }' }),
    tokens(1200, 1300),
    line('response_item', msg('assistant', 'Fixed ledger.rs')),
    line('event_msg', { type: 'agent_message', message: 'Fixed ledger.rs' }),
    tokens(0, 99999),
    line('compacted', compacted),
    line('event_msg', { type: 'context_compacted' }),
    line('response_item', msg('user', 'now run tests')),
    line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["cargo","test"]}', call_id: 'c2' }),
    line('response_item', { type: 'function_call_output', call_id: 'c2', output: 'test result: ok. 12 passed' }),
  ];
  return [
    {
      name: 'fixture:codex-local',
      format: 'codex',
      fileName: 'rollout-local.jsonl',
      bytes: jsonl(rollout({ message: summary, replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), msg('user', summary)] })),
      weight: 3,
    },
    {
      name: 'fixture:codex-remote',
      format: 'codex',
      fileName: 'rollout-remote.jsonl',
      bytes: jsonl(
        rollout({
          message: '',
          replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), { type: 'compaction', encrypted_content: 'e' }],
        }),
      ),
      weight: 2,
    },
  ];
}

function openHandsSeeds(): Seed[] {
  const ev = (id: number, extra: Rec) => ({ id, timestamp: '2025-01-01T00:00:00', source: 'agent', message: '', ...extra });
  const events = (condensation: Rec) => [
    ev(0, { source: 'user', action: 'message', args: { content: 'Fix ERR_4107 in ledger.py' } }),
    ev(1, { observation: 'agent_state_changed', content: '', extras: { agent_state: 'running' } }),
    ev(2, { action: 'run', args: { command: 'cat ledger.py', thought: 'read it' } }),
    ev(3, { observation: 'run', cause: 2, content: 'def post(): raise ERR_4107' }),
    ev(4, { action: 'edit', args: { path: 'ledger.py', new_str: 'def post(): pass' } }),
    ev(5, { observation: 'edit', cause: 4, content: 'edited ledger.py' }),
    ev(8, { action: 'condensation', args: { summary: 'Fixed ERR_4107 in ledger.py', summary_offset: 1, ...condensation } }),
    ev(9, { action: 'finish', args: { final_thought: 'done' } }),
  ];
  const v1 = [
    { kind: 'SystemPromptEvent', id: 'e0', source: 'agent', system_prompt: { type: 'text', text: 'You are OpenHands' } },
    { kind: 'MessageEvent', id: 'e1', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'Fix ERR_4107' }] } },
    {
      kind: 'ActionEvent',
      id: 'e2',
      source: 'agent',
      tool_name: 'terminal',
      thought: [{ type: 'text', text: 'look' }],
      action: { command: 'ls' },
    },
    {
      kind: 'ObservationEvent',
      id: 'e3',
      source: 'environment',
      tool_name: 'terminal',
      observation: { content: [{ type: 'text', text: 'ledger.py' }] },
    },
    { kind: 'ConversationStateUpdateEvent', id: 'e4', key: 'x', value: 1 },
    {
      kind: 'Condensation',
      id: 'e5',
      forgotten_event_ids: ['e1', 'e2', 'e3'],
      summary: 'User asked to fix ERR_4107; ls shows ledger.py',
      summary_offset: 1,
    },
    { kind: 'MessageEvent', id: 'e6', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'thanks' }] } },
  ];
  return [
    {
      name: 'fixture:openhands-ids.jsonl',
      format: 'openhands',
      fileName: 'events.jsonl',
      bytes: jsonl(events({ forgotten_event_ids: [2, 3, 4, 5] })),
      weight: 2,
    },
    {
      name: 'fixture:openhands-range.json',
      format: 'openhands',
      fileName: 'events.json',
      bytes: pretty(events({ forgotten_events_start_id: 0, forgotten_events_end_id: 5 })),
    },
    { name: 'fixture:openhands-v1.jsonl', format: 'openhands', fileName: 'v1.jsonl', bytes: jsonl(v1), weight: 2 },
  ];
}

function langChainSeeds(): Seed[] {
  const human = (id: string, content: string, extra: Rec = {}) => ({ type: 'human', id, content, additional_kwargs: {}, ...extra });
  const ai = (id: string, content: string, extra: Rec = {}) => ({ type: 'ai', id, content, tool_calls: [], ...extra });
  const state = {
    values: {
      messages: [
        human('m0', 'Our ledger service throws ERR_4107 on post()'),
        ai('m1', 'Looking at ledger.py line 12', { tool_calls: [{ id: 'c1', name: 'read_file', args: { path: 'ledger.py' } }] }),
        { type: 'tool', id: 'm2', content: 'def post(): raise ERR_4107', tool_call_id: 'c1' },
        human('m3', 'Also rename Ledger to Journal'),
        ai('m4', 'Renamed Ledger to Journal.'),
        { type: 'system', id: 's1', content: 'Summary of the conversation so far: renamed Ledger to Journal.' },
        human('m5', 'thanks'),
      ],
      context: {
        running_summary: {
          summary: 'Renamed Ledger to Journal.',
          summarized_message_ids: ['m0', 'm1', 'm2', 'm3', 'm4'],
          last_summarized_message_id: 'm4',
        },
      },
    },
  };
  const log = [
    human('h1', 'Deploy build 4107 to staging'),
    ai('a1', '', { tool_calls: [{ id: 'c1', name: 'deploy', args: { build: 4107, env: 'staging' } }] }),
    { type: 'tool', id: 't1', content: 'deployed build 4107', tool_call_id: 'c1' },
    human('h2', 'Check the logs'),
    ai('a2', 'Logs are clean.'),
    human('sum', 'Here is a summary of the conversation to date:\n\nBuild 4107 deployed to staging.', {
      additional_kwargs: { lc_source: 'summarization' },
    }),
    human('h3', 'Now production'),
  ];
  const alert = JSON.stringify({
    type: 'system_alert',
    message:
      'Note: prior messages (3 of 6 total messages) have been hidden from view due to conversation memory constraints.\nThe following is a summary of the previous messages:\n Ledger renamed.',
  });
  const letta = [
    { id: 'message-0', role: 'system', content: [{ type: 'text', text: 'You are Letta' }] },
    { id: 'message-1', role: 'user', content: [{ type: 'text', text: 'rename Ledger' }] },
    { id: 'message-2', role: 'assistant', content: [{ type: 'text', text: 'renamed' }] },
    { id: 'message-3', role: 'user', content: [{ type: 'text', text: 'and ERR_4107?' }] },
    { id: 'message-4', role: 'assistant', content: [{ type: 'text', text: 'fixed' }] },
    { id: 'message-5', role: 'user', content: [{ type: 'text', text: alert }] },
  ];
  return [
    { name: 'fixture:langmem-state.json', format: 'langchain', fileName: 'state.json', bytes: pretty(state), weight: 2 },
    { name: 'fixture:langchain-log.jsonl', format: 'langchain', fileName: 'log.jsonl', bytes: jsonl(log), weight: 2 },
    { name: 'fixture:letta.json', format: 'langchain', fileName: 'letta.json', bytes: pretty(letta) },
    { name: 'fixture:letta.jsonl', format: 'langchain', fileName: 'letta.jsonl', bytes: jsonl(letta) },
  ];
}

function piSeeds(): Seed[] {
  const [header, message, user, call, result, reply] = [piHeader, piMessage, piUser, piCall, piResult, piReply];
  const SUMMARY =
    '# Context Checkpoint: ledger\n\n## Goal\nFix ERR_4107 in src/ledger.ts (retryPost).\n\n## Commands\n- `npm test` - 49 tests';
  // Version 1: no ids; firstKeptEntryIndex counts entries from the header (entry 0).
  const v1 = [
    header(),
    message(user('Fix ERR_4107 in src/ledger.ts')),
    message(call('t1', 'read', { path: 'src/ledger.ts' }, 'Reading it.')),
    message(result('t1', 'read', 'export function post() { throw new LedgerError("ERR_4107") }')),
    { type: 'model_change', timestamp: 't', provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
    message(call('t2', 'edit', { path: 'src/ledger.ts', oldText: 'throw', newText: 'return retryPost(entry)' })),
    message(result('t2', 'edit', 'Successfully replaced text in src/ledger.ts.')),
    message(reply('Fixed ERR_4107 with retryPost.')),
    message(user('now run the tests')),
    message(call('t3', 'bash', { command: 'npm test' })),
    message(result('t3', 'bash', '49 passing')),
    { type: 'compaction', timestamp: 't', summary: SUMMARY, firstKeptEntryIndex: 8, tokensBefore: 1200 },
    message(user('ok, commit it')),
    { type: 'thinking_level_change', timestamp: 't', thinkingLevel: 'high' },
    message({
      role: 'bashExecution',
      command: 'git status',
      output: 'modified: src/ledger.ts',
      exitCode: 0,
      cancelled: false,
      truncated: false,
    }),
    { type: 'compaction', timestamp: 't', summary: SUMMARY + '\n- committed', firstKeptEntryIndex: 12, tokensBefore: 1500 },
  ];
  // Version 3: ids and parentIds (a tree), firstKeptEntryId; the first reply has an abandoned sibling branch.
  let parent: string | null = null;
  const entry = (id: string, record: Rec, from: string | null = parent): Rec => {
    parent = id;
    return { ...record, id, parentId: from };
  };
  const v3 = [
    header({ version: 3 }),
    entry('a1', message(user('Fix ERR_4107 in src/ledger.ts'))),
    entry('a2', message(reply('Try a retry loop?'))),
    entry('b2', message(reply('Use retryPost in src/ledger.ts.')), 'a1'),
    entry('b3', message(call('t1', 'edit', { path: 'src/ledger.ts', oldText: 'throw', newText: 'return retryPost(entry)' }))),
    entry('b4', message(result('t1', 'edit', 'Successfully replaced text in src/ledger.ts.'))),
    entry('b5', message(user('run the tests'))),
    entry('b6', message(call('t2', 'bash', { command: 'npm test' }))),
    entry('b7', message(result('t2', 'bash', 'ERR_4107: 1 failing', true))),
    entry('c1', { type: 'compaction', timestamp: 't', summary: SUMMARY, firstKeptEntryId: 'b5', tokensBefore: 900 }),
    entry('b8', message(reply('One test still fails.'))),
  ];
  return [
    { name: 'fixture:pi-v1.jsonl', format: 'pi', fileName: 'pi-v1.jsonl', bytes: jsonl(v1), weight: 3 },
    { name: 'fixture:pi-v3.jsonl', format: 'pi', fileName: 'pi-v3.jsonl', bytes: jsonl(v3), weight: 2 },
  ];
}

function lettaSeeds(): Seed[] {
  const [msg, alert] = [lettaMessage, lettaAlert];
  const SUMMARY =
    'Note: prior messages have been hidden from view due to conversation memory constraints.\nThe following is a summary of the previous messages:\n Renamed Ledger to Journal; ERR_4107 fixed in src/ledger.py.';
  const main = lettaAgent('main', [
    msg('message-0', 'system', 'You are Letta'),
    msg('message-1', 'user', 'Deploy build 4107 to staging'),
    msg('message-2', 'assistant', '', {
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'deploy', arguments: '{"build":4107}' } }],
    }),
    msg('message-3', 'tool', 'deployed build 4107', {
      name: 'deploy',
      tool_call_id: 'toolu_1',
      tool_returns: [{ tool_call_id: 'toolu_1', status: 'success' }],
    }),
  ]);
  const sleeptime = lettaAgent(
    'main-sleeptime',
    [
      msg('message-4', 'system', 'You are the sleeptime agent'),
      msg(
        'message-5',
        'user',
        alert(SUMMARY, {
          compaction_stats: {
            trigger: 'post_step_context_check',
            context_tokens_before: 9000,
            context_tokens_after: 4000,
            messages_count_before: 40,
            messages_count_after: 12,
          },
        }),
      ),
      msg('message-6', 'user', `<system-reminder>\n${alert('quoted, not a compaction')}\n</system-reminder>`),
      { ...msg('message-7', 'user', ''), content: [{ type: 'system_alert', message: SUMMARY.replace('Ledger', 'Book') }] },
      msg('message-8', 'assistant', 'Noted ERR_4107.'),
    ],
    ['message-4', 'message-7', 'message-8'],
  );
  const file = lettaFile([main, sleeptime]);
  return [
    { name: 'fixture:letta-agents.af', format: 'letta', fileName: 'agents.af', bytes: pretty(file), weight: 2 },
    {
      name: 'fixture:letta-export.json',
      format: 'letta',
      fileName: 'export.json',
      bytes: Buffer.from(JSON.stringify(file) + '\n', 'utf8'),
    },
  ];
}

function messageArraySeeds(): Seed[] {
  const chat = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Fix ERR_4107 in ledger.py' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"ledger.py"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'def post(): raise ERR_4107' },
    { role: 'user', content: 'Here is a summary of the conversation to date:\n\nledger.py fixed (ERR_4107).' },
    { role: 'assistant', content: 'What next?' },
  ];
  const anthropic = {
    system: 'You are Claude.',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Rename Ledger to Journal' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'edit', input: { path: 'ledger.py' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      {
        role: 'assistant',
        content: [
          { type: 'compaction', content: 'Renamed Ledger to Journal in ledger.py.' },
          { type: 'text', text: 'Done.' },
        ],
      },
      { role: 'user', content: 'now fix ERR_4107' },
      { role: 'assistant', content: [{ type: 'compaction', content: 'Renamed; ERR_4107 pending.' }] },
    ],
  };
  const items = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix ERR_4107' }] },
    { type: 'function_call', name: 'shell', arguments: '{"cmd":"pytest"}', call_id: 'c' },
    { type: 'function_call_output', call_id: 'c', output: '1 failed' },
    { type: 'compaction', encrypted_content: 'gAAAAB…' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] },
    { role: 'user', content: 'Summary of the conversation so far: pytest fixed' },
    { role: 'assistant', content: 'ok' },
  ];
  return [
    { name: 'fixture:openai-chat.json', format: 'message-array', fileName: 'chat.json', bytes: pretty(chat) },
    { name: 'fixture:openai-chat.jsonl', format: 'message-array', fileName: 'chat.jsonl', bytes: jsonl(chat), weight: 2 },
    {
      name: 'fixture:anthropic.json',
      format: 'message-array',
      fileName: 'anthropic.json',
      bytes: Buffer.from(JSON.stringify(anthropic) + '\n'),
    },
    { name: 'fixture:responses-items.jsonl', format: 'message-array', fileName: 'items.jsonl', bytes: jsonl(items), weight: 2 },
  ];
}

/** The project's own seeds: one set of fixtures per format, and samples/incident.jsonl when `root` holds it. */
export function fixtureSeeds(root?: string): Seed[] {
  const seeds = [
    ...canonicalSeeds(),
    ...claudeCodeSeeds(),
    ...codexSeeds(),
    ...openHandsSeeds(),
    ...langChainSeeds(),
    ...lettaSeeds(),
    ...piSeeds(),
    ...messageArraySeeds(),
  ];
  const incident = root === undefined ? undefined : join(root, 'samples', 'incident.jsonl');
  if (incident !== undefined && existsSync(incident)) {
    seeds.push({
      name: 'samples/incident.jsonl',
      format: 'canonical',
      fileName: 'incident.jsonl',
      bytes: readFileSync(incident),
      weight: 0.5,
    });
  }
  return seeds;
}

// ---------------------------------------------------------------------------------------------------------------
// The shared corpus

/** Corpus files and the format each is written in (a missing one is skipped). */
const CORPUS_FILES: readonly [string, FormatId][] = [
  ['claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz', 'claude-code'],
  ['claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz', 'claude-code'],
  ['claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz', 'claude-code'],
  ['claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.gz', 'claude-code'],
  ['claude-code/shape-fixtures/agent-sessions-small.jsonl', 'claude-code'],
  ['claude-code/short.jsonl', 'claude-code'],
  ['claude-code/tool_heavy.jsonl', 'claude-code'],
  ['claude-code/wpfleger96/forked_session.jsonl', 'claude-code'],
  ['claude-code/wpfleger96/session_with_compact.jsonl', 'claude-code'],
  ['codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl', 'codex'],
  ['codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl', 'codex'],
  ['codex/shape-fixtures/agent-sessions-small.jsonl', 'codex'],
  ['openhands/basic.json', 'openhands'],
  ['openhands/multi_swe_bench-output.jsonl', 'openhands'],
  ['letta/lettabot-builder.af', 'letta'],
  ['pi/before-compaction.jsonl.gz', 'pi'],
];

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Files at most this large are seeds as a whole; larger ones are cut into windows of lines. */
const WHOLE_BYTES = 64 * 1024;

function acompactSideFiles(corpus: string, file: string): SideFile[] {
  const stem = file.replace(/\.gz$/, '').replace(/\.jsonl$/, '');
  const folder = join(corpus, stem, 'subagents');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => /^agent-acompact-.*\.jsonl$/.test(name))
    .sort()
    .map((name) => ({ path: join(folder, name), text: readFileSync(join(folder, name), 'utf8') }));
}

/**
 * Line numbers (1-based) of the records that look like compactions, found by text alone (the fuzzer must not
 * depend on the readers it tests): Claude Code boundaries and summaries, Codex `compacted`, summary phrases.
 */
function compactionLines(lines: readonly string[]): number[] {
  const marks =
    /"compact_boundary"|"isCompactSummary":true|"type":"compacted"|"type":"compaction"|condensation|Here is a summary of the conversation|Summary of the conversation so far|have been hidden from view/i;
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (marks.test(line)) found.push(i + 1);
  });
  return found;
}

/** Windows [from, to] (1-based, inclusive) of a large file: around each compaction, and a few elsewhere. */
function windowsOf(lineCount: number, marks: readonly number[]): [number, number][] {
  const windows: [number, number][] = [];
  for (const at of marks.slice(0, 6)) {
    for (const [before, after] of [
      [40, 10],
      [120, 30],
    ])
      windows.push([Math.max(1, at - before), Math.min(lineCount, at + after)]);
  }
  for (const start of [1, Math.floor(lineCount / 3), Math.floor((2 * lineCount) / 3)])
    windows.push([Math.max(1, start), Math.min(lineCount, start + 80)]);
  return windows;
}

/**
 * Seeds from the shared corpus, or [] when it is absent. Small files are seeds whole; large ones give windows of
 * lines (the first line kept for formats whose first record names the session), and their whole text once,
 * picked rarely (it is slow to analyse).
 */
export function corpusSeeds(corpus: string): Seed[] {
  if (!existsSync(corpus)) return [];
  const seeds: Seed[] = [];
  for (const [file, format] of CORPUS_FILES) {
    const path = join(corpus, file);
    if (!existsSync(path) || !statSync(path).isFile()) continue;
    const raw = readFileSync(path);
    const bytes = file.endsWith('.gz') ? gunzipSync(raw) : raw;
    const fileName = file.replace(/\.gz$/, '').split('/').pop() ?? file;
    const sideFiles = format === 'claude-code' ? acompactSideFiles(corpus, file) : [];
    const base = { format, fileName, ...(sideFiles.length > 0 ? { sideFiles } : {}) };
    const name = relative(corpus, path);
    if (bytes.length <= WHOLE_BYTES) {
      seeds.push({ ...base, name: `corpus:${name}`, bytes, weight: 2 });
      continue;
    }
    seeds.push({ ...base, name: `corpus:${name} (whole)`, bytes, weight: 0.02 });
    const text = bytes.toString('utf8');
    const lines = text.split('\n');
    if (lines.length < 20 || !parses(lines[0])) continue; // one long record, or a document over many lines: only whole
    const lineCount = lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
    for (const [from, to] of windowsOf(lineCount, compactionLines(lines))) {
      const head = from > 1 && format === 'codex' ? [lines[0]] : [];
      const window = [...head, ...lines.slice(from - 1, to)].join('\n') + '\n';
      seeds.push({ ...base, name: `corpus:${name} lines ${from}-${to}`, bytes: Buffer.from(window, 'utf8') });
    }
  }
  return seeds;
}
