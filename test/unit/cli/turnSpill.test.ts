// Tests for TurnSpill (src/cli/turnSpill.ts) and the --json report written from it (src/cli/jsonReport.ts): the
// bytes read back are the turns' texts with the separator between two, in order, across many writes and reads
// and with characters of every UTF-8 length; a checkpoint begun again starts empty; nothing is created before
// the first checkpoint begins and dispose deletes the folder; and a document written from spilled turns is the
// very text of one written from the turns kept in the analysis.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      const spill = new TurnSpill((r) => r.reason, ',');
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
    const left = await inTemporaryFolder(async () => {
      spilled = await document({ spill: jsonTurnSpill });
    });
    assert.deepEqual(left, [], 'every spill deleted');
    after(() => rmSync(UNSAFE, { force: true }));
    const kept = await document('kept');
    assert.equal(spilled, kept);
    const parsed = JSON.parse(spilled) as { files: { checkpoints?: { turns: unknown[] }[] }[] };
    assert.equal(parsed.files[0].checkpoints?.[0].turns.length, 420);
    assert.equal(parsed.files[2].checkpoints?.[0].turns.length, 3);
    assert.ok(spilled.includes('\\u202e') && !spilled.includes('\u202e'), 'the bidi control is escaped');
    assert.ok(spilled.includes('\\u001b') && !spilled.includes('\u001b'), 'ESC is escaped');
    assert.ok(spilled.includes('\\u0085') && !spilled.includes('\u0085'), 'the C1 control is escaped');
  });
});
