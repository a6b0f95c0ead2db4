// Tests for src/core/locatorSearch.ts and its use in analyze: a search result that only locates the lines the
// agent's next step reads or edits holds nothing worth carrying; one that finds more, or whose find is not taken next
// (another file, other lines, other text, a later step, after the checkpoint), is judged as before.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import { locatesForNextStep } from '../../../src/core/locatorSearch';
import type { AnalysisOptions, Turn } from '../../../src/core/model';
import { checkpoint, transcript, turn } from './transcripts';

const OPTS: AnalysisOptions = { countTokens: (t) => t.split(/\s+/).filter(Boolean).length };

function call(name: string, args: unknown): string {
  return `[tool call ${name}] ${JSON.stringify(args)}`;
}

function result(id: number, text: string, callTurn: number, callText: string): Turn {
  return turn(id, text, { role: 'tool', answers: { turnId: callTurn, callText } });
}

const FIXTURE = '/repo/test/fixtures/subagent.jsonl';
const GREP_FILE = call('Grep', { pattern: '"agentId"', path: FIXTURE, output_mode: 'content', head_limit: 3 });
const GREP_FILE_OUT =
  '37:[Omitted long matching line]\n38:[Omitted long matching line]\n\n[Showing results with pagination = limit: 3, offset: 0]';
const GREP_DIR = call('Grep', { pattern: 'esbuild|watchers', path: '/repo/config', output_mode: 'content' });
const GREP_DIR_OUT = 'config/dev.exs:21:  watchers: [';

