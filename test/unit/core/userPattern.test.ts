// Tests for src/core/userPattern.ts beyond those through find (test/unit/core/findFact.test.ts): two patterns
// the guard let through before it shared src/core/regexShape.ts with the lint rule.
import * as assert from 'node:assert/strict';
import { userPatternProblem } from '../../../src/core/userPattern';

describe('core/userPattern', () => {
  it('refuses a repeat count of ten digits or more, as it does one of three', () => {
    assert.match(userPatternProblem('(a|aa){1234567890}b', '') ?? 'accepted', /repeat count above 100 \(\{1234567890\}\)/);
    assert.match(userPatternProblem('a{1,123456789012345678901234567890}', '') ?? 'accepted', /repeat count above 100/);
    assert.match(userPatternProblem('a{101}', '') ?? 'accepted', /repeat count above 100/);
    assert.equal(userPatternProblem('a{100}', ''), undefined);
  });

  it('sees runs of a combining mark overlap', () => {
    assert.match(userPatternProblem('x\\u0307*\\u0307*y', '') ?? 'accepted', /can take the same characters/);
  });

  it('still refuses what it cannot read before any analysis', () => {
    assert.match(userPatternProblem('(?<n>a)\\k<n>', '') ?? 'accepted', /backreferences/);
    assert.match(userPatternProblem('(?i:a)b', '') ?? 'accepted', /inline modifiers|not a valid/);
  });
});
