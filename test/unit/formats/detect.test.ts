// Tests of format detection: every real transcript of the corpus, hand-written samples of each format, and files
// that are not transcripts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FormatId } from '../../../src/core/model';
import { DETECTION_ORDER, detectFormat, detectFormatWhy } from '../../../src/formats/detect';
import { FORMATS } from '../../../src/formats/readers';
import { corpusBytes, requireCorpus } from './feedLines';

/** The first 50 lines of the first 256 KiB, as the transcript file opener passes them. */
function head(bytes: Buffer): string[] {
  return bytes
    .subarray(0, 256 * 1024)
    .toString('utf8')
    .split('\n')
    .slice(0, 50);
}

describe('formats/detect: the corpus', () => {
  before(function () {
    requireCorpus(this);
  });
  const cases: [string, FormatId | undefined][] = [
    ['claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz', 'claude-code'],
    ['claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz', 'claude-code'],
    ['claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz', 'claude-code'],
    ['claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.gz', 'claude-code'],
    ['claude-code/short.jsonl', 'claude-code'],
    ['claude-code/tool_heavy.jsonl', 'claude-code'],
    ['claude-code/wpfleger96/session_with_compact.jsonl', 'claude-code'],
    ['claude-code/wpfleger96/forked_session.jsonl', 'claude-code'],
    ['codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl', 'codex'],
    ['codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl', 'codex'],
    ['codex/localpush-2026-02-23-manifest.json', undefined],
    ['openhands/basic.json', 'openhands'],
    ['openhands/multi_swe_bench-output.jsonl', 'openhands'],
    ['letta/lettabot-builder.af', 'letta'],
    ['pi/before-compaction.jsonl.gz', 'pi'],
  ];
  for (const [file, expected] of cases) {
    it(`${file} -> ${expected ?? 'not a transcript'}`, () => {
      const name = file.split('/').pop()!.replace(/\.gz$/, '');
      assert.equal(detectFormat(head(corpusBytes(file)), name), expected);
    });
  }
  it('a first line longer than the head (cut JSON) still detects OpenHands evaluation output by its keys', () => {
    const lines = head(corpusBytes(join('openhands', 'multi_swe_bench-output.jsonl')));
    assert.equal(detectFormat([lines[0].slice(0, 20000)], 'output.jsonl'), 'openhands');
  });
});

