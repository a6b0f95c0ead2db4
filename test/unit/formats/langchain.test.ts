// Tests of the LangMem / LangChain / Letta reader with hand-written files (the corpus has no real one: see
// corpus/SOURCES.md), a fuzz test, and the checks of a reader read as pushed (streamedDocumentChecks.ts).
import assert from 'node:assert/strict';
import type { ReaderContext } from '../../../src/core/model';
import { LangChainReader } from '../../../src/formats/langchain';
import { feed, feedAppending } from './feedLines';
import { fuzzReader } from './fuzz';
import { assertStreamedDocument, assertStreamedObjects } from './streamedDocumentChecks';

const human = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
  type: 'human',
  id,
  content,
  additional_kwargs: {},
  ...extra,
});
const ai = (id: string, content: string, extra: Record<string, unknown> = {}) => ({ type: 'ai', id, content, tool_calls: [], ...extra });

describe('formats/langchain: LangMem running summary', () => {
  // LangMem trimmed its input to the last messages but still recorded every id as summarised.
  const state = {
    values: {
      messages: [
        human('m0', 'Our ledger service throws ERR_4107 on post()'),
        ai('m1', 'Looking at ledger.py line 12'),
        { type: 'tool', id: 'm2', content: 'def post(): raise ERR_4107', tool_call_id: 'c1' },
        human('m3', 'Also rename Ledger to Journal'),
        ai('m4', 'Renamed Ledger to Journal.'),
        { type: 'system', id: 's1', content: 'Summary of the conversation so far: renamed Ledger to Journal.' },
        human('m5', 'thanks'),
      ],
      context: {
        running_summary: {
          summary: 'Renamed Ledger to Journal.',
          summarized_message_ids: ['m0', 'm1', 'm2', 'm3', 'm4', 'gone'],
          last_summarized_message_id: 'm4',
        },
      },
    },
  };

  it('claims summarized_message_ids, places the checkpoint after the last summarised message, notes the trimming', () => {
    const text = JSON.stringify(state, null, 2);
    const t = feed(new LangChainReader({ fileName: 'state.json', defaultBudget: 256 }), text);
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        ['m0', 'user'],
        ['m1', 'assistant'],
        ['m2', 'tool'],
        ['m3', 'user'],
        ['m4', 'assistant'],
        ['m5', 'user'],
      ],
    );
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'running_summary');
    assert.equal(cp.summary, 'Renamed Ledger to Journal.');
    assert.deepEqual(cp.claimedIds, ['m0', 'm1', 'm2', 'm3', 'm4', 'gone']);
    assert.equal(cp.turnsBefore, 5);
    assert.equal(cp.summaryBudget, 256);
    assert.equal(cp.budgetAssumed, true);
    assert.ok(cp.notes?.[0].includes('even when trim_messages cut the input'));
    assert.ok(cp.notes?.includes('1 of the 6 summarized_message_ids are not messages in this file'));
    assert.equal(t.problems.length, 1);
    assert.match(t.problems[0].message, /1 message ids that are not in this file \(gone\)/);
    // spans point at the message objects of the pretty-printed file
    const m3 = t.turns[3];
    assert.ok(text.slice(m3.span.startOffset, m3.span.endOffset).includes('"id": "m3"'));
  });
});

describe('formats/langchain: running_summary without last_summarized_message_id', () => {
  it('regression (fuzz): JSON Lines — it sits at its own line, not after the last message of the file', () => {
    const lines = [
      JSON.stringify(human('m0', 'Rename Ledger to Journal')),
      JSON.stringify({ running_summary: { summary: 'Renamed Ledger to Journal.' } }),
      JSON.stringify(ai('m1', 'Renamed Ledger to Journal in ledger.py.')),
    ];
    const prefix = feed(new LangChainReader({ fileName: 'log.jsonl' }), lines.slice(0, 2).join('\n') + '\n');
    const whole = feed(new LangChainReader({ fileName: 'log.jsonl' }), lines.join('\n') + '\n');
    assert.equal(prefix.checkpoints[0].turnsBefore, 1);
    assert.equal(whole.checkpoints[0].turnsBefore, 1);
    assert.equal(whole.turns.length, 2);
  });

  it('a single-document state: it sits at its place in the document, so appended messages do not move it', () => {
    const doc = (messages: unknown[]) =>
      JSON.stringify({ running_summary: { summary: 'Renamed Ledger to Journal.', summarized_message_ids: [] }, messages }, null, 2);
    const one = feed(new LangChainReader({ fileName: 'state.json' }), doc([human('m0', 'Rename Ledger to Journal')]));
    const two = feed(new LangChainReader({ fileName: 'state.json' }), doc([human('m0', 'Rename Ledger to Journal'), ai('m1', 'Renamed.')]));
    assert.equal(one.checkpoints[0].turnsBefore, 0);
    assert.equal(two.checkpoints[0].turnsBefore, 0);
  });
});

