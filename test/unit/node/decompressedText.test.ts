// Tests for readDecompressedText (the editor's read-only view of a .jsonl.gz): the text is the uncompressed
// file's, line for line; a decompression limit stops it at the line TranscriptFile's problem names, with a
// last line saying why; UTF-16 with a byte-order mark is decoded; a file that is not gzip is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readDecompressedText } from '../../../src/node/decompressedText';
import { TranscriptFile } from '../../../src/node/transcriptFile';

const turn = (id: number) => JSON.stringify({ type: 'turn', id, role: 'user', content: `turn ${id} edits src/file${id}.ts` });
const checkpoint = (to: number) =>
  JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: 'summary', summary_budget: 100, covered: { from: 0, to } });
const canonical = `${turn(0)}\n${turn(1)}\n${checkpoint(1)}\n`;

describe('readDecompressedText', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-decompressed-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, data: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };

  it('gives the uncompressed text, byte for byte, and leaves the file as it was', async () => {
    const text = `${canonical}{"type":"turn","id":2,"role":"user","content":"é — ✓ 🙂"}\r\n\n${turn(3)}`;
    const path = write('t.jsonl.gz', gzipSync(text));
    const before = readFileSync(path);
    const result = await readDecompressedText(path, {});
    assert.equal(result.text, text);
    assert.equal(result.stopped, undefined);
    assert.deepEqual(readFileSync(path), before);
  });

  it('puts each record on the line its SourceSpan names', async () => {
    const text = `\n${turn(0)}\n\n${turn(1)}\n${checkpoint(1)}\n`;
    const path = write('t.jsonl.gz', gzipSync(text));
    const file = await TranscriptFile.open(path);
    const lines = (await readDecompressedText(path, {})).text.split('\n');
    assert.deepEqual(
      file.transcript.turns.map((record) => JSON.parse(lines[record.span.startLine - 1]).id),
      [0, 1],
    );
    assert.equal(JSON.parse(lines[file.transcript.checkpoints[0].span.startLine - 1]).type, 'checkpoint');
  });

  it('stops at maxInflatedBytes on the line the reader names, and its last line says why', async () => {
    const junk = Array.from({ length: 40_000 }, (_, i) => `junk ${i} ${'x'.repeat(90)}`).join('\n');
    const path = write('t.jsonl.gz', gzipSync(`${canonical}${junk}\n`));
    const limits = { maxInflatedBytes: 1024 * 1024, limitNames: { maxInflatedBytes: 'compactionLens.maxDecompressedMegabytes' } };
    const file = await TranscriptFile.open(path, limits);
    const problem = file.transcript.problems[file.transcript.problems.length - 1];
    const result = await readDecompressedText(path, limits);
    assert.equal(result.stopped, problem.message);
    const lines = result.text.split('\n');
    assert.equal(lines.pop(), '', 'the text ends with a newline');
    assert.equal(lines.length, problem.line, 'the note sits on the line where reading stopped');
    assert.equal(lines[problem.line - 1], `[Compaction Lens] ${problem.message}`);
    assert.match(lines[problem.line - 1], /compactionLens\.maxDecompressedMegabytes/);
    assert.equal(lines[problem.line - 2], `junk ${problem.line - 5} ${'x'.repeat(90)}`, 'the lines before are whole');
  });

  it('decodes UTF-16 announced by a byte-order mark', async () => {
    const text = `${turn(0)}\n${turn(1)}\n`;
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const path = write('t.jsonl.gz', gzipSync(utf16));
    assert.equal((await readDecompressedText(path, {})).text, text);
  });

  it('refuses a file that is not gzip-compressed, and shows a damaged archive up to the damage', async () => {
    await assert.rejects(readDecompressedText(write('plain.jsonl.gz', canonical), {}), /is not gzip-compressed/);
    const whole = gzipSync(`${canonical}${'y'.repeat(200_000)}\n`);
    const cut = write('cut.jsonl.gz', whole.subarray(0, whole.length - 100));
    const result = await readDecompressedText(cut, {});
    assert.match(result.stopped ?? '', /^reading stopped at line 4: .*The file may be damaged/);
    assert.equal(result.text, `${canonical}[Compaction Lens] ${result.stopped}\n`);
  });
});
