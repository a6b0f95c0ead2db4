// Adversarial inputs for detectTruncation (issue 10): each hostile text of about 1 MB as a summary, as the last
// list item or heading, between prose lines, and as the texts the summary was written from (the cut-word tell).
// Correctness tests with a generous bound: each must finish inside the suite's timeout; nothing is timed.
import assert from 'node:assert/strict';
import { detectTruncation } from '../../../src/core/truncation';
import { fill, HOSTILE, SIZE } from './hostileInputs';

const HINTS = {
  expectedClosings: ['Please continue the conversation'],
  expectedLastSection: 9,
  rawOutputClosed: true,
  rawClosingMarker: '</summary>',
};

function check(summary: string, sources: string[] = []) {
  const report = detectTruncation(summary, 1000, 4096, HINTS, 0.03, sources);
  assert.equal(typeof report.truncated, 'boolean');
  assert.ok(Array.isArray(report.reasons));
  for (const reason of report.reasons) assert.equal(typeof reason, 'string');
  return report;
}

describe('adversarial: detectTruncation on 1 MB of hostile text', function () {
  this.timeout(10000);
  this.slow(3000);

  for (const [name, text] of HOSTILE) {
    it(name, () => {
      check(text);
      check(`Intro.\n${text}\nMore prose`);
      check(`- item\n- ${text}`);
      check(`## ${text}`);
      check(`see ${text}`, [text]);
      check(`- last item ${text.slice(0, 64)}`, [text, text.slice(1)]);
    });
  }

  it("the issue's dash line inside prose: a complete text, read in one pass", () => {
    const report = check(`Intro.\n${fill('-')}\nMore prose.`);
    assert.deepEqual(
      report.reasons.filter((r) => r.startsWith('ends mid')),
      [],
    );
  });

  it('"/" × N + "a" ends mid-clause (the path test used to backtrack cubically here)', () => {
    const report = detectTruncation(`${fill('/', SIZE - 1)}a`, 10, undefined, undefined);
    assert.equal(report.truncated, true);
    assert.match(report.reasons[0], /^ends mid-clause: “…?\/+a”$/);
  });

  it('a text ending on a path with an extension after a run of slashes is complete; without the extension it is cut', () => {
    assert.equal(detectTruncation(`See ${fill('/', SIZE)}src/ledger.ts`, 10, undefined, undefined).truncated, false);
    assert.equal(detectTruncation(`See ${fill('/', SIZE)}src/ledger`, 10, undefined, undefined).truncated, true);
  });

  it('"a" × N + " b" ends mid-clause', () => {
    const report = detectTruncation(`${fill('a', SIZE - 2)} b`, 10, undefined, undefined);
    assert.equal(report.truncated, true);
    assert.match(report.reasons[0], /^ends mid-clause: “…?a+ b”$/);
  });

  it('a cut word that starts a 1 MB run of the same letter in a source is found once, not at every offset', () => {
    const report = detectTruncation(`Steps:\n- x ${fill('a', SIZE / 2)}`, 10, undefined, undefined, 0.03, [fill('a', SIZE)]);
    assert.equal(report.truncated, true);
    assert.ok(
      report.reasons[0].startsWith('ends mid-word: “…aaaa') && report.reasons[0].endsWith('aaaa”, used elsewhere'),
      report.reasons[0].slice(0, 80),
    );
  });

  it('a cut word of "İ" (two code units once lower-cased) against 1 MB of them', () => {
    const report = detectTruncation(`Steps:\n- x ${fill('İ', SIZE / 4)}`, 10, undefined, undefined, 0.03, [fill('İ', SIZE / 2)]);
    assert.equal(typeof report.truncated, 'boolean');
  });

  it('a cut word used whole in a 1 MB source is no cut', () => {
    const source = `${fill('ab ', SIZE)}abcdef`;
    assert.equal(detectTruncation('Steps:\n- x abcdef', 10, undefined, undefined, 0.03, [source]).truncated, false);
    assert.equal(detectTruncation('Steps:\n- x abcd', 10, undefined, undefined, 0.03, [source]).truncated, true);
  });
});