describe('core/locatorSearch: locatesForNextStep', () => {
  it('a search in one file whose next step reads it at a line it gave', () => {
    assert.equal(locatesForNextStep(GREP_FILE_OUT, GREP_FILE, call('Read', { file_path: FIXTURE, offset: 37, limit: 1 })), true);
  });

  it('a search in a folder whose next step reads the file it named, relative to the folder, at a line it gave', () => {
    const read = call('Read', { file_path: '/repo/config/dev.exs', offset: 18, limit: 15 });
    assert.equal(locatesForNextStep(GREP_DIR_OUT, GREP_DIR, read), true);
    // A whole read, and an editor's view range, take the line too.
    assert.equal(locatesForNextStep(GREP_DIR_OUT, GREP_DIR, call('Read', { file_path: '/repo/config/dev.exs' })), true);
    const view = call('str_replace_editor', { command: 'view', path: '/repo/config/dev.exs', view_range: [20, 30] });
    assert.equal(locatesForNextStep(GREP_DIR_OUT, GREP_DIR, view), true);
    // Lines of context ("20-") and a "--" between groups are match lines too.
    const withContext = 'config/dev.exs-20-config :spotter, SpotterWeb.Endpoint,\nconfig/dev.exs:21:  watchers: [\n--';
    assert.equal(locatesForNextStep(withContext, GREP_DIR, read), true);
  });

  it("a shell search in one file (its lines name no file): the command's path, read next", () => {
    const read = call('read', { path: '/repo/src/main.ts', offset: 860, limit: 80 });
    const out = '867: * Similar to executeBashCommand\n869:async function executeRpcBashCommand(command: string) {';
    const bash = (command: string) => call('bash', { command });
    assert.equal(locatesForNextStep(out, bash('cd /repo && grep -n "executeRpcBashCommand\\|run mode" src/main.ts'), read), true);
    assert.equal(locatesForNextStep(out, bash("grep -n 'executeRpcBashCommand' src/main.ts | head -20"), read), true);
    assert.equal(locatesForNextStep(out, bash('rg -n executeRpcBashCommand /repo/src/main.ts'), read), true);
    assert.equal(locatesForNextStep(out, bash('git grep -n executeRpcBashCommand src/main.ts'), read), true);
    // Not when the path cannot be told: none, several, a redirection, a substitution, a quote left open, two searches.
    for (const command of [
      'grep -rn executeRpcBashCommand',
      'grep -n executeRpcBashCommand src/cli.ts src/main.ts',
      'grep -n executeRpcBashCommand src/main.ts 2>/dev/null',
      'grep -n $NAME src/main.ts',
      'grep -n "executeRpcBashCommand src/main.ts',
      'grep -n executeRpc src/main.ts | grep -n Bash src/main.ts',
      'cat src/main.ts',
    ]) {
      assert.equal(locatesForNextStep(out, bash(command), read), false, command);
    }
  });

  it('a shell read as the next step: sed -n, nl | sed, head, cat, inside bash -lc as Codex runs them', () => {
    const rg = call('exec_command', { cmd: 'rg -n watchers config' });
    const out = 'config/dev.exs:21:  watchers: [';
    const next = (command: unknown) => call('exec_command', { cmd: command });
    for (const command of [
      "sed -n '18,40p' config/dev.exs",
      'nl -ba config/dev.exs | sed -n 15,30p',
      'cd /repo && cat -n config/dev.exs',
      'head -n 30 config/dev.exs',
      'head -40 config/dev.exs',
      ['bash', '-lc', "sed -n '1,80p' config/dev.exs"],
    ]) {
      assert.equal(locatesForNextStep(out, rg, next(command)), true, JSON.stringify(command));
    }
    for (const command of [
      "sed -n '30,40p' config/dev.exs",
      'nl -ba config/dev.exs | sed -n 1,20p',
      'head -n 10 config/dev.exs',
      "sed 's/a/b/' config/dev.exs",
      'cat config/dev.exs config/test.exs',
      'cat config/dev.exs > /tmp/copy',
      'tail -n 40 config/dev.exs',
      'head -n 30',
    ]) {
      assert.equal(locatesForNextStep(out, rg, next(command)), false, JSON.stringify(command));
    }
  });

  it('an edit as the next step takes a line whose text is in what it replaces', () => {
    const grep = call('bash', { command: 'cd /repo && grep -n "modes/index.js" src/main.ts' });
    const out = '22:import { runPrintMode, runRpcMode } from "./modes/index.js";';
    const edit = (file: string, oldText: string) =>
      call('edit', { path: file, oldText, newText: 'import { InteractiveMode, runPrintMode, runRpcMode } from "./modes/index.js";' });
    assert.equal(
      locatesForNextStep(out, grep, edit('/repo/src/main.ts', 'import { runPrintMode, runRpcMode } from "./modes/index.js";')),
      true,
    );
    // Claude Code's Edit, by file_path and old_string.
    const claudeEdit = call('Edit', {
      file_path: '/repo/src/main.ts',
      old_string: 'import { Agent } from "./agent.js";\nimport { runPrintMode, runRpcMode } from "./modes/index.js";\n',
      new_string: '',
    });
    assert.equal(locatesForNextStep(out, grep, claudeEdit), true);
    // Not when the edit replaces other text (a part of the line is not the line), or changes another file.
    const part = call('Edit', { file_path: '/repo/src/main.ts', old_string: 'runPrintMode, runRpcMode', new_string: 'runPrintMode' });
    assert.equal(locatesForNextStep(out, grep, part), false);
    assert.equal(locatesForNextStep(out, grep, edit('/repo/src/main.ts', 'import { TuiRenderer } from "./tui.js";')), false);
    assert.equal(
      locatesForNextStep(out, grep, edit('/repo/src/cli.ts', 'import { runPrintMode, runRpcMode } from "./modes/index.js";')),
      false,
    );
    // A write of the whole file replaces nothing the search showed.
    assert.equal(locatesForNextStep(out, grep, call('Write', { file_path: '/repo/src/main.ts', content: out })), false);
  });

  it('a search on Windows, its paths with backslashes', () => {
    const grep = call('Grep', { pattern: 'watchers', path: 'C:\\repo\\config', output_mode: 'content' });
    const read = call('Read', { file_path: 'C:\\repo\\config\\dev.exs', offset: 18, limit: 15 });
    assert.equal(locatesForNextStep('config\\dev.exs:21:  watchers: [', grep, read), true);
    assert.equal(locatesForNextStep('config\\prod.exs:21:  watchers: [', grep, read), false);
  });

  it('not when the next step reads other lines, another file, or nothing', () => {
    assert.equal(
      locatesForNextStep(GREP_DIR_OUT, GREP_DIR, call('Read', { file_path: '/repo/config/dev.exs', offset: 40, limit: 10 })),
      false,
    );
    assert.equal(
      locatesForNextStep(GREP_DIR_OUT, GREP_DIR, call('Read', { file_path: '/repo/config/prod.exs', offset: 18, limit: 15 })),
      false,
    );
    assert.equal(locatesForNextStep(GREP_DIR_OUT, GREP_DIR, call('Read', { file_path: '/repo/other/config/dev.exs.bak' })), false);
    assert.equal(locatesForNextStep(GREP_DIR_OUT, GREP_DIR, 'The watchers are set up in dev.exs.'), false);
    assert.equal(locatesForNextStep(GREP_DIR_OUT, GREP_DIR, call('Bash', { command: 'mix test' })), false);
  });

  it('not when most of the lines it shows are not read next: then it is a map of its own', () => {
    const three = 'config/dev.exs:21:  watchers: [\nconfig/dev.exs:90:  esbuild: [\nconfig/dev.exs:120:  tailwind: [';
    const read = (offset: number, limit: number) => call('Read', { file_path: '/repo/config/dev.exs', offset, limit });
    assert.equal(locatesForNextStep(three, GREP_DIR, read(18, 15)), false, 'one of three lines read');
    assert.equal(locatesForNextStep(three, GREP_DIR, read(18, 80)), true, 'two of three lines read');
    // A line that shows no text ("[Omitted long matching line]") counts as read: it found nothing to see.
    const omitted = 'config/dev.exs:21:  watchers: [\nconfig/dev.exs:90:[Omitted long matching line]\nconfig/dev.exs:120:';
    assert.equal(locatesForNextStep(omitted, GREP_DIR, read(18, 15)), true);
  });

  it('not when the search located a file the next step does not read', () => {
    const two = 'config/dev.exs:21:  watchers: [\nconfig/test.exs:4:  esbuild: false';
    assert.equal(locatesForNextStep(two, GREP_DIR, call('Read', { file_path: '/repo/config/dev.exs' })), false);
    const both = [
      call('Read', { file_path: '/repo/config/dev.exs' }),
      call('Read', { file_path: '/repo/config/test.exs', offset: 1, limit: 10 }),
    ].join('\n');
    assert.equal(locatesForNextStep(two, GREP_DIR, both), true);
  });

  it('not when the result is more than match lines: a list of files, no match, an error, or long output', () => {
    const read = call('Read', { file_path: '/repo/config/dev.exs' });
    for (const out of [
      'config/dev.exs',
      'No matches found',
      'Found 2 files\nconfig/dev.exs\nconfig/test.exs',
      'error at config/dev.exs:21: bad',
      '',
    ]) {
      assert.equal(locatesForNextStep(out, GREP_DIR, read), false, out);
    }
    const long = Array.from({ length: 400 }, (_, i) => `config/dev.exs:${i + 1}:  line ${i}`).join('\n');
    assert.equal(locatesForNextStep(long, GREP_DIR, read), false);
  });

  it('not when the call is not one lookup, or its result names no file and the call no path', () => {
    const read = call('Read', { file_path: FIXTURE, offset: 37, limit: 1 });
    assert.equal(locatesForNextStep(GREP_FILE_OUT, call('Bash', { command: 'sed -i s/a/b/ x' }), read), false);
    assert.equal(locatesForNextStep(GREP_FILE_OUT, `${GREP_FILE}\n${GREP_DIR}`, read), false);
    assert.equal(locatesForNextStep(GREP_FILE_OUT, call('Grep', { pattern: 'agentId' }), read), false);
  });
});

