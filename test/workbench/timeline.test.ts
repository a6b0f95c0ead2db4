// Workbench tests of the timeline webview, in a real VS Code (VS Code's server + Debian Chromium, see
// workbench.ts): row counts and colours on the incident sample, click-through to the transcript's line,
// keyboard navigation, hostile transcript text rendered as text with nothing executed, and bidi controls and
// zero-width characters drawn as chips without reordering the labels around them; and a gzip-compressed
// transcript (.jsonl.gz): Open Compaction Timeline in its explorer menu, Open Timeline on its tab's title, and
// a click on a turn opening the read-only decompressed view at the turn's line.
// COMPACTION_LENS_SCREENSHOT=<path> (e.g. media/timeline.png) also saves a screenshot of the incident timeline.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FrameLocator } from 'playwright-core';
import {
  ROOT,
  Workbench,
  activateEditorBeside,
  openTimeline,
  selectedIndex,
  startWorkbench,
  takeScreenshot,
  titleButton,
  waitForCursorBeside,
} from './workbench';

const INCIDENT_TURNS_BEFORE_CHECKPOINT = 420;
const INCIDENT_COVERED = 380;
const INCIDENT_CLAIMED_MISSING = 40;

// The few DOM members the evaluate() callbacks use: they run in the browser, but this tsconfig has no DOM lib.
interface PageElement {
  scrollTop: number;
  readonly clientHeight: number;
  readonly textContent: string | null;
  readonly dataset: Record<string, string | undefined>;
  readonly style: { top: string };
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}
interface PageGlobals {
  document: PageElement;
  requestAnimationFrame(callback: () => void): number;
  getComputedStyle(element: PageElement): { borderLeftColor: string };
  __compactionLensPwned?: unknown;
}

interface RowInfo {
  index: number;
  status: string;
  colour: string;
}

/**
 * Scrolls the virtualised timeline from top to bottom and returns every row it drew, by index, once its data
 * arrived (rows without data carry no data-status). Runs inside the webview frame.
 */
async function collectRows(view: FrameLocator): Promise<Map<number, RowInfo>> {
  const rows = await view.locator('.tl-scroll').evaluate(async (scroller: PageElement) => {
    const page = globalThis as unknown as PageGlobals;
    const found: Record<number, { index: number; status: string; colour: string }> = {};
    const frame = () => new Promise((resolve) => page.requestAnimationFrame(() => resolve(undefined)));
    const drawnRows = () => Array.from(scroller.querySelectorAll('.row'));
    const lastIndex = Number(scroller.getAttribute('aria-setsize')) - 1;
    // The timeline has drawn for the current scroll position when rows sit at both edges of the viewport (or
    // the last row is drawn and reached); rows far away may stay drawn (the selected one), so look at positions.
    const coversViewport = () => {
      const tops = drawnRows().map((row) => parseFloat(row.style.top));
      const top = scroller.scrollTop;
      const bottom = top + scroller.clientHeight;
      const atTopEdge = tops.some((y) => y <= top + 48 && y + 24 > top - 48);
      const lastRow = drawnRows().find((row) => Number(row.dataset.index) === lastIndex);
      const atBottomEdge =
        tops.some((y) => y >= bottom - 72 && y < bottom + 48) || (lastRow !== undefined && parseFloat(lastRow.style.top) < bottom);
      return atTopEdge && atBottomEdge;
    };
    const settle = async () => {
      for (let wait = 0; wait < 600; wait++) {
        await frame();
        if (coversViewport() && drawnRows().every((row) => row.dataset.status)) return;
      }
      const pending = drawnRows().filter((row) => !row.dataset.status).length;
      throw new Error(
        `the timeline did not draw the rows at scrollTop ${scroller.scrollTop} ` +
          `(height ${scroller.clientHeight}, ${drawnRows().length} rows drawn, ${pending} without data)`,
      );
    };
    scroller.scrollTop = 0;
    await settle();
    for (;;) {
      for (const row of drawnRows()) {
        const index = Number(row.dataset.index);
        found[index] = { index, status: row.dataset.status ?? '', colour: page.getComputedStyle(row).borderLeftColor };
      }
      const before = scroller.scrollTop;
      scroller.scrollTop = before + Math.max(24, scroller.clientHeight - 48);
      if (scroller.scrollTop === before) break;
      await settle();
    }
    return Object.values(found);
  });
  return new Map(rows.map((row) => [row.index, row]));
}