describe('formats/langchain: a LangMem summary message, and a running summary later in the file', () => {
  // JSON Lines are read as they come, so what a LangMem summary message is (a checkpoint, or the running summary
  // injected into the prompt) is settled only at each finish, by whether the file holds a running summary by then.
  const lines = [
    human('m0', 'Rename Ledger to Journal'),
    ai('m1', 'Renamed Ledger to Journal.'),
    { type: 'system', id: 's1', content: 'Summary of the conversation so far: renamed Ledger to Journal.' },
    human('m2', 'Deploy build 4107'),
    human('sum', 'Here is a summary of the conversation to date:\n\nBuild 4107 deployed.', {
      additional_kwargs: { lc_source: 'summarization' },
    }),
    { running_summary: { summary: 'Renamed Ledger to Journal.', summarized_message_ids: ['m0', 'm1'], last_summarized_message_id: 'm1' } },
  ].map((m) => JSON.stringify(m));
  const text = (n: number) => lines.slice(0, n).join('\n') + '\n';
  const claims = (t: ReturnType<typeof feed>) => t.checkpoints.map((cp) => [cp.summaryId, cp.claimedIds, cp.turnsBefore]);

  it('is a checkpoint while the file holds no running summary, and the next summary claims from it', () => {
    for (const readOnce of [false, true]) {
      const t = feed(new LangChainReader({ fileName: 'log.jsonl', readOnce }, 1), text(5));
      assert.deepEqual(claims(t), [
        ['s1', ['m0', 'm1'], 2],
        ['sum', ['m2'], 3],
      ]);
      assert.ok(t.checkpoints[1].notes?.[0].includes('since the previous summary'));
    }
  });

  it('is not, once a running summary comes: the next summary claims from the start', () => {
    const expected = [
      ['running_summary', ['m0', 'm1'], 2],
      ['sum', ['m0', 'm1', 'm2'], 3],
    ];
    for (const readOnce of [false, true]) {
      const t = feed(new LangChainReader({ fileName: 'log.jsonl', readOnce }, 1), text(6));
      assert.deepEqual(claims(t), expected);
      assert.deepEqual(
        t.turns.map((x) => x.id),
        ['m0', 'm1', 'm2'],
      );
      assert.ok(t.checkpoints[1].notes?.[0].includes('since the start'));
    }
    // Finished before the running summary came, then appended to: the same as read at once.
    for (let cut = 1; cut < lines.length; cut++) {
      assert.deepEqual(claims(feedAppending(new LangChainReader({ fileName: 'log.jsonl' }, 1), text(6), cut)), expected, `cut ${cut}`);
    }
  });
});