describe('formats/detect: samples', () => {
  const cases: [string, string[], FormatId | undefined][] = [
    ['canonical', ['{"type":"turn","id":0,"role":"user","content":"hi"}'], 'canonical'],
    ['pretty OpenHands array', ['[', '  {', '    "id": 0,', '    "source": "user",', '    "action": "message",'], 'openhands'],
    ['OpenHands V1', ['{"kind":"MessageEvent","id":"a","llm_message":{"role":"user","content":[]}}'], 'openhands'],
    ['LangGraph state', ['{', '  "values": {', '    "messages": [],', '    "running_summary": {"summary": ""}'], 'langchain'],
    ['LangChain JSONL', ['{"type":"human","content":"hi","id":"1"}', '{"type":"ai","content":"yo","id":"2"}'], 'langchain'],
    [
      'Letta messages',
      ['[{"id":"message-1","role":"user","content":[{"type":"text","text":"{\\"type\\": \\"system_alert\\"}"}]}]'],
      'langchain',
    ],
    [
      'Letta agent file on one line',
      [
        '{"agents":[{"name":"a","in_context_message_ids":["message-0"],"messages":[{"type":"message","role":"user","content":[{"type":"text","text":"hi"}],"id":"message-0"}]}],"groups":[]}',
      ],
      'letta',
    ],
    ['Letta agent (bare)', ['{"name":"a","agent_type":"letta_v1_agent","messages":[]}'], 'letta'],
    [
      'pretty Letta agent file',
      ['{', '  "agents": [', '    {', '      "name": "lettabot-builder",', '      "memory_blocks": [],'],
      'letta',
    ],
    ['OpenAI chat', ['[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]'], 'message-array'],
    ['Anthropic request', ['{', '  "model": "claude",', '  "messages": [', '    {"role": "user", "content": "hi"}'], 'message-array'],
    ['chat JSONL', ['{"role":"user","content":"hi"}', '{"role":"assistant","content":"yo"}'], 'message-array'],
    ['pi session header', ['{"type":"session","id":"ffae836b","timestamp":"2025-12-09T00:53:29.825Z","cwd":"/work"}'], 'pi'],
    ['pi v3 header', ['{"type":"session","version":3,"id":"u","timestamp":"t","cwd":"/w"}'], 'pi'],
    // without the header (a window of a session), message entries alone must still outrank message-array
    [
      'pi message entries',
      [
        '{"type":"message","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}',
        '{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}',
      ],
      'pi',
    ],
    ['pi compaction (v1)', ['{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":3,"tokensBefore":9}'], 'pi'],
    [
      'pi compaction (v2+)',
      ['{"type":"compaction","id":"c","parentId":"b","timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":9}'],
      'pi',
    ],
    ['Anthropic compaction item', ['[{"type":"compaction","content":"summary"}]'], 'message-array'],
    ['plain text', ['hello world', 'this is not JSON'], undefined],
    ['empty', [''], undefined],
    ['unrelated JSON', ['{"name":"package","version":"1.0.0"}'], undefined],
  ];
  for (const [name, lines, expected] of cases) {
    it(`${name} -> ${expected ?? 'not a transcript'}`, () => {
      assert.equal(detectFormat(lines, 'file.json'), expected);
    });
  }
  it('a Letta agent file whose first lines hold no agent keys is recognised by its .af name', () => {
    const lines = ['{', '  "agents": [', '    {', '      "name": "x",'];
    assert.equal(detectFormat(lines, 'agent.af'), 'letta');
    assert.equal(detectFormat(lines, 'agent.json'), undefined);
  });
  it('a Letta agent file on one line longer than the head (cut JSON) is recognised by its keys', () => {
    assert.equal(detectFormat(['{"agents":[{"name":"a","memory_blocks":[],"system":"You are'], 'export.json'), 'letta');
  });
  it('older Codex rollouts are recognised with the file name as tie-breaker', () => {
    const lines = [
      '{"id":"x","timestamp":"t","instructions":"be good"}',
      '{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}',
    ];
    assert.equal(detectFormat(lines, 'rollout-2025-05-01T10-00-00-abc.jsonl'), 'codex');
    assert.equal(detectFormat(lines.slice(1), 'items.jsonl'), 'message-array');
  });
  it('reads a file as the first format, in DETECTION_ORDER, whose records it holds', () => {
    const message = '{"role":"user","content":"hi"}';
    const canonical = '{"type":"turn","id":0,"role":"user","content":"hi"}';
    assert.equal(detectFormat([message, canonical], 'mixed.jsonl'), 'canonical', 'canonical comes before message-array');
    assert.equal(detectFormat([message], 'plain.jsonl'), 'message-array');
    assert.deepEqual([...DETECTION_ORDER].sort(), FORMATS.map((f) => f.id).sort(), 'every format is tried');
  });
  it('when no format matches, says what the first lines hold and what each format tried needed, one line each', () => {
    const json = detectFormatWhy(['{"name":"package","version":"1.0.0"}', ''], 'package.json');
    assert.equal(json.format, undefined);
    assert.match(json.why ?? '', /^none of the 1 JSON record in its first 1 line belongs to a format I read \(8 tried\)\.$/);
    assert.deepEqual(
      json.rejected.map((line) => line.slice(0, line.indexOf(':'))),
      [...DETECTION_ORDER],
    );
    for (const line of json.rejected) assert.ok(!line.includes('\n') && / needs /.test(line), line);
    const text = detectFormatWhy(['hello', 'world'], 'notes.txt');
    assert.match(text.why ?? '', /^its first 2 lines hold no complete JSON record/);
    assert.deepEqual(detectFormatWhy(['{"role":"user","content":"hi"}'], 'x.jsonl').rejected, []);
  });
});
