// Test helper: how much of the heap a piece of work leaves behind, measured in a child process of its own run with
// --expose-gc (a full collection before and after the work), so that no other test's objects are counted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/**
 * Runs `setup`, a full collection, `work`, and another collection, in a new Node.js process; returns the heap kept
 * after the work, in MB (rounded). `work` keeps what it means to keep in variables of the script's own scope.
 */
export function heapKeptMb(setup: string, work: string): number {
  const script = `${setup}
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    ${work}
    gc();
    console.log(Math.round((process.memoryUsage().heapUsed - heapBefore) / 1e6));`;
  const run = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return Number(run.stdout.trim());
}