describe('formats/langchain: LangChain summarisation message', () => {
  // Before: it claimed only h1, a1 — h2, a2 were "kept" because their ids reappear after the summary. That read lines
  // after the checkpoint (lines 1–5 alone claimed all four), so now every message before it is claimed.
  it('claims every message before the summary since the previous one, kept or not', () => {
    const log = [
      human('h1', 'Deploy build 4107 to staging'),
      ai('a1', 'Deployed build 4107.'),
      human('h2', 'Check the logs'),
      ai('a2', 'Logs are clean.'),
      human('sum', 'Here is a summary of the conversation to date:\n\nBuild 4107 deployed.', {
        additional_kwargs: { lc_source: 'summarization' },
      }),
      human('h2', 'Check the logs'),
      ai('a2', 'Logs are clean.'),
    ];
    const t = feed(new LangChainReader({ fileName: 'log.jsonl' }), log.map((m) => JSON.stringify(m)).join('\n') + '\n');
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.deepEqual(cp.claimedIds, ['h1', 'a1', 'h2', 'a2']);
    assert.equal(cp.turnsBefore, 4);
    assert.ok(cp.summary.startsWith('Here is a summary of the conversation to date:'));
    assert.ok(cp.notes?.[0].startsWith('LangChain stores no pointer set'));
    assert.ok(cp.notes?.[0].includes('including any it kept verbatim'));
    // the re-added messages reuse their ids: shown by position, with a problem
    assert.equal(t.turns.length, 6);
    assert.equal(t.problems.length, 2);
  });

  it('regression (fuzz): messages repeated after the summary do not change what it claims', () => {
    const lines = [
      human('h1', 'Deploy build 4107 to staging'),
      ai('a1', 'Deployed build 4107.'),
      human('sum', 'Here is a summary of the conversation to date:\n\nBuild 4107 deployed to staging.', {
        additional_kwargs: { lc_source: 'summarization' },
      }),
      ai('a1', 'Deployed build 4107.'),
    ].map((m) => JSON.stringify(m));
    const prefix = feed(new LangChainReader({ fileName: 'log.jsonl' }), lines.slice(0, 3).join('\n') + '\n');
    const whole = feed(new LangChainReader({ fileName: 'log.jsonl' }), lines.join('\n') + '\n');
    assert.deepEqual(prefix.checkpoints[0].claimedIds, ['h1', 'a1']);
    assert.deepEqual(whole.checkpoints[0].claimedIds, ['h1', 'a1']);
    assert.equal(whole.checkpoints[0].turnsBefore, prefix.checkpoints[0].turnsBefore);
  });

  it('serialised constructors ({lc:1, kwargs}) are read, and a summary after removal claims nothing', () => {
    const ctor = (cls: string, kwargs: Record<string, unknown>) => ({
      lc: 1,
      type: 'constructor',
      id: ['langchain', 'schema', 'messages', cls],
      kwargs,
    });
    const state = {
      messages: [
        ctor('HumanMessage', {
          id: 's',
          content: 'Here is a summary of the conversation to date:\n\nx',
          additional_kwargs: { lc_source: 'summarization' },
        }),
        ctor('AIMessage', { id: 'a', content: 'ok', tool_calls: [{ name: 'search', args: { q: 'ERR_4107' } }] }),
      ],
    };
    const t = feed(new LangChainReader({ fileName: 'state.json' }), JSON.stringify(state));
    assert.deepEqual(t.checkpoints[0].claimedIds, []);
    assert.ok(t.checkpoints[0].notes?.some((n) => n.includes('removed from the state')));
    assert.equal(t.turns[0].text, 'ok\n[tool call search] {"q":"ERR_4107"}');
  });
});

describe('formats/langchain: Letta system_alert', () => {
  it('claims the first H messages by position, from the counts', () => {
    const alert = JSON.stringify({
      type: 'system_alert',
      message:
        'Note: prior messages (3 of 6 total messages) have been hidden from view due to conversation memory constraints.\nThe following is a summary of the previous messages:\n Ledger renamed.',
    });
    const messages = [
      { id: 'message-0', role: 'system', content: [{ type: 'text', text: 'You are Letta' }] },
      { id: 'message-1', role: 'user', content: [{ type: 'text', text: 'rename Ledger' }] },
      { id: 'message-2', role: 'assistant', content: [{ type: 'text', text: 'renamed' }] },
      { id: 'message-3', role: 'user', content: [{ type: 'text', text: 'and ERR_4107?' }] },
      { id: 'message-4', role: 'assistant', content: [{ type: 'text', text: 'fixed' }] },
      { id: 'message-5', role: 'user', content: [{ type: 'text', text: alert }] },
    ];
    const t = feed(new LangChainReader({ fileName: 'letta.json' }), JSON.stringify(messages, null, 1));
    const cp = t.checkpoints[0];
    assert.deepEqual(cp.claimedIds, ['message-1', 'message-2', 'message-3']);
    assert.equal(cp.turnsBefore, 5);
    assert.ok(cp.summary.includes('Ledger renamed.'));
    assert.ok(cp.notes?.[0].startsWith('Letta records counts only (3 of 6 messages hidden), no ids'));
    assert.deepEqual(t.problems, []);
  });
});

