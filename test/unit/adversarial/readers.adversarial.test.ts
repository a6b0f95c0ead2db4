// Adversarial inputs for every reader and for analyze (issue 10): a session of each format whose summary (and,
// for analyze, whose turns) hold about 1 MB of hostile text, fed line by line through the line splitter the CLI
// and the extension use (test/unit/formats/feedLines.ts), read whole and as a file that grows, then analysed.
// Correctness tests with a generous bound: each must finish inside the suite's timeout; nothing is timed.
import assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import type { Transcript } from '../../../src/core/model';
import { feed, feedAppending } from '../formats/feedLines';
import { fill, FORMATS, HOSTILE, ISSUE_REPRODUCTIONS, SIZE, type FormatCase } from './hostileInputs';

/** One token per four characters: deterministic and linear, where the exact count does not matter. */
const countTokens = (text: string) => Math.ceil(text.length / 4);

function read(format: FormatCase, summary: string, text: string): Transcript {
  return feed(format.reader(format.sideFiles?.(summary)), format.session(summary, text));
}

function wellFormed(t: Transcript, summary: string): void {
  assert.ok(Array.isArray(t.turns) && Array.isArray(t.problems));
  assert.equal(t.checkpoints.length, 1, JSON.stringify(t.problems.slice(0, 3)));
  assert.ok(t.checkpoints[0].summary.includes(summary.slice(0, 1000)));
  assert.ok(t.turns.length >= 3);
}

function analysed(t: Transcript): void {
  const analysis = analyze(t, { countTokens });
  assert.equal(analysis.checkpoints.length, t.checkpoints.length);
  for (const cp of analysis.checkpoints) {
    assert.ok(['reversible', 'conditional', 'fail-closed'].includes(cp.verdict), cp.verdict);
    for (const turn of cp.turns) assert.equal(typeof turn.status, 'string');
  }
  assert.ok(!analysis.problems.some((p) => p.message.startsWith('could not analyse')), JSON.stringify(analysis.problems.slice(0, 3)));
}

describe('adversarial: every reader on 1 MB of hostile text in its summary and turns', function () {
  this.timeout(10000);
  this.slow(3000);

  for (const format of FORMATS) {
    describe(format.name, () => {
      // The summary holds the whole text; the turns (a message, a call and its result) an eighth of it each.
      for (const [name, text] of HOSTILE) {
        it(name, () => wellFormed(read(format, text, text.slice(0, SIZE / 8)), text));
      }

      it('the summary grows line by line (re-read on every append): runs of newlines and spaces', () => {
        for (const text of [fill('\n', SIZE / 4), fill(' ', SIZE / 4), fill('\n ', SIZE / 4)]) {
          const input = format.session(text, 'Fix ERR_4107 in src/ledger.ts');
          const lines = input.split('\n').length;
          for (const cut of [1, Math.floor(lines / 2), lines - 1]) {
            const t = feedAppending(format.reader(format.sideFiles?.(text)), input, cut);
            assert.ok(Array.isArray(t.checkpoints));
          }
        }
      });
    });
  }
});

describe('adversarial: analyze on 1 MB of hostile text in the summary and the turns', function () {
  this.timeout(10000);
  this.slow(3000);

  // The summary holds the whole text; the turns (a message, a call and its result) a third of it each.
  const canonical = FORMATS.find((f) => f.name === 'canonical')!;
  for (const [name, text] of HOSTILE) {
    it(`canonical: ${name}`, () => analysed(read(canonical, text, text.slice(0, SIZE / 3))));
  }

  for (const format of FORMATS.filter((f) => f !== canonical)) {
    for (const [name, text] of HOSTILE.slice(0, ISSUE_REPRODUCTIONS)) {
      it(`${format.name}: ${name}`, () => analysed(read(format, text, text.slice(0, SIZE / 3))));
    }
  }

  it('ten turns of "x" + "-" × 99,998 + "x" (1 MB) and a summary of them', () => {
    const word = `x${'-'.repeat(99998)}x`;
    const lines = Array.from({ length: 10 }, (_, i) =>
      JSON.stringify({ type: 'turn', id: i, role: i % 2 ? 'assistant' : 'user', content: word }),
    );
    lines.push(
      JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: `Kept ${word}.`, summary_budget: 4096, covered: { from: 0, to: 9 } }),
    );
    const t = feed(canonical.reader(), `${lines.join('\n')}\n`);
    assert.equal(t.turns.length, 10);
    analysed(t);
  });

  it('a summary of "Intro." + 1 MB of "-" + "More prose." is no truncation by its last word', () => {
    const summary = `Intro.\n${fill('-')}\nMore prose.`;
    const t = read(canonical, summary, 'Fix ERR_4107 in src/ledger.ts');
    const cp = analyze(t, { countTokens }).checkpoints[0];
    assert.ok(!cp.truncation.reasons.some((r) => r.startsWith('ends mid')), cp.truncation.reasons.join('; '));
  });
});
