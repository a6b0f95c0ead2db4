// Tests for src/node/atomicWrite.ts on the real file system: a new file is written whole with no temporary file
// left; an existing file is kept without `overwrite` and replaced (keeping its mode) with it; the protected file is
// refused by path, relative path, symbolic and hard link, even with `overwrite`; and an interrupted write — a
// failing write, flush, rename or link injected into the real calls, or a child process killed between the
// temporary file and the rename — leaves the original untouched and no temporary file behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { AtomicWriteError, writeFileAtomic, type AtomicFileSystem } from '../../../src/node/atomicWrite';

const realFs: AtomicFileSystem = { ...fsp };

function failing(code: string, message = 'injected failure'): () => Promise<never> {
  return async () => {
    throw Object.assign(new Error(`${code}: ${message}`), { code });
  };
}

async function rejection(promise: Promise<unknown>): Promise<AtomicWriteError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AtomicWriteError, `an AtomicWriteError, got ${String(error)}`);
    return error;
  }
  assert.fail('the write was expected to fail');
}

describe('node/atomicWrite', function () {
  this.timeout(20000);
  let dir: string;
  let original: string;
  const ORIGINAL = 'the original content\n';
  const temporaries = () => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-atomic-'));
    original = join(dir, 'out.json');
    writeFileSync(original, ORIGINAL);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a new file whole, leaving no temporary file', async () => {
    const target = join(dir, 'new.json');
    await writeFileAtomic(target, '{"a": 1}\n');
    assert.equal(readFileSync(target, 'utf8'), '{"a": 1}\n');
    assert.deepEqual(temporaries(), []);
  });

  it('writes pieces of text as they come, from a generator or an async one, leaving no temporary file', async () => {
    function* pieces(): Generator<string> {
      for (let i = 0; i < 50; i++) yield `line ${i} é\n`;
    }
    async function* later(): AsyncGenerator<string> {
      for (const piece of pieces()) {
        await new Promise((resolve) => setImmediate(resolve));
        yield piece;
      }
    }
    const whole = [...pieces()].join('');
    await writeFileAtomic(join(dir, 'a.txt'), pieces());
    await writeFileAtomic(join(dir, 'b.txt'), later());
    assert.equal(readFileSync(join(dir, 'a.txt'), 'utf8'), whole);
    assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), whole);
    assert.deepEqual(temporaries(), []);
  });

  it('pieces that throw: their error as it is, the original untouched, no temporary file; a failed write closes them', async () => {
    class Refused extends Error {}
    async function* refusing(): AsyncGenerator<string> {
      yield 'first piece\n';
      throw new Refused('the transcript changed');
    }
    await assert.rejects(writeFileAtomic(original, refusing(), { overwrite: true }), Refused);
    assert.equal(readFileSync(original, 'utf8'), ORIGINAL);
    assert.deepEqual(temporaries(), []);

    let closed = false;
    function* endless(): Generator<string> {
      try {
        for (;;) yield 'more\n';
      } finally {
        closed = true;
      }
    }
    const full: AtomicFileSystem = {
      ...realFs,
      open: (async (...args: Parameters<typeof fsp.open>) =>
        Object.assign(await fsp.open(...args), { writeFile: failing('ENOSPC') })) as typeof fsp.open,
    };
    const error = await rejection(writeFileAtomic(original, endless(), { overwrite: true, fileSystem: full }));
    assert.equal(error.reason, 'failed');
    assert.ok(closed, 'the pieces were closed');
    assert.equal(readFileSync(original, 'utf8'), ORIGINAL);
    assert.deepEqual(temporaries(), []);
  });

  it('keeps an existing file without overwrite, and replaces it (keeping its mode) with it', async () => {
    const refused = await rejection(writeFileAtomic(original, 'new'));
    assert.equal(refused.reason, 'exists');
    assert.match(refused.message, /out\.json already exists; nothing was written/);
    assert.equal(readFileSync(original, 'utf8'), ORIGINAL);
    chmodSync(original, 0o640);
    await writeFileAtomic(original, 'new', { overwrite: true });
    assert.equal(readFileSync(original, 'utf8'), 'new');
    assert.equal(statSync(original).mode & 0o777, 0o640);
    assert.deepEqual(temporaries(), []);
  });

  it('refuses the protected file by path, relative path, symbolic link and hard link, even with overwrite', async () => {
    const transcript = join(dir, 'session.jsonl');
    writeFileSync(transcript, 'TRANSCRIPT');
    symlinkSync(transcript, join(dir, 'via-symlink.jsonl'));
    linkSync(transcript, join(dir, 'via-hardlink.jsonl'));
    mkdirSync(join(dir, 'sub'));
    const ways = [
      transcript,
      relative(process.cwd(), transcript),
      join(dir, 'sub', '..', 'session.jsonl'),
      join(dir, 'via-symlink.jsonl'),
      join(dir, 'via-hardlink.jsonl'),
    ];
    for (const way of ways) {
      const refused = await rejection(writeFileAtomic(way, 'oops', { overwrite: true, protectedPaths: [transcript] }));
      assert.equal(refused.reason, 'protected', way);
      assert.match(refused.message, /is the transcript itself: Compaction Lens never writes to a transcript/);
    }
    assert.equal(readFileSync(transcript, 'utf8'), 'TRANSCRIPT');
    await writeFileAtomic(join(dir, 'beside.json'), 'fine', { protectedPaths: [transcript] });
    assert.equal(readFileSync(join(dir, 'beside.json'), 'utf8'), 'fine');
  });

  it('refuses a folder in the way', async () => {
    mkdirSync(join(dir, 'folder.json'));
    const refused = await rejection(writeFileAtomic(join(dir, 'folder.json'), 'x', { overwrite: true }));
    assert.equal(refused.reason, 'not-a-file');
  });

  describe('an interrupted write leaves the original untouched and no temporary file', () => {
    const interruptions: [string, (fs: AtomicFileSystem) => AtomicFileSystem, boolean][] = [
      ['the rename fails (replacing)', (fs) => ({ ...fs, rename: failing('EIO') }), true],
      ['the link fails (not replacing)', (fs) => ({ ...fs, link: failing('EIO') }), false],
      [
        'the write stops half-way (disk full)',
        (fs) => ({
          ...fs,
          open: (async (...args: Parameters<typeof fsp.open>) => {
            const handle = await fsp.open(...args);
            return Object.assign(handle, {
              writeFile: async (data: string) => {
                await handle.write(data.slice(0, data.length / 2));
                throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
              },
            });
          }) as typeof fsp.open,
        }),
        true,
      ],
      [
        'the flush to disk fails',
        (fs) => ({
          ...fs,
          open: (async (...args: Parameters<typeof fsp.open>) => {
            const handle = await fsp.open(...args);
            return Object.assign(handle, { sync: failing('EIO') });
          }) as typeof fsp.open,
        }),
        true,
      ],
    ];
    for (const [name, inject, overwrite] of interruptions) {
      it(name, async () => {
        const target = overwrite ? original : join(dir, 'fresh.json');
        const error = await rejection(writeFileAtomic(target, 'NEW CONTENT '.repeat(1000), { overwrite, fileSystem: inject(realFs) }));
        assert.equal(error.reason, 'failed');
        assert.match(error.message, /could not write .+: E(IO|NOSPC).*\. Nothing was changed\./);
        assert.equal(readFileSync(original, 'utf8'), ORIGINAL);
        if (!overwrite) assert.deepEqual(readdirSync(dir).sort(), ['out.json']);
        assert.deepEqual(temporaries(), []);
      });
    }

    it('a file that appears between the check and the link is not replaced', async () => {
      const target = join(dir, 'raced.json');
      const racing: AtomicFileSystem = {
        ...realFs,
        link: async (from, to) => {
          writeFileSync(target, 'SOMEONE ELSE');
          return fsp.link(from, to);
        },
      };
      const error = await rejection(writeFileAtomic(target, 'mine', { fileSystem: racing }));
      assert.equal(error.reason, 'exists');
      assert.equal(readFileSync(target, 'utf8'), 'SOMEONE ELSE');
      assert.deepEqual(temporaries(), []);
    });

    it('a file system without hard links: falls back to a rename', async () => {
      const target = join(dir, 'nolinks.json');
      await writeFileAtomic(target, 'written', { fileSystem: { ...realFs, link: failing('EPERM', 'operation not permitted') } });
      assert.equal(readFileSync(target, 'utf8'), 'written');
      assert.deepEqual(temporaries(), []);
    });

    it('a child process killed between the temporary file and the rename: the original is untouched; the next write removes its temporary file', async () => {
      const modulePath = join(__dirname, '../../../src/node/atomicWrite.js');
      const script = `
        const fsp = require('node:fs/promises');
        const { writeFileAtomic } = require(${JSON.stringify(modulePath)});
        const hold = () => { process.stdout.write('ready\\n'); setInterval(() => {}, 1000); return new Promise(() => {}); };
        writeFileAtomic(${JSON.stringify(original)}, 'HALF-DONE '.repeat(100000), { overwrite: true, fileSystem: { ...fsp, rename: hold } });
      `;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((done, fail) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && done());
        child.on('exit', (code) => fail(new Error(`the child exited (${code}) before the rename`)));
      });
      const exited = new Promise((done) => child.on('exit', done));
      child.kill('SIGKILL');
      await exited;
      assert.equal(readFileSync(original, 'utf8'), ORIGINAL, 'the original is untouched');
      const left = temporaries();
      assert.equal(left.length, 1, 'a killed process cannot clean up: its temporary file is there');
      assert.match(left[0], new RegExp(`^\\.out\\.json\\.${child.pid}-[0-9a-f]{12}\\.tmp$`));
      assert.equal(statSync(join(dir, left[0])).size, 'HALF-DONE '.length * 100000);

      await writeFileAtomic(original, 'next', { overwrite: true });
      assert.equal(readFileSync(original, 'utf8'), 'next');
      assert.deepEqual(temporaries(), [], "the next write removed the dead writer's temporary file");
    });

    it("a running writer's temporary file is left alone", async () => {
      const mine = join(dir, `.out.json.${process.pid}-${'a'.repeat(12)}.tmp`);
      writeFileSync(mine, 'in progress');
      await writeFileAtomic(original, 'next', { overwrite: true });
      assert.deepEqual(temporaries(), [`.out.json.${process.pid}-${'a'.repeat(12)}.tmp`]);
    });
  });
});