describe('formats/langchain: tool messages answer their calls', () => {
  it("LangChain dicts: tool_call_id names an AI message's tool_calls[].id", () => {
    const log = [
      human('h1', 'Fix ERR_4107'),
      ai('a1', '', {
        tool_calls: [
          { id: 'c1', name: 'read_file', args: { path: 'ledger.py' } },
          { id: 'c2', name: 'grep', args: { q: 'ERR' } },
        ],
      }),
      { type: 'tool', id: 't1', content: 'def post()', tool_call_id: 'c1' },
      { type: 'tool', id: 't2', content: 'ledger.py:12', tool_call_id: 'c2' },
      { type: 'tool', id: 't3', content: 'orphan', tool_call_id: 'c_gone' },
    ];
    const text = log.map((m) => JSON.stringify(m)).join('\n') + '\n';
    const t = feed(new LangChainReader({ fileName: 'log.jsonl' }), text);
    assert.deepEqual(t.turns[2].answers, { turnId: 'a1', callText: '[tool call read_file] {"path":"ledger.py"}' });
    assert.deepEqual(t.turns[3].answers, { turnId: 'a1', callText: '[tool call grep] {"q":"ERR"}' });
    assert.equal(t.turns[4].answers, undefined);
    assert.ok(t.turns[1].text.includes(t.turns[2].answers!.callText));
    for (const cut of [2, 3]) {
      assert.deepEqual(
        feedAppending(new LangChainReader({ fileName: 'log.jsonl' }), text, cut).turns.map((turn) => turn.answers),
        t.turns.map((turn) => turn.answers),
        `cut after line ${cut}`,
      );
    }
  });

  it('serialised constructors, and Anthropic tool_use / tool_result blocks', () => {
    const ctor = (cls: string, kwargs: Record<string, unknown>) => ({
      lc: 1,
      type: 'constructor',
      id: ['langchain', 'schema', 'messages', cls],
      kwargs,
    });
    const state = {
      messages: [
        ctor('AIMessage', { id: 'a', content: [{ type: 'tool_use', id: 'tu1', name: 'bash', input: { command: 'pytest' } }] }),
        ctor('ToolMessage', { id: 't', content: '3 passed', tool_call_id: 'tu1' }),
        ctor('HumanMessage', { id: 'h', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'again' }] }),
      ],
    };
    const t = feed(new LangChainReader({ fileName: 'state.json' }), JSON.stringify(state, null, 2));
    assert.deepEqual(t.turns[1].answers, { turnId: 'a', callText: '[tool call bash] {"command":"pytest"}' });
    assert.deepEqual(t.turns[2].answers, { turnId: 'a', callText: '[tool call bash] {"command":"pytest"}' });
  });

  it('Letta: tool_calls and tool_call_id / tool_returns, and tool_call_message / tool_return_message', () => {
    const messages = [
      {
        id: 'message-1',
        role: 'assistant',
        content: [],
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'memory_insert', arguments: '{"label":"human"}' } }],
      },
      {
        id: 'message-2',
        role: 'tool',
        content: [{ type: 'text', text: 'inserted' }],
        tool_call_id: 'call_1',
        tool_returns: [{ tool_call_id: 'call_1', status: 'success' }],
      },
      {
        id: 'message-3',
        message_type: 'tool_call_message',
        tool_call: { name: 'send_message', arguments: '{"message":"hi"}', tool_call_id: 'call_2' },
      },
      { id: 'message-4', message_type: 'tool_return_message', tool_return: 'sent', tool_call_id: 'call_2' },
    ];
    const t = feed(new LangChainReader({ fileName: 'letta.json' }), JSON.stringify(messages, null, 1));
    assert.deepEqual(t.turns[1].answers, { turnId: 'message-1', callText: '[tool call memory_insert] {"label":"human"}' });
    assert.deepEqual(t.turns[3].answers, { turnId: 'message-3', callText: '[tool call send_message] {"message":"hi"}' });
  });
});

