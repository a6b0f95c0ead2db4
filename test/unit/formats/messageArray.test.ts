// Tests of the plain message-array reader with hand-written arrays (OpenAI chat, Anthropic messages, OpenAI
// Responses items), a fuzz test, and the checks of a reader read as pushed (streamedDocumentChecks.ts).
import assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import type { ReaderContext, Turn } from '../../../src/core/model';
import { MessageArrayReader } from '../../../src/formats/messageArray';
import { feed, feedAppending } from './feedLines';
import { fuzzReader } from './fuzz';
import { assertStreamedDocument, assertStreamedObjects } from './streamedDocumentChecks';

/** An OpenAI chat: a tool call and its result, then a summary message and one more turn. */
const chat = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Fix ERR_4107 in ledger.py' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"ledger.py"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'def post(): raise ERR_4107' },
  { role: 'user', content: 'Here is a summary of the conversation to date:\n\nledger.py fixed.' },
  { role: 'assistant', content: 'What next?' },
];

describe('formats/message-array', () => {
  it('OpenAI chat: a message opening with a summary phrase claims the turns before it', () => {
    const t = feed(new MessageArrayReader({ fileName: 'chat.json', defaultBudget: 8192 }), JSON.stringify(chat, null, 2));
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        [0, 'system'],
        [1, 'user'],
        [2, 'assistant'],
        [3, 'tool'],
        [5, 'assistant'],
      ],
    );
    assert.equal(t.turns[2].text, '[tool call read_file] {"path":"ledger.py"}');
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'message 4');
    assert.deepEqual(cp.claimedIds, [0, 1, 2, 3]);
    assert.equal(cp.turnsBefore, 4);
    assert.equal(cp.summaryBudget, 8192);
    assert.equal(cp.budgetAssumed, true);
    assert.ok(cp.notes?.[0].startsWith('a summary message (opens with "Here is a summary of the conversation to date:")'));
    assert.deepEqual(t.problems, []);
  });

  it('Anthropic messages: a compaction block is the summary; a second one claims only what followed the first', () => {
    const body = {
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
    const t = feed(new MessageArrayReader({ fileName: 'anthropic.json' }), JSON.stringify(body));
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        ['system', 'system'],
        [0, 'user'],
        [1, 'assistant'],
        [2, 'tool'],
        [3, 'assistant'],
        [4, 'user'],
      ],
    );
    assert.equal(t.checkpoints.length, 2);
    assert.equal(t.checkpoints[0].summary, 'Renamed Ledger to Journal in ledger.py.');
    assert.deepEqual(t.checkpoints[0].claimedIds, ['system', 0, 1, 2]);
    assert.deepEqual(t.checkpoints[1].claimedIds, [3, 4]);
    assert.equal(t.checkpoints[0].opaque, undefined);
  });

  it('OpenAI Responses: an encrypted compaction item is opaque; JSONL is read line by line', () => {
    const items = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix ERR_4107' }] },
      { type: 'function_call', name: 'shell', arguments: '{"cmd":"pytest"}', call_id: 'c' },
      { type: 'function_call_output', call_id: 'c', output: '1 failed' },
      { type: 'compaction', encrypted_content: 'gAAAAB…' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] },
    ];
    const t = feed(new MessageArrayReader({ fileName: 'items.jsonl' }), items.map((i) => JSON.stringify(i)).join('\n') + '\n');
    assert.deepEqual(
      t.turns.map((x) => x.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    const cp = t.checkpoints[0];
    assert.equal(cp.opaque, true);
    assert.deepEqual(cp.claimedIds, [0, 1, 2]);
    assert.equal(cp.span.startLine, 4);
    assert.equal(t.problems.length, 1);
  });

  it('OpenAI chat: a tool message answers the assistant turn whose tool_calls[].id its tool_call_id names', () => {
    const chat = [
      { role: 'user', content: 'Fix ERR_4107' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"ledger.py"}' } },
          { id: 'c2', type: 'function', function: { name: 'run', arguments: '{"cmd":"pytest"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c2', content: '1 failed' },
      { role: 'tool', tool_call_id: 'c1', content: 'def post()' },
      { role: 'tool', tool_call_id: 'c9', content: 'from before this file' },
    ];
    const t = feed(new MessageArrayReader({ fileName: 'chat.json' }), JSON.stringify(chat, null, 2));
    assert.deepEqual(t.turns[2].answers, { turnId: 1, callText: '[tool call run] {"cmd":"pytest"}' });
    assert.deepEqual(t.turns[3].answers, { turnId: 1, callText: '[tool call read_file] {"path":"ledger.py"}' });
    assert.equal(t.turns[4].answers, undefined);
    assert.ok(t.turns.slice(0, 2).every((turn) => turn.answers === undefined));
  });

  it('Anthropic: a user message of tool_result blocks answers the tool_use blocks they name, one call a line', () => {
    const body = {
      system: 'You are Claude.',
      messages: [
        { role: 'user', content: 'Rename Ledger' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking' },
            { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.py' } },
            { type: 'tool_use', id: 't2', name: 'read', input: { path: 'b.py' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'class Ledger' },
            { type: 'tool_result', tool_use_id: 't2', content: 'Ledger()' },
          ],
        },
      ],
    };
    const t = feed(new MessageArrayReader({ fileName: 'anthropic.json' }), JSON.stringify(body));
    assert.deepEqual(t.turns[3].answers, { turnId: 1, callText: '[tool call read] {"path":"a.py"}\n[tool call read] {"path":"b.py"}' });
  });

  it('Responses items: function_call_output answers function_call by call_id, also when the file grows', () => {
    const items = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix ERR_4107' }] },
      { type: 'function_call', name: 'shell', arguments: '{"cmd":"pytest"}', call_id: 'c' },
      { type: 'compaction', encrypted_content: 'gAAAAB…' },
      { type: 'function_call_output', call_id: 'c', output: '1 failed' },
    ];
    const text = items.map((i) => JSON.stringify(i)).join('\n') + '\n';
    const t = feed(new MessageArrayReader({ fileName: 'items.jsonl' }), text);
    assert.deepEqual(t.turns[2].answers, { turnId: 1, callText: '[tool call shell] {"cmd":"pytest"}' });
    assert.equal(t.turns[1].text, t.turns[2].answers?.callText);
    for (const cut of [2, 3]) {
      assert.deepEqual(
        feedAppending(new MessageArrayReader({ fileName: 'items.jsonl' }), text, cut).turns.map((turn) => turn.answers),
        t.turns.map((turn) => turn.answers),
        `cut after line ${cut}`,
      );
    }
  });

  it('an exported Claude Code session in OpenAI chat form: [compact_boundary] then "This session is being continued…" (pinned)', () => {
    // Pins the reader's behaviour as it is: the summary is recognised by its opening words and claims every message
    // before it, the [compact_boundary] marker included (it is read as a system turn, like any system message).
    const summary =
      'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n' +
      'Summary:\n1. Primary Request and Intent: fix ERR_4107 in src/ledger.ts\n9. Optional Next Step: run npm test\n' +
      'Please continue the conversation from where we left off without asking the user any further questions.';
    const exported = [
      { role: 'user', content: 'Fix ERR_4107 in src/ledger.ts' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"src/ledger.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'export function post() { throw ERR_4107 }' },
      { role: 'assistant', content: 'Fixed ERR_4107 in src/ledger.ts.' },
      { role: 'system', content: '[compact_boundary] Conversation compacted (trigger: auto, preTokens: 167094)' },
      { role: 'user', content: summary },
      { role: 'user', content: 'now run npm test' },
    ];
    const t = feed(new MessageArrayReader({ fileName: 'exported.json', defaultBudget: 20000 }), JSON.stringify(exported, null, 2));
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        [0, 'user'],
        [1, 'assistant'],
        [2, 'tool'],
        [3, 'assistant'],
        [4, 'system'],
        [6, 'user'],
      ],
    );
    assert.equal(t.checkpoints.length, 1);
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'message 5');
    assert.equal(cp.summary, summary);
    assert.equal(cp.opaque, undefined);
    assert.deepEqual(cp.claimedIds, [0, 1, 2, 3, 4]);
    assert.equal(cp.turnsBefore, 5);
    assert.deepEqual(cp.truncationHints, { expectedLastSection: 9 });
    assert.ok(cp.notes?.[0].startsWith('a summary message (opens with "This session is being continued from a previous conversation")'));
    assert.deepEqual(t.problems, []);
    const a = analyze(t, { countTokens: (x) => Math.ceil(x.length / 4) }).checkpoints[0];
    assert.equal(a.truncation.truncated, false);
    assert.deepEqual(
      a.turns.map((r) => r.status),
      ['covered', 'nothing-to-check', 'covered', 'covered', 'claimed-missing'],
    );
    assert.equal(a.verdict, 'conditional');
  });

  it('a JSON document that is not a message array is a problem', () => {
    const t = feed(new MessageArrayReader({ fileName: 'x.json' }), '{\n  "hello": 1\n}\n');
    assert.equal(t.turns.length, 0);
    assert.equal(t.problems[0].severity, 'error');
    // on one line it reads as JSONL: a record without a role
    const one = feed(new MessageArrayReader({ fileName: 'x.json' }), '{"hello": 1}');
    assert.match(one.problems[0].message, /has no "role"/);
  });

  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    const lines = [
      { role: 'user', content: 'Fix ERR_4107' },
      { role: 'assistant', content: [{ type: 'compaction', content: 'fixed' }] },
      { type: 'compaction', encrypted_content: 'x' },
      { role: 'user', content: 'Summary of the conversation so far: all good' },
    ];
    fuzzReader(() => new MessageArrayReader({ fileName: 'x.jsonl' }), lines.map((l) => JSON.stringify(l)).join('\n'));
    fuzzReader(() => new MessageArrayReader({ fileName: 'x.json' }), JSON.stringify(lines, null, 2), 60);
  });
});

