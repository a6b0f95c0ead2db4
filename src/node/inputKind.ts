// What kind of input a path is, before any record is read, in words a user can act on: a special file (named
// pipe, device, /proc file, folder, symlink loop, dangling link) named for what it is; text encodings (UTF-8,
// UTF-16 with a byte-order mark, decoded to UTF-8 by TextTranscoder); and binary judged by the share of
// non-text bytes in the first block (NUL padding such as a crash leaves is not counted as binary).

import { formatBytes } from '../core/displayText';
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import { TextDecoder } from 'node:util';

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

/** Bytes of the head whose share of non-text bytes decides "binary". */
export const JUDGED_BLOCK_BYTES = 8192;
/** More than this share of non-text bytes in the judged block is binary. */
export const MAX_NON_TEXT_SHARE = 0.1;
/** A run of at least this many NUL bytes is padding (a crash, a preallocated file), not binary data. */
const NUL_PADDING_RUN = 8;

// ---------------------------------------------------------------------------------------------------------
// Paths that cannot be opened, and files that are not regular files

/** Why `path` could not be opened (from the error of stat or open), naming links that loop or lead nowhere. */
export async function describeUnopenable(path: string, error: NodeJS.ErrnoException): Promise<string> {
  switch (error.code) {
    case 'ENOENT': {
      try {
        const info = await lstat(path);
        if (info.isSymbolicLink()) {
          const target = await readlink(path).catch(() => '?');
          return `${path} is a symbolic link to ${target}, which does not exist. Fix the link, or give the path of the transcript itself.`;
        }
      } catch {
        // not there at all
      }
      return `${path}: no such file. Check the path.`;
    }
    case 'ELOOP':
      return `${path} is a symbolic link loop: it points, directly or through other links, back to itself, so it leads to no file. Fix or remove the link.`;
    case 'EACCES':
    case 'EPERM':
      return `${path} cannot be read: permission denied. Check the file's permissions, or copy it somewhere you can read it.`;
    case 'ENOTDIR':
      return `${path}: no such file (a part of the path is a file, not a folder). Check the path.`;
    case 'ENAMETOOLONG':
      return `${path}: the path is too long for the file system. Check the path.`;
    default:
      return `${path} cannot be opened (${error.code ?? error.message}). Check the path and the file.`;
  }
}

/** Says what `path` is when it is not a regular file with content (undefined for a usable file). */
export async function describeSpecialFile(path: string, info: Stats): Promise<string | undefined> {
  if (info.isDirectory()) return `${path} is a folder, not a transcript file.`;
  if (info.isFIFO()) {
    return `${path} is a named pipe (FIFO), not a file: what is written to it can be read only once, as it arrives, so it cannot be analysed and re-read as it grows. Save the transcript to a file and open that.`;
  }
  if (info.isSocket()) return `${path} is a socket, not a transcript file.`;
  if (info.isCharacterDevice()) {
    return `${path} is a character device (such as /dev/zero, /dev/null, /dev/random or a terminal), not a transcript file: it has no end or no content to analyse.`;
  }
  if (info.isBlockDevice()) return `${path} is a block device (a disk or a partition), not a transcript file.`;
  if (!info.isFile()) return `${path} is not a regular file, so it is not a transcript file.`;
  if (info.size > 0) return undefined;
  // Size 0: empty, or a kernel pseudo-file (/proc, /sys) whose content is made as it is read.
  if (await hasContent(path)) {
    const real = await realpath(path).catch(() => path);
    const where = real.startsWith('/proc/')
      ? 'a /proc file'
      : real.startsWith('/sys/')
        ? 'a /sys file'
        : 'a kernel pseudo-file (like the files under /proc and /sys)';
    return `${path} is ${where}: the kernel makes its content up as it is read and reports a size of 0, so it is not a transcript and cannot be followed as it grows. Copy it to a regular file if you mean to analyse it.`;
  }
  return `${path} is empty: there are no records to analyse.`;
}

async function hasContent(path: string): Promise<boolean> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const { bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, null);
      return bytesRead > 0;
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Encodings

/** The encoding a file's first bytes announce with a byte-order mark (UTF-8 when there is none). */
export function textEncodingOf(head: Buffer): TextEncodingName {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe && !(head.length >= 4 && head[2] === 0 && head[3] === 0)) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/** Decodes UTF-16 (its byte-order mark dropped) to UTF-8 bytes, chunk by chunk. */
export class TextTranscoder {
  private readonly decoder: TextDecoder;

  constructor(encoding: Exclude<TextEncodingName, 'utf-8'>) {
    this.decoder = new TextDecoder(encoding);
  }

  write(chunk: Buffer): Buffer {
    return Buffer.from(this.decoder.decode(chunk, { stream: true }), 'utf8');
  }

