// Tests of the streamed JSON writer (cli/jsonStream.ts) and the --json report written with it: the text is
// exactly JSON.stringify(value, null, 2)'s with jsonText's escapes, but for the arrays marked itemPerLine, each of
// whose items is JSON.stringify(item) on a line of its own, whatever is streamed and whatever the chunk size;
// writing waits for a slow stream; the incident's report parses, matches its analysis and is the document a
// one-string writer gives, a turn to a line; and a document past V8's longest string is written chunk by chunk.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { checkFiles } from '../../../src/cli/checkFiles';
import { writeJsonReport } from '../../../src/cli/jsonReport';
import { CHUNK_CHARS, jsonChunks, jsonLineOf, StreamedArray, StreamedObject } from '../../../src/cli/jsonStream';
import { jsonText } from '../../../src/cli/terminalText';

const ROOT = resolve(__dirname, '../../../..');
const SAMPLE = join(ROOT, 'samples/incident.jsonl');

/**
 * `value` with its arrays and objects marked streamed where `streamed` says so (by position). Markers count only
 * inside streamed parents, so below a plain container everything stays plain.
 */
function markStreamed(
  value: unknown,
  streamed: (path: string) => boolean,
  path = '',
  perLine: (path: string) => boolean = () => false,
): unknown {
  if (typeof value !== 'object' || value === null || !streamed(path)) return value;
  if (Array.isArray(value)) {
    const items = value.map((item, i) => markStreamed(item, streamed, `${path}/${i}`, perLine));
    return new StreamedArray(items, { itemPerLine: perLine(path) });
  }
  return new StreamedObject(
    Object.fromEntries(Object.entries(value).map(([key, field]) => [key, markStreamed(field, streamed, `${path}/${key}`, perLine)])),
  );
}

const oneString = (value: unknown) => jsonText(JSON.stringify(value, null, 2));

/** What stands in the text for an item written on its line, until it is put back (no jsonValue string holds it). */
const MARK = '\u0000\u0001item ';

/**
 * JSON.stringify(value, null, 2) with jsonText's escapes, but for the arrays markStreamed(value, streamed, '', perLine)
 * marks itemPerLine, each of whose items is JSON.stringify(item) on its line: each such item is written as a mark
 * first, then put back.
 */
function itemsPerLineString(value: unknown, streamed: (path: string) => boolean, perLine: (path: string) => boolean): string {
  const lines: string[] = [];
  const marked = (node: unknown, path: string): unknown => {
    if (typeof node !== 'object' || node === null || !streamed(path)) return node;
    if (Array.isArray(node)) {
      if (perLine(path)) return node.map((item) => `${MARK}${lines.push(JSON.stringify(item) ?? 'null') - 1}`);
      return node.map((item, i) => marked(item, `${path}/${i}`));
    }
    return Object.fromEntries(Object.entries(node).map(([key, field]) => [key, marked(field, `${path}/${key}`)]));
  };
  const text = JSON.stringify(marked(value, ''), null, 2) as string | undefined;
  if (text === undefined) return '';
  const quotedMark = JSON.stringify(MARK).slice(0, -1);
  let out = '';
  for (let from = 0; ;) {
    const at = text.indexOf(quotedMark, from);
    if (at < 0) return jsonText(out + text.slice(from));
    const end = text.indexOf('"', at + quotedMark.length);
    out += text.slice(from, at) + lines[Number(text.slice(at + quotedMark.length, end))];
    from = end + 1;
  }
}

