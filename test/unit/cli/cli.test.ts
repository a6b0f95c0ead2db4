// The `check` command run as a child process (dist/cli.js, built by `npm run build`): the note's incident, exit
// statuses, JSON shape (five statuses, evidence), SARIF, options, and every bad input of issue #2 — clear
// messages, no stack traces. `eval` has its own tests (eval.test.ts).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(__dirname, '../../../..');
const cli = join(root, 'dist/cli.js');
const incident = join(root, 'samples/incident.jsonl');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const output = result.stdout + result.stderr;
  assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace is ever shown');
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, output };
}

const turn = (id: number, content = `turn ${id} mentions TOKEN_${id}`, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'turn', id, role: 'user', content, ...extra });

describe('compaction-lens CLI (child process)', function () {
  this.timeout(60000);
  let dir: string;
  before(function () {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'cl-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, data: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };

  it("reports the note's incident: fail-closed, truncated, 380–419 claimed-missing, safe 0–379, exit 1", () => {
    const { status, stdout } = run('check', incident);
    assert.equal(status, 1);
    assert.match(stdout, /S1\s+line 421\s+FAIL-CLOSED/);
    assert.match(stdout, /prefix 42,000 tokens \(recorded, 420 claimed turns\) > ceiling 20,480 \(budget 4,096 × 5\)/);
    assert.match(stdout, /truncated: yes/);
    assert.match(stdout, /380 covered · 40 claimed-missing · 0 uncovered/);
    assert.match(stdout, /claimed-missing: 380–419/);
    assert.match(stdout, /safe pointer set: 0–379 \(380 turns\)/);
    assert.doesNotMatch(stdout, /\u001b\[/, 'no colour when stdout is not a terminal');
  });

  for (const format of [[], ['--sarif']]) {
    it(`stops quietly, with the status of what was found, when the reader of its output goes away (| head)${format.length ? ', SARIF' : ''}`, async () => {
      // Far more than a pipe holds, so the write is still going on when the pipe closes.
      const files = Array.from({ length: 400 }, () => incident);
      const child = spawn(process.execPath, [cli, 'check', ...format, ...files]);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number | null>((done) => {
        child.stdout.once('data', () => child.stdout.destroy());
        child.once('close', (status) => done(status));
      });
      assert.equal(stderr.match(/EPIPE|\n\s+at .+:\d+:\d+\)?\n/), null, stderr);
      assert.equal(code, 1);
    });
  }

  it('prints the JSON document issue #2 specifies', () => {
    const { status, stdout } = run('check', '--json', incident);
    assert.equal(status, 1);
    const doc = JSON.parse(stdout);
    const file = doc.files[0];
    assert.equal(file.format, 'canonical');
    assert.equal(file.turns, 422);
    const cp = file.checkpoints[0];
    assert.equal(cp.summary_id, 'S1');
    assert.equal(cp.verdict, 'fail-closed');
    assert.equal(cp.prefix_tokens, 42000);
    assert.equal(cp.summary_budget, 4096);
    assert.equal(cp.ceiling, 20480);
    assert.equal(cp.truncated, true);
    assert.ok(cp.truncation_reasons.length > 0);
    assert.ok(cp.summary_tokens > 0 && cp.summary_tokens <= 4096);
    assert.equal(cp.turns.length, 420);
    for (const t of cp.turns) {
      assert.equal(t.status, t.id >= 380 ? 'claimed-missing' : 'covered', `turn ${t.id}`);
      assert.equal(t.line, t.id + 1);
    }
    assert.deepEqual(
      cp.safe_covered,
      Array.from({ length: 380 }, (_, i) => i),
    );
    assert.deepEqual(file.problems, []);
  });

  it("JSON: counts for all five statuses, and each turn's score, threshold and evidence in snake_case", () => {
    const cp = JSON.parse(run('check', '--json', incident).stdout).files[0].checkpoints[0];
    assert.deepEqual(Object.keys(cp.counts).sort(), ['claimed-missing', 'covered', 'nothing-to-check', 'uncovered', 'unverifiable']);
    assert.equal(cp.counts.covered, 380);
    assert.equal(cp.counts['claimed-missing'], 40);
    for (const t of cp.turns) {
      assert.deepEqual(Object.keys(t).sort(), ['evidence', 'id', 'line', 'reason', 'score', 'status', 'threshold']);
      assert.ok(typeof t.reason === 'string' && t.reason.length > 0);
      for (const e of t.evidence)
        assert.deepEqual(Object.keys(e).sort(), ['found', 'from_call', 'from_reasoning', 'kind', 'matched', 'shared_by', 'text', 'weight']);
    }
    const first = cp.turns[0].evidence.find((e: { kind: string }) => e.kind === 'explicit');
    assert.equal(first.text, 'LEDGER_1000');
    assert.equal(first.found, true);
    const lost = cp.turns[380].evidence.find((e: { kind: string }) => e.kind === 'explicit');
    assert.equal(lost.text, 'SETTLEMENT_3660');
    assert.equal(lost.found, false);
  });

  it('prints SARIF 2.1.0 with each finding on its transcript line', () => {
    const { status, stdout } = run('check', '--sarif', incident);
    assert.equal(status, 1);
    const sarif = JSON.parse(stdout);
    assert.equal(sarif.version, '2.1.0');
    const results = sarif.runs[0].results as {
      ruleId: string;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
    }[];
    assert.deepEqual(
      results.map((r) => [r.ruleId, r.level]),
      [
        ['CL001', 'warning'],
        ['CL002', 'warning'],
        ['CL003', 'error'],
      ],
    );
    assert.match(results[0].message.text, /S1: 40 claimed turns not substantiated by the summary: 380–419/);
    for (const r of results) {
      assert.equal(r.locations[0].physicalLocation.region.startLine, 421);
      assert.deepEqual(r.locations[0].physicalLocation.artifactLocation, { uri: 'samples/incident.jsonl', uriBaseId: 'SRCROOT' });
    }
    assert.equal(sarif.runs[0].originalUriBaseIds.SRCROOT.uri, `${pathToFileURL(root).href}/`);
  });

  it('SARIF names a file outside the working directory by its absolute file:// URI, and escapes odd names', () => {
    const outside = write(
      'odd name #1.jsonl',
      [turn(0), JSON.stringify({ type: 'checkpoint', summary_id: 'S', summary: '', summary_budget: 10, covered: [0] })].join('\n') + '\n',
    );
    const located = JSON.parse(run('check', '--sarif', outside).stdout).runs[0].results[0].locations[0].physicalLocation.artifactLocation;
    assert.deepEqual(located, { uri: pathToFileURL(outside).href });
    const inside = spawnSync(process.execPath, [cli, 'check', '--sarif', basename(outside)], { cwd: dirname(outside), encoding: 'utf8' });
    const relativeLocation = JSON.parse(inside.stdout).runs[0].results[0].locations[0].physicalLocation.artifactLocation;
    assert.deepEqual(relativeLocation, { uri: 'odd%20name%20%231.jsonl', uriBaseId: 'SRCROOT' });
  });

  it('a file of no known format: exit 2, and each format tried on a line of its own, in text and JSON', () => {
    const path = write('package.json', '{"name":"x","version":"1.0.0"}\n');
    const { status, stdout } = run('check', path);
    assert.equal(status, 2);
    assert.match(
      stdout,
      /is not a transcript I know: none of the 1 JSON record in its first 1 line belongs to a format I read \(8 tried\)/,
    );
    assert.match(stdout, /\n {4}- canonical: needs a record with "type": "turn" or "checkpoint"\n {4}- codex: /);
    assert.match(stdout, /\n {4}- message-array: needs a message with a "role" and "content"/);
    const json = JSON.parse(run('check', '--json', path).stdout).files[0];
    assert.equal(json.details.length, 8);
  });

  it('exits 0 when every checkpoint is reversible', () => {
    const lines = [
      turn(0),
      turn(1),
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S',
        summary: 'Both done: TOKEN_0 and TOKEN_1.',
        summary_budget: 1000,
        covered: [0, 1],
      }),
    ];
    const { status, stdout } = run('check', write('ok.jsonl', lines.join('\n') + '\n'));
    assert.equal(status, 0, stdout);
    assert.match(stdout, /REVERSIBLE/);
  });

  it('--threshold is passed to the analysis as the coverage threshold', () => {
    // A claimed turn without an explicit anchor is judged by its weighted evidence: with a huge threshold nothing
    // it holds can be enough, so it is never shown covered.
    const content = 'Renamed parseLedgerEntry in src/ledger/parse.ts; 49 tests pass.';
    const lines = [
      JSON.stringify({ type: 'turn', id: 0, role: 'assistant', content }),
      JSON.stringify({ type: 'checkpoint', summary_id: 'S', summary: content, summary_budget: 1000, covered: [0] }),
    ];
    const path = write('threshold.jsonl', lines.join('\n') + '\n');
    const strict = JSON.parse(run('check', '--json', '--threshold', '1000000', path).stdout).files[0].checkpoints[0].turns[0];
    assert.notEqual(strict.status, 'covered');
    if (strict.threshold !== null) assert.equal(strict.threshold, 1000000);
    const loose = JSON.parse(run('check', '--json', '--threshold=0.0001', path).stdout).files[0].checkpoints[0].turns[0];
    assert.equal(loose.status, 'covered', 'the summary repeats the turn word for word');
  });

  it('SARIF: an unverifiable checkpoint is one warning saying coverage could not be checked, not claimed-missing turns (exit 1)', () => {
    const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', type, payload });
    const msg = (role: string, text: string) => ({
      type: 'message',
      role,
      content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
    });
    const rollout = [
      line('session_meta', { id: 's' }),
      line('response_item', msg('user', 'Fix ERR_4107 in ledger.rs')),
      line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["cat","ledger.rs"]}', call_id: 'c1' }),
      line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'fn post() { ERR_4107 }' }),
      line('response_item', msg('assistant', 'Fixed ledger.rs')),
      line('compacted', {
        message: '',
        replacement_history: [msg('user', 'Fix ERR_4107 in ledger.rs'), { type: 'compaction', encrypted_content: 'gAAAA' }],
      }),
      line('response_item', msg('user', 'now run tests')),
    ];
    const path = write('rollout-remote.jsonl', rollout.join('\n') + '\n');
    const { status, stdout } = run('check', '--sarif', path);
    assert.equal(status, 1, 'an unverifiable checkpoint is fail-closed');
    const results = JSON.parse(stdout).runs[0].results as { ruleId: string; level: string; message: { text: string } }[];
    const checkpointResults = results.filter((r) => r.ruleId !== 'CL004');
    assert.deepEqual(
      checkpointResults.map((r) => r.ruleId),
      ['CL006'],
    );
    assert.match(checkpointResults[0].level, /^(note|warning)$/);
    assert.match(checkpointResults[0].message.text, /coverage could not be checked/);
    const text = run('check', path).stdout;
    assert.match(text, /\(unverifiable\)/);
    assert.match(text, /turns: \d+ covered · 0 claimed-missing · (\d+ nothing to check · )?\d+ unverifiable · \d+ uncovered/);
  });

  it('a turn with nothing to check is counted apart, is no finding and no SARIF result', () => {
    const lines = [
      JSON.stringify({ type: 'turn', id: 0, role: 'user', content: 'Fix LEDGER_1000 in src/ledger.ts' }),
      JSON.stringify({ type: 'turn', id: 1, role: 'assistant', content: 'OK.' }),
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S',
        summary: 'Fixed LEDGER_1000 in src/ledger.ts.',
        summary_budget: 1000,
        covered: [0, 1],
      }),
    ];
    const path = write('nothing.jsonl', lines.join('\n') + '\n');
    const { status, stdout } = run('check', path);
    assert.equal(status, 0, stdout);
    assert.match(stdout, /turns: 1 covered · 0 claimed-missing · 1 nothing to check · 0 uncovered\n/);
    assert.deepEqual(JSON.parse(run('check', '--sarif', path).stdout).runs[0].results, []);
    assert.equal(JSON.parse(run('check', '--json', path).stdout).files[0].checkpoints[0].counts['nothing-to-check'], 1);
  });

  it('--ratio-floor moves the ceiling', () => {
    const { stdout } = run('check', '--json', '--ratio-floor', '20', incident);
    const cp = JSON.parse(stdout).files[0].checkpoints[0];
    assert.equal(cp.ceiling, 81920);
    assert.equal(cp.verdict, 'conditional');
  });

  it('exits 2 with a clear message for unusable inputs, and still reports the other files', () => {
    const empty = write('empty.jsonl', '');
    const binary = write('garbage.jsonl', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    const missing = join(dir, 'nope.jsonl');
    const { status, stdout } = run('check', empty, binary, missing, incident);
    assert.equal(status, 2);
    assert.match(stdout, /empty\.jsonl is empty: there are no records to analyse/);
    assert.match(stdout, /garbage\.jsonl looks like binary data/);
    assert.match(stdout, /nope\.jsonl: no such file/);
    assert.match(stdout, /FAIL-CLOSED/, 'the good file is still analysed');
  });

  it('reports bad lines by number and analyses the rest (exit 1)', () => {
    const lines = [
      turn(0), // 1
      '{"type":"turn", oops', // 2 invalid JSON
      turn(0), // 3 duplicate id
      turn(1), // 4
      JSON.stringify({ type: 'checkpoint', summary_id: 'BACK', summary: 's', summary_budget: 10, covered: { from: 1, to: 0 } }), // 5
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'NEG',
        summary: 'TOKEN_0 TOKEN_1',
        summary_budget: -4,
        covered: { from: 0, to: 1 },
      }), // 6
      JSON.stringify({ type: 'checkpoint', summary_id: 'NOB', summary: 'TOKEN_0 TOKEN_1', covered: [0, 1, 99] }), // 7
    ];
    const bytes = Buffer.concat([Buffer.from(lines.join('\n') + '\n'), Buffer.from([0xc3, 0x28, 0x0a])]); // line 8: invalid UTF-8
    const path = write('mixed.jsonl', bytes);
    const before = createHash('sha256').update(readFileSync(path)).digest('hex');
    const { status, stdout } = run('check', '--json', path);
    assert.equal(status, 1);
    const file = JSON.parse(stdout).files[0];
    const byLine = new Map<number, string>(file.problems.map((p: { line: number; message: string }) => [p.line, p.message]));
    assert.match(byLine.get(2)!, /not valid JSON/);
    assert.match(byLine.get(3)!, /already used on line 1/);
    assert.match(byLine.get(5)!, /comes after turn 0 in the log/);
    assert.match(byLine.get(6)!, /must be a positive number/);
    assert.match(byLine.get(7)!, /(no "summary_budget"|not turns before it: 99)/);
    assert.match(byLine.get(8)!, /not valid UTF-8/);
    assert.deepEqual(
      file.checkpoints.map((cp: { summary_id: string; verdict: string }) => [cp.summary_id, cp.verdict]),
      [
        ['NEG', 'fail-closed'],
        ['NOB', 'fail-closed'],
      ],
    );
    assert.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), before, 'the transcript is never written');
  });

  it("says a problem's line once in the text report, where its message begins with it", () => {
    const path = write(
      'empty-summary.jsonl',
      [turn(0), JSON.stringify({ type: 'checkpoint', summary_id: 'S', summary: '', summary_budget: 10, covered: [0] })].join('\n') + '\n',
    );
    const { stdout } = run('check', path);
    assert.match(stdout, /\n {4}line 2: warning: the summary of checkpoint S has no readable text/);
    assert.doesNotMatch(stdout, /line 2: warning: line 2:/);
    // The message itself is unchanged where it stands alone.
    const json = JSON.parse(run('check', '--json', path).stdout).files[0];
    assert.ok(json.problems.some((p: { message: string }) => p.message.startsWith('line 2: the summary of checkpoint S')));
  });

  it('names no line for a problem of the whole file (line 0)', () => {
    const event = (id: number, extra: object) => ({ id, timestamp: '2025-01-01T00:00:00', source: 'agent', message: '', ...extra });
    const evaluationRun = (instance: string) => ({
      instance_id: instance,
      history: [event(0, { action: 'run', args: { command: 'ls' } }), event(1, { observation: 'run', cause: 0, content: 'files' })],
    });
    const path = write('output.jsonl', [evaluationRun('a'), evaluationRun('b')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { stdout } = run('check', path);
    assert.match(stdout, /\n {4}info: this evaluation file holds 2 runs/);
    assert.doesNotMatch(stdout, /line 0/);
  });

  it('skips a 50 MB single line with a message naming the line and the limit', () => {
    const path = join(dir, 'huge.jsonl');
    const huge = JSON.stringify({ type: 'turn', id: 1, role: 'tool', content: 'x'.repeat(50 * 1024 * 1024) });
    writeFileSync(path, `${turn(0)}\n${huge}\n`);
    const { status, stdout } = run('check', path);
    assert.equal(status, 1);
    assert.match(stdout, /line 2: error: line 2 is 50 MB, over the 16 MB limit for one record; it was skipped/);
  });

  it('a file that is all bad lines is unusable (exit 2) and says what the first problem was', () => {
    const { status, stdout } = run('check', write('allbad.jsonl', '{"type":"turn"}\n{"type":"turn","id":1}\n'));
    assert.equal(status, 2);
    assert.match(stdout, /no usable records .*line 1/);
    // A message that names its line already says it once.
    const broken = run('check', '--format', 'langchain', write('broken-state.json', '{\n  values: {"messages": []}\n}\n'));
    assert.equal(broken.status, 2);
    assert.match(broken.stdout, /The first problem: line 2: the LangChain \/ LangMem \/ Letta file is not valid JSON/);
    assert.doesNotMatch(broken.stdout, /line 2: line 2:/);
  });

  it("a Claude Code sub-agent's own run is unusable (exit 2) and names the session's transcript to check", () => {
    mkdirSync(join(dir, 'sess-9', 'subagents'), { recursive: true });
    const record = { type: 'user', isSidechain: true, sessionId: 'sess-9', uuid: 'u1', message: { role: 'user', content: 'Summarise.' } };
    const side = write(join('sess-9', 'subagents', 'agent-acompact-77.jsonl'), `${JSON.stringify(record)}\n`);
    const session = write('sess-9.jsonl', `${JSON.stringify({ ...record, isSidechain: false, uuid: 'u0' })}\n`);
    const { status, stdout } = run('check', side);
    assert.equal(status, 2);
    assert.match(stdout, /It is the summariser's own run for a compaction of Claude Code session sess-9/);
    assert.ok(stdout.includes(`check ${session} instead.`), stdout);
  });

  it('rejects bad options with exit 2 and a one-line message', () => {
    const bad = [
      ['frobnicate'],
      ['check'],
      ['check', '--ratio-floor', '-1', incident],
      ['check', '--encoding', 'gpt2', incident],
      ['check', '--bogus', incident],
      ['check', '--threshold', '0', incident],
      ['check', '--threshold', 'abc', incident],
      ['check', '--threshold'],
      ['check', '--anchor-matching', 'all', incident],
    ];
    for (const args of bad) {
      const { status, stderr } = run(...args);
      assert.equal(status, 2, args.join(' '));
      assert.match(stderr, /^compaction-lens: .+\n$/);
    }
    assert.match(run('check', '--threshold', '-2', incident).stderr, /--threshold needs a positive number, got "-2"/);
    assert.match(run('check', '--anchor-matching', 'all', incident).stderr, /use --threshold/);
    assert.match(run('--help').stdout, /Usage: compaction-lens check FILE/);
    assert.match(run('--help').stdout, /compaction-lens eval LABELS\.json/);
  });

  it('stops a .gz past --max-inflated-mb with a problem that names the flag, and analyses what came before', () => {
    // About 3 MB of ordinary turns, compressed; a limit of 1 MB stops the inflation part-way.
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) lines.push(turn(i, `turn ${i} mentions TOKEN_${i} and a little more text to read`));
    const gz = write('big.jsonl.gz', gzipSync(Buffer.from(lines.join('\n') + '\n')));
    const { stdout, status } = run('check', '--max-inflated-mb', '1', gz);
    assert.equal(status, 1);
    assert.match(stdout, /decompression stopped at line \d+: .*--max-inflated-mb/);
    assert.doesNotMatch(stdout, /maxInflatedBytes/);
    assert.match(run('check', '--max-inflate-ratio', '0', gz).stderr, /--max-inflate-ratio/);
  });
});

