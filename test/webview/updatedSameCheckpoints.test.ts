// The timeline webview in Chromium on an `updated` that leaves its checkpoints out (`sameCheckpoints`: an append
// changed none, so the host does not send a 100k-turn file's headers again): the page keeps the headers it has
// (verdict, bands, claimed-missing marks), the rows, details and summary of the turns up to the checkpoint (it asks
// for none of them again), takes the new turn count, and asks for the rows from the checkpoint on. Skips with a
// message when Chromium is not installed.
import assert from 'node:assert/strict';
import { timelineRows } from '../../src/view/timelineData';
import { FixtureDataset, incidentSpec } from './fixture';
import { chromiumAvailable, WebviewHarness, until } from './harness';

(chromiumAvailable() ? describe : describe.skip)("timeline webview: 'updated' without its checkpoints", function () {
  this.timeout(60_000);
  const harness = new WebviewHarness();

  before(async () => {
    await harness.start();
  });

  after(async () => {
    await harness.stop();
  });

  it('keeps the headers it has, and shows the new turns', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()));
    const { page, host } = opened;
    const verdict = await page.getAttribute('.verdict', 'data-verdict');
    const missing = await page.getAttribute('.legend-item[data-status="claimed-missing"]', 'data-count');
    const bands = await page.locator('.band-checkpoint').count();
    assert.equal(verdict, 'fail-closed');
    assert.ok(bands > 0);
    // Looking at the first turns (before the checkpoint, which follows turn 419), turn 5 selected.
    await page.evaluate('document.querySelector(".tl-scroll").scrollTop = 0');
    await page.click('.row[data-index="5"][data-status]');
    await until('turn 5’s details', () => host.ofType('getTurnDetails').some((request) => request.turnIndex === 5));
    await new Promise((done) => setTimeout(done, 300));
    const asked = () => ['getRows', 'getTurnDetails', 'getSummary'].map((type) => host.ofType(type as 'getRows').length);
    const before = asked();

    // The agent wrote 20 more turns after the checkpoint; the host says the checkpoints are unchanged.
    host.dataset = new FixtureDataset(incidentSpec(26));
    host.sendUpdated({ sameCheckpoints: true });
    await until('the new turn count', async () => (await page.getAttribute('.tl-scroll', 'aria-setsize')) === '446');
    assert.equal(await page.getAttribute('.verdict', 'data-verdict'), verdict, 'the checkpoint is still shown');
    assert.equal(await page.getAttribute('.legend-item[data-status="claimed-missing"]', 'data-count'), missing);
    assert.equal(await page.locator('.band-checkpoint').count(), bands);
    await new Promise((done) => setTimeout(done, 300));
    assert.deepEqual(asked(), before, 'no rows, details or summary asked again for the turns before the checkpoint');
    assert.equal(await page.getAttribute('.row[data-index="5"]', 'aria-selected'), 'true');

    const rowsBefore = host.ofType('getRows').length;
    await page.evaluate('document.querySelector(".tl-scroll").scrollTop = 1e9');
    await until('the rows after the checkpoint asked again', () =>
      host
        .ofType('getRows')
        .slice(rowsBefore)
        .some((request) => request.start === 400),
    );
    await page.locator('.row[data-index="445"][data-status]').waitFor();
    assert.equal(await page.getAttribute('.row[data-index="445"]', 'data-status'), 'after');
    assert.deepEqual(await opened.problems(), [], 'no CSP violation, console error or page error');
  });

  it('draws the rows that came along with the update (`tail`) without asking for them, at the end of the file', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()));
    const { page, host } = opened;
    // Following the file's end: turn 425, the last, on screen.
    await page.evaluate('document.querySelector(".tl-scroll").scrollTop = 1e9');
    await page.locator('.row[data-index="425"][data-status]').waitFor();
    await new Promise((done) => setTimeout(done, 300));
    const rowsBefore = host.ofType('getRows').length;
    // Mark the content of the rows on screen: an append leaves them as they are drawn, not filled again.
    const marked = await page.evaluate(`(() => {
      const rows = [...document.querySelectorAll('.row[data-status]')];
      for (const row of rows) row.firstElementChild.dataset.before = '1';
      return rows.length;
    })()`);
    assert.ok(Number(marked) > 5, `rows on screen: ${marked}`);

    // One turn appended (426): its row, and nothing else, comes with the update.
    host.dataset = new FixtureDataset(incidentSpec(7));
    host.sendUpdated({ sameCheckpoints: true, tailFrom: 426 });
    await page.evaluate('document.querySelector(".tl-scroll").scrollTop = 1e9');
    await page.locator('.row[data-index="426"][data-status]').waitFor();
    assert.equal(await page.getAttribute('.row[data-index="426"]', 'data-status'), 'after');
    // The rows that were on screen kept their drawn content (their data did not change); each shows the new count.
    const kept: { rows: number; redrawn: number; sizes: string[] } = await page.evaluate(`(() => {
      const rows = [...document.querySelectorAll('.row[data-status]')].filter((row) => Number(row.dataset.index) < 426);
      return { rows: rows.length, redrawn: rows.filter((row) => row.firstElementChild.dataset.before !== '1').length, sizes: [...new Set(rows.map((row) => row.getAttribute('aria-setsize')))] };
    })()`);
    assert.ok(kept.rows > 5, `rows still on screen: ${kept.rows}`);
    assert.deepEqual(
      { redrawn: kept.redrawn, sizes: kept.sizes },
      { redrawn: 0, sizes: ['427'] },
      'the rows on screen are not filled again',
    );
    assert.equal(await page.getAttribute('.row[data-index="425"]', 'data-status'), 'after', 'the row before it is still drawn');
    // Each row on screen shows its own turn: the page holding 400–425 kept its rows and took 426 after them.
    const expected = timelineRows(host.dataset.transcript, host.dataset.analysis, 0, 400, 27);
    for (const index of [400, 412, 425, 426]) {
      const row = page.locator(`.row[data-index="${index}"]`);
      if (index < 425 && (await row.count()) === 0) continue; // out of the drawn window; 425 and 426 are on screen
      const text = (await row.textContent()) ?? '';
      assert.ok(text.includes(String(expected[index - 400].id)), `row ${index} shows turn ${expected[index - 400].id}: ${text}`);
      assert.ok(text.includes(expected[index - 400].preview.slice(0, 20)), `row ${index} shows its text: ${text}`);
    }
    await new Promise((done) => setTimeout(done, 300));
    assert.deepEqual(
      host
        .ofType('getRows')
        .slice(rowsBefore)
        .map((request) => request.start),
      [],
      'no rows asked for',
    );
    assert.deepEqual(await opened.problems(), [], 'no CSP violation, console error or page error');
  });
});
