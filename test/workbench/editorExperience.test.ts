// Workbench tests of how the timeline sits in the editor (issue 9), in a real VS Code at 1366×768 (VS Code's
// server + Debian Chromium, see workbench.ts):
//  - Enter on a turn opens its record beside the timeline as a preview editor without taking the focus: the next
//    ↓ moves the timeline's selection, not the editor's cursor;
//  - one tab per transcript: opening a transcript's timeline again (palette, explorer menu) adds no tab; the
//    explorer's entry is "Open Compaction Timeline", apart from VS Code's own "Open Timeline";
//  - a transcript without a compaction lists its turns and says so, with no endless "Loading";
//  - with the Problems panel open after a click split the editor, the turn list keeps at least half the panel
//    and the headline stays in view;
//  - the Problems panel's count on a real Claude Code session from ../shared/corpus (skipped without it; a
//    failure under CI=true);
//  - with `compactionLens.timeline.reuse: "single"`, one timeline tab that follows the active transcript.
// Every wait is on a condition; nothing sleeps for a fixed time.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { skipWithoutShared } from '../sharedFolder';
import { ROOT, Workbench, besideGroup, openTimeline, selectedIndex, startWorkbench, timelineTabs, waitForCursorBeside } from './workbench';

const VIEWPORT = { width: 1366, height: 768 };
const CORPUS_SESSION = path.resolve(ROOT, '..', 'shared', 'corpus', 'claude-code', '258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz');
const SESSION = 'session.jsonl.gz';

// The few DOM members the evaluate() callbacks use: they run in the browser, but this tsconfig has no DOM lib.
interface PageElement {
  readonly clientHeight: number;
  readonly className: string;
  readonly textContent: string | null;
  getBoundingClientRect(): { top: number; bottom: number; height: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}
interface PageGlobals {
  document: PageElement & { activeElement: PageElement | null };
  innerHeight: number;
  requestAnimationFrame(callback: () => void): number;
}

/** A canonical transcript of `turns` turns, with a checkpoint covering the first `covered` ones when given. */
function canonical(turns: number, checkpoint?: { id: string; covered: number }): string {
  const records: Record<string, unknown>[] = [];
  for (let id = 0; id < turns; id++) {
    records.push({
      type: 'turn',
      id,
      role: id % 2 ? 'assistant' : 'user',
      content: `turn ${id} about src/module${id}.ts and ticket T-${1000 + id}`,
      tokens: 40,
    });
  }
  if (checkpoint) {
    const summary = `The user and the assistant worked on ${Array.from({ length: checkpoint.covered }, (_, id) => `src/module${id}.ts (T-${1000 + id})`).join(', ')}.`;
    records.push({
      type: 'checkpoint',
      summary_id: checkpoint.id,
      summary,
      summary_budget: 256,
      covered: { from: 0, to: checkpoint.covered - 1 },
    });
  }
  return `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
}

/** 1-based line numbers of the turn records of a canonical JSONL transcript, in log order (= row index). */
function turnLines(file: string): number[] {
  const lines: number[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, at) => {
      if (text.trim() && JSON.parse(text).type === 'turn') lines.push(at + 1);
    });
  return lines;
}

/** Waits until the timeline's selected row is `index`. */
async function waitForSelection(view: FrameLocator, index: number): Promise<void> {
  await view.locator(`.row[aria-selected="true"][data-index="${index}"]`).waitFor({ state: 'attached', timeout: 10_000 });
}

/** The webview iframe holds the page's keyboard focus. */
async function timelineHasFocus(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.className.includes('webview') ?? false);
}

/** Opens the Problems panel (Ctrl+Shift+M) and waits for it. */
async function showProblems(page: Page): Promise<void> {
  const panel = page.locator('.part.panel .markers-panel');
  if (!(await panel.isVisible())) await page.keyboard.press('Control+Shift+M');
  await panel.waitFor({ state: 'visible', timeout: 15_000 });
}

/** The labels of the explorer's context menu on `name`; the menu is closed again unless `choose` is clicked. */
async function explorerMenu(page: Page, name: string, choose?: string): Promise<string[]> {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^\\s*${name.replace(/\./g, '\\.')}\\s*$`) });
  await row.first().click({ button: 'right' });
  const items = page.locator('.context-view .monaco-menu .action-label');
  await items.first().waitFor({ timeout: 10_000 });
  const labels = (await items.allInnerTexts()).map((label) => label.trim());
  if (choose) await items.filter({ hasText: new RegExp(`^\\s*${choose}\\s*$`) }).click();
  else await page.keyboard.press('Escape');
  return labels;
}

