// Standard input as a transcript: `-` for FILE in `check`, `find` and `bundle` (`cat s.jsonl | compaction-lens check -`,
// `gunzip -c` or a compressed stream alike). What comes in is copied to a new temporary file as it comes, so it is
// never all in memory, and that file is read as any file is; it is removed when the process ends, also when it is
// stopped by SIGINT or SIGTERM. Reports name it "(standard input)".
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UnusableTranscriptError } from '../node/transcriptFile';
import { onInterrupt } from './interrupt';

/** What FILE is on the command line for standard input. */
export const STANDARD_INPUT = '-';

/** How reports and messages name standard input. */
export const STANDARD_INPUT_NAME = '(standard input)';

/** The name to show for a FILE of the command line. */
export function shownName(path: string): string {
  return path === STANDARD_INPUT ? STANDARD_INPUT_NAME : path;
}

let copied: Promise<string> | undefined;

/** The temporary file holding standard input, copied on first use (standard input can be read once). */
export function standardInputFile(): Promise<string> {
  copied ??= copyStandardInput();
  return copied;
}

async function copyStandardInput(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UnusableTranscriptError(
      `${STANDARD_INPUT_NAME} is a terminal, not a transcript: pipe one in (cat FILE | compaction-lens check -), or name the file.`,
      STANDARD_INPUT_NAME,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'compaction-lens-stdin-'));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  onInterrupt(remove);
  const path = join(dir, 'stdin');
  await pipeline(process.stdin, createWriteStream(path));
  return path;
}
