// Tests for the CLI's progress line on a terminal (src/cli/progressLine.ts): nothing off a terminal, nothing for
// quick files, redrawn at most every 200 ms and erased when done, the early verdicts shown while the analysis
// goes on (and forgotten for the next file, or once the file's analysis is done), a step without a percentage,
// and transcript text escaped for the terminal.
import assert from 'node:assert/strict';
import { progressPrinter } from '../../../src/cli/progressLine';

function terminal(): { isTTY: boolean; written: string[]; write(text: string): void } {
  const written: string[] = [];
  return { isTTY: true, written, write: (text: string) => void written.push(text) };
}

describe('cli/progressLine', () => {
  it('prints nothing when stderr is not a terminal', () => {
    assert.equal(progressPrinter({ isTTY: false, write: () => assert.fail('wrote') }), undefined);
    assert.equal(progressPrinter({ write: () => assert.fail('wrote') }), undefined);
  });

  it('shows a file only after half a second, redraws at most every 200 ms, and erases the line when done', () => {
    const out = terminal();
    let time = 1000;
    const printer = progressPrinter(out, () => time)!;
    printer.progress('a.jsonl', 0.1, 'reading…');
    time = 1400;
    printer.progress('a.jsonl', 0.2, 'reading…');
    assert.deepEqual(out.written, []);
    time = 1600;
    printer.progress('a.jsonl', 0.5, 'counting tokens… 12%');
    time = 1700;
    printer.progress('a.jsonl', 0.6, 'counting tokens… 30%');
    assert.deepEqual(out.written, ['\r\u001b[Ka.jsonl: counting tokens… 50%']);
    printer.progress('a.jsonl', 1, 'done');
    assert.deepEqual(out.written.slice(1), ['\r\u001b[K']);
  });

  it('says the verdicts settled early while the analysis goes on, for that file only', () => {
    const out = terminal();
    let time = 0;
    const printer = progressPrinter(out, () => time)!;
    printer.progress('a.jsonl', 0.4, 'counting tokens…');
    printer.verdict?.('a.jsonl', [
      { summaryId: 'S1', verdict: 'fail-closed' },
      { summaryId: 'S2', verdict: 'reversible' },
    ]);
    time = 600;
    printer.progress('a.jsonl', 0.7, 'counting tokens… 50%');
    assert.deepEqual(out.written, ['\r\u001b[Ka.jsonl: S1 fail-closed, S2 reversible (still counting tokens… 70%)']);
    printer.progress('a.jsonl', 1, 'done');
    time = 1000;
    printer.progress('b.jsonl', 0.1, 'reading…');
    time = 1600;
    printer.progress('b.jsonl', 0.5, 'counting tokens…');
    assert.equal(out.written.at(-1), '\r\u001b[Kb.jsonl: counting tokens… 50%');
  });

  it("shows a step whose end cannot be told without a percentage, and no verdict once the file's analysis is done", () => {
    const out = terminal();
    let time = 0;
    const printer = progressPrinter(out, () => time)!;
    printer.progress('a.jsonl', 0.4, 'judging turns…');
    printer.verdict?.('a.jsonl', [{ summaryId: 'S1', verdict: 'fail-closed' }]);
    time = 600;
    printer.progress('a.jsonl', 0.9, 'judging turns…');
    printer.progress('a.jsonl', 1, 'done');
    time = 900;
    printer.progress('a.jsonl', undefined, 'writing the export: 12 MB');
    time = 1000;
    printer.progress('a.jsonl', undefined, 'writing the export: 13 MB');
    time = 1200;
    printer.progress('a.jsonl', 0.5, 'writing the bundle');
    assert.deepEqual(out.written, [
      '\r\u001b[Ka.jsonl: S1 fail-closed (still judging turns… 90%)',
      '\r\u001b[K',
      '\r\u001b[Ka.jsonl: writing the export: 12 MB',
      '\r\u001b[Ka.jsonl: writing the bundle 50%',
    ]);
  });

  it('escapes control characters from file names and summary ids', () => {
    const out = terminal();
    let time = 0;
    const printer = progressPrinter(out, () => time)!;
    printer.verdict?.('evil\u001b[2J.jsonl', [{ summaryId: 'S\u001b]0;x\u0007', verdict: 'reversible' }]);
    time = 600;
    printer.progress('evil\u001b[2J.jsonl', 0.5, 'counting tokens…');
    const [line] = out.written;
    assert.ok(line.startsWith('\r\u001b[K'));
    assert.ok(!line.slice(4).includes('\u001b'), line);
    assert.ok(!line.includes('\u0007'), line);
  });
});
