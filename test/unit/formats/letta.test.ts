// Tests of the Letta agent-file reader (.af): the real agent file of the corpus, read in place (never copied), hand-
// written files in its shapes (a JSON-string alert, a plain-object alert, an alert quoted inside other text, two
// agents, ids that collide, bad JSON), the analysis of a checkpoint (unverifiable, fail-closed), and a fuzz test.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import type { ReaderContext, Transcript, Turn } from '../../../src/core/model';
import { LettaReader } from '../../../src/formats/letta';
import { corpusBytes, feed, requireCorpus } from './feedLines';
import { fuzzReader } from './fuzz';
import { assertStreamedObjects } from './streamedDocumentChecks';
import { lettaAgent, lettaAlert, lettaFile, lettaMessage } from './lettaRecords';

const countTokens = (text: string) => Math.ceil(text.length / 4);
const SUMMARY =
  'Note: prior messages have been hidden from view due to conversation memory constraints.\nThe following is a summary of the previous messages:\n Renamed Ledger to Journal in src/ledger.py; ERR_4107 fixed.';
const alertText = (extra: Record<string, unknown> = {}) => lettaAlert(SUMMARY, extra);
const msg = lettaMessage;

function agentFile(agents: unknown[]): string {
  return JSON.stringify(lettaFile(agents), null, 2) + '\n';
}

const agent = lettaAgent;

describe('formats/letta: the real agent file of the corpus', function () {
  before(function () {
    requireCorpus(this);
  });

  it('reads both agents; message-4 (a JSON-string system_alert) is the one checkpoint, unverifiable', () => {
    const bytes = corpusBytes(join('letta', 'lettabot-builder.af'));
    const t = feed(new LettaReader({ fileName: 'lettabot-builder.af' }), bytes);
    // Expected values counted independently with node (JSON.parse of the file): 3 + 188 = 191 messages, of which one
    // (message-4, agents[1].messages[1]) has a text that is wholly a system_alert JSON object, and one (message-97)
    // only quotes one; 62 tool messages, each answering a tool_calls[].id made earlier in its agent; the message-4
    // object opens on line 565 (the "{" line before its "type": "message"); the alert's message is 3,349 characters.
    assert.equal(t.format, 'letta');
    assert.equal(t.turns.length, 190);
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'message-4');
    assert.equal(cp.span.startLine, 565);
    assert.equal(cp.summary.length, 3349);
    assert.ok(cp.summary.startsWith('Note: prior messages have been hidden from view'));
    assert.deepEqual(cp.claimedIds, []);
    assert.equal(cp.turnsBefore, 4); // agent 0's three messages and agent 1's system message
    assert.match(cp.unverifiable ?? '', /evicted from agent 1 \("Nameless Agent-sleeptime"\) and are not in this file/);
    assert.equal(cp.recordedPrefixTokens, 183758);
    assert.ok(cp.notes?.some((n) => n.includes('messages 232 → 142')));
    assert.ok(cp.notes?.some((n) => n.includes('all 188 messages in this file are in context')));
    assert.ok(
      t.turns.some((turn) => turn.id === 'message-97' && turn.text.includes('system_alert')),
      'the quoted alert stays a turn',
    );
    assert.equal(t.turns.filter((turn) => turn.role === 'tool').length, 62);
    assert.equal(t.turns.filter((turn) => turn.role === 'tool' && turn.answers !== undefined).length, 62);
    assert.deepEqual(t.problems, []);

    const a = analyze(t, { countTokens });
    assert.equal(a.checkpoints[0].verdict, 'fail-closed');
    assert.match(a.checkpoints[0].reasons[0], /^coverage cannot be checked in this file: the messages this summary replaced were evicted/);
    assert.equal(a.checkpoints[0].unverifiable, cp.unverifiable);
  });
});