describe('cli/jsonStream', () => {
  it('writes what JSON.stringify(value, null, 2) writes, streamed anywhere, in chunks of any size', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 1000 }), (value, chunkChars, seed) => {
        const streamed = markStreamed(value, (path) => (path.length * 31 + seed) % 3 !== 0);
        const chunks = [...jsonChunks(streamed, { chunkChars })];
        assert.equal(chunks.join(''), oneString(value));
      }),
      { numRuns: 300 },
    );
  });

  it('writes each item of an array marked itemPerLine as JSON.stringify(item) on its line, streamed anywhere, in chunks of any size', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 1000 }), (value, chunkChars, seed) => {
        fc.pre(!JSON.stringify(value).includes(JSON.stringify(MARK).slice(1, -1)));
        const streamed = (path: string) => (path.length * 31 + seed) % 3 !== 0;
        const perLine = (path: string) => (path.length * 17 + seed) % 2 === 0;
        const marked = markStreamed(value, streamed, '', perLine);
        const expected = itemsPerLineString(value, streamed, perLine);
        assert.equal([...jsonChunks(marked, { chunkChars })].join(''), expected);
      }),
      { numRuns: 300 },
    );
    const items = [{ a: [1, { b: 'x' }] }, [], undefined, 'two\nlines \u202e'];
    const text = [...jsonChunks(new StreamedObject({ items: new StreamedArray(items, { itemPerLine: true }) }))].join('');
    assert.equal(text, '{\n  "items": [\n    {"a":[1,{"b":"x"}]},\n    [],\n    null,\n    "two\\nlines \\u202e"\n  ]\n}');
    assert.equal(jsonLineOf({ a: [1, { b: 'x' }], c: undefined }), '{"a":[1,{"b":"x"}]}');
    assert.equal(jsonLineOf(undefined), 'null');
  });

  it('leaves out undefined fields, writes undefined items as null, and writes empty containers as JSON.stringify does', () => {
    const value = { a: undefined, b: [undefined, 1], c: [], d: {}, e: { f: [[]] }, g: 'line\u2028sep \u202e bidi \u007f' };
    const streamed = new StreamedObject({
      a: undefined,
      b: new StreamedArray([undefined, 1]),
      c: new StreamedArray([]),
      d: new StreamedObject({}),
      e: new StreamedObject({ f: new StreamedArray([new StreamedArray([])]) }),
      g: value.g,
    });
    const text = [...jsonChunks(streamed, { chunkChars: 3 })].join('');
    assert.equal(text, oneString(value));
    assert.match(text, /\\u2028sep \\u202e bidi \\u007f/, 'the characters a terminal would act on are escaped');
    assert.equal([...jsonChunks(new StreamedArray([]))].join(''), '[]');
    assert.equal([...jsonChunks(new StreamedObject({ only: undefined }))].join(''), '{}');
  });

  it('writes the report file by file as they come, waiting for a slow stream to drain', async () => {
    const received: string[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      decodeStrings: false,
      write(chunk: string, _encoding, done) {
        received.push(chunk);
        setTimeout(done, 1);
      },
    });
    const reports = Array.from({ length: 300 }, (_, i) => ({ path: `file ${i}.jsonl`, error: `file ${i} \u202e is unusable `.repeat(20) }));
    const seen: string[] = [];
    async function* arriving() {
      for (const report of reports) {
        await new Promise((resolve) => setImmediate(resolve));
        yield report;
      }
    }
    await writeJsonReport(arriving(), slow, (report) => seen.push(report.path));
    assert.equal(received.join(''), `${oneString({ files: reports })}\n`);
    assert.ok(received.length > 300, `written in ${received.length} writes`);
    assert.deepEqual(
      seen,
      reports.map((report) => report.path),
    );
    const none: string[] = [];
    await writeJsonReport([], new Writable({ write: (chunk: Buffer, _encoding, done) => (none.push(chunk.toString()), done()) }));
    assert.equal(none.join(''), `${oneString({ files: [] })}\n`);
  });

  it('writes a document longer than the longest string V8 can make, one chunk at a time', function () {
    this.timeout(120000);
    // 2^29 - 24 characters is V8's longest string: 600 items of 1 MiB make a document past it.
    const item = 'x'.repeat(1024 * 1024);
    const count = 600;
    const items = (function* () {
      for (let i = 0; i < count; i += 1) yield item;
    })();
    let total = 0;
    let largest = 0;
    let head = '';
    let tail = '';
    for (const chunk of jsonChunks(new StreamedObject({ items: new StreamedArray(items) }))) {
      if (head.length < 20) head += chunk.slice(0, 20);
      tail = (tail + chunk).slice(-10);
      total += chunk.length;
      largest = Math.max(largest, chunk.length);
    }
    const perItem = '\n    "'.length + item.length + '",'.length;
    assert.equal(total, '{\n  "items": ['.length + count * perItem - ','.length + '\n  ]\n}'.length);
    assert.ok(total > 2 ** 29, `${total} characters`);
    assert.ok(largest < CHUNK_CHARS + item.length + 16, `the largest chunk holds ${largest} characters`);
    assert.equal(head.slice(0, 18), '{\n  "items": [\n   ');
    assert.equal(tail, 'xxx"\n  ]\n}');
  });

  it("writes the incident's report as the one document a single JSON.stringify would, a turn to a line, matching its analysis", async function () {
    this.timeout(60000);
    const reports = await checkFiles([SAMPLE, '/nonexistent/compaction-lens.jsonl'], { encoding: 'o200k_base', ratioFloor: 5 });
    const chunks: string[] = [];
    await writeJsonReport(
      reports,
      new Writable({ decodeStrings: false, write: (chunk: string, _encoding, done) => (chunks.push(chunk), done()) }),
    );
    const text = chunks.join('').replace(/\n$/, '');
    const document = JSON.parse(text) as {
      files: {
        path: string;
        error?: string;
        checkpoints?: { verdict: string; turns: { id: unknown; status: string; evidence: unknown[] }[] }[];
      }[];
    };
    const turnsArray = (path: string) => /^\/files\/\d+\/checkpoints\/\d+\/turns$/.test(path);
    assert.equal(
      text,
      itemsPerLineString(document, () => true, turnsArray),
    );
    const turnLines = text.split('\n').filter((line) => line.startsWith(' '.repeat(12) + '{"id":'));
    const [incident, missing] = document.files;
    const turnCount = incident.checkpoints!.reduce((sum, cp) => sum + cp.turns.length, 0);
    assert.ok(turnCount > 400, `${turnCount} turns`);
    assert.equal(turnLines.length, turnCount, 'each turn on a line of its own');
    // The CLI writes its turns through a temporary folder (jsonTurnSpill), a line each: the same document.
    const cli = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'check', '--json', SAMPLE, '/nonexistent/compaction-lens.jsonl'], {
      encoding: 'utf8',
    });
    assert.equal(cli.stdout, `${text}\n`, cli.stderr);
    assert.equal(incident.path, SAMPLE);
    const analysis = reports[0].analysis!;
    assert.equal(incident.checkpoints!.length, analysis.checkpoints.length);
    incident.checkpoints!.forEach((cp, i) => {
      const expected = analysis.checkpoints[i];
      assert.equal(cp.verdict, expected.verdict);
      assert.deepEqual(
        cp.turns.map((turn) => [turn.id, turn.status, turn.evidence.length]),
        expected.turns.map((turn) => [turn.id, turn.status, turn.evidence.length]),
      );
    });
    assert.equal(incident.checkpoints![0].verdict, 'fail-closed');
    assert.equal(missing.path, '/nonexistent/compaction-lens.jsonl');
    assert.match(missing.error!, /compaction-lens\.jsonl/);
  });

  it('check --json stops quietly when its reader goes away (a closed pipe), with the exit status of what it found', async function () {
    this.timeout(60000);
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'check', '--json', SAMPLE, SAMPLE, SAMPLE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout.once('data', () => child.stdout.destroy()); // read the first chunk, then close the pipe
    const status = await new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    assert.equal(stderr, '', 'nothing said: no stack trace, no internal error');
    assert.equal(status, 1, 'the incident has findings');
  });
});
