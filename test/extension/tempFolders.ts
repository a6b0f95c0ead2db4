// Temporary folders of one extension-host test run: each test's folder is made inside one folder of the run, which
// the test index (index.ts) removes when mocha is done, so a run leaves nothing in the system's temporary folder
// (it left some seventy folders a run before).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

let runFolder: string | undefined;

/** A new empty folder, inside this run's folder (made at the first call). */
export function tempFolder(prefix = 'compaction-lens-test-'): string {
  runFolder ??= mkdtempSync(path.join(tmpdir(), 'compaction-lens-run-'));
  return mkdtempSync(path.join(runFolder, prefix));
}

/** Removes this run's folder and everything the tests left in it (nothing when none was made). */
export function removeTempFolders(): void {
  if (runFolder === undefined) return;
  rmSync(runFolder, { recursive: true, force: true });
  runFolder = undefined;
}