  end(): Buffer {
    return Buffer.from(this.decoder.decode(), 'utf8');
  }
}

// ---------------------------------------------------------------------------------------------------------
// Binary or text

export type HeadJudgement =
  /** Text: `text` is the head without NUL padding before the first record (and after the last, at the end). */
  | { kind: 'text'; text: Buffer }
  /** Not text; `message` follows the path ("… looks like binary data, …"). */
  | { kind: 'binary' | 'nul' | 'utf-16'; message: string };

function nulRunFrom(bytes: Buffer, at: number): number {
  let end = at;
  while (end < bytes.length && bytes[end] === 0) end++;
  return end - at;
}

/** Length of a valid UTF-8 sequence at `at`, 0 when invalid, -1 when cut off by the end of `bytes`. */
function utf8SequenceAt(bytes: Buffer, at: number): number {
  const lead = bytes[at];
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0) return 0;
  for (let k = 1; k < length; k++) {
    if (at + k >= bytes.length) return -1;
    const next = bytes[at + k];
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

/** Control bytes that text holds: tab, line feed, vertical tab, form feed, carriage return, escape. */
function isTextControl(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0b || byte === 0x0c || byte === 0x0d || byte === 0x1b;
}

/** Bytes of `block` that are not text, and bytes judged (NUL padding runs are neither). */
function countNonText(block: Buffer): { nonText: number; judged: number } {
  let nonText = 0;
  let padding = 0;
  let i = 0;
  while (i < block.length) {
    const byte = block[i];
    if (byte === 0) {
      const run = nulRunFrom(block, i);
      if (run >= NUL_PADDING_RUN) padding += run;
      else nonText += run;
      i += run;
    } else if (byte < 0x20) {
      if (!isTextControl(byte)) nonText++;
      i++;
    } else if (byte < 0x7f) {
      i++;
    } else if (byte === 0x7f) {
      nonText++;
      i++;
    } else {
      const length = utf8SequenceAt(block, i);
      if (length === -1) break; // cut by the end of the block
      if (length === 0) {
        nonText++;
        i++;
      } else {
        i += length;
      }
    }
  }
  return { nonText, judged: i - padding };
}

/** UTF-16 without a byte-order mark: mostly-ASCII text has a NUL in every other byte. */
function utf16WithoutBom(block: Buffer): 'little-endian' | 'big-endian' | undefined {
  const pairs = block.length >> 1;
  if (pairs < 8) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i + 1 < block.length; i += 2) {
    if (block[i] === 0) evenZeros++;
    if (block[i + 1] === 0) oddZeros++;
  }
  if (oddZeros > pairs * 0.3 && evenZeros < pairs * 0.05) return 'little-endian';
  if (evenZeros > pairs * 0.3 && oddZeros < pairs * 0.05) return 'big-endian';
  return undefined;
}

/**
 * Judges the first bytes of a file (decoded to UTF-8 already when it announced UTF-16). `reachesEnd` says the
 * head is the whole file, so NUL bytes at its end are padding at the file's end.
 */
export function judgeHead(head: Buffer, reachesEnd: boolean): HeadJudgement {
  const endian = utf16WithoutBom(head.subarray(0, JUDGED_BLOCK_BYTES));
  if (endian !== undefined) {
    return {
      kind: 'utf-16',
      message: `looks like UTF-16 text (${endian}) without a byte-order mark. Compaction Lens reads UTF-8, and UTF-16 that starts with a byte-order mark; re-save the file as UTF-8.`,
    };
  }
  const leading = nulRunFrom(head, 0);
  let end = head.length;
  if (reachesEnd) while (end > leading && head[end - 1] === 0) end--;
  const text = head.subarray(leading, end);
  if (text.length === 0) {
    const size = reachesEnd ? `all ${formatBytes(head.length)} of it` : `its first ${formatBytes(head.length)}`;
    return {
      kind: 'nul',
      message: `holds only NUL bytes (${size}): zero padding, such as a crash, an interrupted write or a preallocated file leaves, with no records to analyse.`,
    };
  }
  const block = text.subarray(0, JUDGED_BLOCK_BYTES);
  const { nonText, judged } = countNonText(block);
  if (judged > 0 && nonText > judged * MAX_NON_TEXT_SHARE) {
    const share = Math.round((100 * nonText) / judged);
    return {
      kind: 'binary',
      message: `looks like binary data, not a transcript: ${share}% of its first ${formatBytes(judged)} are not text (control bytes or invalid UTF-8; up to ${Math.round(MAX_NON_TEXT_SHARE * 100)}% is allowed).`,
    };
  }
  return { kind: 'text', text };
}
