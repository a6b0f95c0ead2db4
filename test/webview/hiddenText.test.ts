// Visible trickery in a real browser (Debian Chromium via playwright-core): bidi controls and invisible
// characters in transcript text are drawn as bordered chips naming their code point wherever the webview
// shows transcript text (rows, details, evidence, summary, header, checkpoint selector); a right-to-left
// override left open (`1\u202E 99-05`) reorders none of our labels, measured from where each character is drawn;
// long unbroken words wrap instead of overflowing the details pane. Skips when Chromium is not installed.

import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { FixtureDataset, TRICKY, trickySpec } from './fixture';
import { chromiumAvailable, WebviewHarness, type OpenedPage, assertClean } from './harness';
import { skipOrFailInCi } from '../sharedFolder';

interface Unit {
  text: string;
  x: number;
  y: number;
}

/**
 * Installs `window.__units(element)`: every visible character of the element's text (spaces and zero-width
 * characters left out) and every chip as one unit, in logical (DOM) order, with the horizontal centre and
 * line where it is drawn.
 */
const INSTALL_UNITS = `window.__units = (root) => {
  const units = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.data;
      for (let i = 0; i < text.length; ) {
        const width = text.codePointAt(i) > 0xffff ? 2 : 1;
        const ch = text.slice(i, i + width);
        if (ch.trim() !== '') {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + width);
          const rect = range.getBoundingClientRect();
          if (rect.width > 0.5) units.push({ text: ch, x: rect.left + rect.width / 2, y: Math.round(rect.top + rect.height / 2) });
        }
        i += width;
      }
    } else if (node.nodeType === Node.ELEMENT_NODE && node.classList.contains('tx-chip')) {
      const rect = node.getBoundingClientRect();
      units.push({ text: '[' + node.textContent + ']', x: rect.left + rect.width / 2, y: Math.round(rect.top + rect.height / 2) });
    } else {
      for (const child of node.childNodes) walk(child);
    }
  };
  walk(root);
  return units;
};`;

async function units(page: Page, selector: string): Promise<Unit[]> {
  await page.evaluate(INSTALL_UNITS);
  const found = (await page.evaluate(`window.__units(document.querySelector(${JSON.stringify(selector)}))`)) as Unit[];
  assert.ok(found.length > 0, `${selector} draws something`);
  return found;
}

/** The text as read on screen (units sorted by line, then left to right) next to the text in logical order. */
function readings(found: Unit[]): { logical: string; visual: string } {
  const visual = [...found].sort((a, b) => (Math.abs(a.y - b.y) > 3 ? a.y - b.y : a.x - b.x));
  return { logical: found.map((unit) => unit.text).join(''), visual: visual.map((unit) => unit.text).join('') };
}

async function assertReadsInOrder(page: Page, selector: string, mustContain: string): Promise<void> {
  const { logical, visual } = readings(await units(page, selector));
  assert.ok(logical.includes(mustContain), `${selector} holds ${mustContain}: ${logical}`);
  assert.equal(visual, logical, `${selector} reads on screen as it is written`);
}

