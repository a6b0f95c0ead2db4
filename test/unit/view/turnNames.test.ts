// How a turn is named in every shell (src/core/displayText.ts): by its own id, long ids shortened the same way
// (first 8 characters after any `word_` prefix, then "…"), ranges by their ends, positions labelled as such.
import * as assert from 'node:assert/strict';
import { fullTurnId, isShortenedTurnId, shortTurnId, turnName, turnPosition, turnRangeName } from '../../../src/core/displayText';
import { describeRange } from '../../../src/view/timelineData';

describe('turn naming (core/displayText)', () => {
  it('shows short ids whole and shortens long ones consistently', () => {
    assert.equal(shortTurnId(0), '0');
    assert.equal(shortTurnId(380), '380');
    assert.equal(shortTurnId('S1-compact-0'), 'S1-compact-0');
    assert.equal(shortTurnId('call_12'), 'call_12');
    assert.equal(shortTurnId('0111e7ef-0ff5-4c1b-9d4e-000000000001'), '0111e7ef…');
    assert.equal(shortTurnId('msg_013pbPJVxq9ZkLmN4rT7uYw2'), 'msg_013pbPJV…');
    assert.equal(shortTurnId('toolu_01AbCdEfGhIjKlMnOpQrStUv'), 'toolu_01AbCdEf…');
    assert.equal(isShortenedTurnId('0111e7ef-0ff5-4c1b-9d4e-000000000001'), true);
    assert.equal(isShortenedTurnId(42), false);
    assert.equal(fullTurnId(42), '42');
    // Never half a surrogate pair.
    const emoji = `1234567\u{1F600}abcdefgh`;
    assert.equal(shortTurnId(emoji), `1234567\u{1F600}…`);
  });

  it('names a turn, a range and a position', () => {
    assert.equal(turnName(7), 'turn 7');
    assert.equal(turnName('0111e7ef-0ff5-4c1b-9d4e-000000000001'), 'turn 0111e7ef…');
    assert.equal(turnRangeName(380, 419, 40), 'turns 380–419');
    assert.equal(turnRangeName(7, 7, 1), 'turn 7');
    assert.equal(describeRange(5, 6, 2), 'turns 5–6');
    assert.equal(describeRange('0111e7ef-0ff5-4c1b-9d4e-000000000001', 'msg_013pbPJVxq9ZkLmN4rT7uYw2', 2), 'turns 0111e7ef…–msg_013pbPJV…');
    assert.equal(turnPosition(4, 422), 'position 5 of 422');
    assert.equal(turnPosition(0, 100_000), 'position 1 of 100,000');
  });
});
