// package.json's contributed settings must state the same defaults the code uses (src/core/defaults.ts,
// src/node/tokenCounter.ts): the manifest is what users read in the Settings UI.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_RATIO_FLOOR, DEFAULT_SUMMARY_BUDGETS } from '../../../src/core/defaults';
import { DEFAULT_ENCODING, ENCODINGS } from '../../../src/node/tokenCounter';

const manifest = JSON.parse(readFileSync(join(resolve(__dirname, '../../../..'), 'package.json'), 'utf8'));
const properties = manifest.contributes.configuration.properties;

describe('manifest settings defaults', () => {
  it('ratioFloor defaults to R_low', () => {
    assert.equal(properties['compactionLens.ratioFloor'].default, DEFAULT_RATIO_FLOOR);
  });

  it('encoding offers the encodings the counter knows, defaulting to its default', () => {
    assert.equal(properties['compactionLens.encoding'].default, DEFAULT_ENCODING);
    assert.deepEqual([...properties['compactionLens.encoding'].enum].sort(), [...ENCODINGS].sort());
  });

  it('defaultSummaryBudget states the budgets the CLI and the extension assume', () => {
    const budget = properties['compactionLens.defaultSummaryBudget'];
    assert.deepEqual(budget.default, DEFAULT_SUMMARY_BUDGETS);
    for (const [format, value] of Object.entries(DEFAULT_SUMMARY_BUDGETS)) {
      assert.equal(budget.properties[format].default, value, format);
    }
    assert.equal(budget.properties.canonical.default, undefined, 'canonical records its budget; none is assumed');
  });
});
