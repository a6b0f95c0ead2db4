// Finds and reads the files a format keeps beside a transcript, for its reader to use. Today only Claude Code
// has them: the summariser's own run, `<dir>/<sessionId>/subagents/agent-acompact-*.jsonl` next to
// `<dir>/<sessionId>.jsonl`. Read-only; gzip (`.jsonl.gz`) is decompressed transparently. Never throws: a
// missing or unreadable side file simply is not returned. Bounded, whatever the folder holds: at most
// MAX_SIDE_FILES files and MAX_SIDE_FILE_TOTAL_BYTES of text in all, only regular files whose real path is
// inside the session's folder (a symlink out of it is not followed). What was left out is said in problems.

import { constants } from 'node:fs';
import { access, open, readdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FormatId, Problem, SideFile } from '../core/model';
import { formatBytes } from '../core/displayText';

/** Side files larger than this are not loaded (a summariser run is tens of kilobytes). */
export const MAX_SIDE_FILE_BYTES = 32 * 1024 * 1024;
/** At most this many side files are read per transcript. */
export const MAX_SIDE_FILES = 256;
/** At most this much side-file text (after decompression) is kept per transcript, in all. */
export const MAX_SIDE_FILE_TOTAL_BYTES = 64 * 1024 * 1024;

const ACOMPACT_FILE = /^agent-acompact-.*\.jsonl(\.gz)?$/;
/** A sub-agent's own run, in a session's `subagents` folder (the summariser's is one of them). */
const SUB_AGENT_FILE = /^agent-.*\.jsonl(\.gz)?$/;

export interface SideFileLimits {
  maxFiles?: number;
  maxTotalBytes?: number;
  maxFileBytes?: number;
}

export interface LoadedSideFiles {
  files: SideFile[];
  /** What was left out and why (line 0: they concern the whole transcript). */
  problems: Problem[];
}

/** The session id a Claude Code transcript is named after: `<id>.jsonl` or `<id>.jsonl.gz`. */
function sessionStem(transcriptPath: string): string {
  return basename(transcriptPath)
    .replace(/\.gz$/, '')
    .replace(/\.jsonl$/, '');
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

type ReadResult = { text: string } | { skipped: 'not-a-file' | 'too-large' | 'unreadable' };

/** Reads one side file (already known to be inside the session folder), at most `limit` bytes of text. */
async function readText(path: string, limit: number): Promise<ReadResult> {
  let handle;
  try {
    // O_NOFOLLOW: the path is the file's real path, so a link swapped in meanwhile is refused, not followed.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { skipped: 'unreadable' };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { skipped: 'not-a-file' };
    const gzip = path.endsWith('.gz');
    if (info.size > limit) return { skipped: 'too-large' };
    const bytes = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(bytes, 0, info.size, 0);
    const raw = bytes.subarray(0, bytesRead);
    if (!gzip) return { text: raw.toString('utf8') };
    try {
      return { text: gunzipSync(raw, { maxOutputLength: Math.max(1, limit) }).toString('utf8') };
    } catch (error) {
      return {
        skipped: (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError ? 'too-large' : 'unreadable',
      };
    }
  } catch {
    return { skipped: 'unreadable' };
  } finally {
    await handle.close();
  }
}

async function claudeCodeSideFiles(transcriptPath: string, limits: Required<SideFileLimits>): Promise<LoadedSideFiles> {
  const files: SideFile[] = [];
  const problems: Problem[] = [];
  let sessionFolder: string;
  try {
    sessionFolder = join(await realpath(dirname(transcriptPath)), sessionStem(transcriptPath));
  } catch {
    return { files, problems };
  }
  const folder = join(dirname(transcriptPath), sessionStem(transcriptPath), 'subagents');
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return { files, problems };
  }
  const candidates = names.filter((n) => ACOMPACT_FILE.test(n)).sort();
  const outside: string[] = [];
  const tooLarge: string[] = [];
  let overBudget = 0;
  let total = 0;
  for (const name of candidates.slice(0, limits.maxFiles)) {
    const path = join(folder, name);
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      continue; // a dangling link or a loop: nothing to read
    }
    if (!isInside(sessionFolder, real)) {
      outside.push(name);
      continue;
    }
    const remaining = limits.maxTotalBytes - total;
    if (remaining <= 0) {
      overBudget++;
      continue;
    }
    const result = await readText(real, Math.min(limits.maxFileBytes, remaining));
    if ('text' in result) {
      files.push({ path, text: result.text });
      total += Buffer.byteLength(result.text, 'utf8');
    } else if (result.skipped === 'too-large') {
      if (remaining < limits.maxFileBytes) overBudget++;
      else tooLarge.push(name);
    }
  }
  const where = `in ${folder}`;
  if (candidates.length > limits.maxFiles) {
    problems.push({
      line: 0,
      severity: 'warning',
      message: `there are ${candidates.length} summariser side files ${where}; only the first ${limits.maxFiles} (by name) were read, so the other checkpoints are checked without their raw summariser output. A session rarely has that many: check that the folder is what Claude Code wrote.`,
    });
  }
  if (overBudget > 0) {
    problems.push({
      line: 0,
      severity: 'warning',
      message: `${overBudget} summariser side file${overBudget === 1 ? ' was' : 's were'} not read ${where}: the side files read before reached the ${formatBytes(limits.maxTotalBytes)} limit for all of them together (summariser runs are tens of kilobytes each). Their checkpoints are checked without their raw summariser output.`,
    });
  }
  if (tooLarge.length > 0) {
    problems.push({
      line: 0,
      severity: 'warning',
      message: `${tooLarge.length} summariser side file${tooLarge.length === 1 ? ' is' : 's are'} over the ${formatBytes(limits.maxFileBytes)} limit for one (after decompression) and ${tooLarge.length === 1 ? 'was' : 'were'} not read ${where}: ${tooLarge.slice(0, 3).join(', ')}${tooLarge.length > 3 ? ', …' : ''}.`,
    });
  }
  if (outside.length > 0) {
    problems.push({
      line: 0,
      severity: 'warning',
      message: `${outside.length} summariser side file${outside.length === 1 ? ' is a link' : 's are links'} to a place outside the session's folder (${sessionFolder}) and ${outside.length === 1 ? 'was' : 'were'} not followed: ${outside.slice(0, 3).join(', ')}${outside.length > 3 ? ', …' : ''}. Compaction Lens reads side files only inside the session's own folder.`,
    });
  }
  return { files, problems };
}