describe('formats/letta: compactions', () => {
  const messages = [
    msg('message-0', 'system', 'You are Letta'),
    msg(
      'message-1',
      'user',
      alertText({
        compaction_stats: {
          trigger: 'post_step_context_check',
          context_tokens_before: 9000,
          context_tokens_after: 4000,
          context_window: 10000,
          messages_count_before: 40,
          messages_count_after: 12,
        },
      }),
    ),
    msg('message-2', 'user', 'now deploy build 4107'),
    msg('message-3', 'assistant', '', {
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'deploy', arguments: '{"build":4107}' } }],
    }),
    msg('message-4', 'tool', 'deployed build 4107', {
      name: 'deploy',
      tool_call_id: 'toolu_1',
      tool_returns: [{ tool_call_id: 'toolu_1', status: 'success' }],
    }),
  ];

  it('a JSON-string system_alert: a checkpoint claiming nothing, unverifiable, with the stats; tool results answer their calls', () => {
    const text = agentFile([agent('solo', messages)]);
    const t = feed(new LettaReader({ fileName: 'solo.af' }), text);
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        ['message-0', 'system'],
        ['message-2', 'user'],
        ['message-3', 'assistant'],
        ['message-4', 'tool'],
      ],
    );
    assert.deepEqual(t.turns[3].answers, { turnId: 'message-3', callText: '[tool call deploy] {"build":4107}' });
    assert.equal(t.turns[3].label, 'deploy');
    const cp = t.checkpoints[0];
    assert.equal(cp.summary, SUMMARY);
    assert.deepEqual(cp.claimedIds, []);
    assert.equal(cp.turnsBefore, 1);
    assert.equal(cp.recordedPrefixTokens, 9000);
    assert.ok(typeof cp.unverifiable === 'string');
    assert.ok(
      cp.notes?.includes(
        "Letta's compaction_stats: messages 40 → 12, context 9,000 → 4,000 tokens, window 10,000 tokens, trigger post_step_context_check",
      ),
    );
    assert.ok(text.slice(cp.span.startOffset, cp.span.endOffset).includes('"id": "message-1"'));
    assert.deepEqual(t.problems, []);
    const a = analyze(t, { countTokens });
    assert.equal(a.checkpoints[0].verdict, 'fail-closed');
    assert.notEqual(a.checkpoints[0].verdict, 'reversible');
    assert.deepEqual(a.checkpoints[0].safeCovered, []);
  });

  it('a plain-object system_alert (the content itself, or its only block) is a checkpoint too', () => {
    const plain = { type: 'system_alert', message: SUMMARY };
    for (const content of [plain, [plain], [{ type: 'text', text: plain }]]) {
      const t = feed(
        new LettaReader({ fileName: 'a.af' }),
        agentFile([agent('a', [msg('message-0', 'user', 'hi'), { ...msg('message-1', 'user', ''), content }])]),
      );
      assert.equal(t.checkpoints.length, 1, JSON.stringify(content));
      assert.equal(t.checkpoints[0].summary, SUMMARY);
      assert.equal(t.checkpoints[0].turnsBefore, 1);
    }
  });

  it('a system_alert quoted inside other text is not a compaction', () => {
    const quoted = `<system-reminder>\nThe transcript so far:\n${alertText()}\n</system-reminder>`;
    const t = feed(
      new LettaReader({ fileName: 'q.af' }),
      agentFile([agent('q', [msg('message-0', 'user', quoted), msg('message-1', 'user', `${alertText()} and more`)])]),
    );
    assert.equal(t.checkpoints.length, 0);
    assert.equal(t.turns.length, 2);
  });

  it('an alert with the hidden-message counts says them in its reason', () => {
    const counted = JSON.stringify({
      type: 'system_alert',
      message:
        'Note: prior messages (30 of 42 total messages) have been hidden from view due to conversation memory constraints.\nThe following is a summary of the previous messages:\n ok.',
    });
    const t = feed(new LettaReader({ fileName: 'c.af' }), agentFile([agent('c', [msg('message-0', 'user', counted)])]));
    assert.match(t.checkpoints[0].unverifiable ?? '', /the alert says 30 of 42 messages were hidden/);
  });
});