describe('formats/langchain: bad input', () => {
  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    const log = [
      human('h1', 'Deploy 4107'),
      ai('a1', 'done'),
      human('sum', 'Here is a summary of the conversation to date:\n\nok', { additional_kwargs: { lc_source: 'summarization' } }),
      ai('a2', 'next'),
    ];
    fuzzReader(() => new LangChainReader({ fileName: 'x.jsonl' }), log.map((m) => JSON.stringify(m)).join('\n'));
  });
});

describe('formats/langchain: read as pushed', function () {
  this.timeout(60000);
  const log = [
    { type: 'system', id: 'sys', content: 'You are helpful.' },
    human('h1', 'Deploy build 4107 to staging'),
    ai('a1', 'Deploying', { tool_calls: [{ id: 'c1', name: 'deploy', args: { build: 4107 } }] }),
    { type: 'tool', id: 't1', content: 'deployed 4107', tool_call_id: 'c1' },
    human('sum', 'Here is a summary of the conversation to date:\n\nBuild 4107 deployed.', {
      additional_kwargs: { lc_source: 'summarization' },
    }),
    human('h2', 'Check the logs'),
    { type: 'system', id: 's1', content: 'Summary of the conversation so far: deployed.' },
    ai('a2', 'Logs are clean.'),
  ];
  const pretty = JSON.stringify(log, null, 2);
  const documents: [string, string][] = [
    ['pretty-printed', pretty],
    ['one space', JSON.stringify(log.slice(1), null, 1)],
    ['on one line', JSON.stringify(log)],
    ['blank lines first, CRLF', '\n\n' + pretty.replace(/\n/g, '\r\n') + '\r\n'],
    ['bare values and an empty array among the messages', `[\n 1, "two", null,\n [], ${pretty.slice(1)}`],
  ];
  assertStreamedDocument({
    make: (context: Partial<ReaderContext>, readAhead?: number, streamArrays?: boolean) =>
      new LangChainReader({ fileName: 'log.json', ...context }, readAhead, streamArrays),
    documents,
    jsonl: log.map((m) => JSON.stringify(m)).join('\n'),
    notAnObject: /^line \d+: message \d+ is not a LangChain, LangMem or Letta message/,
    element: (k) => human(`m${k}`, `message ${k}`),
  });
});

