// The `eval` command run as a child process (dist/cli.js, built by `npm run build`): the figures on a small
// hand-labelled canonical transcript, the checkpoint it picks, labels that match no turn, --json, the
// --min-agreement gate, bad label files (a clear message naming the field, exit 2), and one run over the real
// shared labels (skipped when ../shared/corpus/labels is absent; only checks it runs and prints the figures).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { skipWithoutShared } from '../../sharedFolder';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');
const sharedLabels = resolve(root, '../shared/corpus/labels');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const output = result.stdout + result.stderr;
  assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace is ever shown');
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/*
 * Lines 1–5 are turns with explicit anchors (matched exactly); line 6 is the checkpoint claiming all five. The
 * summary holds the anchors of turns 0 and 2 only, so turns 0 and 2 are covered, 1, 3 and 4 claimed-missing.
 */
const TRANSCRIPT =
  [
    { type: 'turn', id: 0, role: 'user', content: 'Fix the ledger; the case is LEDGER_1000.', anchor: 'LEDGER_1000' },
    { type: 'turn', id: 1, role: 'assistant', content: 'Read src/invoice.ts: INVOICE_1007 is thrown on refunds.', anchor: 'INVOICE_1007' },
    { type: 'turn', id: 2, role: 'tool', content: 'src/payout.ts:42 PAYOUT_1014 guard', anchor: 'PAYOUT_1014' },
    { type: 'turn', id: 3, role: 'assistant', content: 'Decided to drop REFUND_2000 retries.', anchor: 'REFUND_2000' },
    { type: 'turn', id: 4, role: 'assistant', content: 'Let me check AUDIT_3000.', anchor: 'AUDIT_3000' },
    {
      type: 'checkpoint',
      summary_id: 'S1',
      summary: 'The user asked about LEDGER_1000; PAYOUT_1014 is guarded.',
      summary_budget: 4096,
      covered: { from: 0, to: 4 },
    },
  ]
    .map((record) => JSON.stringify(record))
    .join('\n') + '\n';

/** Agreement 2 of 4 (lines 1, 2 agree; 3, 4 disagree), 1 of 2 missing shown covered, noise 1 of 1, line 9 unmatched. */
const LABELS = {
  file: 'sessions/small.jsonl',
  boundary_line: 6,
  labels: [
    { turn_index: 0, line: 1, role: 'user', kind: 'user text', label: 'covered', why: 'LEDGER_1000 is in the summary' },
    { turn_index: 1, line: 2, role: 'assistant', kind: 'assistant text', label: 'missing', why: 'the refund finding is not carried' },
    { turn_index: 2, line: 3, role: 'tool', kind: 'tool_result', label: 'missing', why: 'labelled missing on purpose' },
    { turn_index: 3, line: 4, role: 'assistant', kind: 'assistant text', label: 'covered', why: 'labelled covered on purpose' },
    { turn_index: 4, line: 5, role: 'assistant', kind: 'assistant text', label: 'no-content', why: 'a let-me-check step' },
    { turn_index: 9, line: 9, role: 'user', kind: 'user text', label: 'covered', why: 'no turn starts on line 9' },
  ],
};