/** Code points (hex, as data-code) of the chips inside `selector`. */
async function chipCodes(page: Page, selector: string): Promise<string[]> {
  return (await page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].flatMap((element) =>
      [...element.querySelectorAll('.tx-chip')].map((chip) => chip.dataset.code))`,
  )) as string[];
}

async function openTricky(harness: WebviewHarness, turn: number): Promise<OpenedPage> {
  const opened = await harness.open(new FixtureDataset(trickySpec()), { viewport: { width: 1280, height: 760 } });
  const { page } = opened;
  await page.waitForSelector('.det-summary-text');
  await page.click(`.row[data-index="${turn}"][data-status]`);
  await page.waitForSelector(`.det-turn[data-index="${turn}"] .det-text`);
  // The reasons and notes are in the header's Details section: open it so they are drawn.
  await page.click('.hdr-toggle');
  await page.waitForSelector('.hdr-reasons', { state: 'visible' });
  return opened;
}

/**
 * Switches to S2, whose coverage cannot be checked for a reason naming turn `1\u202E 99-05` and a long word
 * (the only verdict reason that quotes transcript text), with turn `turn` selected.
 */
async function showUnverifiable(page: Page, turn: number): Promise<void> {
  await page.evaluate(`window.postMessage({ type: "selectTurn", checkpointIndex: 1, turnIndex: ${turn} }, "*")`);
  await page.waitForFunction(`(document.querySelector('.hdr-reasons')?.textContent ?? '').includes('parent session')`);
  await page.waitForSelector(`.det-turn[data-index="${turn}"] .det-status[data-status="unverifiable"]`);
  await page.waitForSelector('.hdr-reasons', { state: 'visible' });
}

(chromiumAvailable() ? describe : describe.skip)('hidden and bidi characters in the webview (Chromium)', function () {
  this.timeout(60_000);
  const harness = new WebviewHarness();

  before(async () => {
    await harness.start();
  });

  after(async () => {
    await harness.stop();
  });

  it('draws U+202E and zero-width characters as bordered chips wherever transcript text is shown', async () => {
    const opened = await openTricky(harness, 1);
    const { page } = opened;
    const places = [
      '.row[data-index="1"] .row-id',
      '.det-turn .det-heading',
      '.det-turn .det-text',
      '.det-turn .evidence-text',
      '.det-turn .det-reason',
      '.det-summary .det-heading',
      '.det-summary-text',
      '.hdr-file',
      'vscode-dropdown .choice-value',
      'vscode-option[value="0"]',
    ];
    for (const place of places) {
      assert.ok((await chipCodes(page, place)).includes('202E'), `a U+202E chip in ${place}`);
    }
    const textChips = await chipCodes(page, '.det-turn .det-text');
    for (const code of ['200B', '200C', '2060', 'FEFF', '00AD']) assert.ok(textChips.includes(code), `a U+${code} chip in the turn's text`);
    assert.ok((await chipCodes(page, '.row[data-index="1"] .row-label')).includes('200B'), 'a U+200B chip in the row label');
    assert.ok((await chipCodes(page, '.hdr-notes')).includes('200B'), 'a U+200B chip in the notes');
    assert.deepEqual(await chipCodes(page, '.hdr-reasons'), [], "S1's reasons quote no transcript text");
    assert.ok((await chipCodes(page, '.row[data-index="2"] .row-role')).includes('202E'), "a U+202E chip as row 2's role letter");
    assert.equal(
      await page.getAttribute('.row[data-index="2"] .row-role', 'title'),
      '\u2068[U+202E]tool\u2069',
      'the tooltip writes it out',
    );
    const tags = (await page.evaluate(`[...document.querySelectorAll('.det-text .tx-tags')].map((chip) => chip.textContent)`)) as string[];
    assert.deepEqual(tags, ['tags “hi”'], 'tag characters show the text they spell');

    // A chip is drawn like VS Code's unicode highlight: a visible bordered box naming the code point.
    const look = (await page.evaluate(`(() => {
      const chip = document.querySelector('.det-text .tx-chip[data-code="202E"]');
      const style = getComputedStyle(chip);
      const rect = chip.getBoundingClientRect();
      return { text: chip.textContent, width: rect.width, border: style.borderTopStyle, borderWidth: parseFloat(style.borderTopWidth), title: chip.title };
    })()`)) as { text: string; width: number; border: string; borderWidth: number; title: string };
    assert.equal(look.text, 'U+202E');
    assert.ok(look.width > 10 && look.border === 'solid' && look.borderWidth >= 1, JSON.stringify(look));
    assert.match(look.title, /RIGHT-TO-LEFT OVERRIDE/);

    // The reasons of a checkpoint whose coverage cannot be checked quote the turn, and so does each turn's reason.
    await showUnverifiable(page, 1);
    for (const place of ['.hdr-reasons', '.det-turn .det-reason']) {
      assert.ok((await chipCodes(page, place)).includes('202E'), `a U+202E chip in ${place} (S2)`);
    }

    // None of those characters reaches the page as text; an emoji's zero width joiners are kept.
    const leaked = (await page.evaluate(`(() => {
      const hidden = /[\\u00AD\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2069\\uFEFF]|[\\u{E0000}-\\u{E007F}]/u;
      const found = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement && node.parentElement.closest('script, style')) continue;
        const text = node.data.split(${JSON.stringify(TRICKY.family)}).join('');
        if (hidden.test(text)) found.push(JSON.stringify(text.slice(0, 60)));
      }
      return found;
    })()`)) as string[];
    assert.deepEqual(leaked, [], 'no bidi control or invisible character is in a text node');
    assert.ok(((await page.textContent('.det-text')) ?? '').includes(TRICKY.family), 'the family emoji keeps its joiners');
    await assertClean(opened);
  });

  it('keeps `1\\u202E 99-05` from reading reversed in our labels', async () => {
    const opened = await openTricky(harness, 1);
    const { page } = opened;
    // The measurement sees the trick when it is not defused: raw text with the override reads "1 50-99".
    await page.evaluate(`(() => {
      const control = document.createElement('div');
      control.id = 'raw-control';
      control.textContent = 'turn 1\\u202E 99-05 is claimed but missing';
      document.body.append(control);
    })()`);
    const raw = readings(await units(page, '#raw-control'));
    assert.notEqual(raw.visual, raw.logical, `raw text with U+202E reads reversed (${raw.visual})`);

    for (const selector of [
      '.row[data-index="1"] .row-id',
      '.det-turn .det-heading',
      '.det-summary .det-heading',
      'vscode-dropdown .choice-value',
    ]) {
      await assertReadsInOrder(page, selector, '1[U+202E]99-05');
    }
    await assertReadsInOrder(page, '.hdr-file', 'report[U+202E]txt.exe.jsonl');
    await assertReadsInOrder(page, '.det-turn .evidence-text', 'src/[U+202E]txt.exe');
    // The selector's own words after the id are not reversed by an override left open in it.
    const selector = readings(await units(page, 'vscode-dropdown .choice-value'));
    assert.ok(selector.visual.endsWith('99-05·line7·fail-closed'), selector.visual);
    // S2's reason names the turn: it reads in order too.
    await showUnverifiable(page, 1);
    await assertReadsInOrder(page, '.hdr-reasons li', '1[U+202E]99-05');
    await assertReadsInOrder(page, '.det-turn .det-reason', '1[U+202E]99-05');
    await assertClean(opened);
  });

  it('wraps long unbroken words instead of overflowing the details pane or the header', async () => {
    const opened = await openTricky(harness, 2);
    const { page } = opened;
    await page.waitForSelector('.det-turn .evidence-text');
    const layout = (await page.evaluate(`(() => {
      const pane = document.querySelector('.cl-details');
      const right = pane.getBoundingClientRect().right;
      const overflowing = [];
      for (const selector of ['.det-heading', '.det-facts', '.det-reason', '.det-text', '.evidence', '.evidence-text', '.det-summary-text', '.hdr-reasons li']) {
        for (const element of document.querySelectorAll(selector)) {
          const box = element.getBoundingClientRect();
          const limit = element.closest('.cl-details') ? right : document.documentElement.clientWidth;
          if (box.right > limit + 1) overflowing.push(selector + ' ends at ' + Math.round(box.right) + ' > ' + Math.round(limit));
        }
      }
      const scrolls = (selector) => {
        const element = document.querySelector(selector);
        return element.scrollWidth > element.clientWidth + 1 ? [selector + ' scrolls sideways (' + element.scrollWidth + ' > ' + element.clientWidth + ')'] : [];
      };
      return {
        overflowing: [...overflowing, ...scrolls('.cl-details'), ...scrolls('.det-turn'), ...scrolls('.det-summary'), ...scrolls('.hdr-more'), ...scrolls('html')],
        textLines: Math.round(document.querySelector('.det-text').scrollHeight / (1.2 * parseFloat(getComputedStyle(document.querySelector('.det-text')).fontSize))),
        reasonHeight: document.querySelector('.det-reason').getBoundingClientRect().height,
        factsHeight: document.querySelector('.det-facts').getBoundingClientRect().height,
      };
    })()`)) as { overflowing: string[]; textLines: number; reasonHeight: number; factsHeight: number };
    assert.deepEqual(layout.overflowing, [], 'nothing is wider than its pane');
    assert.ok(layout.textLines > 5, `the 4,000-character word wraps over many lines (${layout.textLines})`);
    assert.ok(layout.reasonHeight > 60 && layout.factsHeight > 60, `the reason and the label wrap too: ${JSON.stringify(layout)}`);

    // S2's reason holds the long word: it wraps in the header and in the turn's reason.
    await showUnverifiable(page, 2);
    const header = (await page.evaluate(`(() => {
      const overflowing = [];
      const right = document.querySelector('.cl-details').getBoundingClientRect().right;
      for (const selector of ['.hdr-reasons li', '.det-reason']) {
        for (const element of document.querySelectorAll(selector)) {
          const limit = element.closest('.cl-details') ? right : document.documentElement.clientWidth;
          const box = element.getBoundingClientRect();
          if (box.right > limit + 1) overflowing.push(selector + ' ends at ' + Math.round(box.right) + ' > ' + Math.round(limit));
        }
      }
      const more = document.querySelector('.hdr-more');
      if (more.scrollWidth > more.clientWidth + 1) overflowing.push('.hdr-more scrolls sideways');
      return { overflowing, reasonHeight: document.querySelector('.hdr-reasons li').getBoundingClientRect().height };
    })()`)) as { overflowing: string[]; reasonHeight: number };
    assert.deepEqual(header.overflowing, [], 'the long reason is no wider than its pane');
    assert.ok(header.reasonHeight > 60, `the long reason wraps (${header.reasonHeight} px)`);
    await assertClean(opened);
  });
});

if (!chromiumAvailable()) {
  describe('hidden and bidi characters in the webview (Chromium)', () => {
    it("needs Debian's chromium", function () {
      skipOrFailInCi(this, '/usr/bin/chromium is missing (apt-get install chromium)');
    });
  });
}
