// Tests of the problems every reader reports when it recognises a file but reads no text from its turns or
// summaries: the helper on its own, each rebuilding reader on hand-written records, and a real pi session (a format
// no reader supports yet) that message-array recognises but cannot read.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Checkpoint, Transcript, Turn } from '../../../src/core/model';
import { ClaudeCodeReader } from '../../../src/formats/claudeCode';
import { CodexReader } from '../../../src/formats/codex';
import { LangChainReader } from '../../../src/formats/langchain';
import { MessageArrayReader } from '../../../src/formats/messageArray';
import { OpenHandsReader } from '../../../src/formats/openHands';
import { unreadableTextProblems, withUnreadableTextProblems } from '../../../src/formats/unreadableText';
import { corpusBytes, feed, requireCorpus } from './feedLines';

const span = (line: number) => ({ startLine: line, endLine: line, startOffset: 0, endOffset: 1 });
const turnAt = (id: number, line: number, text: string): Turn => ({ id, role: 'user', text, span: span(line) });
const checkpointAt = (line: number, summary: string, extra: Partial<Checkpoint> = {}): Checkpoint => ({
  summaryId: `S@${line}`,
  summary,
  claimedIds: [0, 1],
  span: span(line),
  turnsBefore: 2,
  ...extra,
});
const transcript = (turns: Turn[], checkpoints: Checkpoint[] = []): Transcript => ({
  format: 'message-array',
  turns,
  checkpoints,
  problems: [],
  lineCount: 10,
});
const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('formats/unreadableText', () => {
  it("turns that all have no text are one warning on the first turn's line", () => {
    const problems = unreadableTextProblems(transcript([turnAt(0, 2, ''), turnAt(1, 3, '  \n ')]));
    assert.equal(problems.length, 1);
    assert.equal(problems[0].line, 2);
    assert.equal(problems[0].severity, 'warning');
    assert.match(
      problems[0].message,
      /^no text could be read from any of its 2 turns: the message-array reader recognised the records but found no text in them, so whether a summary covers them cannot be checked\./,
    );
  });

  it('one turn with text, or no turn at all, is not a problem', () => {
    assert.deepEqual(unreadableTextProblems(transcript([turnAt(0, 1, ''), turnAt(1, 2, 'Fix ERR_4107')])), []);
    assert.deepEqual(unreadableTextProblems(transcript([])), []);
  });

  it("an empty summary is a warning on its checkpoint's line; an opaque one is not", () => {
    const t = transcript(
      [turnAt(0, 1, 'a'), turnAt(1, 2, 'b')],
      [checkpointAt(3, ' '), checkpointAt(4, '', { opaque: true }), checkpointAt(5, 'b and a')],
    );
    const problems = unreadableTextProblems(t);
    assert.deepEqual(
      problems.map((p) => [p.line, p.severity]),
      [[3, 'warning']],
    );
    assert.equal(
      problems[0].message,
      'line 3: the summary of checkpoint S@3 has no readable text (it is empty, or in a shape this reader does not read), so it cannot show that it covers the 2 turns it claims.',
    );
  });

  it('adds the problems to the transcript in line order, and leaves a readable one as it is', () => {
    const t = {
      ...transcript([turnAt(0, 2, '')], [checkpointAt(6, '')]),
      problems: [
        { line: 1, severity: 'info' as const, message: 'a' },
        { line: 9, severity: 'error' as const, message: 'b' },
      ],
    };
    assert.deepEqual(
      withUnreadableTextProblems(t).problems.map((p) => p.line),
      [1, 2, 6, 9],
    );
    const readable = transcript([turnAt(0, 1, 'text')], [checkpointAt(2, 'text')]);
    assert.equal(withUnreadableTextProblems(readable), readable);
  });
});

