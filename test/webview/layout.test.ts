// The panel's layout and words in a real browser (Debian Chromium via playwright-core): the turn list keeps at
// least half the panel at every size (a full 1366×768 window, a short one, an editor split beside the Problems
// panel, a narrow one), the headline stays in view, Details and both splitters work from the keyboard and are
// remembered, a transcript without a compaction lists its turns and waits for nothing, Copy says it copied,
// the glossary explains every term, each reason is said once, recorded and counted figures are told apart,
// and problems are counted and coloured by severity. Skips when Chromium is not installed.

import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ViewState } from '../../src/protocol';
import { groupDigits } from '../../src/core/displayText';
import { claudeLikeSpec, codexLikeSpec, FixtureDataset, incidentSpec, noCompactionSpec } from './fixture';
import { chromiumAvailable, THEMES, WebviewHarness, until, assertClean } from './harness';
import { skipOrFailInCi } from '../sharedFolder';

async function js<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

interface Measure {
  panel: number;
  list: number;
  headlineTop: number;
  headlineBottom: number;
  selectedVisible: boolean;
  headingsWhole: boolean;
  detailsHeight: number;
}

/** Sizes that matter: the list's height against the panel's, where the headline is, whether the selected row shows. */
async function measure(page: Page): Promise<Measure> {
  // Two frames: the splitters and the list settle on their ResizeObservers.
  await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
  return js<Measure>(
    page,
    `(() => {
      const box = (selector) => document.querySelector(selector).getBoundingClientRect();
      const list = box('.tl-scroll');
      const headline = box('.hdr-headline');
      const selected = document.querySelector('.row[aria-selected="true"]');
      const row = selected ? selected.getBoundingClientRect() : undefined;
      const headingsWhole = [...document.querySelectorAll('.det-heading')].every((heading) => {
        const pane = heading.parentElement.getBoundingClientRect();
        const own = heading.getBoundingClientRect();
        return pane.height < 1 || (own.top >= pane.top - 0.5 && (own.bottom <= pane.bottom + 0.5 || pane.height < own.height));
      });
      return {
        panel: window.innerHeight,
        list: list.height,
        headlineTop: headline.top,
        headlineBottom: headline.bottom,
        selectedVisible: !!row && row.top >= list.top - 0.5 && row.bottom <= list.bottom + 0.5,
        headingsWhole,
        detailsHeight: box('.cl-details').height,
      };
    })()`,
  );
}

function assertFits(m: Measure, where: string): void {
  assert.ok(m.list >= m.panel / 2, `${where}: the turn list is ${Math.round(m.list)} px of a ${m.panel} px panel (at least half)`);
  assert.ok(
    m.headlineTop >= 0 && m.headlineBottom <= m.panel / 2,
    `${where}: the headline is in view (${Math.round(m.headlineTop)}–${Math.round(m.headlineBottom)})`,
  );
  assert.ok(m.selectedVisible, `${where}: the selected turn is in view`);
  assert.ok(m.headingsWhole, `${where}: no details heading is cut`);
}

/** The last state the page saved with setState. */
async function lastSaved(page: Page, check: (state: ViewState) => boolean): Promise<ViewState> {
  return until('setState', async () => {
    const state = ((await page.evaluate('window.__setStateCalls')) as ViewState[]).at(-1);
    return state && check(state) ? state : undefined;
  });
}

/** How many times `needle` occurs in `haystack`. */
function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

