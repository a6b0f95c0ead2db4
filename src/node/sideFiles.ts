// Finds and reads the files a format keeps beside a transcript, for its reader to use. Today only Claude Code
// has them: the summariser's own run, `<dir>/<sessionId>/subagents/agent-acompact-*.jsonl` next to
// `<dir>/<sessionId>.jsonl`. Read-only; gzip (`.jsonl.gz`) is decompressed transparently. Never throws:
// a missing or unreadable side file simply is not returned.

import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FormatId, SideFile } from '../core/model';

/** Side files larger than this are not loaded (a summariser run is tens of kilobytes). */
const MAX_SIDE_FILE_BYTES = 32 * 1024 * 1024;

const ACOMPACT_FILE = /^agent-acompact-.*\.jsonl(\.gz)?$/;

/** The session id a Claude Code transcript is named after: `<id>.jsonl` or `<id>.jsonl.gz`. */
function sessionStem(transcriptPath: string): string {
  return basename(transcriptPath).replace(/\.gz$/, '').replace(/\.jsonl$/, '');
}

async function readText(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > MAX_SIDE_FILE_BYTES) return undefined;
    const bytes = await readFile(path);
    const plain = path.endsWith('.gz') ? gunzipSync(bytes, { maxOutputLength: MAX_SIDE_FILE_BYTES }) : bytes;
    return plain.toString('utf8');
  } catch {
    return undefined;
  }
}

async function claudeCodeSideFiles(transcriptPath: string): Promise<SideFile[]> {
  const folder = join(dirname(transcriptPath), sessionStem(transcriptPath), 'subagents');
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const files: SideFile[] = [];
  for (const name of names.filter((n) => ACOMPACT_FILE.test(n)).sort()) {
    const path = join(folder, name);
    const text = await readText(path);
    if (text !== undefined) files.push({ path, text });
  }
  return files;
}

/** Side files the reader of `format` can use for the transcript at `transcriptPath` (possibly none). */
export async function loadSideFiles(format: FormatId, transcriptPath: string): Promise<SideFile[]> {
  if (format === 'claude-code') return claudeCodeSideFiles(transcriptPath);
  return [];
}
