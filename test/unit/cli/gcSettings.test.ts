// Tests for the CLI's garbage collection settings (src/cli/gcSettings.ts), in a child process of their own, since
// they change the process's V8 flags: before tuneGarbageCollection, collectGarbage does nothing; after it, it runs
// a full collection (an object only a WeakRef holds is gone), and neither this context nor a new one has a `gc`
// global. (On Node 20 a context made after the collector was taken has none even if `--expose-gc` were left set,
// so that last check guards against a V8 that behaves otherwise; it does not tell whether the flag was unset.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const SETTINGS = resolve(__dirname, '../../../src/cli/gcSettings.js');

/** Whether an object only a WeakRef holds is still there after collectGarbage (tuned first when `tune`). */
const SCRIPT = `
const { collectGarbage, tuneGarbageCollection } = require(${JSON.stringify(SETTINGS)});
const { runInNewContext } = require('node:vm');
if (process.argv[1] === 'tune') tuneGarbageCollection();
let ref = new WeakRef({ big: new Array(1000).fill(1) });
// A WeakRef's target is kept until the job that made it ends.
setImmediate(() => {
  collectGarbage();
  console.log(JSON.stringify({ alive: ref.deref() !== undefined, gcHere: typeof gc, gcInNew: runInNewContext('typeof gc') }));
});
`;

function run(tune: boolean): { alive: boolean; gcHere: string; gcInNew: string } {
  const result = spawnSync(process.execPath, ['-e', SCRIPT, tune ? 'tune' : 'plain'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as { alive: boolean; gcHere: string; gcInNew: string };
}

describe('cli/gcSettings', function () {
  this.timeout(20_000);

  it('collects garbage once tuned, and no context has a gc global', () => {
    assert.deepEqual(run(true), { alive: false, gcHere: 'undefined', gcInNew: 'undefined' });
  });

  it('does nothing before it is tuned', () => {
    // No collection in so short a script: the object is still there.
    assert.deepEqual(run(false), { alive: true, gcHere: 'undefined', gcInNew: 'undefined' });
  });
});
