// Tests of the call ↔ result linking the readers share: which turn a result answers, and the call and result ids
// found in OpenAI chat, LangChain, Letta, Anthropic and Responses records.
import assert from 'node:assert/strict';
import type { TextKeeper } from '../../../src/core/model';
import { CallLinks, answeredIdsOf, callsOf } from '../../../src/formats/toolLinks';

describe('formats/toolLinks: CallLinks', () => {
  it('a result answers the turn that made its call, with the call as text', () => {
    const links = new CallLinks();
    links.add('c1', 'msg_A', '[tool call Read] {"file_path":"ledger.ts"}');
    assert.deepEqual(links.answersFor(['c1']), { turnId: 'msg_A', callText: '[tool call Read] {"file_path":"ledger.ts"}' });
  });

  it("a result answering several calls of one turn joins their texts, one a line, in the result's order", () => {
    const links = new CallLinks();
    links.add('c1', 3, '[tool call Read] a.ts');
    links.add('c2', 3, '[tool call Grep] ERR');
    assert.deepEqual(links.answersFor(['c2', 'c1', 'c2']), { turnId: 3, callText: '[tool call Grep] ERR\n[tool call Read] a.ts' });
  });

  it('calls of another turn than the first known one are left out; unknown calls answer nothing', () => {
    const links = new CallLinks();
    links.add('c1', 3, 'one');
    links.add('c2', 5, 'two');
    assert.deepEqual(links.answersFor(['gone', 'c2', 'c1']), { turnId: 5, callText: 'two' });
    assert.equal(links.answersFor(['gone']), undefined);
    assert.equal(links.answersFor([]), undefined);
  });
});

describe('formats/toolLinks: CallLinks with a TextKeeper', () => {
  /** Keeps texts in an array, but refuses those that start with "!" (as a file that could not be written would). */
  class ArrayKeeper implements TextKeeper {
    readonly texts: string[] = [];
    keepText(text: string): number | undefined {
      if (text.startsWith('!')) return undefined;
      this.texts.push(text);
      return this.texts.length - 1;
    }
    keptText(at: number): string {
      return this.texts[at];
    }
  }

  it('answers as without it, keeping each call text in the keeper, or itself when the keeper refuses it', () => {
    const keeper = new ArrayKeeper();
    const kept = new CallLinks(keeper);
    const plain = new CallLinks();
    const calls: [string, number, string][] = [
      ['c1', 3, '[tool call Read] a.ts'],
      ['c2', 3, '! refused'],
      ['c3', 5, '[tool call Grep] ERR'],
      ['c1', 7, '[tool call Read] b.ts'], // the same id again: the later call
    ];
    for (const [id, turn, text] of calls) {
      kept.add(id, turn, text);
      plain.add(id, turn, text);
    }
    assert.deepEqual(keeper.texts, ['[tool call Read] a.ts', '[tool call Grep] ERR', '[tool call Read] b.ts']);
    for (const asked of [['c1'], ['c2'], ['c2', 'c1'], ['c3'], ['gone', 'c3'], ['gone']]) {
      assert.deepEqual(kept.answersFor(asked), plain.answersFor(asked), asked.join(', '));
    }
    assert.deepEqual(kept.answersFor(['c2']), { turnId: 3, callText: '! refused' });
  });
});

describe('formats/toolLinks: ids in records', () => {
  it('OpenAI chat and LangChain tool_calls, a Letta tool_call, Anthropic tool_use blocks', () => {
    assert.deepEqual(
      callsOf({
        role: 'assistant',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.py"}' } }, { type: 'function' }],
      }),
      [{ id: 'c1', text: '[tool call read_file] {"path":"a.py"}' }],
    );
    assert.deepEqual(callsOf({ type: 'ai', tool_calls: [{ id: 'c2', name: 'search', args: { q: 'ERR_4107' } }] }), [
      { id: 'c2', text: '[tool call search] {"q":"ERR_4107"}' },
    ]);
    assert.deepEqual(
      callsOf({ message_type: 'tool_call_message', tool_call: { name: 'send', arguments: '{"x":1}', tool_call_id: 'c3' } }),
      [{ id: 'c3', text: '[tool call send] {"x":1}' }],
    );
    assert.deepEqual(
      callsOf({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking' },
          { type: 'tool_use', id: 't1', name: 'edit', input: { path: 'a.py' } },
        ],
      }),
      [{ id: 't1', text: '[tool call edit] {"path":"a.py"}' }],
    );
  });

  it('Responses and Codex call items, by call_id', () => {
    assert.deepEqual(callsOf({ type: 'function_call', name: 'shell', arguments: '{"cmd":"pytest"}', call_id: 'k1' }), [
      { id: 'k1', text: '[tool call shell] {"cmd":"pytest"}' },
    ]);
    assert.deepEqual(callsOf({ type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'k2' }), [
      { id: 'k2', text: '[tool call apply_patch] *** Begin Patch' },
    ]);
    assert.deepEqual(callsOf({ type: 'local_shell_call', action: { command: ['ls'] }, call_id: 'k3' }), [
      { id: 'k3', text: '[tool call shell] {"command":["ls"]}' },
    ]);
    assert.deepEqual(callsOf({ type: 'function_call_output', call_id: 'k1', output: 'ok' }), []);
  });

  it('the ids a result answers', () => {
    assert.deepEqual(answeredIdsOf({ role: 'tool', tool_call_id: 'c1', content: 'ok' }), ['c1']);
    assert.deepEqual(
      answeredIdsOf({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1' },
          { type: 'text', text: 'x' },
          { type: 'tool_result', tool_use_id: 't2' },
        ],
      }),
      ['t1', 't2'],
    );
    assert.deepEqual(answeredIdsOf({ role: 'tool', tool_returns: [{ tool_call_id: 'c4', status: 'success' }], tool_call_id: 'c4' }), [
      'c4',
    ]);
    assert.deepEqual(answeredIdsOf({ type: 'function_call_output', call_id: 'k1' }), ['k1']);
    assert.deepEqual(answeredIdsOf({ type: 'custom_tool_call_output', call_id: 'k2' }), ['k2']);
    assert.deepEqual(answeredIdsOf({ type: 'function_call', call_id: 'k1' }), []);
    assert.deepEqual(answeredIdsOf({ role: 'user', content: 'hi', tool_call_id: null }), []);
  });
});
