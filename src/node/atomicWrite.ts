// Writes a new file atomically: the data (a text, bytes, or pieces of text written as they are made) goes to a
// temporary file in the same folder, is flushed to disk, and is then moved into place in one step, so a reader
// sees the old file or the whole new one, never half of one. An existing file is replaced only when the caller
// says so (`overwrite`); without it the move is a hard link, which fails if the file appeared meanwhile. Protected
// paths (the transcript) are refused, whatever the options, by path and by identity (a symbolic or hard link to
// them too). A failed write removes its temporary file and leaves an existing file as it was; a temporary file a
// killed process left behind is removed by the next write to the same name. The file system steps can be
// replaced, so that a test can make one fail.
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** The file system calls a write makes (node:fs/promises by default). */
export interface AtomicFileSystem {
  open: typeof fsp.open;
  link: typeof fsp.link;
  rename: typeof fsp.rename;
  unlink: typeof fsp.unlink;
  lstat: typeof fsp.lstat;
  stat: typeof fsp.stat;
  realpath: typeof fsp.realpath;
  readdir: typeof fsp.readdir;
}

export interface AtomicWriteOptions {
  /** Replace the file if it exists. Default false: an existing file is an error (`exists`). */
  overwrite?: boolean;
  /** Files that must never be written (the transcript): refused even with `overwrite`. */
  protectedPaths?: readonly string[];
  /** Replaces the file system calls (tests make one fail). Default node:fs/promises. */
  fileSystem?: AtomicFileSystem;
}

/**
 * Why a write did not happen: `exists` (the file exists and overwrite was not given), `protected` (it is a
 * protected file), `not-a-file` (a folder or another special file is there), `failed` (the file system refused;
 * nothing was changed). The message is for the user.
 */
export class AtomicWriteError extends Error {
  constructor(
    message: string,
    readonly reason: 'exists' | 'protected' | 'not-a-file' | 'failed',
    readonly path: string,
  ) {
    super(message);
    this.name = 'AtomicWriteError';
  }
}

const REAL_FS: AtomicFileSystem = fsp;

/** Error codes of a file system that has no hard links (some network and FAT volumes): fall back to rename. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `.<name>.<pid>-<random>.tmp` beside the target; `pid` says whose it is, for the sweep of stale ones. */
function temporaryName(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

const TEMPORARY_TAIL = /^(\d{1,10})-[0-9a-f]{12}\.tmp$/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

/** Removes the temporary files of `target` whose writer is no longer running (a write killed mid-way). */
async function sweepStaleTemporaries(target: string, fs: AtomicFileSystem): Promise<void> {
  const prefix = `.${basename(target)}.`;
  let names: string[];
  try {
    names = await fs.readdir(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = TEMPORARY_TAIL.exec(name.slice(prefix.length));
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isRunning(pid)) continue;
    await fs.unlink(join(dirname(target), name)).catch(() => undefined);
  }
}

/** The path with its folder's links resolved (the file itself may not exist yet). */
async function realPathOf(path: string, fs: AtomicFileSystem): Promise<string> {
  try {
    return await fs.realpath(path);
  } catch {
    try {
      return join(await fs.realpath(dirname(path)), basename(path));
    } catch {
      return path;
    }
  }
}

/** Whether writing `target` would write `protectedPath`: the same path once links are resolved, or the same file. */
export async function isSameFile(target: string, protectedPath: string, fs: AtomicFileSystem = REAL_FS): Promise<boolean> {
  if ((await realPathOf(target, fs)) === (await realPathOf(resolve(protectedPath), fs))) return true;
  try {
    const [a, b] = await Promise.all([fs.stat(target), fs.stat(protectedPath)]);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** What is at `target` now: nothing, a regular file (its mode), or something that cannot be replaced. */
async function existing(
  target: string,
  fs: AtomicFileSystem,
): Promise<{ kind: 'none' } | { kind: 'file'; mode: number } | { kind: 'other' }> {
  try {
    const stats = await fs.lstat(target);
    if (stats.isFile()) return { kind: 'file', mode: stats.mode & 0o7777 };
    if (stats.isSymbolicLink()) {
      const followed = await fs.stat(target).catch(() => undefined);
      return followed === undefined || followed.isFile() ? { kind: 'file', mode: (followed?.mode ?? 0o644) & 0o7777 } : { kind: 'other' };
    }
    return { kind: 'other' };
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return { kind: 'none' };
    throw error;
  }
}

/** Flushes the folder's entry of the new file to disk, where the platform allows it (not on Windows). */
async function syncFolder(folder: string, fs: AtomicFileSystem): Promise<void> {
  try {
    const handle = await fs.open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every platform can open or flush a folder; the rename is atomic either way.
  }
}

/** An error the data's pieces threw while being written: passed on as it is, not as an AtomicWriteError. */
class PiecesFailed {
  constructor(readonly error: unknown) {}
}

/** Writes pieces of text one after the other, each as it comes (the event loop runs between them). */
async function writePieces(handle: fsp.FileHandle, pieces: Iterable<string> | AsyncIterable<string>): Promise<void> {
  const iterator = Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]();
  let done = false;
  try {
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await iterator.next();
      } catch (error) {
        done = true; // a generator that threw is closed
        throw new PiecesFailed(error);
      }
      if (next.done) {
        done = true;
        return;
      }
      await handle.writeFile(next.value);
    }
  } finally {
    if (!done) await iterator.return?.();
  }
}

