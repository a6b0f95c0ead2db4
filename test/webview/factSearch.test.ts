// The timeline's search box ("where did this fact go?") in a real browser: "/" puts the keyboard in it, Enter
// asks the fake host (which answers through requests.ts, as the panel does), the matching rows are highlighted,
// the first is selected and its route for the checkpoint is said under the box (flagged when claimed-missing),
// Enter moves to the next match, switching checkpoints asks again, a refused pattern says why, Escape clears.
// Expected answers come from the same code the host runs (view/factSearch.ts on the fixture's real analysis).

import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { shortTurnId } from '../../src/core/displayText';
import type { FoundTurn } from '../../src/protocol';
import { factFound } from '../../src/view/factSearch';
import { FixtureDataset, incidentSpec, twoCheckpointSpec } from './fixture';
import { chromiumAvailable, WebviewHarness, until, assertClean } from './harness';

async function selectedIndex(page: Page): Promise<number> {
  return Number(await page.locator('.row[aria-selected="true"]').getAttribute('data-index'));
}

/** What the route bar should say for a found turn. */
function routeText(turn: FoundTurn): string {
  const flag = turn.flagged ? ' — flagged: the pointer set alone would have said this fact never existed' : '';
  return `turn ${shortTurnId(turn.id)} · line ${turn.line}: ${turn.why}; ${turn.says}${flag}`;
}

async function search(page: Page, query: string): Promise<void> {
  await page.fill('.fs-input', query);
  await page.press('.fs-input', 'Enter');
}

(chromiumAvailable() ? describe : describe.skip)('timeline search box (where did this fact go?) in Chromium', function () {
  this.timeout(60_000);
  const harness = new WebviewHarness();

  before(async () => {
    await harness.start();
  });

  after(async () => {
    await harness.stop();
  });

  it('finds the turns, highlights them, selects the first and says its route; Enter moves on; Escape clears', async () => {
    const dataset = new FixtureDataset(incidentSpec());
    const opened = await harness.open(dataset);
    const { page } = opened;
    // Turn 379 is the last the summary carries, turn 380 the first it drops.
    const query = '/mod3(79|80)\\.ts/';
    const expected = factFound(dataset.transcript, dataset.analysis, 0, query);
    assert.ok(expected.turns.length >= 2, 'the fixture names each file in more than one turn');
    assert.ok(expected.turns.some((turn) => turn.flagged) && expected.turns.some((turn) => turn.route === 'summary'));

    await page.focus('.tl-scroll');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate('document.activeElement.className'), 'fs-input', '"/" puts the keyboard in the search box');
    await page.keyboard.type(query);
    await page.keyboard.press('Enter');

    const total = expected.turns.length + expected.omitted;
    const flagged = expected.flagged > 0 ? ` · ${expected.flagged} flagged` : '';
    await until('the count', async () => (await page.textContent('.fs-count')) === `1 of ${total} turns${flagged}` || undefined);
    await until('the first match selected', async () => (await selectedIndex(page)) === expected.turns[0].index || undefined);
    assert.equal(await page.textContent('.fs-route'), routeText(expected.turns[0]));
    assert.equal(await page.locator('.fs-route').evaluate((bar) => bar.classList.contains('fs-flagged')), expected.turns[0].flagged);
    const found = (await page.locator('.row.found').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-index'))))).sort(
      (a, b) => a - b,
    );
    const shown = expected.turns.map((turn) => turn.index).filter((index) => found.includes(index));
    assert.deepEqual(found, shown, 'only matching rows are highlighted');
    assert.ok(found.length >= 1);

    await page.keyboard.press('Enter');
    await until('the second match selected', async () => (await selectedIndex(page)) === expected.turns[1].index || undefined);
    assert.equal(await page.textContent('.fs-route'), routeText(expected.turns[1]));
    assert.match((await page.textContent('.fs-count')) ?? '', /^2 of /);

    await page.keyboard.press('Escape');
    await until('cleared', async () => (await page.locator('.row.found').count()) === 0 || undefined);
    assert.equal(await page.locator('.fs-route').isHidden(), true);
    assert.equal(await page.evaluate('document.activeElement.className'), 'tl-scroll', 'Escape gives the keyboard back to the list');
    await assertClean(opened);
  });

  it('the incident: a claimed-missing fact is flagged with its raw line; a covered one routes to the summary', async () => {
    const dataset = new FixtureDataset(incidentSpec());
    const opened = await harness.open(dataset);
    const { page } = opened;
    const missing = factFound(dataset.transcript, dataset.analysis, 0, 'EXPIRY_402 = config');
    assert.ok(missing.turns.length >= 1);
    assert.ok(missing.turns.every((turn) => turn.flagged));
    await search(page, 'EXPIRY_402 = config');
    await until('the route', async () => (await page.textContent('.fs-route')) === routeText(missing.turns[0]) || undefined);
    assert.match(routeText(missing.turns[0]), /: claimed by \S+ but absent from its summary; raw log line \d+ — flagged/);

    const covered = factFound(dataset.transcript, dataset.analysis, 0, 'EXPIRY_10 = config');
    assert.equal(covered.turns[0].route, 'summary');
    await search(page, 'EXPIRY_10 = config');
    await until('the summary route', async () => (await page.textContent('.fs-route')) === routeText(covered.turns[0]) || undefined);
    assert.equal(await page.locator('.fs-route').evaluate((bar) => bar.classList.contains('fs-summary')), true);
    await assertClean(opened);
  });

  it('switching checkpoints asks again: the route is the selected checkpoint’s', async () => {
    const dataset = new FixtureDataset(twoCheckpointSpec());
    const opened = await harness.open(dataset);
    const { page } = opened;
    const startIndex = dataset.analysis.checkpoints.findIndex((checkpoint) => checkpoint.verdict !== 'reversible');
    const other = startIndex === 0 ? 1 : 0;
    const query = 'mod50.ts';
    await search(page, query);
    const first = factFound(dataset.transcript, dataset.analysis, startIndex, query);
    await until('the route', async () => (await page.textContent('.fs-route')) === routeText(first.turns[0]) || undefined);
    await page.evaluate(`window.postMessage({ type: "selectTurn", checkpointIndex: ${other}, turnIndex: 0 }, "*")`);
    const second = factFound(dataset.transcript, dataset.analysis, other, query);
    assert.notEqual(routeText(second.turns[0]), routeText(first.turns[0]));
    await until('the other route', async () => (await page.textContent('.fs-route')) === routeText(second.turns[0]) || undefined);
    await assertClean(opened);
  });

  it('a pattern that could backtrack is refused with the reason; nothing found says so', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()));
    const { page } = opened;
    await search(page, '/(a+)+$/');
    await until('the refusal', async () => (await page.locator('.fs-route.fs-error').count()) === 1 || undefined);
    assert.match((await page.textContent('.fs-route')) ?? '', /is refused: .*Search for plain text instead/);
    assert.equal(await page.textContent('.fs-count'), 'refused');
    await search(page, 'no such fact anywhere');
    await until('nothing found', async () => (await page.textContent('.fs-count')) === 'no turn holds it' || undefined);
    assert.equal(await page.textContent('.fs-route'), 'No turn holds no such fact anywhere.');
    await assertClean(opened);
  });
});