describe('formats/unreadableText: every rebuilding reader reports records it reads no text from', () => {
  // Records of a recognised shape whose text sits where the reader does not look (or is empty).
  it('claude-code', () => {
    const S = 's';
    const t = feed(
      new ClaudeCodeReader({ fileName: 'x.jsonl' }),
      jsonl([
        { type: 'user', uuid: 'u1', parentUuid: null, sessionId: S, message: { role: 'user', content: [{ type: 'audio', data: 'x' }] } },
        {
          type: 'assistant',
          uuid: 'a1',
          parentUuid: 'u1',
          sessionId: S,
          message: { id: 'm1', role: 'assistant', content: [{ type: 'thinking', thinking: 'hidden' }] },
        },
        {
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'b1',
          parentUuid: null,
          logicalParentUuid: 'a1',
          sessionId: S,
          compactMetadata: { trigger: 'manual' },
        },
        {
          type: 'user',
          uuid: 's1',
          parentUuid: 'b1',
          sessionId: S,
          isCompactSummary: true,
          message: { role: 'user', content: [{ type: 'audio', data: 'y' }] },
        },
      ]),
    );
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'warning'],
        [3, 'warning'],
      ],
    );
    assert.match(t.problems[0].message, /no text could be read from any of its 2 turns: the claude-code reader/);
    assert.match(t.problems[1].message, /summary of checkpoint b1 has no readable text/);
  });

  it('codex: an empty compaction message is said once, by the shared problem', () => {
    const line = (type: string, payload: unknown) => ({ timestamp: 't', type, payload });
    const t = feed(
      new CodexReader({ fileName: 'rollout-x.jsonl' }),
      jsonl([
        line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_audio' }] }),
        line('compacted', { message: '' }),
      ]),
    );
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'warning'],
        [2, 'warning'],
      ],
    );
    assert.match(t.problems[0].message, /the codex reader recognised the records but found no text/);
    assert.match(t.problems[1].message, /^line 2: the summary of checkpoint C1 has no readable text.*covers the 1 turn it claims\.$/);
  });

  it('openhands', () => {
    const t = feed(
      new OpenHandsReader({ fileName: 'e.json' }),
      JSON.stringify([
        { id: 0, source: 'user', action: 'message', args: {}, message: '' },
        { id: 1, source: 'agent', action: 'condensation', args: { forgotten_event_ids: [0], summary: '' } },
      ]),
    );
    assert.ok(t.problems.some((p) => p.severity === 'warning' && /no text could be read from any of its 1 turn:/.test(p.message)));
    assert.ok(
      t.problems.some((p) => p.severity === 'warning' && /summary of checkpoint condensation 1 has no readable text/.test(p.message)),
    );
  });

  it('langchain', () => {
    const t = feed(
      new LangChainReader({ fileName: 'm.jsonl' }),
      jsonl([
        { type: 'human', id: 'h1', content: [] },
        { type: 'ai', id: 'a1', content: '' },
      ]),
    );
    assert.equal(t.problems.length, 1);
    assert.match(t.problems[0].message, /no text could be read from any of its 2 turns: the langchain reader/);
  });

  it('message-array: records with their message one level down, and a compaction item without content', () => {
    const t = feed(
      new MessageArrayReader({ fileName: 'x.jsonl' }),
      jsonl([
        { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Fix ERR_4107' }] } },
        { type: 'compaction', summary: 'Fixed ERR_4107' },
      ]),
    );
    assert.deepEqual(
      t.problems.map((p) => [p.line, p.severity]),
      [
        [1, 'warning'],
        [2, 'warning'],
      ],
    );
    assert.match(t.problems[0].message, /the message-array reader recognised the records but found no text/);
    assert.match(t.problems[1].message, /summary of checkpoint message 1 has no readable text/);
  });

  it('message-array: a readable array gets no such problem', () => {
    const t = feed(
      new MessageArrayReader({ fileName: 'chat.json' }),
      JSON.stringify([
        { role: 'user', content: 'Fix ERR_4107' },
        { role: 'assistant', content: 'Done.' },
      ]),
    );
    assert.deepEqual(t.problems, []);
  });
});

describe('formats/unreadableText: a real pi session read as a message array', function () {
  this.timeout(20000);
  before(function () {
    requireCorpus(this);
  });

  // pi writes {"type":"message","message":{role, content}} lines and {"type":"compaction","summary",…} lines
  // (grep -n '"type":"compaction"' gives lines 360 and 629); no reader reads pi yet, and format detection picks
  // message-array, which finds the records but none of their text.
  it('pi/before-compaction.jsonl.gz: no text from its turns, and two unreadable summaries, are reported', () => {
    const t = feed(new MessageArrayReader({ fileName: 'before-compaction.jsonl' }), corpusBytes(join('pi', 'before-compaction.jsonl.gz')));
    assert.ok(t.turns.length > 0);
    assert.ok(t.turns.every((turn) => turn.text === ''));
    assert.deepEqual(
      t.checkpoints.map((cp) => [cp.span.startLine, cp.summary, cp.opaque ?? false]),
      [
        [360, '', false],
        [629, '', false],
      ],
    );
    const warnings = t.problems.filter((p) => p.severity === 'warning');
    assert.deepEqual(
      warnings.map((p) => p.line),
      [1, 360, 629],
    );
    assert.match(warnings[0].message, /no text could be read from any of its [\d,]+ turns/);
    assert.match(warnings[1].message, /the summary of checkpoint message 359 has no readable text/);
    assert.match(warnings[2].message, /the summary of checkpoint message 628 has no readable text/);
  });
});
