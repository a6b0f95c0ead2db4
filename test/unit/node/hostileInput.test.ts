// Tests for hostile and odd inputs to TranscriptFile (issue 10): binary judged by the share of non-text bytes,
// NUL padding as one problem line, UTF-16 with a byte-order mark read, special files named for what they are,
// gzip inflated within a size and a ratio limit, problems capped, side files bounded in count and bytes and
// never followed outside the session's folder. The full-size bombs are scripts/bombs.mjs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { problemCount } from '../../../src/formats/problemCap';
import { judgeHead } from '../../../src/node/inputKind';
import { loadSideFiles } from '../../../src/node/sideFiles';
import { INFLATE_RATIO_FLOOR, TranscriptFile, UnusableTranscriptError } from '../../../src/node/transcriptFile';
import { skipOrFailInCi } from '../../sharedFolder';

const turn = (id: number) => JSON.stringify({ type: 'turn', id, role: 'user', content: `turn ${id} edits src/file${id}.ts` });
const checkpoint = (to: number) =>
  JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: 'summary', summary_budget: 100, covered: { from: 0, to } });
const canonical = `${turn(0)}\n${turn(1)}\n${checkpoint(1)}\n`;

describe('TranscriptFile on hostile input', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-hostile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, data: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };

  async function unusable(path: string, pattern: RegExp) {
    await assert.rejects(TranscriptFile.open(path), (error: unknown) => {
      assert.ok(error instanceof UnusableTranscriptError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  }

  describe('binary and NUL bytes', () => {
    it('one NUL in the first 8 KB costs only its line, as it would on line 200', async () => {
      const path = write(
        't.jsonl',
        `${turn(0)}\n{"type":"turn","id":1,"role":"user","content":"a\u0000b"}\n${turn(2)}\n${checkpoint(2)}\n`,
      );
      const file = await TranscriptFile.open(path);
      assert.deepEqual(
        file.transcript.turns.map((t) => t.id),
        [0, 2],
      );
      assert.deepEqual(
        file.transcript.problems.map((p) => p.line),
        [2],
      );
      assert.match(file.transcript.problems[0].message, /line 2 is not valid JSON/);
    });

    it('binary is judged by the share of non-text bytes, and the message says how much', async () => {
      const png = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)),
      ]);
      await unusable(
        write('image.jsonl', png),
        /looks like binary data, not a transcript: \d+% of its first 3\.9 KB are not text \(control bytes or invalid UTF-8; up to 10% is allowed\)/,
      );
      assert.equal(judgeHead(Buffer.from(`${canonical}\u0001\u0002`), true).kind, 'text');
    });

    it('a NUL-padded tail (crash-style) is one problem line, not a rejection', async () => {
      const path = write('t.jsonl', Buffer.concat([Buffer.from(canonical), Buffer.alloc(8192)]));
      const file = await TranscriptFile.open(path);
      assert.equal(file.transcript.turns.length, 2);
      assert.equal(file.transcript.checkpoints.length, 1);
      assert.equal(file.transcript.problems.length, 1);
      assert.deepEqual([file.transcript.problems[0].line, file.transcript.problems[0].severity], [4, 'warning']);
      assert.match(
        file.transcript.problems[0].message,
        /line 4 holds only 8,192 NUL bytes: zero padding, such as a crash or an interrupted write leaves; it was skipped/,
      );
      // the agent restarts and appends after the padding: the new record is read, the padding stays one warning
      appendFileSync(path, `${turn(2)}\n`);
      assert.equal(await file.refresh(), 'reloaded');
      assert.deepEqual(
        file.transcript.turns.map((t) => t.id),
        [0, 1, 2],
      );
      assert.equal(file.transcript.problems.length, 1);
      assert.match(file.transcript.problems[0].message, /line 4 starts with 8,192 NUL bytes/);
    });

    it('NUL padding before records written after a crash is dropped with one warning, and the records are read', async () => {
      const path = write(
        't.jsonl',
        Buffer.concat([Buffer.from(`${turn(0)}\n`), Buffer.alloc(4096), Buffer.from(`${turn(1)}\n${checkpoint(1)}\n`)]),
      );
      const file = await TranscriptFile.open(path);
      assert.deepEqual(
        file.transcript.turns.map((t) => t.id),
        [0, 1],
      );
      assert.equal(file.transcript.turns[1].span.startOffset, turn(0).length + 1 + 4096);
      assert.equal(file.transcript.problems.length, 1);
      assert.match(
        file.transcript.problems[0].message,
        /line 2 starts with 4,096 NUL bytes .* they were ignored and the rest of the line was read/,
      );
    });

    it('a file of NUL bytes only is named as such', async () => {
      await unusable(write('zeros.jsonl', Buffer.alloc(10_000)), /holds only NUL bytes \(all 9\.8 KB of it\): zero padding/);
    });
  });

  describe('encodings', () => {
    const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

    it('reads UTF-16 with a byte-order mark (little- and big-endian), and UTF-8 with one', async () => {
      const text = `${turn(0)}\n${JSON.stringify({ type: 'turn', id: 1, role: 'user', content: 'naïve café 😀' })}\r\n${checkpoint(1)}\n`;
      const reference = (await TranscriptFile.open(write('t8.jsonl', text))).transcript;
      for (const [name, bytes] of [
        ['le.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
        ['be.jsonl', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text)])],
        ['bom8.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
        ['le.jsonl.gz', gzipSync(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))],
      ] as const) {
        const file = await TranscriptFile.open(write(name, bytes));
        assert.equal(file.format, 'canonical', name);
        assert.deepEqual(
          file.transcript.turns.map((t) => t.text),
          reference.turns.map((t) => t.text),
          name,
        );
        assert.equal(file.transcript.checkpoints.length, 1, name);
        assert.deepEqual(file.transcript.problems, [], name);
      }
    });

    it("a UTF-16 file is re-read whole when it grows (its offsets are not the file's)", async () => {
      const path = write('le.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(canonical, 'utf16le')]));
      const file = await TranscriptFile.open(path);
      writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${canonical}${turn(2)}\n`, 'utf16le')]));
      assert.equal(await file.refresh(), 'reloaded');
      assert.equal(file.transcript.turns.length, 3);
    });

    it('names UTF-16 without a byte-order mark instead of calling it binary', async () => {
      await unusable(
        write('le.jsonl', Buffer.from(canonical, 'utf16le')),
        /looks like UTF-16 text \(little-endian\) without a byte-order mark.*re-save the file as UTF-8/,
      );
      await unusable(write('be.jsonl', utf16be(canonical)), /UTF-16 text \(big-endian\)/);
    });
  });

  describe('special files get their true name', () => {
    it('a folder, a symlink loop, a dangling link, a missing file', async () => {
      await unusable(dir, /is a folder, not a transcript file/);
      symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
      symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
      await unusable(join(dir, 'loop-a'), /is a symbolic link loop: it points, directly or through other links, back to itself/);
      symlinkSync(join(dir, 'gone.jsonl'), join(dir, 'dangling.jsonl'));
      await unusable(join(dir, 'dangling.jsonl'), /is a symbolic link to .*gone\.jsonl, which does not exist/);
      await unusable(join(dir, 'missing.jsonl'), /no such file/);
    });

    it('a named pipe (FIFO) is named, and is not opened (which would wait for a writer)', async function () {
      const fifo = join(dir, 'pipe.jsonl');
      try {
        execFileSync('mkfifo', [fifo]);
      } catch {
        skipOrFailInCi(this, 'mkfifo could not make a named pipe here');
      }
      await unusable(fifo, /is a named pipe \(FIFO\), not a file/);
    });

    it('/dev/zero is a character device and a /proc file is named, not called empty', async function () {
      if (!existsSync('/dev/zero') || !existsSync('/proc/self/status')) skipOrFailInCi(this, '/dev/zero or /proc is missing');
      await unusable('/dev/zero', /is a character device/);
      await unusable('/proc/self/status', /is a \/proc file: the kernel makes its content up as it is read and reports a size of 0/);
      await unusable(write('empty.jsonl', ''), /is empty/);
    });
  });

  describe('bounded memory', () => {
    it('keeps 1,000 problems of 100,000 bad lines and says how many more', async () => {
      const path = write('t.jsonl', `${canonical}${'junk line\n'.repeat(100_000)}`);
      const file = await TranscriptFile.open(path);
      const { problems } = file.transcript;
      assert.equal(problems.length, 1001);
      assert.equal(problemCount(problems), 100_000);
      assert.match(problems[1000].message, /^…and 99,000 more unreadable or unusable lines on lines 1,004–100,003 \(99,000 errors\)/);
    });

    it('stops decompressing past maxInflatedBytes, says so, and analyses what came before', async () => {
      const junk = Array.from({ length: 40_000 }, (_, i) => `junk ${i} ${'x'.repeat(90)}`).join('\n');
      const path = write('t.jsonl.gz', gzipSync(`${canonical}${junk}\n`));
      const file = await TranscriptFile.open(path, { maxInflatedBytes: 1024 * 1024 });
      assert.equal(file.transcript.turns.length, 2);
      const last = file.transcript.problems[file.transcript.problems.length - 1];
      assert.equal(last.severity, 'error');
      assert.match(
        last.message,
        /^decompression stopped at line \d+: t\.jsonl\.gz inflates to more than 1 MB, the limit for a compressed transcript \(maxInflatedBytes\)/,
      );
      assert.ok(file.transcript.lineCount < 40_000);
    });

    it('stops a decompression bomb at the ratio limit (maxInflateRatio)', async function () {
      this.timeout(30_000);
      // ~70 MB of junk lines in ~70 KB: a ratio of about 1,000
      const line = Buffer.from(`${'x'.repeat(1023)}\n`);
      const path = write(
        'bomb.jsonl.gz',
        gzipSync(Buffer.concat([Buffer.from(canonical), Buffer.alloc(INFLATE_RATIO_FLOOR + 6 * 1024 * 1024, line)]), { level: 9 }),
      );
      const file = await TranscriptFile.open(path);
      assert.equal(file.transcript.turns.length, 2);
      const problems = file.transcript.problems;
      assert.ok(problems.length <= 1002, `${problems.length} problems`);
      assert.match(
        problems[problems.length - 1].message,
        /^decompression stopped at line \d+: bomb\.jsonl\.gz inflated to 6\d MB from \d+ KB of compressed data, more than 200 times its size \(the limit, maxInflateRatio\).*decompression bomb/,
      );
      // a bomb with no record before the junk is unusable, and says why
      const bare = write(
        'bare.jsonl.gz',
        gzipSync(Buffer.concat([Buffer.from('{"type":"turn"}\n'), Buffer.alloc(INFLATE_RATIO_FLOOR + 1024 * 1024, line)])),
      );
      await unusable(bare, /has no usable records \(read as canonical\)\. Reading stopped: line \d+: decompression stopped/);
    });

    it('side files: bounded in count and in bytes, each limit said once', async function () {
      this.timeout(30_000);
      const session = join(dir, 'abc', 'subagents');
      mkdirSync(session, { recursive: true });
      const text = `${JSON.stringify({ type: 'assistant', message: { content: 'y'.repeat(100) } })}\n`.repeat(10_000); // ~1.3 MB
      const gz = gzipSync(text);
      for (let i = 0; i < 30; i++) writeFileSync(join(session, `agent-acompact-${String(i).padStart(3, '0')}.jsonl.gz`), gz);
      const transcript = write('abc.jsonl', '');
      const counted = await loadSideFiles('claude-code', transcript, { maxFiles: 5 });
      assert.equal(counted.files.length, 5);
      assert.match(counted.problems[0].message, /there are 30 summariser side files in .*; only the first 5 \(by name\) were read/);
      const weighed = await loadSideFiles('claude-code', transcript, { maxTotalBytes: 4 * text.length });
      assert.equal(weighed.files.length, 4);
      assert.equal(weighed.problems.length, 1);
      assert.match(
        weighed.problems[0].message,
        /^26 summariser side files were not read in .*: the side files read before reached the 5\.6 MB limit for all of them together/,
      );
      const defaults = await loadSideFiles('claude-code', transcript);
      assert.equal(defaults.files.length, 30);
    });

    it('side files are not followed through links out of the session folder', async () => {
      const session = join(dir, 'abc', 'subagents');
      mkdirSync(session, { recursive: true });
      const secret = write('secret.txt', 'not for you');
      writeFileSync(join(session, 'agent-acompact-1.jsonl'), '{"type":"assistant"}\n');
      symlinkSync(secret, join(session, 'agent-acompact-2.jsonl'));
      symlinkSync('/dev/zero', join(session, 'agent-acompact-3.jsonl'));
      const loaded = await loadSideFiles('claude-code', write('abc.jsonl', ''));
      assert.deepEqual(
        loaded.files.map((f) => f.path.slice(-22)),
        ['agent-acompact-1.jsonl'],
      );
      assert.equal(loaded.problems.length, 1);
      assert.match(
        loaded.problems[0].message,
        /^2 summariser side files are links to a place outside the session's folder \(.*abc\) and were not followed: agent-acompact-2\.jsonl, agent-acompact-3\.jsonl/,
      );
    });
  });
});