describe('formats/message-array: read as pushed', function () {
  this.timeout(60000);
  const pretty = JSON.stringify(chat, null, 2);
  const documents: [string, string][] = [
    ['pretty-printed', pretty],
    ['one space', JSON.stringify(chat.slice(1), null, 1)],
    ['on one line', JSON.stringify(chat)],
    ['blank lines first, CRLF', '\n\n' + pretty.replace(/\n/g, '\r\n') + '\r\n'],
    ['bare values and an empty array among the messages', `[\n 1, "two", null,\n [], ${pretty.slice(1)}`],
  ];
  const make = (context: Partial<ReaderContext>, readAhead?: number, streamArrays?: boolean): MessageArrayReader =>
    new MessageArrayReader({ fileName: 'chat.json', ...context }, readAhead, streamArrays);
  assertStreamedDocument({
    make,
    documents,
    jsonl: chat.map((m) => JSON.stringify(m)).join('\n'),
    notAnObject: /^line \d+: message \d+ is not a JSON object/,
    element: (k) => ({ role: 'user', content: `m${k}` }),
  });

  /** An Anthropic conversation: two compaction blocks, a tool call and its result. */
  const anthropic = [
    { role: 'user', content: [{ type: 'text', text: 'Rename Ledger to Journal' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'edit', input: { path: 'ledger.py' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    {
      role: 'assistant',
      content: [
        { type: 'compaction', content: 'Renamed Ledger.' },
        { type: 'text', text: 'Done.' },
      ],
    },
    { role: 'user', content: 'Now the tests' },
    { role: 'assistant', content: [{ type: 'compaction', encrypted_content: 'gAAAA' }] },
    { role: 'user', content: 'And the docs' },
  ];
  const body = (fields: Record<string, unknown>, indent: number | undefined = 2): string => JSON.stringify(fields, null, indent);
  const summary = 'Here is a summary of the conversation to date:\n\nLedger renamed.';
  assertStreamedObjects({
    make,
    objects: [
      ['a body, its system after its messages', body({ model: 'm', messages: anthropic, system: 'You are Claude.' }), 'each', ['system']],
      ['a body, its system first, a space an indent', body({ system: 'You are Claude.', messages: anthropic }, 1), 'each', ['system']],
      [
        'Responses input, an encrypted compaction item, a value that is not an object, then a system',
        body({ model: 'm', input: [chat[1], { type: 'compaction', encrypted_content: 'x' }, 7, chat[5]], instructions: 'I', system: 'S' }),
        'each',
        ['system'],
      ],
      ['a system that is a summary, after the messages', body({ messages: anthropic, system: summary }), 'each'],
      [
        'a system of blocks, a compaction block first',
        body({
          messages: chat.slice(1),
          system: [
            { type: 'compaction', content: 'Earlier: ERR_4107.' },
            { type: 'text', text: 'Be brief.' },
          ],
        }),
        'each',
        ['system'],
      ],
      ['messages that are not a list, then input', body({ messages: 'none', input: chat.slice(1) }), 'each'],
      ['messages and input: messages taken', body({ input: anthropic, messages: chat.slice(1), system: 'S' }), 'all', ['system']],
      ['the key twice', `{"messages": [${JSON.stringify(chat[1])}],\n"messages": ${JSON.stringify(chat.slice(2), null, 1)}}`, 'all'],
      ['messages two keys down, not a body', body({ request: { messages: chat } }), 'none'],
      ['CRLF, with a null system', body({ messages: chat, system: null }).replace(/\n/g, '\r\n'), 'each'],
    ],
    notAnObject: /^line \d+: message \d+ is not a JSON object/,
    large: (n) => body({ model: 'm', messages: Array.from({ length: n }, (_, k) => ({ role: 'user', content: `m${k}` })) }),
  });

  it('a list of messages below the root is not read a message at a time (a read of the whole document does not read it)', () => {
    const handed: unknown[] = [];
    const keepTurn = (turn: Turn): Turn => {
      handed.push(turn.id);
      return turn;
    };
    for (const key of ['messages', 'input']) {
      const text = body({ request: { [key]: chat } });
      assert.deepEqual(feed(make({ keepTurn, readOnce: true }), text), feed(make({}, 512, false), text), key);
    }
    assert.deepEqual(handed, []);
  });

  it('a body whose system comes after its messages: the system turn first, the checkpoints as a whole read makes them', () => {
    const text = body({ model: 'm', messages: anthropic, system: 'You are Claude.' });
    const t = feed(make({ readOnce: true, keepTurn: (turn) => turn }), text);
    assert.deepEqual(
      t.turns.map((turn) => turn.id),
      ['system', 0, 1, 2, 3, 4, 6],
    );
    assert.deepEqual(
      t.checkpoints.map((cp) => [cp.summaryId, cp.claimedIds, cp.turnsBefore]),
      [
        ['message 3', ['system', 0, 1, 2], 4],
        ['message 5', [3, 4], 6],
      ],
    );
    assert.ok(t.checkpoints[0].notes?.[0].endsWith('claims the 4 turns before it since the start'));
    assert.deepEqual(
      t.problems.map((p) => p.message),
      [
        `line ${t.checkpoints[1].span.startLine}: the compaction at message 5 is encrypted, so whether it covers the 2 turns before it cannot be verified.`,
      ],
    );
    assert.equal(t.turns[3].answers?.turnId, 1);
  });

  it('JSON Lines of whole conversations read once: the first is read, the others counted', () => {
    const text = [JSON.stringify({ messages: chat }), JSON.stringify({ messages: chat.slice(1) }), JSON.stringify({ messages: [] })].join(
      '\n',
    );
    const t = feed(make({ readOnce: true }, 1), text);
    assert.deepEqual(t, feed(make({}), text));
    assert.equal(t.turns.length, 5);
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.message]),
      [[2, 'this file holds 3 conversations (one per line); only the first (line 1) is read. Split the file to check the others.']],
    );
  });
});

describe('formats/messageArray: a value whose "toString" is not a function', () => {
  it('is read as its JSON, never thrown (String() of such an object throws; found by the fuzzer, seed 2404)', () => {
    const evil = { toString: 'x' };
    const t = feed(
      new MessageArrayReader({ fileName: 'chat.jsonl' }),
      [
        { role: evil, content: 'hi' },
        { type: evil, content: 'there' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    assert.deepEqual(
      t.turns.map((turn) => [turn.label, turn.text]),
      [
        ['{"toString":"x"}', 'hi'],
        ['{"toString":"x"}', 'there'],
      ],
    );
  });
});
