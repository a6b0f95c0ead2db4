// Tests for the CLI's optimisation budget (src/cli/tierUpSettings.ts), in a child process of their own, since it
// changes the process's V8 flags: V8 knows the flag (it prints nothing), and a function run 50 times is optimised
// under V8's default budget but still interpreted under the CLI's, and optimised once run 400 times either way.
// V8's %GetOptimizationStatus says which; --no-concurrent-recompilation makes the optimising happen at once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const SETTINGS = resolve(__dirname, '../../../src/cli/tierUpSettings.js');

/** Whether `work` is optimised after 50 calls and after 400 (after delayTierUp when `delay`). */
const SCRIPT = `
const { delayTierUp } = require(${JSON.stringify(SETTINGS)});
if (process.argv[1] === 'delay') delayTierUp();
function work(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003;
  return s;
}
const OPTIMIZED = 16;
const optimisedAfter = {};
for (let call = 1; call <= 400; call++) {
  work(50);
  if (call === 50 || call === 400) optimisedAfter[call] = (%GetOptimizationStatus(work) & OPTIMIZED) !== 0;
}
console.log(JSON.stringify(optimisedAfter));
`;

function run(delay: boolean): Record<string, boolean> {
  const result = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', '-e', SCRIPT, delay ? 'delay' : 'plain'],
    { encoding: 'utf8' },
  );
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '', 'V8 printed something: an unknown flag?');
  return JSON.parse(result.stdout) as Record<string, boolean>;
}

describe('cli/tierUpSettings', function () {
  this.timeout(20_000);

  it('V8 takes the flag, and optimises a hot function later', () => {
    assert.deepEqual(run(true), { '50': false, '400': true });
  });

  it('without it, the same function is optimised within 50 calls', () => {
    assert.deepEqual(run(false), { '50': true, '400': true });
  });
});