function countByStatus(rows: Map<number, RowInfo>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows.values()) counts[row.status] = (counts[row.status] ?? 0) + 1;
  return counts;
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

/** A transcript whose texts try HTML injection; the payload sets a global and pings the beacon on `port`. */
function hostileTranscript(port: number): string {
  const ping = `fetch('http://127.0.0.1:${port}/ping');window.__compactionLensPwned=1`;
  const texts = [
    `look at this <img src=x onerror="${ping}"> image`,
    `<script>${ping}</script> and more`,
    `a link: <a href="javascript:${ping}">click me</a> done`,
  ];
  const records = texts.map((content, id) => ({ type: 'turn', id, role: id % 2 ? 'assistant' : 'user', content, tokens: 20 }));
  records.push({
    type: 'checkpoint',
    summary_id: 'S1',
    summary: `summary with <img src=x onerror="${ping}"> and <script>${ping}</script>`,
    summary_budget: 64,
    covered: { from: 0, to: 2 },
  } as never);
  return `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
}

/** An id that reads "1 50-99" when its right-to-left override (left open) is applied. */
const REVERSING_ID = '1\u202E 99-05';

/** A transcript whose ids, texts and summary hold a right-to-left override and zero-width characters. */
function bidiTranscript(): string {
  const records: Record<string, unknown>[] = [
    {
      type: 'turn',
      id: 0,
      role: 'user',
      content: 'look at src/\u202Etxt.exe and the pass\u200Bword',
      tokens: 20,
      anchor: 'src/\u202Etxt.exe',
    },
    { type: 'turn', id: REVERSING_ID, role: 'assistant', content: `noted on ${REVERSING_ID}, then zero\u200Bwidth\uFEFF`, tokens: 20 },
    { type: 'turn', id: 2, role: 'tool', content: 'ok', tokens: 20 },
    {
      type: 'checkpoint',
      summary_id: REVERSING_ID,
      summary: 'The user asked about src/\u202Etxt.exe and the pass\u200Bword; noted.',
      summary_budget: 64,
      covered: { from: 0, to: 2 },
    },
  ];
  return `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
}

/**
 * Runs in the webview frame on an element: every visible character (spaces and zero-width ones left out) and
 * every chip of the element, in logical order, and the same read off the screen (sorted by line, then left to
 * right). Written as the body of a function (this tsconfig has no DOM lib); Playwright sends its source.
 */
const readings = new Function(
  'root',
  `const units = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      for (let i = 0; i < node.data.length; ) {
        const width = node.data.codePointAt(i) > 0xffff ? 2 : 1;
        const text = node.data.slice(i, i + width);
        if (text.trim() !== '') {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + width);
          const rect = range.getBoundingClientRect();
          if (rect.width > 0.5) units.push({ text, x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
        }
        i += width;
      }
    } else if (node.nodeType === Node.ELEMENT_NODE && node.classList.contains('tx-chip')) {
      const rect = node.getBoundingClientRect();
      units.push({ text: '[' + node.textContent + ']', x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
    } else {
      for (const child of node.childNodes) walk(child);
    }
  };
  walk(root);
  const visual = [...units].sort((a, b) => (Math.abs(a.y - b.y) > 3 ? a.y - b.y : a.x - b.x));
  return { logical: units.map((u) => u.text).join(''), visual: visual.map((u) => u.text).join('') };`,
) as (root: unknown) => { logical: string; visual: string };