/**
 * Writes `data` to `path` atomically (see the file's header): a text, bytes, or pieces of text written as they
 * come (a large export, made as it is written). Rejects with an AtomicWriteError whose message is for the user,
 * or with what the pieces threw; on any rejection no file was changed and no temporary file is left.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | Iterable<string> | AsyncIterable<string>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const fs = options.fileSystem ?? REAL_FS;
  const target = resolve(path);
  for (const protectedPath of options.protectedPaths ?? []) {
    if (await isSameFile(target, protectedPath, fs)) {
      throw new AtomicWriteError(
        `${path} is the transcript itself: Compaction Lens never writes to a transcript. Choose another file.`,
        'protected',
        path,
      );
    }
  }
  const before = await existing(target, fs);
  if (before.kind === 'other')
    throw new AtomicWriteError(`${path} exists and is not a regular file; nothing was written.`, 'not-a-file', path);
  if (before.kind === 'file' && !options.overwrite)
    throw new AtomicWriteError(`${path} already exists; nothing was written.`, 'exists', path);
  await sweepStaleTemporaries(target, fs);

  const temporary = temporaryName(target);
  let created = false;
  try {
    const handle = await fs.open(temporary, 'wx', before.kind === 'file' ? before.mode : 0o666);
    created = true;
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else await writePieces(handle, data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await commit(temporary, target, options.overwrite === true, fs);
    created = false;
  } catch (error) {
    if (created) await fs.unlink(temporary).catch(() => undefined);
    if (error instanceof AtomicWriteError) throw error;
    if (error instanceof PiecesFailed) throw error.error;
    throw new AtomicWriteError(`could not write ${path}: ${messageOf(error)}. Nothing was changed.`, 'failed', path);
  }
  await syncFolder(dirname(target), fs);
}

/** Moves the temporary file into place: a rename when replacing is allowed, else a link that fails if the name is taken. */
async function commit(temporary: string, target: string, overwrite: boolean, fs: AtomicFileSystem): Promise<void> {
  if (overwrite) {
    await fs.rename(temporary, target);
    return;
  }
  try {
    await fs.link(temporary, target);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'EEXIST') throw new AtomicWriteError(`${target} already exists; nothing was written.`, 'exists', target);
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
    // No hard links here: check once more, then rename (a file created in between would be replaced).
    if ((await existing(target, fs)).kind !== 'none')
      throw new AtomicWriteError(`${target} already exists; nothing was written.`, 'exists', target);
    await fs.rename(temporary, target);
    return;
  }
  // The file is in place; the temporary name is only a second link to it now.
  await fs.unlink(temporary).catch(() => undefined);
}