describe('core/locatorSearch: any text', () => {
  // Lines made of the characters match lines are made of, so that most are near misses.
  const arbLine = fc
    .array(fc.constantFrom('1', '2', '37', ':', '-', '/', 'config', 'dev.exs', ' ', '[', ']', 'x'), { maxLength: 12 })
    .map((parts) => parts.join(''));
  const arbText = fc.array(arbLine, { maxLength: 8 }).map((lines) => lines.join('\n'));
  const read = (path: string, offset: number) => call('Read', { file_path: path, offset, limit: 5 });

  it('never throws, and reading nothing or a file no line names is never enough', () => {
    fc.assert(
      fc.property(
        arbText,
        fc.constantFrom('/repo/config', '/repo/config/dev.exs'),
        fc.integer({ min: 1, max: 40 }),
        (out, path, offset) => {
          const searched = call('Grep', { pattern: 'x', path });
          const located = locatesForNextStep(out, searched, read('/repo/config/dev.exs', offset));
          assert.equal(typeof located, 'boolean');
          // Reading nothing, or a file no line can name, is never enough.
          assert.equal(locatesForNextStep(out, searched, 'Let me read it.'), false);
          assert.equal(locatesForNextStep(out, searched, read('/elsewhere/other.txt', offset)), false);
        },
      ),
      { seed: 2313, numRuns: 500 },
    );
  });
});