describe('compaction-lens CLI reading standard input (-) (child process)', function () {
  this.timeout(60000);
  let tmp: string;
  beforeEach(() => (tmp = mkdtempSync(join(tmpdir(), 'cl-stdin-'))));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** The CLI run with `input` on its standard input, its temporary files in `tmp`. */
  function runWith(input: string | Buffer, ...args: string[]) {
    const result = spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
    const output = result.stdout + result.stderr;
    assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace is ever shown');
    assert.doesNotMatch(output, /compaction-lens-stdin-/, 'the temporary file is never named');
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }
  const leftInTmp = () => readdirSync(tmp);

  it('check -: the report of the file, named "(standard input)", plain or compressed, in text and JSON; nothing left behind', () => {
    const text = readFileSync(incident);
    const fromFile = run('check', incident);
    for (const input of [text, gzipSync(text)]) {
      const piped = runWith(input, 'check', '-');
      assert.equal(piped.status, fromFile.status);
      assert.equal(piped.stdout, fromFile.stdout.replace(incident, '(standard input)'));
      const json = JSON.parse(runWith(input, 'check', '--json', '-').stdout);
      assert.equal(json.files[0].path, '(standard input)');
      assert.deepEqual({ ...json.files[0], path: incident }, JSON.parse(run('check', '--json', incident).stdout).files[0]);
    }
    const both = runWith(text, 'check', incident, '-');
    const fileAt = both.stdout.indexOf(`${incident}  (canonical, 422 turns`);
    const stdinAt = both.stdout.indexOf('(standard input)  (canonical, 422 turns');
    assert.ok(fileAt >= 0 && stdinAt > fileAt, 'the file, then standard input');
    assert.deepEqual(leftInTmp(), []);
  });

  it('find - and bundle - read it too', () => {
    const text = readFileSync(incident);
    const found = runWith(text, 'find', '-', 'err_ledger_4107');
    assert.equal(found.status, 1);
    assert.equal(found.stdout.split('\n')[0], '(standard input)  (canonical): 1 turn holds “err_ledger_4107” · 1 flagged');
    const bundle = runWith(text, 'bundle', '-');
    assert.equal(bundle.status, 0);
    assert.equal(bundle.stdout, run('bundle', incident).stdout.replaceAll(basename(incident), '(standard input)'));
    assert.deepEqual(leftInTmp(), []);
  });

  it('what cannot be read from it is said in words naming "(standard input)" (exit 2)', () => {
    const empty = runWith('', 'check', '-');
    assert.equal(empty.status, 2);
    assert.match(empty.stdout, /\(standard input\) is empty/);
    const notOne = runWith('hello\n', 'check', '-');
    assert.equal(notOne.status, 2);
    assert.match(notOne.stdout, /\(standard input\) is not a transcript I know/);
    const twice = runWith('', 'check', '-', '-');
    assert.equal(twice.status, 2);
    assert.equal(twice.stderr, 'compaction-lens: standard input (-) can be named once: it can be read only once\n');
    assert.match(runWith('', 'export', '-').stderr, /^compaction-lens: export cannot read standard input \(-\): .+\n$/);
    assert.match(runWith('', 'eval', 'labels.json', '-').stderr, /^compaction-lens: eval cannot read standard input \(-\)/);
    assert.deepEqual(leftInTmp(), []);
  });

  it('stopped by SIGINT while standard input is still open: exit 130, its temporary folder removed', async () => {
    const child = spawn(process.execPath, [cli, 'check', '-'], { env: { ...process.env, TMPDIR: tmp } });
    child.stdin.write(`${turn(1)}\n`);
    for (let waited = 0; leftInTmp().length === 0 && waited < 10000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    assert.equal(leftInTmp().length, 1, 'standard input is being copied');
    const code = await new Promise<number | null>((done) => {
      child.on('close', (status) => done(status));
      child.kill('SIGINT');
    });
    assert.equal(code, 130);
    assert.deepEqual(leftInTmp(), []);
  });
});

describe('compaction-lens CLI on a heap too small for the transcript (child process)', function () {
  this.timeout(120000);
  let dir: string;
  before(() => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'cl-cli-heap-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("stops with a message and exit 2, not V8's fatal out-of-memory crash", () => {
    // 30,000 turns, each naming things of its own, claimed by two checkpoints: the analysis keeps every turn's
    // evidence for both, far more than a 64 MB heap holds. (With one checkpoint, `check` keeps none of it, and the
    // same turns are checked in a 32 MB heap: docs/performance-history.md, "One checkpoint's evidence not kept by `check`".)
    const lines: string[] = [];
    for (let id = 0; id < 30000; id++) {
      const content = `Turn ${id}: fixed LEDGER_${id} in src/flow_${id % 977}/handler_${id}.ts after checking invoice ${id * 7} and retry_${id}`;
      lines.push(JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'assistant', content }));
    }
    const checkpoint = { type: 'checkpoint', summary_id: 'S1', summary: 'Fixed LEDGER_1 and LEDGER_2.', summary_budget: 500 };
    lines.push(JSON.stringify({ ...checkpoint, covered: { from: 0, to: 29999 } }));
    lines.push(JSON.stringify({ ...checkpoint, summary_id: 'S2', covered: { from: 0, to: 29999 } }));
    const path = join(dir, 'large.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const result = spawnSync(process.execPath, ['--max-old-space-size=64', cli, 'check', path], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = result.stdout + result.stderr;
    assert.doesNotMatch(output, /FATAL ERROR|JavaScript heap out of memory|Native stack trace/);
    assert.equal(result.status, 2, output);
    assert.match(output, /large\.jsonl is too large to analyse in the memory this process has/);
    assert.match(output, /--max-old-space-size/);
  });
});
