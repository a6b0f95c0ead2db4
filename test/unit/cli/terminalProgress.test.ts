// The CLI's progress line on a real terminal: `bundle`, `export` and `find` run as child processes under
// util-linux's `script` (a pseudo-terminal), on a generated transcript large enough to take seconds. stderr shows
// the analysis's progress and then the command's own (the bundle's secrets looked for, then the bundle written
// as it is made; the export's bytes written), each line erased before the next and before the command's last word; stdout, redirected to a file,
// gets the output alone, without a control character.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { skipOrFailInCi } from '../../sharedFolder';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');
const TURNS = 60_000;

/** Runs the CLI with `args` on a pseudo-terminal, stdout to `stdoutFile`: its exit status and what the terminal showed. */
function onTerminal(dir: string, args: string[], stdoutFile: string): { status: number | null; screen: string } {
  const log = join(dir, 'terminal.log');
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const command = `${[process.execPath, cli, ...args].map(quote).join(' ')} > ${quote(stdoutFile)}`;
  const result = spawnSync('script', ['-qec', command, log], { encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, screen: readFileSync(log, 'utf8') };
}

/** The lines the terminal showed in turn: each `\r` or newline starts one; the erase sequence is dropped. */
function shownLines(screen: string): string[] {
  return screen
    .split(/[\r\n]+/)
    .map((line) => line.replaceAll('\u001b[K', ''))
    .filter((line) => line !== '' && !line.startsWith('Script '));
}

describe('the CLI on a terminal: progress on stderr (child process, pseudo-terminal)', function () {
  this.timeout(180_000);
  let dir: string;
  let transcript: string;
  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    if (spawnSync('script', ['--version']).status !== 0) skipOrFailInCi(this, "util-linux's script (a pseudo-terminal) is absent");
    dir = mkdtempSync(join(tmpdir(), 'cl-terminal-'));
    transcript = join(dir, 'long.jsonl');
    const lines: string[] = [];
    for (let id = 0; id < TURNS; id++) {
      const content = `ANCHOR-${id}- step ${id}: the migration of table_${id % 97} moved ${id * 7} rows to shard ${id % 13}`;
      lines.push(JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'tool', content, tokens: 30, anchor: `ANCHOR-${id}-` }));
    }
    lines.push(
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'Did ANCHOR-0-.',
        summary_budget: 4096,
        covered: { from: 0, to: TURNS - 1 },
      }),
    );
    writeFileSync(transcript, `${lines.join('\n')}\n`);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("bundle: the analysis, then the bundle's own progress (secrets looked for, or written); the Markdown alone on stdout", () => {
    const out = join(dir, 'bundle.md');
    const { status, screen } = onTerminal(dir, ['bundle', transcript], out);
    assert.equal(status, 0, screen);
    const lines = shownLines(screen);
    const name = `${transcript}: `;
    const progress = lines.filter((line) => line.startsWith(name));
    assert.ok(progress.length >= 3, lines.join('\n'));
    assert.ok(
      progress.some((line) => /(judging turns|counting tokens|reading)… \d+%/.test(line)),
      `the analysis's progress: ${progress.join(' | ')}`,
    );
    assert.ok(
      progress.some((line) => /: (looking for secrets|writing the bundle) \d+%$/.test(line)),
      `the bundle's progress: ${progress.join(' | ')}`,
    );
    assert.match(lines.at(-1) ?? '', /^compaction-lens: recovery bundle: 59,999 turns, [\d,]+ tokens \(o200k_base\)/);
    assert.ok(screen.includes('\r\u001b[Kcompaction-lens: recovery bundle'), 'the progress line is erased before the note');
    const markdown = readFileSync(out, 'utf8');
    assert.match(markdown, /^## Turns dropped by checkpoint S1/);
    assert.doesNotMatch(markdown, /[\r\u001b]/, 'no progress in the output');
  });

  it("export: its own progress (the corrections worked out or the bytes written); find: the analysis's", () => {
    const output = join(dir, 'long.corrected.jsonl');
    const exported = onTerminal(dir, ['export', transcript, '--out', output], join(dir, 'export.txt'));
    assert.equal(exported.status, 0, exported.screen);
    const lines = shownLines(exported.screen);
    assert.ok(
      lines.some((line) => line === `${transcript}: working out the corrections` || /: writing the export: [\d.]+ (KB|MB)$/.test(line)),
      lines.join('\n'),
    );
    assert.match(readFileSync(join(dir, 'export.txt'), 'utf8'), /^Wrote .*long\.corrected\.jsonl \(the corrected canonical transcript\)/);
    assert.ok(existsSync(output));

    const found = onTerminal(dir, ['find', transcript, 'table_5 moved'], join(dir, 'find.txt'));
    assert.equal(found.status, 1, found.screen); // claimed-missing turns hold it
    assert.ok(
      shownLines(found.screen).some((line) => line.startsWith(`${transcript}: `) && /\d+%\)?$/.test(line)),
      found.screen,
    );
    assert.doesNotMatch(readFileSync(join(dir, 'find.txt'), 'utf8'), /\r|\u001b\[K/, 'no progress in the output');
  });
});