describe('formats/letta: agents and context', () => {
  it('two agents: turns in file order, ids kept, a colliding id renamed with a problem; the checkpoint notes the other agent', () => {
    const first = agent('main', [msg('message-0', 'system', 'main prompt'), msg('message-1', 'user', 'fix ERR_4107')]);
    const second = agent('sleeptime', [
      msg('message-2', 'system', 'sleeptime prompt'),
      msg('message-3', 'user', alertText()),
      msg('message-1', 'assistant', 'noted ERR_4107'),
    ]);
    const t = feed(new LettaReader({ fileName: 'two.af' }), agentFile([first, second]));
    assert.deepEqual(
      t.turns.map((x) => x.id),
      ['message-0', 'message-1', 'message-2', 'agent 1 message 2'],
    );
    assert.equal(new Set(t.turns.map((x) => x.id)).size, t.turns.length);
    assert.equal(t.problems.length, 1);
    assert.match(
      t.problems[0].message,
      /message id message-1 of agent 1 \("sleeptime"\) is already used earlier in the file; this message is shown as "agent 1 message 2"/,
    );
    assert.ok(t.problems[0].line > 0);
    const cp = t.checkpoints[0];
    assert.equal(cp.turnsBefore, 3);
    assert.ok(cp.notes?.some((n) => n.includes('2 turns before it belong to earlier agents')));
  });

  it('messages out of context are labelled, counted at the agent, and in-context ids not in the file are named', () => {
    const messages = [
      msg('message-0', 'system', 'prompt'),
      msg('message-1', 'user', 'old question'),
      msg('message-2', 'user', alertText()),
      msg('message-3', 'user', 'new question'),
    ];
    const text = agentFile([agent('ctx', messages, ['message-0', 'message-2', 'message-3', 'message-99'])]);
    const t = feed(new LettaReader({ fileName: 'ctx.af' }), text);
    assert.equal(t.turns[1].label, 'user (out of context)');
    assert.equal(t.turns[2].label, 'user');
    const infos = t.problems.filter((p) => p.severity === 'info').map((p) => p.message);
    assert.ok(infos.some((m) => m.includes('1 of the 4 messages of agent 0 ("ctx") are out of context')));
    assert.ok(infos.some((m) => m.includes('1 in-context message id that is not in its messages (message-99)')));
    assert.ok(t.checkpoints[0].notes?.some((n) => n.includes('3 of its 4 messages in this file are in context, 1 are not')));
  });

  it('a bare agent object (no "agents" list) is read as one agent', () => {
    const t = feed(
      new LettaReader({ fileName: 'agent.json' }),
      JSON.stringify(agent('bare', [msg('message-0', 'user', 'hi'), msg('message-1', 'user', alertText())])),
    );
    assert.equal(t.turns.length, 1);
    assert.equal(t.checkpoints.length, 1);
  });
});

describe('formats/letta: bad input', () => {
  it('bad JSON: a problem on the line of the error, what was complete before it is read', () => {
    const text = agentFile([agent('a', [msg('message-0', 'user', 'fix ERR_4107'), msg('message-1', 'assistant', 'fixed')])]);
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes('"id": "message-1"'));
    lines[at] = '      "id": message-1,';
    const t = feed(new LettaReader({ fileName: 'bad.af' }), lines.join('\n'));
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].severity, 'error');
    assert.equal(t.problems[0].line, at + 1);
    assert.match(t.problems[0].message, /not valid JSON/);
    const emptyList = feed(new LettaReader({ fileName: 'x.af' }), agentFile([]));
    assert.match(emptyList.problems[0].message, /"agents" list is empty/);
  });

  it('a file too large to join into one text: one error saying so, no exception', () => {
    // 1,100 lines of the same 500k-character string: 550M characters, over what one string holds (MAX_JOINED_LENGTH).
    const long = `"${'x'.repeat(499_998)}",`;
    const reader = new LettaReader({ fileName: 'huge.af' });
    let offset = 0;
    for (let line = 1; line <= 1100; line++) {
      reader.push({ line, offset, endOffset: offset + long.length, text: line === 1 ? `[${long}` : long, terminated: true });
      offset += long.length + 1;
    }
    const t = reader.finish();
    assert.equal(t.turns.length, 0);
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [[1, 'error']],
    );
    assert.match(
      t.problems[0].message,
      /^line 1: the Letta agent file is too large to be read as one JSON document: 550,002,200 characters, more than the 536,870,888 one text can hold\. Nothing in it was read/,
    );
  });

  it('not an agent file, agents without messages, non-message entries: problems with line numbers, never silence', () => {
    const noAgents = feed(new LettaReader({ fileName: 'x.af' }), '{"foo": 1}\n');
    assert.equal(noAgents.turns.length, 0);
    assert.match(noAgents.problems[0].message, /holds no "agents" list/);
    const empty = feed(new LettaReader({ fileName: 'x.af' }), agentFile([{ name: 'e', messages: [] }, { name: 'f' }]));
    assert.ok(empty.problems.some((p) => /agent 1 \("f"\) has no "messages" list/.test(p.message) && p.line > 1));
    assert.ok(empty.problems.some((p) => /holds no messages/.test(p.message) && p.line === 1));
    const junk = feed(
      new LettaReader({ fileName: 'x.af' }),
      agentFile([agent('j', [42, { role: 'robot' }, msg('message-0', 'user', 'hi')])]),
    );
    assert.equal(junk.turns.length, 1);
    assert.equal(junk.problems.filter((p) => /is not a Letta message/.test(p.message)).length, 2);
    const silent = feed(
      new LettaReader({ fileName: 'x.af' }),
      agentFile([
        agent('s', [msg('message-0', 'user', ''), msg('message-1', 'user', JSON.stringify({ type: 'system_alert', message: '' }))]),
      ]),
    );
    assert.ok(silent.problems.some((p) => /no text could be read/.test(p.message)));
    assert.ok(silent.problems.some((p) => /summary of checkpoint message-1 has no readable text/.test(p.message)));
  });

  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    const text = agentFile([
      agent('a', [msg('message-0', 'system', 'p'), msg('message-1', 'user', alertText()), msg('message-2', 'user', 'fix ERR_4107')]),
    ]);
    fuzzReader(() => new LettaReader({ fileName: 'x.af' }), text.trimEnd());
  });
});

