// runBundle (src/cli/bundleCommand.ts) in this process, with an output that stands for a pipe whose reader is
// behind: the bundle is written a block at a time, the next block waits until the output has drained, the blocks
// joined are the whole bundle (one newline at its end), and nothing is written for ids that name no turn.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCommandLine } from '../../../src/cli/args';
import { type BundleOutput, runBundle } from '../../../src/cli/bundleCommand';

/** A canonical transcript of `turns` turns, one checkpoint claiming them all, its summary carrying turn 0 only. */
function droppedTranscript(turns: number): string {
  const lines: string[] = [];
  for (let id = 0; id < turns; id++) {
    lines.push(
      JSON.stringify({
        type: 'turn',
        id,
        role: 'user',
        content: `ANCHOR-${id}- moved table_${id} to shard ${id % 7}`,
        tokens: 20,
        anchor: `ANCHOR-${id}-`,
      }),
    );
  }
  lines.push(
    JSON.stringify({
      type: 'checkpoint',
      summary_id: 'S1',
      summary: 'Carried ANCHOR-0- only.',
      summary_budget: 4096,
      covered: Array.from({ length: turns }, (_, id) => id),
    }),
  );
  return `${lines.join('\n')}\n`;
}

function bundleOptions(args: string[]) {
  const parsed = readCommandLine(['bundle', ...args], false);
  if (parsed.kind !== 'bundle') throw new Error(`not a bundle command line: ${JSON.stringify(parsed)}`);
  return parsed.options;
}

/** An output that says every write waits, and drains only when the test lets it. */
class SlowPipe implements BundleOutput {
  readonly written: string[] = [];
  /** How many blocks had been written each time a drain was waited for. */
  readonly waits: number[] = [];
  private release: (() => void) | undefined;

  write(text: string): boolean {
    assert.equal(this.release, undefined, 'no block is written while the output has not drained');
    this.written.push(text);
    return false;
  }

  drained(): Promise<void> {
    this.waits.push(this.written.length);
    return new Promise((resolve) => {
      this.release = () => {
        this.release = undefined;
        resolve();
      };
      setTimeout(() => this.release?.(), 1);
    });
  }
}

describe('compaction-lens bundle: its output written as it is made (in process)', function () {
  this.timeout(60000);
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-bundle-out-'));
    file = join(dir, 'dropped.jsonl');
    writeFileSync(file, droppedTranscript(1200));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('waits for the output to drain before each next block, and the blocks joined are the whole bundle', async () => {
    const pipe = new SlowPipe();
    const outcome = await runBundle(bundleOptions([file]), pipe);
    assert.equal(outcome.kind, 'done');
    assert.ok(pipe.written.length >= 3, `several blocks: ${pipe.written.length}`);
    // A wait after each step that wrote; the bundle's end hands over its last two blocks at once.
    assert.ok(pipe.waits.length >= pipe.written.length - 2, `waits ${pipe.waits.join(',')} for ${pipe.written.length} blocks`);
    pipe.waits.forEach((count, k) => assert.ok(count > (pipe.waits[k - 1] ?? 0), 'each wait after a new block'));
    const markdown = pipe.written.join('');
    assert.match(markdown, /^## Turns dropped by checkpoint S1, recovered from the raw log\n/);
    assert.equal([...markdown.matchAll(/\n### turn \d+ · /g)].length, 1199);
    assert.match(markdown, /[^\n]\n$/, 'one newline at the end');
    assert.match(outcome.kind === 'done' ? outcome.note : '', /recovery bundle: 1,199 turns, [\d,]+ tokens/);
  });

  it('writes nothing when an id names no turn', async () => {
    const pipe = new SlowPipe();
    const outcome = await runBundle(bundleOptions([file, '--turns', '3,nope']), pipe);
    assert.deepEqual(outcome, {
      kind: 'error',
      message: `${file}: no turn has the id "nope" (turn ids are as the transcript spells them)`,
    });
    assert.deepEqual(pipe.written, []);
  });
});
