// Deterministic transcripts for `npm run bench`: N turns of mixed prose, code and JSON tool output (a seeded
// generator, so the same size gives the same bytes), written to disk as they are made (a 1 GB file never sits in
// memory). Two shapes: the canonical format, and Claude Code-like records (uuid chains, assistant replies with
// tool_use blocks and usage, tool_result records, one compact_boundary with its summary). Each file has one
// checkpoint after 90% of its turns that claims them all; its summary names one turn's identifier in fifty.
import { closeSync, openSync, writeSync } from 'node:fs';

/** mulberry32: a small seeded generator, enough for varied but repeatable text. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a ledger invoice payout refund settlement audit currency webhook retry handler queue worker test path config ' +
  'checked fixed found returns crashing instead now next look failing passes because when after before value field ' +
  'schema migration cache index timeout request response error status build deploy branch commit review merge'
).split(' ');
const TOPICS = ['ledger', 'invoice', 'payout', 'refund', 'settlement', 'audit', 'currency', 'webhook'];

/** Writes text to a file in blocks of about 1 MB. */
class BlockWriter {
  constructor(path) {
    this.fd = openSync(path, 'w');
    this.parts = [];
    this.size = 0;
    this.written = 0;
  }
  line(text) {
    this.parts.push(text, '\n');
    this.size += text.length + 1;
    if (this.size >= 1 << 20) this.flush();
  }
  flush() {
    const buffer = Buffer.from(this.parts.join(''), 'utf8');
    writeSync(this.fd, buffer);
    this.written += buffer.length;
    this.parts = [];
    this.size = 0;
  }
  close() {
    this.flush();
    closeSync(this.fd);
    return this.written;
  }
}

/** One turn's content: prose, a code block or a JSON tool output, with an identifier a summary may name. */
function content(rand, i, kind, scale) {
  const topic = TOPICS[i % TOPICS.length];
  const key = `${topic.toUpperCase()}_${i}`;
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  if (kind === 'code') {
    const lines = [`// src/${topic}/handler_${i}.ts`, `export function handle${i}(input: ${topic}Input): Result {`];
    for (let j = 0; j < 2 + Math.floor(rand() * 4 * scale); j += 1)
      lines.push(`  const v${j} = input.${WORDS[Math.floor(rand() * WORDS.length)]} ?? ${Math.floor(rand() * 1000)};`);
    lines.push(`  if (!input.ok) throw new Error('${key}');`, '  return { ok: true };', '}');
    return `Here is the change to src/${topic}/handler_${i}.ts:\n\`\`\`ts\n${lines.join('\n')}\n\`\`\``;
  }
  if (kind === 'json') {
    const rows = Array.from({ length: 1 + Math.floor(rand() * 3 * scale) }, (_, j) => ({
      id: `${topic}-${i}-${j}`,
      status: rand() < 0.2 ? 'failed' : 'ok',
      amount: Math.floor(rand() * 100000) / 100,
      note: words(4),
    }));
    return JSON.stringify({ code: key, file: `test/${topic}.test.ts`, passed: Math.floor(rand() * 60), rows }, null, 1);
  }
  return `Checked src/${topic}/handler_${i}.ts: case ${key} ${words(6 + Math.floor(rand() * 20 * scale))}. The tests in test/${topic}.test.ts pass.`;
}

const KINDS = ['prose', 'prose', 'code', 'json'];

/**
 * Writes a canonical transcript of `turns` turns to `path`. `scale` lengthens the texts (1: about 300 bytes a
 * turn). `recordTokens` records every turn's size, so only the summary is counted. Returns the bytes written.
 */
export function writeCanonical(path, { turns, seed = 1, scale = 1, recordTokens = false }) {
  const rand = random(seed);
  const out = new BlockWriter(path);
  const claimed = Math.floor(turns * 0.9);
  const mentioned = [];
  for (let i = 0; i < turns; i += 1) {
    if (i === claimed) {
      const summary = `Summary: handled ${mentioned.join(', ')}.`;
      out.line(
        JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 8192, covered: { from: 0, to: claimed - 1 } }),
      );
    }
    const kind = KINDS[i % KINDS.length];
    const role = kind === 'json' ? 'tool' : i % 2 ? 'assistant' : 'user';
    const record = { type: 'turn', id: i, role, content: content(rand, i, kind, scale) };
    if (recordTokens) record.tokens = Math.ceil(record.content.length / 4);
    out.line(JSON.stringify(record));
    if (i < claimed && i % 50 === 0) mentioned.push(`${TOPICS[i % TOPICS.length].toUpperCase()}_${i}`);
  }
  return out.close();
}

