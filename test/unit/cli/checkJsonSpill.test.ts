// `check --json` and its temporary folder (src/cli/turnSpill.ts), run as a child process (dist/cli.js): the
// turns' JSON waits under TMPDIR and is deleted once written, after a reader that stops early (| head), and after
// Ctrl-C, with standard input's copy when the transcript came on it; without a usable folder the document is the same, kept in memory, and stderr says why.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');

/** A canonical transcript of `turns` turns and one checkpoint after them that claims them all. */
function transcriptText(turns: number): string {
  const lines = Array.from({ length: turns }, (_, id) =>
    JSON.stringify({
      type: 'turn',
      id,
      role: 'user',
      content: `Changed src/part_${id % 300}.ts for TASK-${id}; the “ledger” check passed`,
    }),
  );
  const summary = 'TASK-1, TASK-2 and src/part_3.ts were changed.';
  lines.push(JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 8192, covered: { from: 0, to: turns - 1 } }));
  return `${lines.join('\n')}\n`;
}

describe('check --json and its temporary folder (child process)', function () {
  this.timeout(120000);
  let dir: string;
  let small: string;
  let large: string;
  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'cl-spill-'));
    small = join(dir, 'small.jsonl');
    writeFileSync(small, transcriptText(300));
    large = join(dir, 'large.jsonl');
    writeFileSync(large, transcriptText(40000));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A fresh folder for TMPDIR. */
  const temporary = (): string => mkdtempSync(join(dir, 'tmp-'));

  it('writes every turn and deletes the folder; without a folder it writes the same document and says why', () => {
    const tmp = temporary();
    const spilled = spawnSync(process.execPath, [cli, 'check', '--json', small], {
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: tmp },
    });
    assert.equal(spilled.status, 1, spilled.stderr);
    const document = JSON.parse(spilled.stdout) as { files: { checkpoints: { turns: { id: number }[] }[] }[] };
    assert.deepEqual(
      document.files[0].checkpoints[0].turns.map((t) => t.id),
      Array.from({ length: 300 }, (_, i) => i),
    );
    assert.deepEqual(readdirSync(tmp), [], 'the folder is deleted');
    assert.doesNotMatch(spilled.stderr, /temporary folder/);

    const nowhere = join(dir, 'no-such-folder');
    const inMemory = spawnSync(process.execPath, [cli, 'check', '--json', small], {
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: nowhere },
    });
    assert.equal(inMemory.status, 1);
    assert.equal(inMemory.stdout, spilled.stdout);
    assert.match(inMemory.stderr, /could not keep the turns' JSON in a temporary folder under .*no-such-folder .*kept in memory instead/);
    assert.doesNotMatch(inMemory.stderr, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace');
  });

  it('deletes the folder when the reader stops early (| head)', async () => {
    const tmp = temporary();
    const child = spawn(process.execPath, [cli, 'check', '--json', large], { env: { ...process.env, TMPDIR: tmp } });
    child.stderr.resume();
    const code = await new Promise<number | null>((done) => {
      child.stdout.once('data', () => child.stdout.destroy());
      child.once('close', (status) => done(status));
    });
    assert.equal(code, 1, 'the exit status of what was found');
    assert.deepEqual(readdirSync(tmp), []);
  });

  it('deletes the folder when it is interrupted (Ctrl-C), and exits 130', async () => {
    const tmp = temporary();
    const child = spawn(process.execPath, [cli, 'check', '--json', large], { env: { ...process.env, TMPDIR: tmp } });
    child.stdout.resume();
    child.stderr.resume();
    const closed = new Promise<number | null>((done) => child.once('close', (status) => done(status)));
    // Interrupted once the folder is there (the turns are being judged or written).
    for (let waited = 0; readdirSync(tmp).length === 0; waited += 10) {
      assert.ok(waited < 60000, 'the folder never appeared');
      await new Promise((done) => setTimeout(done, 10));
    }
    child.kill('SIGINT');
    assert.equal(await closed, 130);
    assert.deepEqual(readdirSync(tmp), [], 'the folder is deleted');
  });

  it('on standard input, interrupted while both folders are there, deletes both (src/cli/interrupt.ts)', async () => {
    const tmp = temporary();
    const child = spawn(process.execPath, [cli, 'check', '--json', '-'], { env: { ...process.env, TMPDIR: tmp } });
    child.stdout.resume();
    child.stderr.resume();
    const closed = new Promise<number | null>((done) => child.once('close', (status) => done(status)));
    child.stdin.end(readFileSync(large));
    // Standard input's copy and the turns' spill, once the turns are being judged or written.
    for (let waited = 0; readdirSync(tmp).length < 2; waited += 10) {
      assert.ok(waited < 60000, `the two folders never appeared: ${readdirSync(tmp).join(', ')}`);
      await new Promise((done) => setTimeout(done, 10));
    }
    child.kill('SIGINT');
    assert.equal(await closed, 130);
    assert.deepEqual(readdirSync(tmp), [], 'both folders are deleted');
  });
});
