// Tests for TurnSpill (src/cli/turnSpill.ts) and the --json report written from it (src/cli/jsonReport.ts): the
// bytes read back are the turns' texts with the separator between two, in order, across many writes and reads
// and with characters of every UTF-8 length; a checkpoint begun again starts empty; nothing is created before
// the first checkpoint begins and dispose deletes the folder; and a document written from spilled turns is the
// very text of one written from the turns kept in the analysis.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileReports, type TurnsKept } from '../../../src/cli/checkFiles';
import { jsonTurnSpill, writeJsonReport } from '../../../src/cli/jsonReport';
import { TurnSpill } from '../../../src/cli/turnSpill';
import type { TurnResult } from '../../../src/core/model';

const SAMPLE = join(__dirname, '../../../../samples/incident.jsonl');
const UNSAFE = join(tmpdir(), `compaction-lens-unsafe-${process.pid}.jsonl`);

function result(index: number, reason: string): TurnResult {
  return { id: index, index, status: 'covered', claimed: true, evidence: [], reason, line: index + 1, endLine: index + 1 };
}

/** Runs `body` with os.tmpdir() pointing at a fresh folder; returns what the folder holds afterwards. */
async function inTemporaryFolder(body: (dir: string) => Promise<void> | void): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await body(dir);
    return readdirSync(dir);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('cli/turnSpill', () => {
  it('gives back each checkpoint its turns, separated, in order, across many writes and reads', async () => {
    const left = await inTemporaryFolder(() => {
      const spill = new TurnSpill((r) => `<${r.index}:${r.reason}>`, '|\n');
      // Reasons of 1-, 2-, 3- and 4-byte characters, long enough that the turns span many 1 MiB writes and reads.
      const reasons = Array.from({ length: 3000 }, (_, i) => ['a', 'é', '“', '😀'][i % 4].repeat(i % 1500));
      spill.begin(0);
      reasons.forEach((reason, i) => spill.turn(result(i, reason)));
      spill.begin(2);
      spill.turn(result(7, 'only'));
      const zero = Buffer.concat([...spill.bytes(0)]).toString('utf8');
      assert.equal(zero, reasons.map((reason, i) => `<${i}:${reason}>`).join('|\n'));
      assert.ok([...spill.bytes(0)].length > 2, 'read in several chunks');
      assert.equal(Buffer.concat([...spill.bytes(2)]).toString('utf8'), '<7:only>');
      assert.equal(spill.countOf(0), 3000);
      assert.equal(spill.countOf(1), 0);
      assert.deepEqual([...spill.bytes(1)], []);
      spill.dispose();
    });
    assert.deepEqual(left, [], 'the folder is deleted');
  });

  it('empties a checkpoint begun again, creates nothing before a checkpoint begins, and deletes its folder', async () => {
    const left = await inTemporaryFolder((dir) => {
      const spill = new TurnSpill((r) => r.reason ?? '', ',');
      assert.deepEqual(readdirSync(dir), []);
      assert.throws(() => spill.turn(result(0, 'too early')), /before its checkpoint began/);
      spill.begin(0);
      spill.turn(result(0, 'first try'));
      spill.turn(result(1, 'halfway'));
      spill.begin(0);
      spill.turn(result(0, 'again'));
      assert.equal(Buffer.concat([...spill.bytes(0)]).toString('utf8'), 'again');
      assert.equal(spill.countOf(0), 1);
      const [folder] = readdirSync(dir);
      assert.ok(existsSync(join(dir, folder, 'checkpoint-0.json')));
      spill.dispose();
      spill.dispose(); // twice is harmless
    });
    assert.deepEqual(left, []);
  });

  it('keeps the turns in memory, and says why once, when the folder cannot be made', () => {
    const reasons: string[] = [];
    const before = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent/compaction-lens-test';
    try {
      const spill = new TurnSpill(
        (r) => r.reason ?? '',
        '|',
        (why) => reasons.push(why),
      );
      spill.begin(0);
      for (let i = 0; i < 5; i++) spill.turn(result(i, `turn ${i} “é”`));
      spill.begin(1);
      spill.turn(result(9, 'last'));
      assert.equal(Buffer.concat([...spill.bytes(0)]).toString('utf8'), 'turn 0 “é”|turn 1 “é”|turn 2 “é”|turn 3 “é”|turn 4 “é”');
      assert.equal(Buffer.concat([...spill.bytes(1)]).toString('utf8'), 'last');
      assert.equal(reasons.length, 1);
      assert.match(
        reasons[0],
        /could not keep the turns' JSON in a temporary folder under \/nonexistent\/compaction-lens-test \(ENOENT.*kept in memory instead/,
      );
      spill.dispose();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });

  it('keeps in memory what a full disk would not take, after what the file holds', function () {
    this.timeout(60000);
    // A process whose files may not grow past 1 MiB (ulimit -f, in KiB), which ignores the signal for it: its
    // writes past that fail (EFBIG) as on a full disk, after writing part of what they were given.
    const script = `
      process.on('SIGXFSZ', () => undefined);
      const { TurnSpill } = require(${JSON.stringify(join(__dirname, '../../../src/cli/turnSpill.js'))});
      const reasons = [];
      const spill = new TurnSpill((r) => r.reason, ',', (why) => reasons.push(why));
      const expected = [];
      spill.begin(0);
      for (let i = 0; i < 2000; i++) {
        const reason = i + ':' + 'ü'.repeat(1 + (i * 7919) % 2000);
        expected.push(reason);
        spill.turn({ id: i, index: i, status: 'covered', claimed: true, evidence: [], reason, line: 1, endLine: 1 });
      }
      const got = Buffer.concat([...spill.bytes(0)]).toString('utf8');
      spill.dispose();
      console.log(JSON.stringify({ same: got === expected.join(','), bytes: Buffer.byteLength(got), reasons }));
    `;
    const child = spawnSync('bash', ['-c', 'ulimit -f 1024 && exec "$0" -e "$1"', process.execPath, script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const outcome = JSON.parse(child.stdout) as { same: boolean; bytes: number; reasons: string[] };
    assert.ok(outcome.bytes > 3 * 2 ** 20, `${outcome.bytes} bytes: more than the file could hold`);
    assert.equal(outcome.same, true, 'the turns, whole and in order');
    assert.equal(outcome.reasons.length, 1);
    assert.match(outcome.reasons[0], /kept in memory instead/);
  });

  it('writes the same --json document from spilled turns as from the turns kept in the analysis, and leaves no file', async function () {
    this.timeout(120000);
    const document = async (turns: TurnsKept): Promise<string> => {
      const chunks: Buffer[] = [];
      const out = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          chunks.push(chunk);
          done();
        },
      });
      const files = [SAMPLE, '/nonexistent/compaction-lens.jsonl', UNSAFE];
      await writeJsonReport(fileReports(files, { encoding: 'o200k_base', ratioFloor: 5 }, undefined, turns), out);
      return Buffer.concat(chunks).toString('utf8');
    };
    // Turns whose texts hold what the document escapes for a terminal, and characters of every UTF-8 length.
    const texts = ['Ran "rm \u001b[31m -rf \u0085 ü 😀" on src/a.ts', 'Fixed \u202eexe.ts\u202c in AUTH-7 “now”', 'Set ü 😀 in src/b.ts'];
    const lines = texts.map((content, id) => JSON.stringify({ type: 'turn', id, role: 'user', content }));
    lines.push(
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'AUTH-7 src/a.ts',
        summary_budget: 100,
        covered: { from: 0, to: 2 },
      }),
    );
    writeFileSync(UNSAFE, `${lines.join('\n')}\n`);
    let spilled = '';
    let kept: string;
    try {
      const left = await inTemporaryFolder(async () => {
        spilled = await document({ spill: jsonTurnSpill });
      });
      assert.deepEqual(left, [], 'every spill deleted');
      kept = await document('kept');
    } finally {
      rmSync(UNSAFE, { force: true });
    }
    assert.equal(spilled, kept);
    const parsed = JSON.parse(spilled) as { files: { checkpoints?: { turns: unknown[] }[] }[] };
    assert.equal(parsed.files[0].checkpoints?.[0].turns.length, 420);
    assert.equal(parsed.files[2].checkpoints?.[0].turns.length, 3);
    assert.ok(spilled.includes('\\u202e') && !spilled.includes('\u202e'), 'the bidi control is escaped');
    assert.ok(spilled.includes('\\u001b') && !spilled.includes('\u001b'), 'ESC is escaped');
    assert.ok(spilled.includes('\\u0085') && !spilled.includes('\u0085'), 'the C1 control is escaped');
  });
});