describe('the timeline in the editor at 1366×768, and at 1920×1080 where it says so (real VS Code workbench)', function () {
  this.timeout(240_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(300_000);
    workbench = await startWorkbench({
      viewport: VIEWPORT,
      files: {
        'plain.jsonl': canonical(5),
        ...(existsSync(CORPUS_SESSION) ? { [SESSION]: readFileSync(CORPUS_SESSION) } : {}),
      },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it('Enter opens the turn beside the timeline as a preview, and the next ↓ still moves the timeline', async () => {
    const { page } = workbench;
    const view = await openTimeline(workbench, 'incident.jsonl');
    const lines = turnLines(path.join(workbench.workspace, 'incident.jsonl'));
    const scroller = view.locator('.tl-scroll');
    await scroller.focus();
    await scroller.press('Home');
    await scroller.press('n'); // the first claimed-missing turn
    const index = await selectedIndex(view);
    // From here on only the page's keyboard: keys go wherever the focus really is.
    await page.keyboard.press('Enter');
    await waitForCursorBeside(page, 'incident.jsonl', lines[index]);
    const tab = besideGroup(page, 'incident.jsonl').locator('.tab', { hasText: 'incident.jsonl' });
    assert.equal(await tab.count(), 1, 'the record opens once, in the group beside the timeline');
    assert.ok(await tab.locator('.monaco-icon-label.italic').count(), 'the record opens as a preview editor (italic tab)');
    assert.ok(await timelineHasFocus(page), 'the timeline keeps the keyboard focus after Enter');

    await page.keyboard.press('ArrowDown');
    await waitForSelection(view, index + 1);
    await page.keyboard.press('ArrowDown');
    await waitForSelection(view, index + 2);
    // The editor's cursor stayed on the opened turn: ↓ went to the timeline, not to the editor.
    await waitForCursorBeside(page, 'incident.jsonl', lines[index]);

    // Enter again: the same preview editor moves to the new turn; no second tab.
    await page.keyboard.press('Enter');
    await waitForCursorBeside(page, 'incident.jsonl', lines[index + 2]);
    assert.equal(await tab.count(), 1);
    assert.ok(await timelineHasFocus(page));
  });

  it('opening the same timeline again (palette, explorer menu) reuses its tab; the explorer entry is "Open Compaction Timeline"', async () => {
    const { page } = workbench;
    assert.equal(await timelineTabs(workbench).count(), 1);
    // Back to the transcript's own tab (beside the timeline, in its group), then Open Timeline again.
    await page
      .locator('.editor-group-container.active .tab', { hasText: /^\s*incident\s*\.jsonl/ })
      .first()
      .click();
    await page.locator('.editor-group-container.active .tab.active', { hasText: /^\s*incident\s*\.jsonl/ }).waitFor({ timeout: 10_000 });
    await workbench.runCommand('Compaction Lens: Open Timeline');
    await page.locator('.tabs-container .tab.active', { hasText: 'Timeline: incident.jsonl' }).first().waitFor({ timeout: 20_000 });
    assert.equal(await timelineTabs(workbench).count(), 1, 'the palette opened a second timeline tab');

    const labels = await explorerMenu(page, 'incident.jsonl', 'Open Compaction Timeline');
    assert.equal(labels.filter((label) => label === 'Open Compaction Timeline').length, 1, labels.join(' | '));
    // VS Code's own "Open Timeline" (its Timeline view) may stay; ours is not a second one.
    assert.ok(labels.filter((label) => label === 'Open Timeline').length <= 1, labels.join(' | '));
    await page.locator('.tabs-container .tab.active', { hasText: 'Timeline: incident.jsonl' }).first().waitFor({ timeout: 20_000 });
    assert.equal(await timelineTabs(workbench).count(), 1, 'the explorer menu opened a second timeline tab');
  });

  it('a transcript without a compaction lists its turns and says so, with nothing left loading', async () => {
    await workbench.runCommand('View: Close All Editors');
    const view = await openTimeline(workbench, 'plain.jsonl');
    await view.locator('.hdr-no-compaction', { hasText: 'No compaction in this transcript' }).waitFor({ timeout: 20_000 });
    await view.locator('.det-no-summary').waitFor({ timeout: 20_000 });
    assert.equal(await view.locator('.row[data-index]').count(), 5, 'every turn has a row');
    // No spinner and no "Loading…" is left once the data came (by condition: they go when the answers arrive).
    await view.locator('.det-loading').waitFor({ state: 'detached', timeout: 20_000 });
    await view.locator('#root[aria-busy="true"]').waitFor({ state: 'detached', timeout: 20_000 });
    assert.doesNotMatch(await view.locator('body').innerText(), /Loading/);
  });

  for (const viewport of [VIEWPORT, { width: 1920, height: 1080 }]) {
    it(`at ${viewport.width}×${viewport.height}, with the Problems panel open after a click split the editor, the list keeps half the panel and the headline shows`, async () => {
      const { page } = workbench;
      await page.setViewportSize(viewport);
      await workbench.runCommand('View: Close All Editors');
      const view = await openTimeline(workbench, 'incident.jsonl');
      const lines = turnLines(path.join(workbench.workspace, 'incident.jsonl'));
      const scroller = view.locator('.tl-scroll');
      await scroller.focus();
      await scroller.press('Home');
      await scroller.press('n');
      const index = await selectedIndex(view);
      await view.locator(`.row[data-index="${index}"]`).click(); // a click opens the record beside: the editor splits
      await waitForCursorBeside(page, 'incident.jsonl', lines[index]);
      await showProblems(page);

      const measure = () =>
        view.locator('body').evaluate(() => {
          const doc = (globalThis as unknown as PageGlobals).document;
          const list = doc.querySelector('.tl-scroll');
          const headline = doc.querySelector('.hdr-headline');
          const selected = doc.querySelector('.row[aria-selected="true"]');
          const box = (element: PageElement | null) => (element ? element.getBoundingClientRect() : undefined);
          return {
            panel: (globalThis as unknown as PageGlobals).innerHeight,
            list: list?.clientHeight ?? 0,
            listBox: box(list),
            headline: box(headline),
            headlineText: headline?.textContent ?? '',
            selected: box(selected),
          };
        });
      // The webview settles its layout after the resize: wait until the list has its share, then check the rest.
      let layout = await measure();
      for (let frame = 0; frame < 100 && layout.list < layout.panel / 2; frame++) {
        await view
          .locator('body')
          .evaluate(() => new Promise((resolve) => (globalThis as unknown as PageGlobals).requestAnimationFrame(() => resolve(undefined))));
        layout = await measure();
      }
      const facts = JSON.stringify(layout);
      assert.ok(layout.panel > 150 && layout.panel < viewport.height - 200, `the Problems panel shares the height: ${facts}`);
      assert.ok(layout.list >= layout.panel / 2, `the turn list keeps at least half the panel: ${facts}`);
      assert.ok(layout.headline && layout.headline.top >= 0 && layout.headline.bottom <= layout.panel, `the headline is in view: ${facts}`);
      assert.match(layout.headlineText, /40/, `the headline gives the claimed-missing count: ${facts}`);
      assert.ok(
        layout.selected && layout.listBox && layout.selected.top >= layout.listBox.top && layout.selected.bottom <= layout.listBox.bottom,
        `the selected turn is in view: ${facts}`,
      );
      await page.setViewportSize(VIEWPORT);
    });
  }

  it('keeps the Problems panel quiet on a real Claude Code session', async function () {
    skipWithoutShared(this, existsSync(CORPUS_SESSION), `the corpus session ${CORPUS_SESSION}`);
    const { page } = workbench;
    await workbench.runCommand('View: Close All Editors');
    await openTimeline(workbench, SESSION);
    // What the CLI finds in the same file: the Problems panel may hold one entry per checkpoint, per
    // claimed-missing range, per truncated summary and per reader problem, and far fewer than one per turn.
    const cli = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'check', '--json', CORPUS_SESSION], { encoding: 'utf8' });
    const report = JSON.parse(cli.stdout) as {
      files: {
        checkpoints: { verdict: string; truncated: boolean; claimed_missing: unknown[]; counts: Record<string, number> }[];
        problems: unknown[];
      }[];
    };
    const [file] = report.files;
    const checkpoints = file.checkpoints;
    const most = checkpoints.reduce((sum, c) => sum + 1 + c.claimed_missing.length + (c.truncated ? 1 : 0), file.problems.length);
    const least = checkpoints.filter((c) => c.verdict !== 'reversible').length;
    const claimedMissing = checkpoints.reduce((sum, c) => sum + (c.counts['claimed-missing'] ?? 0), 0);

    await showProblems(page);
    // The Problems tree's row for the session carries the count of its problems; collapse every file (the
    // incident's 40 related lines may push it out of the virtualised list).
    await page.locator('.part.panel .action-label[class*="collapse-all"]').first().click({ timeout: 10_000 });
    const fileRow = page.locator('.markers-panel .monaco-list-row', { hasText: SESSION }).first();
    await fileRow.waitFor({ timeout: 60_000 }).catch(async (error: Error) => {
      const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      throw new Error(`${error.message}\nProblems rows: ${rows.join(' | ').slice(0, 2000)}`, { cause: error });
    });
    const count = Number((await fileRow.locator('.monaco-count-badge').innerText()).replace(/\D/g, ''));
    const facts = `${count} in Problems; ${checkpoints.length} checkpoints, ${claimedMissing} claimed-missing turns, at most ${most}`;
    console.log(`      ${facts}`);
    assert.ok(count >= least && count <= most, facts);
    assert.ok(count < claimedMissing, `fewer problems than claimed-missing turns: ${facts}`);
    const texts = (await page.locator('.markers-panel .monaco-list-row').allInnerTexts()).join('\n');
    assert.doesNotMatch(texts, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, 'no record ids in the Problems panel');
  });
});

describe('with compactionLens.timeline.reuse set to "single" (real VS Code workbench)', function () {
  this.timeout(240_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(300_000);
    workbench = await startWorkbench({
      viewport: VIEWPORT,
      samples: false,
      settings: { 'compactionLens.timeline.reuse': 'single' },
      files: { 'alpha.jsonl': canonical(6, { id: 'A1', covered: 4 }), 'beta.jsonl': canonical(8, { id: 'B1', covered: 6 }) },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it('keeps one timeline tab, which shows the transcript opened last and follows the active transcript', async () => {
    const alpha = await openTimeline(workbench, 'alpha.jsonl');
    assert.equal(await alpha.locator('.row[data-index]').count(), 6);
    const beta = await openTimeline(workbench, 'beta.jsonl');
    await beta.locator('.row[data-index="7"]').waitFor({ state: 'attached', timeout: 20_000 });
    assert.equal(await timelineTabs(workbench).count(), 1, 'a second transcript opened a second timeline tab');
    assert.match(await timelineTabs(workbench).innerText(), /Timeline: beta\.jsonl/);

    // Making alpha.jsonl the active editor switches the timeline to it, without a new tab.
    await workbench.openFile('alpha.jsonl');
    await timelineTabs(workbench).filter({ hasText: 'Timeline: alpha.jsonl' }).waitFor({ timeout: 30_000 });
    assert.equal(await timelineTabs(workbench).count(), 1);
  });
});
