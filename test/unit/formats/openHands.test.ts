// Tests of the OpenHands reader: the real event files of the corpus (no condensation in them), fixtures for a
// forgotten-id list, a start/end range (and how its expansion is reported), V1 Condensation events, and a fuzz test.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ReaderContext, Turn } from '../../../src/core/model';
import { OpenHandsReader } from '../../../src/formats/openHands';
import { corpusAvailable, corpusBytes, feed, feedAppending, requireCorpus } from './feedLines';
import { assertStreamedDocument, assertStreamedObjects } from './streamedDocumentChecks';
import { fuzzReader } from './fuzz';

describe('formats/openhands: real event files of the corpus', function () {
  this.timeout(20000);
  before(function () {
    requireCorpus(this);
  });

  it('basic.json: a pretty-printed array of 4 events, each with its own span', () => {
    const bytes = corpusBytes(join('openhands', 'basic.json'));
    const t = feed(new OpenHandsReader({ fileName: 'basic.json' }), bytes);
    // ids 0, 3, 4, 5: jq '[.[].id]' basic.json
    assert.deepEqual(
      t.turns.map((x) => x.id),
      [0, 3, 4, 5],
    );
    assert.deepEqual(
      t.turns.map((x) => x.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.equal(t.checkpoints.length, 0);
    assert.deepEqual(t.problems, []);
    for (const turn of t.turns) {
      const raw = JSON.parse(bytes.subarray(turn.span.startOffset, turn.span.endOffset).toString('utf8')) as { id: number };
      assert.equal(raw.id, turn.id);
    }
    assert.equal(t.turns[0].span.startLine, 2);
    assert.ok(t.turns[0].text.startsWith('Please create a simple 2048 game.'));
  });

  it('multi_swe_bench-output.jsonl: three evaluation runs of 49, 70 and 103 events, no condensation', () => {
    const bytes = corpusBytes(join('openhands', 'multi_swe_bench-output.jsonl'));
    const t = feed(new OpenHandsReader({ fileName: 'multi_swe_bench-output.jsonl' }), bytes);
    // history lengths 49, 70, 103 (python: len(record['history'])); none is an agent-state or null event
    assert.equal(t.turns.length, 49 + 70 + 103);
    assert.equal(t.checkpoints.length, 0);
    assert.deepEqual(
      t.turns.slice(0, 3).map((x) => x.id),
      ['1:0', '1:1', '1:2'],
    );
    assert.equal(t.turns[49].id, '2:0');
    assert.equal(t.problems.length, 1);
    assert.match(t.problems[0].message, /holds 3 runs/);
    // each event's span is its own object inside the long line
    const raw = JSON.parse(bytes.subarray(t.turns[60].span.startOffset, t.turns[60].span.endOffset).toString('utf8')) as { id: number };
    assert.equal(`2:${raw.id}`, t.turns[60].id);
  });

  it('observations answer the action their cause names', () => {
    const basic = feed(new OpenHandsReader({ fileName: 'basic.json' }), corpusBytes(join('openhands', 'basic.json')));
    // event 4 is the edit observation with cause 3 (jq '.[2].cause')
    assert.equal(basic.turns[2].answers?.turnId, 3);
    assert.ok(basic.turns[2].answers?.callText.startsWith('[tool call edit] {"path":"/workspace/game_2048.py"'));
    const runs = feed(
      new OpenHandsReader({ fileName: 'multi_swe_bench-output.jsonl' }),
      corpusBytes(join('openhands', 'multi_swe_bench-output.jsonl')),
    );
    // 108 observations; all but the 2 error observations without a cause name an action event of their run
    const observations = runs.turns.filter((turn) => turn.role === 'tool');
    assert.equal(observations.length, 108);
    const linked = observations.filter((turn) => turn.answers !== undefined);
    assert.equal(linked.length, 106);
    for (const turn of linked)
      assert.equal(String(turn.answers!.turnId).split(':')[0], String(turn.id).split(':')[0], `${turn.id} answers another run`);
  });
});

// ---------------------------------------------------------------------------------------------------------------

const ev = (id: number, extra: Record<string, unknown>) => ({
  id,
  timestamp: '2025-01-01T00:00:00',
  source: 'agent',
  message: '',
  ...extra,
});
const events = (condensation: Record<string, unknown>) => [
  ev(0, { source: 'user', action: 'message', args: { content: 'Fix ERR_4107 in ledger.py' } }),
  ev(1, { observation: 'agent_state_changed', content: '', extras: { agent_state: 'running' } }),
  ev(2, { action: 'run', args: { command: 'cat ledger.py', thought: 'read it' } }),
  ev(3, { observation: 'run', cause: 2, content: 'def post(): raise ERR_4107' }),
  ev(4, { action: 'edit', args: { path: 'ledger.py', new_str: 'def post(): pass' } }),
  ev(5, { observation: 'edit', cause: 4, content: 'edited ledger.py' }),
  ev(8, { action: 'condensation', args: { summary: 'Fixed ERR_4107 in ledger.py', summary_offset: 1, ...condensation } }),
  ev(9, { action: 'finish', args: { final_thought: 'done' } }),
];

describe('formats/openhands: condensation shapes', () => {
  it('forgotten_event_ids: claims the listed ids', () => {
    const t = feed(
      new OpenHandsReader({ fileName: 'e.json', defaultBudget: 4096 }),
      JSON.stringify(events({ forgotten_event_ids: [2, 3] }), null, 2),
    );
    assert.deepEqual(
      t.turns.map((x) => x.id),
      [0, 2, 3, 4, 5, 9],
    );
    const cp = t.checkpoints[0];
    assert.equal(cp.summaryId, 'condensation 8');
    assert.deepEqual(cp.claimedIds, [2, 3]);
    assert.equal(cp.turnsBefore, 5);
    assert.equal(cp.summary, 'Fixed ERR_4107 in ledger.py');
    assert.equal(cp.summaryBudget, 4096);
    assert.equal(cp.budgetAssumed, true);
    assert.deepEqual(t.problems, []);
  });

  it('a start/end range is expanded over every id, and the ids that are not turns are reported', () => {
    const t = feed(
      new OpenHandsReader({ fileName: 'e.jsonl' }),
      events({ forgotten_events_start_id: 1, forgotten_events_end_id: 7 })
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const cp = t.checkpoints[0];
    assert.deepEqual(cp.claimedIds, [1, 2, 3, 4, 5, 6, 7]);
    assert.ok(
      cp.notes?.includes(
        'forgotten range 1–7 expanded over 7 ids (as OpenHands does): 4 are turns in this file, 1 are events not shown to the model, 2 are not events in this file',
      ),
    );
    const problem = t.problems.find((p) => p.line === 7)!;
    assert.equal(problem.severity, 'warning');
    assert.match(problem.message, /only 4 of them are events the model saw here \(not in this file: 6–7\)/);
    assert.equal(cp.span.startLine, 7);
  });

  it('a later summarised condensation also claims what the previous one claimed', () => {
    const list = [
      ...events({ forgotten_event_ids: [2, 3] }),
      ev(10, { action: 'run', args: { command: 'pytest' } }),
      ev(11, { action: 'condensation', args: { forgotten_event_ids: [4, 5], summary: 'All fixed' } }),
    ];
    const t = feed(new OpenHandsReader({ fileName: 'e.json' }), JSON.stringify(list));
    assert.deepEqual(t.checkpoints[1].claimedIds, [2, 3, 4, 5]);
  });

  it('a null summary keeps the claim and says the events were dropped', () => {
    const t = feed(new OpenHandsReader({ fileName: 'e.json' }), JSON.stringify(events({ forgotten_event_ids: [2, 3], summary: null })));
    assert.equal(t.checkpoints[0].summary, '');
    assert.ok(t.checkpoints[0].notes?.includes('no summary: the forgotten events were dropped, not summarised'));
  });

  it('V1 SDK events with a Condensation', () => {
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
    ];
    const t = feed(new OpenHandsReader({ fileName: 'v1.jsonl' }), v1.map((e) => JSON.stringify(e)).join('\n') + '\n');
    assert.deepEqual(
      t.turns.map((x) => [x.id, x.role]),
      [
        ['e0', 'system'],
        ['e1', 'user'],
        ['e2', 'assistant'],
        ['e3', 'tool'],
      ],
    );
    assert.equal(t.turns[2].text, 'look\n[tool call terminal] {"command":"ls"}');
    assert.deepEqual(t.checkpoints[0].claimedIds, ['e1', 'e2', 'e3']);
    assert.deepEqual(t.problems, []);
  });

  it('V0: an observation answers the action its cause names, rendered without bookkeeping args', () => {
    const list = [
      ...events({ forgotten_event_ids: [2, 3] }),
      ev(10, { observation: 'run', cause: 77, content: 'orphan' }),
      ev(11, { observation: 'recall', cause: 0, content: 'workspace info' }),
    ];
    const t = feed(new OpenHandsReader({ fileName: 'e.json' }), JSON.stringify(list, null, 2));
    const byId = new Map(t.turns.map((turn) => [turn.id, turn]));
    assert.deepEqual(byId.get(3)!.answers, { turnId: 2, callText: '[tool call run] {"command":"cat ledger.py"}' });
    assert.deepEqual(byId.get(5)!.answers, { turnId: 4, callText: '[tool call edit] {"path":"ledger.py","new_str":"def post(): pass"}' });
    assert.equal(byId.get(10)!.answers, undefined, 'its action is not in the file');
    assert.equal(byId.get(11)!.answers, undefined, 'a user message is not a call');
    assert.ok(t.turns.filter((turn) => turn.role !== 'tool').every((turn) => turn.answers === undefined));
  });

  it('V0 JSONL: the links are the same when the file is read as it grows', () => {
    const text =
      events({ forgotten_event_ids: [2, 3] })
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n';
    const whole = feed(new OpenHandsReader({ fileName: 'e.jsonl' }), text);
    for (const cut of [3, 4, 5]) {
      assert.deepEqual(
        feedAppending(new OpenHandsReader({ fileName: 'e.jsonl' }), text, cut).turns.map((turn) => turn.answers),
        whole.turns.map((turn) => turn.answers),
        `cut after line ${cut}`,
      );
    }
  });

  it('evaluation runs: a cause names an action of its own run', () => {
    const run = (instance: string) => ({
      instance_id: instance,
      history: [ev(0, { action: 'run', args: { command: `ls ${instance}` } }), ev(1, { observation: 'run', cause: 0, content: 'files' })],
    });
    const t = feed(new OpenHandsReader({ fileName: 'output.jsonl' }), [run('a'), run('b')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    assert.deepEqual(t.turns[3].answers, { turnId: '2:0', callText: '[tool call run] {"command":"ls b"}' });
    // The runs counted are those up to the last that holds an event.
    const runsSaid = (runs: object[]): string[] =>
      feed(new OpenHandsReader({ fileName: 'output.jsonl' }, 1), runs.map((r) => JSON.stringify(r)).join('\n') + '\n')
        .problems.filter((p) => p.severity === 'info')
        .map((p) => p.message.slice(0, 33));
    assert.deepEqual(runsSaid([run('a'), run('b')]), ['this evaluation file holds 2 runs']);
    assert.deepEqual(runsSaid([run('a'), { instance_id: 'b', history: [] }]), []);
    assert.deepEqual(runsSaid([run('a'), { instance_id: 'b', history: [] }, run('c')]), ['this evaluation file holds 3 runs']);
  });

  it('V1: an ObservationEvent answers the ActionEvent its action_id (or tool_call_id) names', () => {
    const v1 = [
      { kind: 'ActionEvent', id: 'e2', source: 'agent', tool_name: 'terminal', tool_call_id: 'call_1', action: { command: 'ls' } },
      {
        kind: 'ActionEvent',
        id: 'e3',
        source: 'agent',
        tool_name: 'file_editor',
        tool_call_id: 'call_2',
        action: { command: 'view', path: 'a.py' },
      },
      {
        kind: 'ObservationEvent',
        id: 'e4',
        source: 'environment',
        tool_name: 'terminal',
        tool_call_id: 'call_1',
        action_id: 'e2',
        observation: { content: 'a.py' },
      },
      {
        kind: 'ObservationEvent',
        id: 'e5',
        source: 'environment',
        tool_name: 'file_editor',
        tool_call_id: 'call_2',
        observation: { content: 'print(1)' },
      },
      { kind: 'AgentErrorEvent', id: 'e6', source: 'agent', tool_name: 'x', tool_call_id: 'call_9', error: 'no such tool' },
    ];
    const t = feed(new OpenHandsReader({ fileName: 'v1.jsonl' }), v1.map((e) => JSON.stringify(e)).join('\n') + '\n');
    assert.deepEqual(t.turns[2].answers, { turnId: 'e2', callText: '[tool call terminal] {"command":"ls"}' });
    assert.deepEqual(t.turns[3].answers, { turnId: 'e3', callText: '[tool call file_editor] {"command":"view","path":"a.py"}' });
    assert.equal(t.turns[4].answers, undefined);
    assert.equal(t.turns[0].text, '[tool call terminal] {"command":"ls"}');
  });

  it('a truncated JSON array keeps the complete events and reports the cut', () => {
    const text = JSON.stringify(events({ forgotten_event_ids: [2] }), null, 1);
    const t = feed(new OpenHandsReader({ fileName: 'e.json' }), text.slice(0, Math.floor(text.length * 0.6)));
    assert.ok(t.turns.length >= 2 && t.turns.length < 6);
    assert.equal(t.problems.length, 1);
    assert.equal(t.problems[0].severity, 'warning'); // cut at the end of an unterminated last line
  });

  it('fuzz: mutated, truncated and garbage lines give problems, never exceptions', () => {
    fuzzReader(
      () => new OpenHandsReader({ fileName: 'e.jsonl' }),
      events({ forgotten_events_start_id: 1, forgotten_events_end_id: 5 })
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    fuzzReader(() => new OpenHandsReader({ fileName: 'e.json' }), JSON.stringify(events({ forgotten_event_ids: [2, 3] }), null, 2), 60);
  });
});

describe('formats/openhands: read as pushed', function () {
  this.timeout(60000);
  const pretty = JSON.stringify(events({ forgotten_event_ids: [2, 3] }), null, 2);
  const documents: [string, string][] = [
    ['pretty-printed', pretty],
    ['one space', JSON.stringify(events({ forgotten_events_start_id: 1, forgotten_events_end_id: 5 }), null, 1)],
    ['on one line', JSON.stringify(events({ forgotten_event_ids: [2] }))],
    ['blank lines first, CRLF', '\n\n' + pretty.replace(/\n/g, '\r\n') + '\r\n'],
    ['bare values and an empty array among the events', `[\n 1, "two", null,\n [], ${pretty.slice(1)}`],
  ];
  const make = (context: Partial<ReaderContext>, readAhead?: number, streamArrays?: boolean): OpenHandsReader =>
    new OpenHandsReader({ fileName: 'e.json', ...context }, readAhead, streamArrays);
  assertStreamedDocument({
    make,
    documents,
    jsonl: events({ forgotten_events_start_id: 1, forgotten_events_end_id: 5 })
      .map((e) => JSON.stringify(e))
      .join('\n'),
    notAnObject: /^line \d+: an event that is not a JSON object/,
    element: (k) => ev(k, { source: 'user', action: 'message', args: { content: `m${k}` } }),
  });

  it("a document that is an object holding `events` or a run's `history` is read an event at a time, each turn handed over", () => {
    const list = events({ forgotten_event_ids: [2, 3] });
    const asArray = feed(make({}), JSON.stringify(list, null, 2));
    for (const [key, ids] of [
      ['events', [0, 2, 3, 4, 5, 9]],
      ['history', ['1:0', '1:2', '1:3', '1:4', '1:5', '1:9']],
    ] as const) {
      const handed: unknown[] = [];
      const keepTurn = (turn: Turn): Turn => {
        handed.push(turn.id);
        return turn;
      };
      const text = JSON.stringify({ instance_id: 'x', [key]: list, metrics: {} }, null, 2);
      const t = feed(make({ keepTurn, readOnce: true }), text);
      assert.deepEqual(
        t.turns.map((x) => x.id),
        ids,
        key,
      );
      assert.deepEqual(handed, ids, `${key}: each turn handed over as read`);
      assert.deepEqual(t.checkpoints[0].claimedIds.map(String), key === 'events' ? ['2', '3'] : ['1:2', '1:3']);
      for (const turn of t.turns) assert.equal(text.slice(turn.span.startOffset, turn.span.startOffset + 1), '{');
      assert.deepEqual(t.problems, asArray.problems, key);
    }
  });

  it('a history or events list below the root is not read an event at a time (a read of the whole document does not read it)', () => {
    const handed: unknown[] = [];
    const keepTurn = (turn: Turn): Turn => {
      handed.push(turn.id);
      return turn;
    };
    for (const key of ['history', 'events']) {
      const text = JSON.stringify({ run: { [key]: events({ forgotten_event_ids: [2] }) } }, null, 2);
      assert.deepEqual(feed(make({ keepTurn, readOnce: true }), text), feed(make({}, 512, false), text), key);
    }
    assert.deepEqual(handed, []);
  });

  const run = (key: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ instance_id: 'x', [key]: events({ forgotten_event_ids: [2, 3] }), metrics: { cost: 1 }, ...extra }, null, 2);
  assertStreamedObjects({
    make,
    objects: [
      ["a run's history", run('history'), 'each'],
      [
        'events, a space an indent',
        JSON.stringify({ events: events({ forgotten_events_start_id: 1, forgotten_events_end_id: 5 }) }, null, 1),
        'each',
      ],
      [
        'events, then a history the whole read prefers',
        run('events', { history: [ev(20, { source: 'user', action: 'message', args: { content: 'again' } })] }),
        'all',
      ],
      [
        'a history two keys down, read with the outline',
        JSON.stringify({ run: { history: events({ forgotten_event_ids: [2] }) } }, null, 2),
        'none',
      ],
      ['one event, not a list', JSON.stringify(ev(1, { source: 'user', action: 'message', args: { content: 'hi' } }), null, 2), 'none'],
      [
        'the key twice',
        `{"events": [${JSON.stringify(ev(1, { action: 'run', args: { command: 'ls' } }))}],\n"events": ${JSON.stringify(events({ forgotten_event_ids: [2] }), null, 1)}}`,
        'all',
      ],
      [
        'CRLF, with a value that is not an event',
        run('history').replace(/\n/g, '\r\n').replace('"history": [', '"history": [\r\n 7,'),
        'each',
      ],
    ],
    notAnObject: /^line \d+: an event that is not a JSON object/,
    large: (n) =>
      JSON.stringify(
        { events: Array.from({ length: n }, (_, k) => ev(k, { source: 'user', action: 'message', args: { content: `m${k}` } })) },
        null,
        2,
      ),
  });

  it('a value that is not an object is reported on its own line', () => {
    const t = feed(make({}), documents[4][1]);
    assert.deepEqual(
      t.problems.filter((p) => /an event that is not a JSON object/.test(p.message)).map((p) => p.line),
      [2, 2, 2, 3],
    );
  });

  it('the corpus event array: the same either way', function () {
    if (!corpusAvailable()) this.skip();
    const bytes = corpusBytes(join('openhands', 'basic.json'));
    assert.deepEqual(feed(make({}), bytes), feed(make({}, 512, false), bytes));
  });
});
