// Issue 10: the CLI never prints a transcript's control characters raw. A crafted canonical transcript whose
// summary id, turn ids, summary end, evidence and labels hold ESC, BEL, CR, an OSC 52 clipboard write, a C1 CSI
// and a right-to-left override is checked as text (with and without colour), JSON, SARIF and eval, run as a child
// process (dist/cli.js, built by `npm run build`); so is a file name holding them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const ESC = '\u001b';
const BEL = '\u0007';
/** Sets the terminal title, erases the line, returns the carriage and writes REVERSIBLE over it; copies "evil". */
const HOSTILE = `${ESC}]0;pwned${BEL}${ESC}[2K\r${ESC}[32mREVERSIBLE${ESC}[0m${ESC}]52;c;ZXZpbA==${BEL}\u009b2J\u202e`;
const SUMMARY_ID = `S1${HOSTILE}`;
const TURN_ID = `t${ESC}[1A${BEL}`;
/** Ends mid-clause, so its last characters are quoted in a truncation reason. */
const SUMMARY = `Worked on LEDGER_1000 in src/ledger.ts. Then ${ESC}]52;c;ZXZpbA==${BEL}${ESC}[2K\rREVERSIBLE and the`;

/** Control characters that must never be printed raw: C0 but the newline, DEL, C1, bidi controls. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const TRANSCRIPT =
  [
    { type: 'turn', id: 0, role: 'user', content: `Fix LEDGER_1000 in src/ledger.ts ${HOSTILE}` },
    { type: 'turn', id: TURN_ID, role: 'assistant', content: `Read src/invoice.ts: INVOICE_1007 ${HOSTILE}` },
    { type: 'turn', id: 2, role: 'assistant', content: 'Let me check AUDIT_3000.', anchor: `AUDIT${HOSTILE}` },
    { type: `note${ESC}[2J`, id: 3 },
    { type: 'checkpoint', summary_id: SUMMARY_ID, summary: SUMMARY, summary_budget: 10, covered: { from: 0, to: 2 } },
  ]
    .map((record) => JSON.stringify(record))
    .join('\n') + '\n';

describe('CLI: control characters from a transcript are shown escaped (issue 10)', function () {
  this.timeout(60000);
  let dir: string;
  let file: string;
  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'cl-escapes-'));
    file = join(dir, 'hostile.jsonl');
    writeFileSync(file, TRANSCRIPT);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('text without colour: no raw control character; the summary id and its quoted end are escaped; FAIL-CLOSED stands', () => {
    const { status, stdout } = run('check', '--no-color', file);
    assert.equal(status, 1);
    assert.doesNotMatch(stdout, RAW_CONTROL, JSON.stringify(stdout.match(RAW_CONTROL)));
    assert.ok(
      stdout.includes(
        'S1\\x1b]0;pwned\\x07\\x1b[2K\\x0d\\x1b[32mREVERSIBLE\\x1b[0m\\x1b]52;c;ZXZpbA==\\x07\\x9b2J\\u202e  line 5  FAIL-CLOSED',
      ),
      stdout,
    );
    assert.match(stdout, /ends mid-clause: “…[^”]*\\x1b\]52;c;ZXZpbA==\\x07\\x1b\[2K REVERSIBLE and the”/);
    assert.match(stdout, /line 4: error: .*"note(\\u001b|\\x1b)\[2J"/);
  });

  it("text with colour: the only escape sequences are the report's own colours", () => {
    const { stdout } = run('check', '--color', file);
    assert.match(stdout, /\u001b\[1m/, 'colour is on');
    const withoutColours = stdout.replace(/\u001b\[\d+m/g, '');
    assert.doesNotMatch(withoutColours, RAW_CONTROL, JSON.stringify(withoutColours.match(RAW_CONTROL)));
    assert.ok(withoutColours.includes('S1\\x1b]0;pwned\\x07'));
    assert.match(stdout, /\u001b\[31mFAIL-CLOSED\u001b\[0m/);
  });

  it('JSON and SARIF: no raw DEL, C1 or bidi control, and the values read back unchanged', () => {
    const json = run('check', '--json', file).stdout;
    assert.doesNotMatch(json, RAW_CONTROL);
    const cp = JSON.parse(json).files[0].checkpoints[0];
    assert.equal(cp.summary_id, SUMMARY_ID);
    assert.ok(cp.turns.some((t: { id: unknown }) => t.id === TURN_ID));
    const sarif = run('check', '--sarif', file).stdout;
    assert.doesNotMatch(sarif, RAW_CONTROL);
    assert.ok(JSON.stringify(JSON.parse(sarif)).includes('pwned'));
  });

  it('a file name holding control characters is shown escaped, found or not', () => {
    const named = join(dir, `x${ESC}]52;c;ZXZpbA==${BEL}\r.jsonl`);
    writeFileSync(named, TRANSCRIPT);
    for (const path of [named, join(dir, `gone${ESC}[2J${BEL}.jsonl`)]) {
      for (const colour of ['--no-color', '--color']) {
        const { stdout, stderr } = run('check', colour, path);
        const output = (stdout + stderr).replace(/\u001b\[\d+m/g, '');
        assert.doesNotMatch(output, RAW_CONTROL, JSON.stringify(output));
        assert.match(output, /\\x1b\]52;c;ZXZpbA==\\x07\\x0d\.jsonl|gone\\x1b\[2J\\x07\.jsonl/);
      }
    }
  });

  it('eval: label reasons, the summary id and turn evidence are shown escaped', () => {
    const labels = join(dir, 'labels');
    mkdirSync(labels, { recursive: true });
    const labelsFile = join(labels, 'hostile-labels.json');
    writeFileSync(
      labelsFile,
      JSON.stringify({
        boundary_line: 5,
        labels: [
          { line: 1, label: 'missing', why: `said ${HOSTILE}` },
          { line: 2, label: 'covered', why: `seen ${ESC}[2K` },
          { line: 3, label: 'no-content' },
        ],
      }),
    );
    const { status, stdout, stderr } = run('eval', labelsFile, file);
    assert.equal(status, 0, stderr);
    assert.doesNotMatch(stdout, RAW_CONTROL, JSON.stringify(stdout.match(RAW_CONTROL)));
    assert.ok(stdout.includes('checkpoint S1\\x1b]0;pwned\\x07'), stdout);
    const json = run('eval', '--json', labelsFile, file).stdout;
    assert.doesNotMatch(json, RAW_CONTROL);
    assert.equal(JSON.parse(json).checkpoint.summary_id, SUMMARY_ID);
  });
});