describe('compaction-lens eval (child process)', function () {
  this.timeout(60000);
  let dir: string;
  let labelsPath: string;
  let transcriptPath: string;
  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'cl-eval-'));
    mkdirSync(join(dir, 'labels'));
    mkdirSync(join(dir, 'sessions'));
    transcriptPath = join(dir, 'sessions/small.jsonl');
    writeFileSync(transcriptPath, TRANSCRIPT);
    labelsPath = join(dir, 'labels/small-labels.json');
    writeFileSync(labelsPath, JSON.stringify(LABELS));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const writeLabels = (name: string, document: unknown) => {
    const path = join(dir, 'labels', name);
    writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
    return path;
  };

  it('prints the agreement, the silent false negatives, the noise, the matrix and each disagreement (exit 0)', () => {
    const { status, stdout } = run('eval', labelsPath, transcriptPath);
    assert.equal(status, 0, stdout);
    assert.match(stdout, /checkpoint S1 \(at boundary_line 6\)/);
    assert.match(stdout, /labels: 6 \(3 covered · 2 missing · 1 no-content\); 5 matched to a turn by line/);
    assert.match(stdout, /agreement: 2 of 4 \(50\.0%\)/);
    assert.match(stdout, /missing shown covered: 1 of 2 \(50\.0%\)/);
    assert.match(stdout, /no-content noise: 1 of 1 \(100\.0%\)/);
    assert.match(stdout, /label \\ status\s+covered\s+claimed-missing\s+uncovered\s+nothing-to-check\s+unverifiable/);
    assert.match(stdout, /\n\s+covered\s+1\s+1\s+0\s+0\s+0\n/);
    assert.match(stdout, /\n\s+missing\s+1\s+1\s+0\s+0\s+0\n/);
    assert.match(stdout, /\n\s+no-content\s+0\s+1\s+0\s+0\s+0\n/);
    assert.match(stdout, /labels that match no turn before the checkpoint \(1\): line 9 \(labels\[5\], covered\)/);
    assert.match(stdout, /disagreements \(2\):/);
    assert.match(stdout, /line 3 {2}turn 2 {2}labelled missing, shown covered/);
    assert.match(stdout, /why: labelled missing on purpose/);
    assert.match(stdout, /found: “PAYOUT_1014” \(explicit, [\d.]+\)/);
    assert.match(stdout, /line 4 {2}turn 3 {2}labelled covered, shown claimed-missing/);
    assert.match(stdout, /not found: “REFUND_2000” \(explicit, [\d.]+\)/);
    assert.match(stdout, /no-content shown claimed-missing \(1\):\n\s+line 5/);
  });

  it('finds the transcript from the labels\' "file", relative to the folder above the labels file', () => {
    const { status, stdout } = run('eval', labelsPath);
    assert.equal(status, 0, stdout);
    assert.ok(stdout.includes(transcriptPath), stdout);
    assert.match(stdout, /agreement: 2 of 4/);
  });

  it('--json prints the same figures as one document', () => {
    const { status, stdout } = run('eval', '--json', labelsPath);
    assert.equal(status, 0);
    const doc = JSON.parse(stdout);
    assert.equal(doc.format, 'canonical');
    assert.deepEqual(doc.checkpoint, {
      summary_id: 'S1',
      line: 6,
      boundary_line: 6,
      picked_by: 'at-boundary',
      verdict: doc.checkpoint.verdict,
      path: 'B',
    });
    assert.ok(typeof doc.threshold === 'number' && doc.threshold > 0);
    assert.deepEqual(doc.label_counts, { covered: 3, missing: 2, 'no-content': 1 });
    assert.equal(doc.matched, 5);
    assert.deepEqual(doc.unmatched, [{ line: 9, label: 'covered', turn_index: 9, position: 5 }]);
    assert.deepEqual(doc.agreement, { count: 2, of: 4, rate: 0.5 });
    assert.deepEqual(doc.missing_shown_covered, { count: 1, of: 2, rate: 0.5 });
    assert.deepEqual(doc.no_content_noise, { count: 1, of: 1, rate: 1 });
    assert.deepEqual(doc.confusion['no-content'], {
      covered: 0,
      'claimed-missing': 1,
      uncovered: 0,
      'nothing-to-check': 0,
      unverifiable: 0,
    });
    assert.deepEqual(
      doc.disagreements.map((d: { line: number; label: string; status: string }) => [d.line, d.label, d.status]),
      [
        [3, 'missing', 'covered'],
        [4, 'covered', 'claimed-missing'],
      ],
    );
    const first = doc.disagreements[0];
    assert.equal(first.why, 'labelled missing on purpose');
    assert.equal(first.turn_index, 2);
    assert.ok('score' in first && 'threshold' in first && typeof first.reason === 'string');
    assert.deepEqual(Object.keys(first.evidence[0]).sort(), [
      'found',
      'from_call',
      'from_reasoning',
      'kind',
      'matched',
      'shared_by',
      'text',
      'weight',
    ]);
    assert.equal(doc.noise[0].line, 5);
    assert.equal(doc.passed, true);
  });

  it('--threshold is the threshold the analysis uses', () => {
    assert.equal(JSON.parse(run('eval', '--json', labelsPath, '--threshold', '2.5').stdout).threshold, 2.5);
    assert.match(run('eval', labelsPath, '--threshold=2.5').stdout, /threshold 2\.5/);
    const { status, stderr } = run('eval', labelsPath, '--threshold', '0');
    assert.equal(status, 2);
    assert.match(stderr, /--threshold needs a positive number, got "0"/);
  });

  it('--min-agreement exits 1 when the agreement is lower, 0 when it is reached', () => {
    const below = run('eval', labelsPath, '--min-agreement', '0.9');
    assert.equal(below.status, 1);
    assert.match(below.stdout, /--min-agreement 0\.9: NOT met/);
    assert.equal(run('eval', labelsPath, '--min-agreement', '0.5').status, 0);
    assert.equal(JSON.parse(run('eval', '--json', labelsPath, '--min-agreement', '0.9').stdout).passed, false);
  });

  it('says which checkpoint it picked when none is on boundary_line', () => {
    const path = writeLabels('before.json', { ...LABELS, boundary_line: 5 });
    const { status, stdout } = run('eval', path, transcriptPath);
    assert.equal(status, 0);
    assert.match(stdout, /checkpoint S1 \(line 6, the first checkpoint after boundary_line 5\)/);
  });

  it('exits 2 with a message when no checkpoint is at or after boundary_line', () => {
    const path = writeLabels('after.json', { ...LABELS, boundary_line: 60 });
    const { status, stderr } = run('eval', path, transcriptPath);
    assert.equal(status, 2);
    assert.match(stderr, /^compaction-lens: .*no checkpoint at or after boundary_line 60; the transcript's checkpoints are at line 6/);
  });

  it('bad label files: exit 2, one line naming the field, no stack trace', () => {
    const label = (extra: Record<string, unknown>) => ({
      ...LABELS,
      labels: [
        { line: 1, label: 'covered' },
        { line: 2, label: 'missing', ...extra },
      ],
    });
    const cases: [unknown, RegExp][] = [
      ['{ not json', /not valid JSON/],
      [[1, 2], /a label file is one JSON object/],
      [{ ...LABELS, boundary_line: undefined }, /boundary_line must be the 1-based file line .* got nothing/],
      [{ ...LABELS, boundary_line: '714' }, /boundary_line must be .* got "714"/],
      [{ ...LABELS, labels: {} }, /labels must be an array/],
      [{ ...LABELS, labels: [] }, /labels is empty/],
      [{ ...LABELS, labels: [{ line: 1, label: 'covered' }, 'x'] }, /labels\[1\] must be an object/],
      [label({ label: 'maybe' }), /labels\[1\]\.label must be one of "covered", "missing", "no-content", got "maybe"/],
      [label({ line: 0 }), /labels\[1\]\.line must be the 1-based file line .* got 0/],
      [label({ line: 1 }), /labels\[1\]\.line 1 is already labelled by labels\[0\]/],
      [label({ why: 7 }), /labels\[1\]\.why must be a string, got 7/],
      [label({ turn_index: -1 }), /labels\[1\]\.turn_index must be a whole number ≥ 0, got -1/],
      [{ ...LABELS, file: 3 }, /file must be a string, got 3/],
    ];
    cases.forEach(([document, message], i) => {
      const path = writeLabels(`bad-${i}.json`, document);
      const { status, stdout, stderr } = run('eval', path, transcriptPath);
      assert.equal(status, 2, `case ${i}: ${stdout}`);
      assert.match(stderr, /^compaction-lens: .+\n$/, `case ${i}`);
      assert.ok(stderr.includes(path), `case ${i} names the file: ${stderr}`);
      assert.match(stderr, message, `case ${i}`);
    });
  });

  it('missing inputs: exit 2 with a clear message', () => {
    const noFile = writeLabels('nofile.json', { ...LABELS, file: undefined });
    assert.match(run('eval', noFile).stderr, /has no "file" naming its transcript; give the TRANSCRIPT on the command line/);
    assert.match(run('eval', join(dir, 'nope.json')).stderr, /nope\.json: no such file/);
    const gone = writeLabels('gone.json', { ...LABELS, file: 'sessions/gone.jsonl' });
    const { status, stderr } = run('eval', gone);
    assert.equal(status, 2);
    assert.match(stderr, /gone\.jsonl: no such file/);
    for (const args of [
      ['eval'],
      ['eval', labelsPath, transcriptPath, 'extra'],
      ['eval', labelsPath, '--min-agreement', '2'],
      ['eval', labelsPath, '--sarif'],
    ]) {
      const result = run(...args);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr, /^compaction-lens: .+\n$/);
    }
  });

  describe('over the shared labels', function () {
    before(function () {
      skipWithoutShared(this, existsSync(sharedLabels), sharedLabels);
    });

    it('runs on every *-labels.json and prints the figures (no accuracy is asserted: it is measured)', function () {
      const files = readdirSync(sharedLabels).filter((name) => name.endsWith('-labels.json'));
      assert.ok(files.length > 0, `no *-labels.json in ${sharedLabels}`);
      for (const name of files) {
        const { status, stdout, stderr } = run('eval', join(sharedLabels, name));
        assert.equal(status, 0, `${name}: ${stderr}`);
        for (const figure of [
          /agreement: \d+ of \d+/,
          /missing shown covered: \d+ of \d+/,
          /no-content noise: \d+ of \d+/,
          /label \\ status/,
        ]) {
          assert.match(stdout, figure, name);
        }
      }
    });
  });
});