/** Side files the reader of `format` can use for the transcript at `transcriptPath` (possibly none), and what was left out. */
export async function loadSideFiles(format: FormatId, transcriptPath: string, limits: SideFileLimits = {}): Promise<LoadedSideFiles> {
  const bounded: Required<SideFileLimits> = {
    maxFiles: limits.maxFiles ?? MAX_SIDE_FILES,
    maxTotalBytes: limits.maxTotalBytes ?? MAX_SIDE_FILE_TOTAL_BYTES,
    maxFileBytes: limits.maxFileBytes ?? MAX_SIDE_FILE_BYTES,
  };
  if (format === 'claude-code') return claudeCodeSideFiles(transcriptPath, bounded);
  return { files: [], problems: [] };
}

/**
 * What to tell someone who opened a Claude Code sub-agent's own run (`<dir>/<sessionId>/subagents/agent-*.jsonl`)
 * as a transcript: its records are the sub-agent's sidechain, none the session's own, so nothing in it is read.
 * Names the session's transcript to check instead (`<dir>/<sessionId>.jsonl`, or `.jsonl.gz`, whichever is
 * there). Undefined for any other path.
 */
export async function subAgentRunHint(path: string): Promise<string | undefined> {
  const name = basename(path);
  const subagents = dirname(path);
  if (!SUB_AGENT_FILE.test(name) || basename(subagents) !== 'subagents') return undefined;
  const sessionFolder = dirname(subagents);
  const sessionId = basename(sessionFolder);
  const candidates = [`${sessionId}.jsonl`, `${sessionId}.jsonl.gz`].map((file) => join(dirname(sessionFolder), file));
  let transcript: string | undefined;
  for (const candidate of candidates) {
    if (await readable(candidate)) {
      transcript = candidate;
      break;
    }
  }
  const what = ACOMPACT_FILE.test(name)
    ? `It is the summariser's own run for a compaction of Claude Code session ${sessionId}, which Compaction Lens reads beside that session's transcript`
    : `It is a sub-agent's own run within Claude Code session ${sessionId}: its records are the sub-agent's, not the session's turns`;
  const instead =
    transcript !== undefined ? `check ${transcript} instead.` : `check the session's transcript instead (${candidates[0]}, not found).`;
  return `${what}: ${instead}`;
}

/** Whether this process may read the file at `path`. */
async function readable(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
