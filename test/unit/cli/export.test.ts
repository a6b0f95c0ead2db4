// The `export` command run as a child process (dist/cli.js, built by `npm run build`): the incident sample's
// corrected copy beside it (read back: it claims the safe pointer set), the sidecar by --out (read back: the same
// pointer sets as `check --json`), a .jsonl.gz, a real Claude Code session (sidecar beside a copy of it), refusing
// to overwrite without --force (exit 2) and to write the transcript even with it, and the command line's errors.
// The transcript is compared byte for byte before and after every run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readCommandLine } from '../../../src/cli/args';
import { CanonicalReader } from '../../../src/formats/canonical';
import { readSidecar } from '../../../src/formats/correctedSidecar';
import { skipOrFailInCi } from '../../sharedFolder';
import { feed } from '../formats/feedLines';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');
const incident = join(root, 'samples/incident.jsonl');
const corpusSession = join(root, '..', 'shared', 'corpus', 'claude-code', '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = result.stdout + result.stderr;
  assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace is ever shown');
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** `check --json`'s safe pointer set of each checkpoint, to compare an export with. */
function safeSetsOf(path: string): unknown[][] {
  const doc = JSON.parse(run('check', '--json', path).stdout);
  return doc.files[0].checkpoints.map((checkpoint: { safe_covered: unknown[] }) => checkpoint.safe_covered);
}

describe('compaction-lens export (child process)', function () {
  this.timeout(120000);
  let dir: string;
  let transcript: string;
  let original: Buffer;

  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-export-'));
    transcript = join(dir, 'incident.jsonl');
    copyFileSync(incident, transcript);
    original = readFileSync(transcript);
  });
  afterEach(() => {
    assert.ok(readFileSync(transcript).equals(original), 'the transcript is unchanged');
    rmSync(dir, { recursive: true, force: true });
  });

  it('the incident sample: writes incident.corrected.jsonl beside it, which claims 0–379 when read back', () => {
    const { status, stdout, stderr } = run('export', transcript);
    assert.equal(stderr, '');
    assert.equal(status, 0);
    const out = join(dir, 'incident.corrected.jsonl');
    assert.equal(
      stdout,
      `Wrote ${out} (the corrected canonical transcript) from ${transcript}:\n` +
        '  S1 (line 421, fail-closed): 380 of 420 claimed turns kept, 40 moved to uncovered (40 claimed-missing)\n',
    );
    const reread = feed(new CanonicalReader({ fileName: out }), readFileSync(out));
    assert.deepEqual(reread.problems, []);
    assert.deepEqual(reread.checkpoints[0].claimedIds, range(0, 379));
    const record = JSON.parse(readFileSync(out, 'utf8').split('\n')[420]);
    assert.deepEqual(record.compaction_lens.claimed_covered, { from: 0, to: 419 });
    assert.equal(record.compaction_lens.moved_to_uncovered.length, 40);
    const checked = run('check', out);
    assert.match(checked.stdout, /380 covered · 0 claimed-missing · 40 uncovered/);
    assert.deepEqual(readdirSync(dir).sort(), ['incident.corrected.jsonl', 'incident.jsonl'], 'no temporary file is left');
  });

  it('refuses to overwrite without --force (exit 2, saying so), and replaces with it', () => {
    const out = join(dir, 'incident.corrected.jsonl');
    writeFileSync(out, 'EARLIER');
    const refused = run('export', transcript);
    assert.equal(refused.status, 2);
    assert.equal(refused.stdout, '');
    assert.equal(
      refused.stderr,
      `compaction-lens: ${out} already exists; nothing was written. Use --force to replace it, or --out to write elsewhere.\n`,
    );
    assert.equal(readFileSync(out, 'utf8'), 'EARLIER');
    const forced = run('export', transcript, '--force');
    assert.equal(forced.status, 0);
    assert.deepEqual(feed(new CanonicalReader({ fileName: out }), readFileSync(out)).checkpoints[0].claimedIds, range(0, 379));
  });

  it('never writes the transcript, even with --force', () => {
    for (const args of [
      ['--out', transcript],
      ['--out', transcript, '--force'],
      ['-o', join(dir, '.', 'incident.jsonl'), '--force'],
    ]) {
      const { status, stderr } = run('export', transcript, ...args);
      assert.equal(status, 2, args.join(' '));
      assert.match(stderr, /is the transcript itself: Compaction Lens never writes to a transcript\. Choose another file\.\n$/);
    }
  });

  it('--out a .json name: the sidecar, whose pointer sets are those of check --json', () => {
    const out = join(dir, 'incident.jsonl.compaction-lens.json');
    const { status, stdout } = run('export', transcript, '--out', out);
    assert.equal(status, 0);
    assert.match(stdout, /\(the sidecar document\)/);
    const { document, problems } = readSidecar(readFileSync(out, 'utf8'));
    assert.deepEqual(problems, []);
    assert.equal(document?.source, 'incident.jsonl');
    assert.deepEqual(document?.checkpoints[0].claimedIds, range(0, 419));
    assert.deepEqual(
      document?.checkpoints.map((checkpoint) => checkpoint.safeIds),
      safeSetsOf(transcript),
    );
  });

  it('a canonical .jsonl.gz: the corrected copy is written uncompressed', () => {
    const gz = join(dir, 'run.jsonl.gz');
    writeFileSync(gz, gzipSync(original));
    const { status } = run('export', gz);
    assert.equal(status, 0);
    const reread = feed(new CanonicalReader({ fileName: 'run.corrected.jsonl' }), readFileSync(join(dir, 'run.corrected.jsonl')));
    assert.deepEqual(reread.checkpoints[0].claimedIds, range(0, 379));
  });

  it('a real Claude Code session: the sidecar beside (a copy of) it, read back with the pointer sets of check --json', function () {
    if (!existsSync(corpusSession)) skipOrFailInCi(this, `the corpus file ${corpusSession} is absent`);
    const copy = join(dir, '8463c716.jsonl.gz');
    copyFileSync(corpusSession, copy);
    const before = readFileSync(copy);
    const { status, stdout } = run('export', copy);
    assert.equal(status, 0, stdout);
    const out = join(dir, '8463c716.jsonl.gz.compaction-lens.json');
    assert.match(
      stdout,
      /^Wrote .+8463c716\.jsonl\.gz\.compaction-lens\.json \(the sidecar document\) from .+:\n {2}\S+ \(line \d+, \w[\w-]+\): \d+ of \d+ claimed turns kept, \d+ moved to uncovered \(.*claimed-missing.*\)\n$/,
    );
    const { document, problems } = readSidecar(readFileSync(out, 'utf8'));
    assert.deepEqual(problems, []);
    assert.equal(document?.format, 'claude-code');
    assert.deepEqual(
      document?.checkpoints.map((checkpoint) => checkpoint.safeIds),
      safeSetsOf(copy),
    );
    assert.ok(document!.checkpoints[0].moved.some((turn) => turn.status === 'claimed-missing'));
    assert.ok(readFileSync(copy).equals(before), 'the session is unchanged');
    const refused = run('export', copy, '--out', join(dir, 'session.corrected.jsonl'));
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /can only be written for a canonical transcript, and this one is claude-code/);
  });

  it('an unusable transcript or a bad command line: exit 2, a message, nothing written', () => {
    const cases: [string[], RegExp][] = [
      [['export'], /export needs a FILE/],
      [['export', transcript, 'other.jsonl'], /export takes one FILE, got also "other\.jsonl"/],
      [['export', transcript, '--json'], /--json is not for export/],
      [['export', transcript, '--out'], /--out needs a value/],
      [['check', transcript, '--force'], /--force is for export/],
      [['export', join(dir, 'missing.jsonl')], /missing\.jsonl: no such file/],
    ];
    for (const [args, expected] of cases) {
      const { status, stderr } = run(...args);
      assert.equal(status, 2, args.join(' '));
      assert.match(stderr, expected, args.join(' '));
    }
    assert.deepEqual(readdirSync(dir), ['incident.jsonl']);
  });

  it('parses export and its options', () => {
    assert.deepEqual(readCommandLine(['export', 'a.jsonl', '-o', 'b.json', '--force', '--ratio-floor', '6'], false), {
      kind: 'export',
      options: { ratioFloor: 6, encoding: 'o200k_base', file: 'a.jsonl', out: 'b.json', force: true },
    });
  });
});
