// Writes a large transcript made of a corpus session repeated, for the memory figures of formats the generator
// (generate.mjs) does not write: the Codex rollout and the pi session of the shared corpus, read in place and
// written to OUT (never into the project). Each copy's tool call ids (`toolu_…`, `call_…`) get a suffix of their
// own, so that they are unique, as in a real session; --same-ids leaves them as they are. A pi session's header
// line is written once. `openhands` writes the OpenHands event array of the corpus (basic.json) repeated as one
// pretty-printed JSON array, each copy's event ids (and causes) shifted by 10, with a condensation after every 50
// copies (--condense-every N: N copies) that forgets the events since the previous one and whose summary names the
// user's request of every other copy (so some forgotten turns are covered and some are not).
// `messages` writes the same events as an OpenAI chat message array (the user's request, the agent's edit as a
// tool call, its result, the agent's reply), one pretty-printed JSON array, with a summary message ("Here is a
// summary of the conversation to date:") after every 50 copies (--condense-every N) naming every other request;
// `langchain` writes them as LangChain message dicts, the summary a summarisation message; `langchain-jsonl` the
// same dicts as JSON Lines, one message a line; `langchain-state` the same dicts as the `messages` of a pretty-printed
// LangGraph state ({"values": {"messages": [...]}, "next": [], "config": {...}}); `messages-body` the chat messages as
// the `messages` of a pretty-printed request body whose `system` comes after them ({"model", "messages", "system"}).
// `letta` writes the corpus's Letta agent file with its second agent's messages repeated as one agent's, pretty-printed,
// each copy's message ids numbered on from the last and its tool call ids suffixed; its in_context_message_ids, before
// its messages as Letta writes them, name the last copy's (the others are out of context).
// Usage: node scripts/bench/repeatCorpus.mjs codex|pi|letta MEGABYTES OUT [--same-ids]
//        node scripts/bench/repeatCorpus.mjs openhands|messages|messages-body|langchain|langchain-jsonl|langchain-state MEGABYTES OUT [--condense-every N]
// Then: /usr/bin/time -f '%e s %M KB' node dist/cli.js check OUT (docs/performance-history.md)
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const SOURCES = {
  codex: { path: join('codex', 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'), header: false },
  pi: { path: join('pi', 'before-compaction.jsonl.gz'), header: true },
  letta: { path: join('letta', 'lettabot-builder.af'), header: false },
  openhands: { path: join('openhands', 'basic.json'), header: false },
  messages: { path: join('openhands', 'basic.json'), header: false },
  'messages-body': { path: join('openhands', 'basic.json'), header: false },
  langchain: { path: join('openhands', 'basic.json'), header: false },
  'langchain-jsonl': { path: join('openhands', 'basic.json'), header: false },
  'langchain-state': { path: join('openhands', 'basic.json'), header: false },
};
/** How far apart each copy's OpenHands event ids are. */
const ID_STRIDE = 10;
const CALL_ID = /"((?:toolu|call)_[A-Za-z0-9]{16,})"/g;

const [kind, megabytes, out, flag, flagValue] = process.argv.slice(2);
const source = SOURCES[kind];
/** Copies of the OpenHands events between two condensations. */
const copiesACondensation = flag === '--condense-every' ? Number(flagValue) : 50;
const flagWrong =
  flag !== undefined && (source?.header === false && kind !== 'codex' ? !(copiesACondensation >= 1) : flag !== '--same-ids');
if (source === undefined || !(Number(megabytes) > 0) || out === undefined || flagWrong) {
  console.error('usage: node scripts/bench/repeatCorpus.mjs codex|pi|letta MEGABYTES OUT [--same-ids]');
  console.error(
    '       node scripts/bench/repeatCorpus.mjs openhands|messages|messages-body|langchain|langchain-jsonl|langchain-state MEGABYTES OUT [--condense-every N]',
  );
  process.exit(2);
}
const raw = readFileSync(join(CORPUS, source.path));
const text = (source.path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
const firstBreak = text.indexOf('\n') + 1;
const header = source.header ? text.slice(0, firstBreak) : '';
const body = source.header ? text.slice(firstBreak) : text;
const target = Number(megabytes) * 1e6;

/** Writes one pretty-printed JSON array to `fd`, an element at a time: write(element), bytes() so far, end(). */
function arrayWriter(fd, open = '[\n', close = '\n]\n', indent = '  ') {
  let bytes = writeSync(fd, open);
  let first = true;
  return {
    write(element) {
      bytes += writeSync(fd, (first ? '' : ',\n') + JSON.stringify(element, null, 2).replace(/^/gm, indent));
      first = false;
    },
    bytes: () => bytes,
    end() {
      bytes += writeSync(fd, close);
      return bytes;
    },
  };
}

/** Writes the `messages` of a pretty-printed LangGraph state to `fd`, with arrayWriter's methods. */
function stateWriter(fd) {
  const open = '{\n  "values": {\n    "messages": [\n';
  const close = '\n    ]\n  },\n  "next": [],\n  "config": {\n    "configurable": {\n      "thread_id": "repeated"\n    }\n  }\n}\n';
  return arrayWriter(fd, open, close, '      ');
}

/** Writes the `messages` of a pretty-printed request body, its `system` after them, to `fd`, with arrayWriter's methods. */
function bodyWriter(fd) {
  const open = '{\n  "model": "gpt-4o",\n  "messages": [\n';
  const close = '\n  ],\n  "system": "You are a coding agent. Edit files with str_replace_editor."\n}\n';
  return arrayWriter(fd, open, close, '    ');
}

/** Writes JSON Lines to `fd`, one element a line, with arrayWriter's methods. */
function linesWriter(fd) {
  let bytes = 0;
  return {
    write(element) {
      bytes += writeSync(fd, `${JSON.stringify(element)}\n`);
    },
    bytes: () => bytes,
    end: () => bytes,
  };
}

/** The OpenHands event array repeated, one pretty-printed element at a time, with its condensations. */
function writeOpenHands(fd) {
  const events = JSON.parse(body);
  const array = arrayWriter(fd);
  const write = array.write;
  let copies = 0;
  let forgetFrom = 0;
  let asked = [];
  while (array.bytes() < target) {
    const shift = (copies + 1) * ID_STRIDE;
    for (const event of events) {
      const copy = { ...event, id: event.id + shift };
      if (typeof event.cause === 'number') copy.cause = event.cause + shift;
      if (event.source === 'user' && copies % 2 === 0) asked.push(`#${copy.id}: ${event.message}`);
      write(copy);
    }
    copies += 1;
    if (copies % copiesACondensation === 0) {
      const id = (copies + 1) * ID_STRIDE - 1;
      const summary = `USER_CONTEXT: ${asked.join(' | ')}`;
      write({
        id,
        source: 'agent',
        action: 'condensation',
        args: { forgotten_events_start_id: forgetFrom, forgotten_events_end_id: id - 1, summary },
      });
      forgetFrom = id + 1;
      asked = [];
    }
  }
  return { copies, bytes: array.end() };
}

/** The OpenHands events as OpenAI chat messages, repeated, with a summary message after every few copies. */
function writeMessages(fd) {
  const [request, edit, result, reply] = JSON.parse(body);
  const langchain = kind.startsWith('langchain');
  const writers = { 'langchain-jsonl': linesWriter, 'langchain-state': stateWriter, 'messages-body': bodyWriter };
  const array = (writers[kind] ?? arrayWriter)(fd);
  const write = array.write;
  let copies = 0;
  let asked = [];
  while (array.bytes() < target) {
    const callId = `call_${String(copies).padStart(16, '0')}`;
    const ask = `${request.message} (copy ${copies})`;
    if (copies % 2 === 0) asked.push(ask);
    const output = result.content ?? result.message;
    if (langchain) {
      const id = (n) => `m${copies}-${n}`;
      write({ type: 'human', id: id(0), content: ask });
      write({ type: 'ai', id: id(1), content: '', tool_calls: [{ id: callId, name: 'str_replace_editor', args: edit.args }] });
      write({ type: 'tool', id: id(2), tool_call_id: callId, content: output });
      write({ type: 'ai', id: id(3), content: reply.message, tool_calls: [] });
    } else {
      write({ role: 'user', content: ask });
      write({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: callId, type: 'function', function: { name: 'str_replace_editor', arguments: JSON.stringify(edit.args) } }],
      });
      write({ role: 'tool', tool_call_id: callId, content: output });
      write({ role: 'assistant', content: reply.message });
    }
    copies += 1;
    if (copies % copiesACondensation === 0) {
      const content = `Here is a summary of the conversation to date:\n\n${asked.join('\n')}`;
      if (langchain) {
        write({ type: 'human', id: `summary-${copies}`, content, additional_kwargs: { lc_source: 'summarization' } });
      } else write({ role: 'user', content });
      asked = [];
    }
  }
  return { copies, bytes: array.end() };
}

const fd = openSync(out, 'w');
try {
  if (kind === 'openhands' || kind.startsWith('messages') || kind.startsWith('langchain')) {
    const { copies, bytes } = (kind === 'openhands' ? writeOpenHands : writeMessages)(fd);
    console.log(`${out}: ${copies} copies, ${bytes.toLocaleString('en-US')} bytes`);
  } else if (kind === 'letta') writeLetta(fd);
  else writeRepeated(fd);
} finally {
  closeSync(fd);
}

/** The Letta agent file, its second agent's messages repeated as one agent's (see the header). */
function writeLetta(fd) {
  const file = JSON.parse(body);
  const agent = file.agents[1];
  const copyText = JSON.stringify(agent.messages, null, 2);
  // What a copy takes in the file, each message indented as arrayWriter writes it: 8 spaces a line, and ",\n".
  const lines = agent.messages.reduce((n, message) => n + JSON.stringify(message, null, 2).split('\n').length, 0);
  const perCopy = Buffer.byteLength(JSON.stringify(agent.messages, null, 2)) + lines * 6;
  const copies = Math.max(1, Math.round(target / perCopy));
  const count = agent.messages.length;
  const idOf = (copy, k) => `message-${copy * count + k}`;
  const inContext = agent.messages.map((_, k) => idOf(copies - 1, k));
  const placeholder = '"MESSAGES"';
  const shape = JSON.stringify({ ...file, agents: [{ ...agent, in_context_message_ids: inContext, messages: ['MESSAGES'] }] }, null, 2);
  const at = shape.indexOf(placeholder);
  const open = shape.slice(0, shape.lastIndexOf('\n', at) + 1);
  const array = arrayWriter(fd, open, shape.slice(at + placeholder.length), ' '.repeat(at - open.length));
  for (let copy = 0; copy < copies; copy++) {
    const text = copyText.replace(CALL_ID, (_match, id) => `"${id}x${copy}"`);
    JSON.parse(text).forEach((message, k) => array.write({ ...message, id: idOf(copy, k) }));
  }
  console.log(`${out}: ${copies} copies, ${array.end().toLocaleString('en-US')} bytes`);
}

/** The session's lines repeated (after its header line, written once). */
function writeRepeated(fd) {
  let bytes = writeSync(fd, header);
  let copies = 0;
  while (bytes < target) {
    const copy = flag === '--same-ids' ? body : body.replace(CALL_ID, (_match, id) => `"${id}x${copies}"`);
    bytes += writeSync(fd, copy);
    copies += 1;
  }
  console.log(`${out}: ${copies} copies, ${bytes.toLocaleString('en-US')} bytes`);
}
