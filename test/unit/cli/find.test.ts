// `compaction-lens find` run as a child process (dist/cli.js, built by `npm run build`): the note's incident (the
// fact of turn N−12 is claimed by S1 but absent from its summary: raw log line 409, flagged, exit 1), a covered
// fact, no match (exit 3), refused patterns and bad arguments (exit 2, one line, no stack trace), --json, hostile
// text shown escaped, and a real Claude Code session from the shared corpus.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readCommandLine } from '../../../src/cli/args';
import { skipOrFailInCi } from '../../sharedFolder';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');
const incident = join(root, 'samples/incident.jsonl');
const corpusSession = resolve(root, '../shared/corpus/claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = result.stdout + result.stderr;
  assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace is ever shown');
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('compaction-lens find (child process)', function () {
  this.timeout(60000);
  let dir: string;
  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'cl-find-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("the incident: turn N−12's fact is claimed by S1 but absent from its summary; raw log line 409; exit 1", () => {
    const { status, stdout, stderr } = run('find', incident, 'err_ledger_4107');
    assert.equal(stderr, '');
    assert.equal(status, 1);
    const lines = stdout.split('\n');
    assert.equal(lines[0], `${incident}  (canonical): 1 turn holds “err_ledger_4107” · 1 flagged`);
    assert.ok(lines.includes('turn 408 (user, line 409)'), stdout);
    assert.ok(
      lines.includes(
        '  claimed by S1 but absent from its summary; raw log line 409 — flagged: the pointer set alone would have said this fact never existed',
      ),
      stdout,
    );
    assert.match(stdout, /“Found it: the nightly reconcile fails with ERR_LEDGER_4107 when the shard key/);
    assert.doesNotMatch(stdout, /\u001b\[/, 'no colour when the output is not a terminal');
  });

  it('--json: the same answer as a document (snake_case keys)', () => {
    const { status, stdout } = run('find', '--json', incident, '/ERR_LEDGER_\\d+/');
    assert.equal(status, 1);
    const doc = JSON.parse(stdout);
    assert.equal(doc.format, 'canonical');
    assert.equal(doc.query, '/ERR_LEDGER_\\d+/');
    assert.equal(doc.turns_matching, 1);
    assert.equal(doc.flagged, 1);
    const [match] = doc.matches;
    assert.equal(match.turn_id, 408);
    assert.equal(match.line, 409);
    assert.equal(match.matched, 'ERR_LEDGER_4107');
    assert.deepEqual(match.routes, [
      {
        summary_id: 'S1',
        checkpoint_line: 421,
        compacted: true,
        claimed: true,
        status: 'claimed-missing',
        summary_has_text: false,
        evidence_found: [],
        evidence_weighed: 1,
        route: 'raw-log',
        line: 409,
        flagged: true,
        why: 'claimed by S1 but absent from its summary',
        says: 'raw log line 409',
      },
    ]);
    assert.deepEqual(doc.summary_mentions, []);
  });

  it('a covered fact routes to the summary: exit 0', () => {
    const { status, stdout } = run('find', incident, 'PAYOUT_1014');
    assert.equal(status, 0);
    assert.match(stdout, /^ {2}claimed by S1, whose summary holds the text itself; from summary S1$/m);
    assert.match(stdout, /^summaries that hold it themselves:$/m);
  });

  it('a turn after the checkpoint is not compacted by it', () => {
    const { status, stdout } = run('find', incident, 'keep failing');
    assert.equal(status, 0);
    assert.match(stdout, /^ {2}comes after S1: not compacted by it$/m);
  });

  it('no turn holds it: exit 3', () => {
    const { status, stdout } = run('find', incident, 'no such fact anywhere');
    assert.equal(status, 3);
    assert.equal(stdout, `${incident}  (canonical): no turn holds “no such fact anywhere”\n`);
  });

  it('a pattern that could backtrack is refused with a sentence suggesting plain text: exit 2', () => {
    const { status, stdout, stderr } = run('find', incident, '/(a+)+$/');
    assert.equal(status, 2);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'compaction-lens: the pattern /(a+)+$/ is refused: it could take very long on a long turn: (a+) is repeated and holds a repeat of its own. Search for plain text instead (without the slashes).\n',
    );
  });

  it('bad arguments and unusable files: exit 2, one line', () => {
    assert.equal(run('find', incident).status, 2);
    assert.match(run('find', incident).stderr, /find needs a FILE and the text or \/regex\/ to find/);
    assert.match(run('find', incident, 'a', 'b').stderr, /find takes one FILE and one text or \/regex\/ \(quote it\)/);
    assert.match(run('find', '--sarif', incident, 'a').stderr, /--sarif is for check; find prints text or --json/);
    const missing = run('find', join(dir, 'absent.jsonl'), 'x');
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^compaction-lens: .*absent\.jsonl/);
  });

  it('text from the transcript is shown with its control characters escaped', () => {
    const path = join(dir, 'hostile.jsonl');
    const records = [
      { type: 'turn', id: 'a\u001b]0;pwned\u0007', role: 'user', content: 'the key fact\u001b[2J is here', tokens: 5 },
      { type: 'checkpoint', summary_id: 'S\u001b[31m1', summary: 'nothing', summary_budget: 100, covered: ['a\u001b]0;pwned\u0007'] },
    ];
    writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { stdout } = run('find', path, 'key fact');
    assert.doesNotMatch(stdout, /\u001b/);
    assert.match(stdout, /the key fact\\x1b\[2J is here/);
  });

  it('a real Claude Code session: a claimed-missing turn is flagged with its raw line', function () {
    if (!existsSync(corpusSession)) skipOrFailInCi(this, `${corpusSession} is absent`);
    const { status, stdout } = run('find', '--json', corpusSession, 'drifting-tumbling-whisper');
    assert.equal(status, 1);
    const doc = JSON.parse(stdout);
    assert.equal(doc.format, 'claude-code');
    assert.ok(doc.turns_matching >= 2);
    const flagged = doc.matches.filter((m: { routes: { flagged: boolean }[] }) => m.routes.some((r) => r.flagged));
    assert.ok(flagged.length >= 1);
    for (const match of flagged) {
      const route = match.routes.find((r: { flagged: boolean }) => r.flagged);
      assert.equal(route.status, 'claimed-missing');
      assert.equal(route.says, `raw log line ${match.line}`);
    }
  });
});

describe('compaction-lens find: arguments', () => {
  it('reads FILE and the query, with the analysis options', () => {
    const parsed = readCommandLine(['find', 'a.jsonl', '/x\\d+/i', '--json', '--budget', '4096'], false);
    assert.equal(parsed.kind, 'find');
    if (parsed.kind !== 'find') return;
    assert.equal(parsed.options.file, 'a.jsonl');
    assert.equal(parsed.options.query, '/x\\d+/i');
    assert.equal(parsed.options.json, true);
    assert.equal(parsed.options.budget, 4096);
  });

  it('a query starting with a dash goes after --', () => {
    const parsed = readCommandLine(['find', 'a.jsonl', '--', '--verbose'], false);
    assert.equal(parsed.kind, 'find');
    if (parsed.kind === 'find') assert.equal(parsed.options.query, '--verbose');
    assert.deepEqual(readCommandLine(['find', 'a.jsonl', '--verbose'], false), {
      kind: 'error',
      message: 'unknown option --verbose (see --help)',
    });
  });
});