(chromiumAvailable() ? describe : describe.skip)('timeline panel layout and words in Chromium', function () {
  this.timeout(60_000);
  const harness = new WebviewHarness();

  before(async () => {
    await harness.start();
  });

  after(async () => {
    await harness.stop();
  });

  const sizes = [
    { name: '1366×768 window', width: 1366, height: 768 },
    { name: 'short 1366×600', width: 1366, height: 600 },
    { name: 'split editor beside the Problems panel (660×420)', width: 660, height: 420 },
    { name: 'narrow 480×700 (details under the list)', width: 480, height: 700 },
  ];
  for (const size of sizes) {
    it(`keeps the list at least half the panel, the headline and the selected turn in view: ${size.name}`, async () => {
      const opened = await harness.open(new FixtureDataset(codexLikeSpec()), { viewport: { width: size.width, height: size.height } });
      const { page } = opened;
      await page.click('.row[data-index="3"][data-status]');
      const closed = await measure(page);
      assertFits(closed, `${size.name}, Details closed`);
      assert.ok(closed.detailsHeight >= 80, `${size.name}: the details pane has room (${closed.detailsHeight} px)`);
      // Details open: the header scrolls inside itself; the list keeps its half.
      await page.click('.hdr-toggle');
      await page.waitForSelector('.hdr-more .glossary', { state: 'visible' });
      const open = await measure(page);
      assertFits(open, `${size.name}, Details open`);
      const more = await js<{ scrolls: boolean; bottom: number }>(
        page,
        `(() => { const more = document.querySelector('.hdr-more'); return { scrolls: more.scrollHeight > more.clientHeight + 1, bottom: more.getBoundingClientRect().bottom }; })()`,
      );
      assert.ok(more.bottom <= size.height / 2 + 1, `${size.name}: Details stays in the upper half (ends at ${Math.round(more.bottom)})`);
      if (size.height <= 600) assert.ok(more.scrolls, `${size.name}: Details scrolls inside the header`);
      // Beside the list, the details pane is as tall as the list and its heading; under it (narrow), it yields to the list.
      if (size.width > 520) assert.ok(open.detailsHeight >= open.list, `${size.name}: the details pane is beside the list, as tall`);
      await assertClean(opened);
    });
  }

  it('opens on the first claimed-missing turn in view in an editor split beside the Problems panel (660×420)', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()), { viewport: { width: 660, height: 420 } });
    const { page } = opened;
    await page.waitForSelector('.det-turn[data-index="380"]');
    assert.equal(await page.getAttribute('.row[aria-selected="true"]', 'data-index'), '380');
    assertFits(await measure(page), '660×420 on open');
    // The plain-words verdict keeps to one line and says the rest in its tooltip.
    const plain = await js<{ height: number; line: number; title: string }>(
      page,
      `(() => { const plain = document.querySelector('.hdr-plain'); return { height: plain.getBoundingClientRect().height, line: parseFloat(getComputedStyle(plain).lineHeight) || 18, title: plain.title }; })()`,
    );
    assert.ok(plain.height < 2 * plain.line, `one line (${plain.height} px)`);
    assert.match(plain.title, /^Not safe: 40 claimed turns are missing from the summary/);
    await assertClean(opened);
  });

  it('opens and closes Details from the keyboard and remembers it', async () => {
    const dataset = new FixtureDataset(incidentSpec());
    const opened = await harness.open(dataset, { viewport: { width: 1366, height: 768 } });
    const { page } = opened;
    const toggle = page.locator('.hdr-toggle');
    assert.equal(await toggle.evaluate((element: { tagName: string }) => element.tagName), 'BUTTON');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await toggle.getAttribute('aria-controls'), 'cl-more');
    assert.equal(await page.isVisible('#cl-more'), false, 'collapsed by default');
    assert.match((await toggle.textContent()) ?? '', /Details ▸/);
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await page.isVisible('#cl-more'), true);
    assert.match((await toggle.textContent()) ?? '', /Details ▾/);
    const saved = await lastSaved(page, (state) => state.layout?.detailsOpen === true);
    await page.keyboard.press('Space');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await lastSaved(page, (state) => state.layout?.detailsOpen === false);

    // A reloaded webview reads it back from getState (any file: the layout is the panel's, not the file's).
    const again = await harness.open(dataset, { viewport: { width: 1366, height: 768 }, initialState: saved });
    assert.equal(await again.page.getAttribute('.hdr-toggle', 'aria-expanded'), 'true');
    assert.equal(await again.page.isVisible('#cl-more'), true);
    const otherFile = await harness.open(dataset, { initialState: { ...saved, file: '/elsewhere.jsonl' } });
    assert.equal(await otherFile.page.getAttribute('.hdr-toggle', 'aria-expanded'), 'true');
    await assertClean(opened);
    await assertClean(again);
  });

  it('resizes the list and the details, and the turn and the summary, from the keyboard and remembers both', async () => {
    const dataset = new FixtureDataset(incidentSpec());
    const opened = await harness.open(dataset, { viewport: { width: 1366, height: 768 } });
    const { page } = opened;
    const list = page.locator('.cl-body > .splitter');
    const turn = page.locator('.cl-details > .splitter');
    assert.equal(await list.getAttribute('role'), 'separator');
    assert.equal(await list.getAttribute('aria-orientation'), 'vertical');
    assert.equal(await list.getAttribute('tabindex'), '0');
    assert.equal(await turn.getAttribute('aria-orientation'), 'horizontal');
    const start = Number(await list.getAttribute('aria-valuenow'));
    assert.ok(start > 50 && start < 70, `the list starts at about 60 % (${start})`);
    const width = async () => (await page.locator('.cl-timeline').boundingBox())!.width;
    const before = await width();
    await list.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(Number(await list.getAttribute('aria-valuenow')), start - 10);
    assert.ok((await width()) < before - 100, 'the list got narrower');
    await page.keyboard.press('End');
    assert.ok(Number(await list.getAttribute('aria-valuenow')) < 100, 'End stops where the details keep their least width');
    await page.keyboard.press('Enter');
    assert.equal(Number(await list.getAttribute('aria-valuenow')), start, 'Enter restores the default');
    await page.keyboard.press('ArrowRight');
    const listValue = Number(await list.getAttribute('aria-valuenow'));

    const turnStart = Number(await turn.getAttribute('aria-valuenow'));
    await turn.focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    const turnValue = Number(await turn.getAttribute('aria-valuenow'));
    assert.equal(turnValue, turnStart - 15);
    const saved = await lastSaved(page, (state) => Math.round((state.layout?.turnShare ?? 0) * 100) === turnValue);
    assert.equal(Math.round(saved.layout!.listShare * 100), listValue);

    const again = await harness.open(dataset, { viewport: { width: 1366, height: 768 }, initialState: saved });
    await measure(again.page);
    assert.equal(Number(await again.page.getAttribute('.cl-body > .splitter', 'aria-valuenow')), listValue);
    assert.equal(Number(await again.page.getAttribute('.cl-details > .splitter', 'aria-valuenow')), turnValue);
    await assertClean(opened);
    await assertClean(again);
  });

  it('keeps the list at least half the panel when the details sit under it, whatever the splitter says', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()), { viewport: { width: 480, height: 700 } });
    const { page } = opened;
    const list = page.locator('.cl-body > .splitter');
    assert.equal(await list.getAttribute('aria-orientation'), 'horizontal');
    await list.focus();
    await page.keyboard.press('Home');
    const m = await measure(page);
    assert.ok(m.list >= m.panel / 2, `the list is ${m.list} px of ${m.panel}`);
    await assertClean(opened);
  });

  it('lists the turns of a transcript without a compaction and waits for no summary', async () => {
    const opened = await harness.open(new FixtureDataset(noCompactionSpec()), { viewport: { width: 1366, height: 768 } });
    const { page, host } = opened;
    assert.match((await page.textContent('.hdr-headline')) ?? '', /No compaction in this transcript/);
    assert.match((await page.textContent('.hdr-facts')) ?? '', /5 turns · 0 checkpoints/);
    assert.equal(await page.locator('.row[data-status]').count(), 5);
    assert.equal(await page.getAttribute('.row[data-index="0"]', 'data-status'), 'uncovered');
    assert.equal(await page.isVisible('.hdr-copy'), false, 'nothing to copy');
    assert.equal(await page.isVisible('.hdr-selector'), false, 'no checkpoint to choose');
    await page.waitForSelector('.det-no-summary');
    assert.match((await page.textContent('.det-summary')) ?? '', /No compaction in this transcript/);
    await page.waitForTimeout(300);
    assert.equal(await page.locator('.det-loading').count(), 0, 'no "Loading the summary…" left');
    assert.equal(await page.locator('[aria-busy="true"]').count(), 0, 'nothing busy');
    assert.equal(host.ofType('getSummary').length, 0, 'no summary asked for');
    assert.ok(
      host.ofType('getRows').every((request) => request.checkpointIndex === -1),
      'rows for "no checkpoint"',
    );
    await page.click('.row[data-index="2"][data-status]');
    await page.waitForSelector('.det-turn[data-index="2"]');
    assert.equal(await page.getAttribute('.det-status', 'data-status'), 'uncovered');
    assert.deepEqual(host.ofType('getTurnDetails').at(-1), {
      type: 'getTurnDetails',
      requestId: host.ofType('getTurnDetails').at(-1)!.requestId,
      version: 0,
      checkpointIndex: -1,
      turnIndex: 2,
    });
    await assertClean(opened);
  });

  it('says "Copied" for two seconds after Copy, in a status region', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()));
    const { page, host } = opened;
    assert.equal(await page.getAttribute('.hdr-copied', 'role'), 'status');
    assert.equal(await page.getAttribute('.hdr-copied', 'aria-live'), 'polite');
    await page.click('.hdr-copy');
    await until('copy posted', () => host.ofType('copySafePointerSet')[0]);
    assert.equal(await page.textContent('.hdr-copied'), 'Copied');
    assert.equal(await page.isVisible('.hdr-copied'), true);
    await until('Copied cleared', async () => (await page.textContent('.hdr-copied')) === '' || undefined, 4000);
    await assertClean(opened);
  });

  it('explains every term: tooltips where they are used and a glossary inside Details', async () => {
    const opened = await harness.open(new FixtureDataset(incidentSpec()));
    const { page } = opened;
    await page.click('.hdr-toggle');
    const glossary = page.locator('.hdr-more details.glossary');
    assert.equal(await glossary.locator('summary').textContent(), 'What do these words mean?');
    await glossary.locator('summary').focus();
    await page.keyboard.press('Enter');
    assert.equal(await glossary.evaluate((element: { open: boolean }) => element.open), true, 'opens from the keyboard');
    const terms = await js<string[]>(page, `[...document.querySelectorAll('.glossary dt')].map((dt) => dt.textContent)`);
    for (const name of [
      'summary budget',
      'ceiling',
      'R_low',
      'claimed',
      'safe pointer set',
      'evidence',
      'Path A',
      'Path B',
      'fail-closed',
      'prefix tokens',
    ]) {
      assert.ok(terms.includes(name), `the glossary explains ${name}`);
    }
    assert.match((await page.textContent('.glossary dd:nth-of-type(' + (terms.indexOf('ceiling') + 1) + ')')) ?? '', /budget × R_low/);
    const tooltips = await js<Record<string, string>>(
      page,
      `Object.fromEntries([...document.querySelectorAll('.cl-header .term')].map((term) => [term.dataset.term, term.title]))`,
    );
    for (const name of ['fail-closed', 'safe pointer set', 'ceiling', 'summary budget', 'R_low', 'prefix tokens', 'Path B']) {
      assert.ok((tooltips[name] ?? '').length > 20, `${name} has a tooltip where it is used`);
    }
    assert.ok(
      (await page.getAttribute('.legend-item[data-status="claimed-missing"]', 'title'))!.includes(
        'claimed, but the summary does not show it',
      ),
    );
    await assertClean(opened);
  });

  it('says each reason once: truncation tells, preTokens, the trigger and the raw summariser line', async () => {
    const dataset = new FixtureDataset(claudeLikeSpec());
    const [checkpoint] = dataset.headers();
    assert.equal(checkpoint.prefixTokenSource, 'mixed');
    assert.ok(checkpoint.ceiling !== undefined && checkpoint.prefixTokens > checkpoint.ceiling, 'over the ceiling');
    const prefix = groupDigits(checkpoint.prefixTokens);
    const opened = await harness.open(dataset);
    const { page } = opened;
    await page.click('.hdr-toggle');
    const header = (await page.textContent('.cl-header')) ?? '';
    for (const once of [
      'trigger: auto',
      'preTokens 167,094',
      'raw summariser output has no closing',
      'ends mid-clause',
      'fail closed — the pointer set may not advance',
    ]) {
      assert.equal(occurrences(header, once), 1, `"${once}" is said once (${occurrences(header, once)})`);
    }
    // The size facts are in the bar, not repeated as reasons.
    assert.equal(occurrences(header, 'the agent recorded 167,094 tokens of context'), 0);
    assert.ok(checkpoint.reasons.some((reason) => reason.startsWith(`prefix ${prefix} tokens (partly counted)`)));
    assert.equal(occurrences(header, `prefix ${prefix} tokens (partly counted)`), 0);
    const caption = (await page.textContent('.bar-caption')) ?? '';
    assert.ok(
      caption.includes(`Prefix ${prefix} tokens (partly recorded by the agent, partly counted) > ceiling 100,000: over the ceiling`),
      caption,
    );
    const recorded = (await page.textContent('.bar-recorded')) ?? '';
    assert.match(
      recorded,
      /^The agent recorded 167,094 tokens \(preTokens 167,094 \(recorded by Claude Code\)\): that is its whole context/,
    );
    assert.ok(recorded.endsWith(`The verdict checks the prefix, ${prefix}, against the ceiling.`), recorded);
    // The truncation shows in the headline and its tells once, under Details.
    assert.equal(await page.isVisible('.hdr-headline .hdr-cut'), true);
    assert.equal(await page.locator('.flag-truncated li').count(), 2);
    assert.deepEqual(await js<string[]>(page, `[...document.querySelectorAll('.hdr-notes li')].map((li) => li.textContent.trim())`), [
      'trigger: auto',
    ]);
    await assertClean(opened);
  });

  it('tells the counted prefix from the context the agent recorded (Codex: the counted prefix against 212,134)', async () => {
    const dataset = new FixtureDataset(codexLikeSpec());
    const [checkpoint] = dataset.headers();
    assert.equal(checkpoint.prefixTokenSource, 'counted');
    assert.ok(checkpoint.prefixTokens < 100_000, 'within the ceiling');
    const prefix = groupDigits(checkpoint.prefixTokens);
    const opened = await harness.open(dataset);
    const { page } = opened;
    await page.click('.hdr-toggle');
    const caption = (await page.textContent('.bar-caption')) ?? '';
    assert.ok(caption.includes(`Prefix ${prefix} tokens (counted with the tokenizer) ≤ ceiling 100,000: within the ceiling`), caption);
    const recorded = (await page.textContent('.bar-recorded')) ?? '';
    assert.match(recorded, /The agent recorded 212,134 tokens \(recorded prefix: last_token_usage\.total_tokens 212,134/);
    assert.match(recorded, /system prompt, tool definitions and turns kept verbatim/);
    assert.ok(recorded.includes(`The verdict checks the prefix, ${prefix}, against the ceiling`), recorded);
    assert.equal(occurrences((await page.textContent('.cl-header')) ?? '', '212,134'), 2, 'the figure and where it was read, once each');
    assert.match(
      (await page.textContent('.hdr-headline')) ?? '',
      /Coverage cannot be checked: the summary is opaque \(encrypted\)\..*Safe pointer set: empty/,
    );
    await assertClean(opened);
  });

  it('counts problems in good English and colours them by severity', async () => {
    const two = await harness.open(new FixtureDataset(incidentSpec()), {
      problems: [
        { line: 3, severity: 'error', message: 'not JSON' },
        { line: 9, severity: 'info', message: 'a record of an unknown type was skipped' },
      ],
    });
    const summary = (await two.page.textContent('.hdr-problems summary')) ?? '';
    assert.match(summary, /2 problems reading this file \(1 error, 1 note\)/);
    assert.doesNotMatch(summary, /1 errors/);
    assert.equal(await two.page.getAttribute('.hdr-problems', 'data-severity'), 'error');

    const info = await harness.open(new FixtureDataset(incidentSpec()), {
      problems: [{ line: 9, severity: 'info', message: 'a record of an unknown type was skipped' }],
    });
    const { page } = info;
    assert.match((await page.textContent('.hdr-problems summary')) ?? '', /1 note about this file/);
    const colours = await js<{ summary: string; warning: string; icon: string }>(
      page,
      `(() => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--cl-warning)';
        document.body.append(probe);
        const warning = getComputedStyle(probe).color;
        probe.remove();
        return {
          summary: getComputedStyle(document.querySelector('.hdr-problems summary')).color,
          warning,
          icon: getComputedStyle(document.querySelector('.hdr-problems summary .sev-icon'), '::before').content,
        };
      })()`,
    );
    assert.notEqual(colours.summary, colours.warning, 'an info line is not drawn in the warning colour');
    assert.equal(colours.icon, '"i"');
    await assertClean(two);
    await assertClean(info);
  });

  for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
    it(`draws the headline readably in the ${theme} theme`, async () => {
      const opened = await harness.open(new FixtureDataset(incidentSpec()), { theme, viewport: { width: 1366, height: 768 } });
      const { page } = opened;
      await page.click('.hdr-toggle');
      const contrast = await js<Record<string, number>>(
        page,
        `(() => {
          const rgb = (value) => value.match(/[\\d.]+/g).slice(0, 3).map(Number);
          const lum = ([r, g, b]) => {
            const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
            return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
          };
          const background = rgb(getComputedStyle(document.body).backgroundColor);
          const ratio = (selector) => {
            const a = lum(rgb(getComputedStyle(document.querySelector(selector)).color));
            const b = lum(background);
            return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          };
          return { plain: ratio('.hdr-plain'), verdict: ratio('.verdict'), toggle: ratio('.hdr-toggle'), reasons: ratio('.hdr-reasons'), glossary: ratio('.glossary summary') };
        })()`,
      );
      for (const [what, ratio] of Object.entries(contrast)) {
        assert.ok(ratio >= 3, `${theme}: ${what} has contrast ${ratio.toFixed(2)} against the background`);
      }
      await assertClean(opened);
    });
  }
});

if (!chromiumAvailable()) {
  describe('timeline panel layout and words in Chromium', () => {
    it("needs Debian's chromium", function () {
      skipOrFailInCi(this, '/usr/bin/chromium is missing (apt-get install chromium)');
    });
  });
}