/** A uuid-looking id made from a number (deterministic). */
function uuid(n, salt) {
  const hex = ((n * 2654435761 + salt) >>> 0).toString(16).padStart(8, '0');
  return `${hex}-${(n & 0xffff).toString(16).padStart(4, '0')}-4${(salt & 0xfff).toString(16).padStart(3, '0')}-8000-${n.toString(16).padStart(12, '0')}`;
}

/**
 * Writes a Claude Code-like session of about `turns` turns to `path`: user prompts, assistant replies (text, or a
 * tool_use block answered by a tool_result record), one compact_boundary after 90% of them with its summary, and
 * progress records between. Returns the bytes written.
 */
export function writeClaudeCode(path, { turns, seed = 2, scale = 1 }) {
  const rand = random(seed);
  const out = new BlockWriter(path);
  const session = uuid(seed, 7);
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: '/home/user/project',
    sessionId: session,
    version: '2.1.39',
    gitBranch: 'main',
  };
  const claimed = Math.floor(turns * 0.9);
  const mentioned = [];
  let parent = null;
  let n = 0;
  const stamp = (k) => new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString();
  const record = (fields) => {
    n += 1;
    const id = uuid(n, seed);
    out.line(JSON.stringify({ parentUuid: parent, ...base, ...fields, uuid: id, timestamp: stamp(n) }));
    parent = id;
    return id;
  };
  for (let i = 0; i < turns; i += 1) {
    if (i === claimed) {
      const summary = `This session is being continued from a previous conversation.\n\nSummary:\n1. Primary Request and Intent: handled ${mentioned.join(', ')}.\n\nPlease continue the conversation from where we left off.`;
      const last = parent;
      parent = null;
      record({
        logicalParentUuid: last,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        isMeta: false,
        level: 'info',
        compactMetadata: { trigger: 'auto', preTokens: 170000 },
      });
      record({ type: 'user', message: { role: 'user', content: summary }, isVisibleInTranscriptOnly: true, isCompactSummary: true });
    }
    const kind = KINDS[i % KINDS.length];
    if (i % 8 === 0) {
      record({ type: 'user', message: { role: 'user', content: content(rand, i, 'prose', scale) } });
    } else if (kind === 'json') {
      const callId = `toolu_${uuid(i, 3).replaceAll('-', '').slice(0, 24)}`;
      record({
        type: 'assistant',
        requestId: `req_${i}`,
        message: {
          model: 'claude-opus-4-6',
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'tool_use', id: callId, name: 'Bash', input: { command: `npm test -- test/${TOPICS[i % TOPICS.length]}.test.ts` } },
          ],
          stop_reason: 'tool_use',
          usage: { input_tokens: 3, output_tokens: 40 },
        },
      });
      const output = content(rand, i, 'json', scale);
      record({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: output, is_error: false }] },
        toolUseResult: { stdout: output, stderr: '', interrupted: false },
      });
    } else {
      record({
        type: 'assistant',
        requestId: `req_${i}`,
        message: {
          model: 'claude-opus-4-6',
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: content(rand, i, kind, scale) }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 3, output_tokens: 120 },
        },
      });
    }
    if (i % 20 === 19) {
      n += 1;
      out.line(
        JSON.stringify({
          ...base,
          parentUuid: parent,
          type: 'progress',
          data: { type: 'hook_progress', hookEvent: 'PostToolUse' },
          uuid: uuid(n, seed),
          timestamp: stamp(n),
        }),
      );
    }
    if (i < claimed && i % 50 === 0) mentioned.push(`${TOPICS[i % TOPICS.length].toUpperCase()}_${i}`);
  }
  return out.close();
}