describe('the timeline in a real VS Code workbench', function () {
  this.timeout(240_000);
  // One server and browser for all the tests below: starting them is the slow part.
  let workbench: Workbench;
  let beacon: http.Server | undefined;
  const beaconHits: string[] = [];

  before(async function () {
    this.timeout(300_000);
    beacon = http.createServer((request, response) => {
      beaconHits.push(request.url ?? '');
      response.end();
    });
    await new Promise<void>((resolve) => beacon?.listen(0, '127.0.0.1', resolve));
    const port = (beacon.address() as AddressInfo).port;
    workbench = await startWorkbench({
      files: {
        'hostile.jsonl': hostileTranscript(port),
        'bidi.jsonl': bidiTranscript(),
        // The incident sample, gzip-compressed (named apart so that Quick Open for incident.jsonl finds only that).
        'compressed.jsonl.gz': gzipSync(readFileSync(path.join(ROOT, 'samples', 'incident.jsonl'))),
      },
    });
  });

  after(async () => {
    await workbench?.close();
    await new Promise((resolve) => beacon?.close(resolve));
  });

  describe('on the incident sample', () => {
    let view: FrameLocator;

    before(async function () {
      this.timeout(420_000);
      view = await openTimeline(workbench, 'incident.jsonl');
    });

    it('shows 380 covered and 40 claimed-missing turns for the incident, in distinct colours', async () => {
      const legend = async (status: string) =>
        Number(await view.locator(`.legend-item[data-status="${status}"]`).getAttribute('data-count'));
      assert.equal(await legend('covered'), INCIDENT_COVERED);
      assert.equal(await legend('claimed-missing'), INCIDENT_CLAIMED_MISSING);
      assert.equal(await legend('uncovered'), 0);

      const rows = await collectRows(view);
      const lines = turnLines(path.join(workbench.workspace, 'incident.jsonl'));
      assert.equal(rows.size, lines.length, 'every turn has a row');
      const counts = countByStatus(rows);
      assert.equal(counts.covered, INCIDENT_COVERED, `rows by status: ${JSON.stringify(counts)}`);
      assert.equal(counts['claimed-missing'], INCIDENT_CLAIMED_MISSING);
      assert.equal(counts.covered + counts['claimed-missing'], INCIDENT_TURNS_BEFORE_CHECKPOINT);

      const coloursOf = (status: string) => new Set([...rows.values()].filter((row) => row.status === status).map((row) => row.colour));
      const covered = coloursOf('covered');
      const missing = coloursOf('claimed-missing');
      assert.equal(covered.size, 1, `covered rows share one colour: ${[...covered].join(', ')}`);
      assert.equal(missing.size, 1, `claimed-missing rows share one colour: ${[...missing].join(', ')}`);
      assert.notEqual([...covered][0], [...missing][0]);

      if (process.env.COMPACTION_LENS_SCREENSHOT) {
        // Scroll to the first claimed-missing run so the picture shows both colours and the legend.
        const firstMissing = Math.min(...[...rows.values()].filter((r) => r.status === 'claimed-missing').map((r) => r.index));
        await view
          .locator('.tl-scroll')
          .evaluate((scroller: PageElement, top) => (scroller.scrollTop = top), Math.max(0, (firstMissing - 6) * 24));
        await takeScreenshot(workbench, view, path.resolve(ROOT, process.env.COMPACTION_LENS_SCREENSHOT));
      }
    });

    it('clicking a claimed-missing turn opens the transcript with that turn selected', async () => {
      const lines = turnLines(path.join(workbench.workspace, 'incident.jsonl'));
      await view.locator('.tl-scroll').evaluate((scroller: PageElement) => (scroller.scrollTop = 0));
      await view.locator('.tl-scroll').focus();
      await view.locator('.tl-scroll').press('n');
      const index = await selectedIndex(view);
      const row = view.locator(`.row[data-index="${index}"]`);
      assert.equal(await row.getAttribute('data-status'), 'claimed-missing');
      await row.click();
      // The record opens beside the timeline, which keeps the focus; activate it to read its selection.
      await waitForCursorBeside(workbench.page, 'incident.jsonl', lines[index]);
      await activateEditorBeside(workbench, 'incident.jsonl');
      const selection = await workbench.editorSelection();
      assert.equal(selection.line, lines[index], `turn ${index} is on line ${lines[index]}`);
      assert.ok(selection.selected > 0, 'the turn record is selected, not just the cursor placed');
    });

    it('moves with ArrowDown and jumps to the next claimed-missing turn with n', async () => {
      const rows = await collectRows(view);
      const missing = [...rows.values()]
        .filter((row) => row.status === 'claimed-missing')
        .map((row) => row.index)
        .sort((a, b) => a - b);
      const scroller = view.locator('.tl-scroll');
      await scroller.evaluate((element: PageElement) => (element.scrollTop = 0));
      await scroller.focus();
      await scroller.press('Home');
      assert.equal(await selectedIndex(view), 0);
      await scroller.press('ArrowDown');
      await scroller.press('ArrowDown');
      assert.equal(await selectedIndex(view), 2);
      await scroller.press('n');
      assert.equal(
        await selectedIndex(view),
        missing.find((index) => index > 2),
      );
      const first = await selectedIndex(view);
      await scroller.press('n');
      assert.equal(
        await selectedIndex(view),
        missing.find((index) => index > first),
      );
      await scroller.press('p');
      assert.equal(await selectedIndex(view), first);
    });
  });

  describe('on a transcript with hostile text', () => {
    before(async function () {
      this.timeout(420_000);
      // Close the incident's panel and editors so that the only webview is the hostile transcript's.
      await workbench.runCommand('View: Close All Editors');
    });

    it('renders <img onerror>, <script> and javascript: links as text and runs nothing', async () => {
      const view = await openTimeline(workbench, 'hostile.jsonl');
      const scroller = view.locator('.tl-scroll');
      for (const index of [0, 1, 2]) {
        await scroller.focus();
        await scroller.press(index === 0 ? 'Home' : 'ArrowDown');
        assert.equal(await selectedIndex(view), index);
      }
      await view.getByText('<script>', { exact: false }).first().waitFor({ timeout: 20_000 });
      await view.getByText('<img src=x onerror=', { exact: false }).first().waitFor({ timeout: 20_000 });
      await view.getByText('<a href="javascript:', { exact: false }).first().waitFor({ timeout: 20_000 });
      assert.equal(await view.locator('img[src="x"]').count(), 0, 'no <img> element was created');
      assert.equal(await view.locator('a[href^="javascript:"]').count(), 0, 'no javascript: link was created');
      // VS Code injects one inline script of its own into the webview frame; none may carry the payload.
      const scripts = await view.locator('script').evaluateAll((elements) => elements.map((element) => element.textContent ?? ''));
      assert.deepEqual(
        scripts.filter((text) => text.includes('__compactionLensPwned')),
        [],
        'no payload script element was created',
      );
      await workbench.page.waitForTimeout(1500);
      const pwned = await view.locator('body').evaluate(() => (globalThis as unknown as PageGlobals).__compactionLensPwned);
      assert.equal(pwned, undefined, 'the payload ran in the webview');
      const pwnedOuter = await workbench.page.evaluate(() => (globalThis as unknown as PageGlobals).__compactionLensPwned);
      assert.equal(pwnedOuter, undefined, 'the payload ran in the workbench');
      assert.deepEqual(beaconHits, [], 'the payload reached the network');
    });

    it('draws a right-to-left override and zero-width characters as chips, and reorders none of its labels', async () => {
      await workbench.runCommand('View: Close All Editors');
      const view = await openTimeline(workbench, 'bidi.jsonl');
      const scroller = view.locator('.tl-scroll');
      await scroller.focus();
      await scroller.press('Home');
      await scroller.press('ArrowDown');
      assert.equal(await selectedIndex(view), 1);
      await view.locator('.det-turn[data-index="1"] .det-text').waitFor({ timeout: 20_000 });
      await view.locator('.det-summary-text').waitFor({ timeout: 20_000 });

      const chips = (selector: string) =>
        view
          .locator(`${selector} .tx-chip`)
          .evaluateAll((elements) => elements.map((chip) => (chip as unknown as PageElement).dataset.code ?? ''));
      for (const place of [
        '.row[data-index="1"] .row-id',
        '.det-turn .det-heading',
        '.det-turn .det-text',
        '.det-summary .det-heading',
        '.det-summary-text',
        'vscode-dropdown .choice-value',
      ]) {
        assert.ok((await chips(place)).includes('202E'), `a U+202E chip in ${place}`);
      }
      assert.ok((await chips('.det-summary-text')).includes('200B'), 'a U+200B chip in the summary');
      assert.ok((await chips('.det-turn .det-text')).includes('FEFF'), 'a U+FEFF chip in the turn text');
      const chip = view.locator('.det-summary-text .tx-chip[data-code="202E"]').first();
      assert.equal(await chip.textContent(), 'U+202E');
      assert.ok(((await chip.boundingBox())?.width ?? 0) > 10, 'the chip is drawn');

      for (const [selector, expected] of [
        ['.row[data-index="1"] .row-id', '#1[U+202E]99-05'],
        ['.det-turn .det-heading', 'Turn1[U+202E]99-05'],
        ['.det-summary .det-heading', 'Summary1[U+202E]99-05(checkpoint1)'],
        ['vscode-dropdown .choice-value', '1[U+202E]99-05·line4·'],
        ['.det-summary-text', 'src/[U+202E]txt.exe'],
      ] as const) {
        const read = await view.locator(selector).first().evaluate(readings);
        assert.ok(read.logical.includes(expected), `${selector} holds ${expected}: ${read.logical}`);
        assert.equal(read.visual, read.logical, `${selector} reads on screen as it is written`);
      }
    });
  });

  describe('on a gzip-compressed transcript (.jsonl.gz)', () => {
    const GZ = 'compressed.jsonl.gz';

    before(async function () {
      this.timeout(420_000);
      await workbench.runCommand('View: Close All Editors');
    });

    /** The labels of the explorer's context menu on `name`; the menu is closed again. */
    async function explorerMenu(name: string): Promise<string[]> {
      const { page } = workbench;
      const row = page.locator('.explorer-folders-view .monaco-list-row', {
        hasText: new RegExp(`^\\s*${name.replace(/\./g, '\\.')}\\s*$`),
      });
      await row.first().click({ button: 'right' });
      const items = page.locator('.context-view .monaco-menu .action-label');
      await items.first().waitFor({ timeout: 10_000 });
      const labels = (await items.allInnerTexts()).map((label) => label.trim());
      await page.keyboard.press('Escape');
      return labels;
    }

    it("offers Open Compaction Timeline in its explorer menu, as for a .jsonl, and Open Timeline on its tab's title", async () => {
      const count = (labels: string[]) => labels.filter((label) => label === 'Open Compaction Timeline').length;
      const plain = await explorerMenu('incident.jsonl');
      const compressed = await explorerMenu(GZ);
      // Ours is named apart from VS Code's own "Open Timeline" (its Timeline view) in this menu.
      assert.equal(count(plain), 1, `Open Compaction Timeline for incident.jsonl: ${plain.join(' | ')}`);
      assert.ok(plain.filter((label) => label === 'Open Timeline').length <= 1, `a second Open Timeline: ${plain.join(' | ')}`);
      assert.equal(count(compressed), count(plain), `explorer menu of ${GZ}: ${compressed.join(' | ')}`);
      await workbench.openFile(GZ);
      await titleButton(workbench).waitFor({ state: 'visible', timeout: 60_000 });
      await workbench.runCommand('View: Close All Editors');
    });

    it("clicking a turn of a .gz transcript opens the read-only decompressed view at that turn's line", async () => {
      // The editor title's button on the .gz tab (VS Code's binary placeholder) opens the timeline.
      const view = await openTimeline(workbench, GZ, 'title');
      const legend = async (status: string) =>
        Number(await view.locator(`.legend-item[data-status="${status}"]`).getAttribute('data-count'));
      assert.equal(await legend('claimed-missing'), INCIDENT_CLAIMED_MISSING);
      const lines = turnLines(path.join(workbench.workspace, 'incident.jsonl'));
      const scroller = view.locator('.tl-scroll');
      await scroller.evaluate((element: PageElement) => (element.scrollTop = 0));
      await scroller.focus();
      await scroller.press('n');
      const index = await selectedIndex(view);
      const row = view.locator(`.row[data-index="${index}"]`);
      assert.equal(await row.getAttribute('data-status'), 'claimed-missing');
      await row.click();
      const { page } = workbench;
      await waitForCursorBeside(page, GZ, lines[index]);
      await activateEditorBeside(workbench, GZ);
      const notifications = await page.locator('.notifications-toasts').allInnerTexts();
      assert.ok(!notifications.join(' ').includes('binary'), `a notification says: ${notifications.join(' | ')}`);
      const selection = await workbench.editorSelection();
      assert.equal(selection.line, lines[index], `turn ${index} is on line ${lines[index]} of the decompressed view`);
      assert.ok(selection.selected > 0, 'the turn record is selected, not just the cursor placed');
      const tab = page.locator('.editor-group-container.active .tabs-container .tab.active');
      assert.equal((await tab.innerText()).replace(/\s+/g, ''), GZ, "the active tab is the .gz's decompressed view");
      const editor = page.locator('.editor-group-container.active .monaco-editor').first();
      assert.match((await editor.textContent()) ?? '', /"type":"turn"/, 'the view shows the decompressed records');
      // Read-only: typing changes nothing, and VS Code says why.
      await page.keyboard.type('x');
      await page.getByText('Cannot edit in read-only editor').first().waitFor({ timeout: 10_000 });
      assert.equal(
        await tab.evaluate((element) => (element as unknown as PageElement).getAttribute('class')?.includes('dirty')),
        false,
        'the view became dirty',
      );
    });
  });
});
