// Test helper: hostile text of about 1 MB each (issue 10: runs of one character, the issue's reproductions, and
// others that could make a scan or a regular expression super-linear), and a minimal session of each format
// whose summary and turns hold such text, for the adversarial suites beside this file.
import type { SideFile, TranscriptReader } from '../../../src/core/model';
import { CanonicalReader } from '../../../src/formats/canonical';
import { ClaudeCodeReader } from '../../../src/formats/claudeCode';
import { CodexReader } from '../../../src/formats/codex';
import { LangChainReader } from '../../../src/formats/langchain';
import { MessageArrayReader } from '../../../src/formats/messageArray';
import { OpenHandsReader } from '../../../src/formats/openHands';

/** About one megabyte of text (in UTF-16 code units). */
export const SIZE = 1 << 20;

/** `unit` repeated to about `size` code units (whole units only, so a surrogate pair is never cut). */
export function fill(unit: string, size = SIZE): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

/** The hostile texts, by name, the issue's reproductions first. Every one is about 1 MB. */
export const HOSTILE: ReadonlyArray<readonly [string, string]> = [
  // The issue's reproductions.
  ['a run of "-"', fill('-')],
  ['a run of "\'"', fill("'")],
  ['a run of "’"', fill('’')],
  ['a run of "/"', fill('/')],
  ['a run of newlines', fill('\n')],
  ['a run of spaces', fill(' ')],
  ['"x" + "-" × 99,998 + "x", ten times', fill(`x${'-'.repeat(99998)}x `)],
  ['"/" × N + "a"', `${fill('/', SIZE - 1)}a`],
  ['"a" × N + " b"', `${fill('a', SIZE - 2)} b`],
  ['"Intro." + a line of "-" + "More prose."', `Intro.\n${fill('-')}\nMore prose.`],
  // (ISSUE_REPRODUCTIONS above this line)
  // Runs of other characters that patterns quantify.
  ['a run of "\\"', fill('\\')],
  ['a run of tabs', fill('\t')],
  ['a run of CR LF', fill('\r\n')],
  ['a run of " \\n"', fill(' \n')],
  ['a run of "*"', fill('*')],
  ['a run of "#"', fill('#')],
  ['a run of "_"', fill('_')],
  ['a run of "."', fill('.')],
  ['a run of ","', fill(',')],
  ['a run of "," then "a"', `${fill(',', SIZE - 1)}a`],
  ['a run of "\\"" then "a"', `${fill('"', SIZE - 1)}a`],
  ['a run of "(" then ")"', `${fill('(', SIZE - 1)})`],
  ['a run of "|"', fill('|')],
  ['a run of "`"', fill('`')],
  ['a run of digits', fill('7')],
  ['a run of "a"', fill('a')],
  ['a run of "İ" (lower-cases to two code units)', fill('İ')],
  ['a run of "é"', fill('é')],
  ['a run of CJK', fill('漢')],
  ['a run of emoji', fill('😀')],
  ['a run of ESC', fill('\u001b')],
  ['a run of U+202E', fill('\u202e')],
  ['a run of NUL', fill('\u0000')],
  // Alternations of two characters.
  ['"x-" repeated', fill('x-')],
  ['"a_" repeated', fill('a_')],
  ['"a/" repeated', fill('a/')],
  ['"a." repeated', fill('a.')],
  ['"a\'" repeated', fill("a'")],
  ['",a" repeated', fill(',a')],
  ['"1." repeated', fill('1.')],
  ['"\\n1. " repeated', fill('\n1. ')],
  ['"\\n*" repeated', fill('\n*')],
  ['"> " repeated', fill('> ')],
  ['"$(" repeated', fill('$(')],
  ['"a=" repeated', fill('a=')],
  ['"-a" repeated', fill('-a')],
  // Text shaped like what the matchers look for.
  ['"src/" repeated', fill('src/')],
  ['a URL of "a/" repeated', `http://${fill('a/')}`],
  ['"a/b.c" repeated', fill('a/b.c')],
  ['"ERR_" and digits repeated', fill('ERR_4107 ')],
  ['"--flag=value " repeated', fill('--flag=value ')],
  ['"word " repeated', fill('word ')],
  ['a list of items', fill('- item one.\n')],
  ['numbered sections', fill('1. Primary Request and Intent:\n   - x\n')],
  ['"Primary Request and Intent" after a run of spaces and stars', `${fill(' *', SIZE - 40)}1. Primary Request and Intent`],
  ['"**1." then a run of spaces', `**1.${fill(' ')}x`],
  ['"# " then a run of spaces', `#${fill(' ')}x`],
  ['"<summary>" repeated', fill('<summary>')],
];

/** How many of HOSTILE, from the start, are the issue's own reproductions. */
export const ISSUE_REPRODUCTIONS = 10;

/** One of the formats, with a way to make its reader and a session holding the given texts. */
export interface FormatCase {
  name: string;
  reader(sideFiles?: SideFile[]): TranscriptReader;
  /** A session whose summary is `summary` and whose turns hold `text` (a user message, a call and its result). */
  session(summary: string, text: string): string;
  /** Side files to read it with (Claude Code's raw summariser output). */
  sideFiles?(summary: string): SideFile[];
}

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