describe('formats/langchain: a state document read a message at a time', function () {
  this.timeout(60000);
  const messages = [
    human('h1', 'Deploy build 4107 to staging — ünïcode'),
    ai('a1', 'Deploying', { tool_calls: [{ id: 'c1', name: 'deploy', args: { build: 4107 } }] }),
    { type: 'tool', id: 't1', content: 'deployed 4107', tool_call_id: 'c1' },
    human('h2', 'Check the logs'),
    ai('a2', 'Logs are clean.'),
  ];
  const running = { summary: 'Build 4107 deployed.', summarized_message_ids: ['h1', 'a1', 't1'], last_summarized_message_id: 't1' };
  const state = { values: { messages, context: { running_summary: running } }, next: [], config: { configurable: { thread_id: 't' } } };
  const pretty = JSON.stringify(state, null, 2);
  const m = (k: number) => JSON.stringify(human(`x${k}`, `other ${k}`));
  const objects: [string, string, 'each' | 'all' | 'none'][] = [
    ['a LangGraph state, pretty-printed', pretty, 'each'],
    [
      // The list opens after text with characters of two and three bytes, and closes before the running summary.
      'the list opening and closing on lines shared with other keys',
      `{ "é€": 1, "messages": [ ${JSON.stringify(messages[0])},\n  ${JSON.stringify(messages[1])}\n ], "running_summary": ${JSON.stringify(running)},\n "n": [1, {"messages": 2}] }`,
      'each',
    ],
    [
      'a deeper list first, then the shallower one the read takes',
      JSON.stringify({ metadata: { writes: { node: { messages: [human('w1', 'written')] } } }, messages }, null, 2),
      'all',
    ],
    ['the key twice: the last list is the one read', `{\n"messages": [\n${m(1)}\n],\n"messages": [\n${m(2)},\n${m(3)}\n]\n}`, 'all'],
    ['an escaped key', `{\n"messa\\u0067es": [\n${m(1)},\n${m(2)}\n]\n}`, 'each'],
    ['a list too deep to be found', JSON.stringify({ a: { b: { c: { d: { e: { messages } } } } } }, null, 2), 'none'],
    ['lists in an array, not found', JSON.stringify({ agents: [{ messages }] }, null, 2), 'none'],
    [
      "more lists than are read a message at a time: the root's own, last, is read with the outline",
      `{\n${Array.from({ length: 18 }, (_, k) => `"k${k}": {"messages": [\n${m(k)}\n]},`).join('\n')}\n"messages": [\n${m(99)}\n]\n}`,
      'none',
    ],
    [
      'a list that opens and closes on its line, and one that does not',
      `{\n"a": {"messages": [${m(1)}]}, "messages": [\n${m(2)}\n]\n}`,
      'all',
    ],
    ['not a state', '{\n  "config": {"x": [1, 2]},\n  "next": []\n}', 'none'],
    // Arrays in the outline, the first 1 deep: the parser's limit (512) is passed at 513, and the list after is not read.
    ...[512, 513].map((depth): [string, string, 'each' | 'none'] => [
      `the outline nested ${depth} arrays deep`,
      `{\n"a": ${'['.repeat(depth)}${']'.repeat(depth)},\n"messages": [\n${m(1)}\n]\n}`,
      depth <= 512 ? 'each' : 'none',
    ]),
    // The root is 0 deep, its list 1 and a message 2: arrays inside a message reach the parser's limit (512) at 510.
    ...[510, 511].map((depth): [string, string, 'each'] => [
      `a message nested ${depth} arrays deep`,
      `{\n"messages": [\n${m(1)},\n{"type": "human", "content": "x", "n": ${'['.repeat(depth)}${']'.repeat(depth)}},\n${m(2)}\n]\n}`,
      'each',
    ]),
    ['a string and an empty object among the messages, CRLF', `{\r\n"messages": [\r\n"two",\r\n{},\r\n${m(5)}\r\n]\r\n}\r\n`, 'each'],
  ];
  it('a state still being written gives the messages complete before its end, and says it is incomplete', () => {
    const text = JSON.stringify(state, null, 2);
    const cut = text.slice(0, text.indexOf('"id": "a2"'));
    for (const streamArrays of [true, false]) {
      const t = feed(new LangChainReader({ fileName: 'state.json' }, 512, streamArrays), cut);
      assert.deepEqual(
        t.turns.map((turn) => turn.id),
        ['h1', 'a1', 't1', 'h2'],
      );
      assert.equal(t.problems.length, 1);
      assert.match(t.problems[0].message, /is incomplete \(the agent may still be writing\)/);
      assert.equal(t.problems[0].severity, 'warning');
    }
  });

  assertStreamedObjects({
    make: (context: Partial<ReaderContext>, readAhead?: number, streamArrays?: boolean) =>
      new LangChainReader({ fileName: 'state.json', ...context }, readAhead, streamArrays),
    objects,
    notAnObject: /^line \d+: message \d+ is not a LangChain, LangMem or Letta message/,
    large: (n) =>
      JSON.stringify(
        {
          values: { messages: Array.from({ length: n }, (_, k) => human(`m${k}`, `message ${k}`)), context: { running_summary: running } },
        },
        null,
        2,
      ),
  });
});

describe('formats/langchain: a value whose "toString" is not a function', () => {
  it("in a serialised message's class path, is read as its JSON, never thrown (String() of such an object throws)", () => {
    const evil = { toString: 'x' };
    const text = [
      { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', evil], kwargs: { content: 'hi' } },
      { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'HumanMessage'], kwargs: { content: 'Fix ERR_4107' } },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const t = feed(new LangChainReader({ fileName: 'log.jsonl' }), text);
    assert.deepEqual(
      t.turns.map((turn) => turn.text),
      ['Fix ERR_4107'],
    );
  });
});
