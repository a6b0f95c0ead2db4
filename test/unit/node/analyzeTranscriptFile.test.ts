// Tests for analyzeTranscriptFile (the library's one-call analysis of a file): the incident sample analysed as
// the CLI does (counted in workers, the transcript returned as the raw log), its options (ratio floor, a budget
// assumed for every format, a forced format), and an unusable file rejected with UnusableTranscriptError.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyzeTranscriptFile } from '../../../src/node/analyzeTranscriptFile';
import { UnusableTranscriptError } from '../../../src/node/transcriptFile';

const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');

describe('node/analyzeTranscriptFile', function () {
  this.timeout(60000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-analyze-file-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('analyses the incident as the CLI does and returns its turns as the raw log', async () => {
    const fractions: number[] = [];
    const { path, format, transcript, analysis } = await analyzeTranscriptFile(SAMPLE, {
      onProgress: (fraction) => fractions.push(fraction),
    });
    assert.equal(path, SAMPLE);
    assert.equal(format, 'canonical');
    assert.equal(transcript.turns.length, 422);
    assert.match(transcript.turns[408].text, /ERR_LEDGER_4107/);
    const [checkpoint] = analysis.checkpoints;
    assert.equal(checkpoint.verdict, 'fail-closed');
    assert.equal(checkpoint.ceiling, 4096 * 5);
    assert.equal(checkpoint.counts['claimed-missing'], 40);
    assert.equal(checkpoint.safeCovered.length, 380);
    assert.ok(
      checkpoint.summaryTokens > 4000 && checkpoint.summaryTokens <= 4096,
      `summary counted by tiktoken: ${checkpoint.summaryTokens}`,
    );
    assert.equal(fractions.at(-1), 1);
  });

  it('uses the ratio floor it is given', async () => {
    const { analysis } = await analyzeTranscriptFile(SAMPLE, { ratioFloor: 11 });
    assert.equal(analysis.checkpoints[0].ceiling, 4096 * 11);
    assert.equal(analysis.checkpoints[0].overCeiling, false);
  });

  it('assumes the summary budget it is given when the transcript records none', async () => {
    const file = join(dir, 'no-budget.jsonl');
    writeFileSync(
      file,
      [
        { type: 'turn', id: 0, role: 'user', content: 'Rotate the key ABC_123.', tokens: 10, anchor: 'ABC_123' },
        { type: 'checkpoint', summary_id: 'S1', summary: 'Rotated ABC_123.', covered: [0] },
      ]
        .map((record) => JSON.stringify(record))
        .join('\n') + '\n',
    );
    const unknown = (await analyzeTranscriptFile(file)).analysis.checkpoints[0];
    assert.equal(unknown.summaryBudget, undefined);
    assert.equal(unknown.verdict, 'fail-closed');
    const assumed = (await analyzeTranscriptFile(file, { summaryBudget: 100 })).analysis.checkpoints[0];
    assert.equal(assumed.summaryBudget, 100);
    assert.equal(assumed.budgetAssumed, true);
    assert.equal(assumed.verdict, 'reversible');
  });

  it('rejects a file that is no transcript with UnusableTranscriptError, whose message names the file', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'just some notes\n');
    await assert.rejects(analyzeTranscriptFile(file), (error: unknown) => {
      assert.ok(error instanceof UnusableTranscriptError);
      assert.ok(error.message.startsWith(file), error.message);
      return true;
    });
  });
});