const CLAUDE_OPENING = 'This session is being continued from a previous conversation that ran out of context.\n\n';
const SUMMARY_OPENING = 'Here is a summary of the conversation to date:\n\n';

export const FORMATS: readonly FormatCase[] = [
  {
    name: 'canonical',
    reader: () => new CanonicalReader({ fileName: 'hostile.jsonl' }),
    session: (summary, text) =>
      jsonl([
        { type: 'turn', id: 0, role: 'user', content: text },
        { type: 'turn', id: 1, role: 'assistant', content: `[tool call Bash] ${JSON.stringify({ command: text })}` },
        { type: 'turn', id: 2, role: 'tool', content: text, answers: 1 },
        { type: 'turn', id: 3, role: 'user', content: 'Fix ERR_4107 in src/ledger.ts', anchor: text.slice(0, 100) },
        { type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 4096, covered: { from: 0, to: 3 } },
      ]),
  },
  {
    name: 'claude-code',
    reader: (sideFiles) => new ClaudeCodeReader({ fileName: 'hostile.jsonl', sideFiles, defaultBudget: 20000 }),
    session: (summary, text) => {
      const s = 'sess';
      const base = { sessionId: s };
      return jsonl([
        { ...base, type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: text } },
        {
          ...base,
          type: 'assistant',
          uuid: 'a1',
          parentUuid: 'u1',
          message: {
            id: 'm1',
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: text } }],
            usage: { output_tokens: 5 },
          },
        },
        {
          ...base,
          type: 'user',
          uuid: 'r1',
          parentUuid: 'a1',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] },
        },
        {
          ...base,
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'b1',
          parentUuid: null,
          logicalParentUuid: 'r1',
          compactMetadata: { trigger: 'auto', preTokens: 1000 },
        },
        {
          ...base,
          type: 'user',
          uuid: 's1',
          parentUuid: 'b1',
          isCompactSummary: true,
          isVisibleInTranscriptOnly: true,
          message: { role: 'user', content: CLAUDE_OPENING + summary },
        },
        { ...base, type: 'user', uuid: 'u2', parentUuid: 's1', message: { role: 'user', content: 'go on' } },
      ]);
    },
    sideFiles: (summary) => [
      {
        path: '/tmp/hostile/subagents/agent-acompact-1.jsonl',
        text: jsonl([
          {
            type: 'assistant',
            uuid: 'x',
            message: {
              id: 'r',
              role: 'assistant',
              content: [{ type: 'text', text: `<analysis>${summary}</analysis><summary>${CLAUDE_OPENING}${summary}` }],
            },
          },
        ]),
      },
    ],
  },
  {
    name: 'codex',
    reader: () => new CodexReader({ fileName: 'rollout-hostile.jsonl', defaultBudget: 20000 }),
    session: (summary, text) => {
      const line = (type: string, payload: unknown) => ({ timestamp: '2026-01-01T00:00:00Z', type, payload });
      const msg = (role: string, t: string) => ({
        type: 'message',
        role,
        content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: t }],
      });
      return jsonl([
        line('session_meta', { id: 's' }),
        line('response_item', msg('user', text)),
        line('response_item', {
          type: 'function_call',
          name: 'shell',
          arguments: JSON.stringify({ command: ['bash', '-lc', text] }),
          call_id: 'c1',
        }),
        line('response_item', { type: 'function_call_output', call_id: 'c1', output: text }),
        line('compacted', { message: summary, replacement_history: [msg('user', summary)] }),
        line('response_item', msg('user', 'go on')),
      ]);
    },
  },
  {
    name: 'openhands',
    reader: () => new OpenHandsReader({ fileName: 'hostile-events.json' }),
    session: (summary, text) => {
      const ev = (id: number, extra: Record<string, unknown>) => ({
        id,
        timestamp: '2025-01-01T00:00:00',
        source: 'agent',
        message: '',
        ...extra,
      });
      return JSON.stringify([
        ev(0, { source: 'user', action: 'message', args: { content: text } }),
        ev(1, { action: 'run', args: { command: text, thought: text } }),
        ev(2, { observation: 'run', cause: 1, content: text }),
        ev(3, { action: 'condensation', args: { summary, summary_offset: 1, forgotten_event_ids: [0, 1, 2] } }),
      ]);
    },
  },
  {
    name: 'langchain',
    reader: () => new LangChainReader({ fileName: 'hostile.jsonl' }),
    session: (summary, text) =>
      jsonl([
        { type: 'human', id: 'h1', content: text, additional_kwargs: {} },
        { type: 'ai', id: 'a1', content: '', tool_calls: [{ id: 'c1', name: 'shell', args: { command: text } }] },
        { type: 'tool', id: 't1', content: text, tool_call_id: 'c1' },
        { type: 'human', id: 'sum', content: SUMMARY_OPENING + summary, additional_kwargs: { lc_source: 'summarization' } },
        { type: 'human', id: 'h2', content: 'go on', additional_kwargs: {} },
      ]),
  },
  {
    name: 'message-array',
    reader: () => new MessageArrayReader({ fileName: 'hostile.json', defaultBudget: 8192 }),
    session: (summary, text) =>
      JSON.stringify([
        { role: 'user', content: text },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: JSON.stringify({ command: text }) } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: text },
        { role: 'user', content: SUMMARY_OPENING + summary },
        { role: 'assistant', content: 'go on' },
      ]),
  },
];