describe('core/locatorSearch: any shell command', () => {
  const arbCommand = fc
    .array(
      fc.constantFrom(
        'grep',
        'rg',
        'sed',
        'nl',
        'cat',
        'head',
        '-n',
        '-ba',
        "'",
        '"',
        '|',
        '&&',
        ';',
        ' ',
        '1,20p',
        '30',
        'config/dev.exs',
        '$',
        '>',
      ),
      {
        maxLength: 14,
      },
    )
    .map((parts) => parts.join(' '));

  it('never throws, whatever the search and the read run', () => {
    fc.assert(
      fc.property(arbCommand, arbCommand, (search, read) => {
        const located = locatesForNextStep(
          'config/dev.exs:21:  watchers: [\n22:',
          call('exec_command', { cmd: search }),
          call('exec_command', { cmd: read }),
        );
        assert.equal(typeof located, 'boolean');
      }),
      { seed: 2315, numRuns: 1000 },
    );
  });
});

describe('core/analyze: a search that only locates what the next step reads', () => {
  const summary = 'Fixed the renderer; all tests pass.';
  const grep = (id: number, callId: number) => result(id, GREP_DIR_OUT, callId, GREP_DIR);
  const run = (turns: Turn[], before = turns.length) =>
    analyze(
      transcript(turns, [
        checkpoint({ summary, summaryBudget: 1000, claimedIds: turns.slice(0, before).map((t) => t.id), turnsBefore: before }),
      ]),
      OPTS,
    ).checkpoints[0];

  it('is nothing to check, saying why; the same result is claimed-missing when no read follows', () => {
    const read = call('Read', { file_path: '/repo/config/dev.exs', offset: 18, limit: 15 });
    const turns = [turn(0, GREP_DIR, { role: 'assistant' }), grep(1, 0), turn(2, read, { role: 'assistant' })];
    const cp = run(turns);
    assert.equal(cp.turns[1].status, 'nothing-to-check');
    // The reason names the line of the step that reads what the search found.
    assert.equal(
      cp.turns[1].reason,
      'nothing worth carrying: a search that only locates the lines the next step reads or edits (line 3): what it found is in that step',
    );
    const alone = run([turn(0, GREP_DIR, { role: 'assistant' }), grep(1, 0), turn(2, 'Now let me run the tests.', { role: 'assistant' })]);
    assert.equal(alone.turns[1].status, 'claimed-missing');
  });

  it("skips the results of parallel calls to find the next step, and looks no further than the checkpoint's prefix", () => {
    const read = call('Read', { file_path: '/repo/config/dev.exs', offset: 18, limit: 15 });
    const other = call('Read', { file_path: '/repo/mix.exs' });
    const turns = [
      turn(0, `${GREP_DIR}\n${other}`, { role: 'assistant' }),
      grep(1, 0),
      result(2, '   1\tdefmodule Spotter.MixProject do', 0, other),
      turn(3, read, { role: 'assistant' }),
    ];
    assert.equal(run(turns).turns[1].status, 'nothing-to-check');
    // The read after the checkpoint: lines appended later never change a past judgement.
    assert.equal(run(turns, 3).turns[1].status, 'claimed-missing');
  });
});