describe('formats/letta: read as pushed', function () {
  this.timeout(60000);
  const make = (context: Partial<ReaderContext>, readAhead?: number, streamArrays?: boolean): LettaReader =>
    new LettaReader({ fileName: 'x.af', ...context }, readAhead, streamArrays);
  const call = { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'edit', arguments: '{"path":"a.py"}' } }] };
  const first = [
    msg('message-0', 'system', 'You are Letta.'),
    msg('message-1', 'user', alertText({ compaction_stats: { messages_count_before: 40, messages_count_after: 4 } })),
    msg('message-2', 'assistant', 'editing', call),
    msg('message-3', 'tool', 'ok', { tool_call_id: 'c1', name: 'edit' }),
    msg('message-4', 'user', 'thanks'),
  ];
  const second = [msg('message-4', 'user', 'a colliding id'), 7, { role: 'robot' }, msg('message-9', 'assistant', 'done')];
  /** An agent whose name and in-context ids come after its messages (message-1 and message-3 out of context). */
  const late = {
    messages: first,
    agent_type: 'letta_v1_agent',
    name: 'late',
    in_context_message_ids: ['message-0', 'message-2', 'message-4', 'message-99'],
  };
  /** Eighteen agents, two past the lists read a message at a time, their ids colliding with the first's. */
  const many = Array.from({ length: 18 }, (_, k) => agent(`a${k}`, [msg(`message-${k % 3}`, 'user', `m${k}`)]));
  assertStreamedObjects({
    make,
    objects: [
      [
        'two agents: an alert, a tool call and its result, a colliding id, values that are not messages',
        agentFile([agent('a', first, ['message-0', 'message-2', 'message-3', 'message-4']), agent('b', second)]),
        'each',
      ],
      ['a bare agent, a space an indent', JSON.stringify(agent('bare', first.slice(0, 3), ['message-1', 'message-7']), null, 1), 'each'],
      ['name and in-context ids after the messages', JSON.stringify(lettaFile([late]), null, 2), 'each'],
      [
        'agents without messages, not objects, an empty list',
        agentFile([agent('e', []), 5, { name: 'f' }, agent('g', first.slice(3))]),
        'each',
      ],
      [
        'a root with messages and agents: the agents read',
        JSON.stringify({ messages: second, ...lettaFile([agent('a', first)]) }, null, 2),
        'all',
      ],
      ['an agent in an array in agents: not an agent', JSON.stringify({ agents: [[agent('n', first)]] }, null, 2), 'none'],
      ['CRLF, no in-context ids', agentFile([{ name: 'c', messages: first }]).replace(/\n/g, '\r\n'), 'each'],
      ['eighteen agents', agentFile(many), 'each', ['agent 16 message 0', 'agent 17 message 0']],
    ],
    notAnObject: /^line \d+: message \d+ of agent \d+ \(".*"\) is not a Letta message/,
    large: (n) =>
      agentFile([
        agent(
          'big',
          Array.from({ length: n }, (_, k) => msg(`message-${k}`, 'user', `m${k}`)),
          ['message-0'],
        ),
      ]),
  });

  it('in-context ids before the messages, as Letta writes them: the turns handed over are the turns shown, not copies', () => {
    const kept = new Set<object>();
    const keepTurn = (turn: Turn): Turn => {
      const copy = { ...turn };
      kept.add(copy);
      return copy;
    };
    const t = feed(make({ readOnce: true, keepTurn }), agentFile([agent('a', first, ['message-0', 'message-2']), agent('b', second)]));
    assert.equal(t.turns.length, 6);
    assert.ok(
      t.turns.every((turn) => kept.has(turn)),
      'each turn is the one handed over',
    );
    assert.deepEqual(
      t.turns.map((turn) => turn.label),
      ['system', 'assistant', 'edit (out of context)', 'user (out of context)', 'user', 'assistant'],
    );
    const late2 = feed(make({ readOnce: true, keepTurn }), JSON.stringify(lettaFile([late]), null, 2));
    assert.deepEqual(
      late2.turns.map((turn) => kept.has(turn)),
      [true, true, false, true],
      'only the turn whose label changed is a copy',
    );
  });

  it('an agent of 200,000 messages: each a turn (none passed as too many arguments to one call)', () => {
    const n = 200_000;
    const messages = Array.from({ length: n }, (_, k) => `{"role": "user", "content": "m", "id": "message-${k}"}`).join(',\n');
    const t = feed(make({ readOnce: true }), `{"agents": [{"name": "a", "messages": [\n${messages}\n]}]}\n`);
    assert.equal(t.turns.length, n);
    assert.equal(t.turns[n - 1].id, `message-${n - 1}`);
  });

  it('a file on one line is read whole, as the same file pretty-printed; a line after it is a problem', () => {
    const file = lettaFile([agent('a', first, ['message-0', 'message-2']), agent('b', second)]);
    const shape = (t: Transcript) => ({
      turns: t.turns.map((turn) => [turn.id, turn.label, turn.text, turn.answers?.turnId]),
      checkpoints: t.checkpoints.map((cp) => [cp.summaryId, cp.turnsBefore, cp.notes]),
      problems: t.problems.map((p) => p.message.replace(/^line \d+: /, '')),
    });
    const oneLine = feed(make({ readOnce: true }), JSON.stringify(file));
    assert.deepEqual(shape(oneLine), shape(feed(make({}), agentFile(file.agents as unknown[]))));
    const twoLines = feed(make({}), `${JSON.stringify(file)}\n{"agents": []}\n`);
    assert.deepEqual(twoLines.turns.length, oneLine.turns.length);
    assert.deepEqual(
      twoLines.problems.filter((p) => p.severity === 'error').map((p) => p.message),
      ['line 2: the agent file ended on an earlier line; this line was not read.'],
    );
  });

  it('name and in-context ids after the messages: the labels, notes and problems a read of the whole file gives', () => {
    const t = feed(make({ readOnce: true, keepTurn: (turn) => turn }), JSON.stringify(lettaFile([late]), null, 2));
    assert.deepEqual(
      t.turns.map((turn) => [turn.id, turn.label]),
      [
        ['message-0', 'system'],
        ['message-2', 'assistant'],
        ['message-3', 'edit (out of context)'],
        ['message-4', 'user'],
      ],
    );
    assert.ok(t.checkpoints[0].unverifiable?.includes('agent 0 ("late")'));
    assert.ok(t.checkpoints[0].notes?.some((note) => note.startsWith('this summary is itself no longer in context')));
    assert.deepEqual(
      t.problems.map((p) => p.message.replace(/^line \d+: /, '')),
      [
        `2 of the 5 messages of agent 0 ("late") are out of context (not in in_context_message_ids); they are shown, labelled "out of context".`,
        'agent 0 ("late") lists 1 in-context message id that is not in its messages (message-99).',
      ],
    );
  });
});
