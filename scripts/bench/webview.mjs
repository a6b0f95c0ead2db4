// The webview figures of `npm run bench`: the real timeline bundle in Debian's Chromium (test/webview/harness.ts,
// compiled to out/ by `npm run compile`) on the 100,000-turn fixture of the webview tests (largeSpec).
//   first paint  from the moment the page receives its data (the host's `init` message, which carries the rows it
//                shows first) to the end of the first frame that draws a row of the timeline, in the page's own
//                clock (median of RUNS pages); and, as before, from the moment the fake host receives the page's
//                `ready` to the harness seeing a drawn row (fromReadyMs: this adds the harness's delivery of the
//                message, a Playwright evaluate of it as a script, and its polling for the row)
//   frames       the timeline scrolled 240 px per animation frame for 300 frames, on each of FIRST_SCROLLS pages
//                fresh from their first paint: the p95 and the longest interval between frames (16.7 ms at 60 Hz
//                means no frame was dropped: the interval cannot go below it), and the p95 and longest frame time:
//                the main thread's work for a frame, from its scroll event (or animation frame) to the end of its
//                style, layout and paint (a message posted from the animation frame is handled once the frame is
//                drawn). Each p95 is the median of the pages' p95s (one page's moves by a few ms from run to run
//                on a shared machine), with their range; each longest is the longest of all
//   warm         the same scroll again on the same page, from the top, once the first is done: the p95 frame time of
//                a list whose code and caches the first scroll warmed (that scroll's slowest frames are its first
//                thirty or so, right after the first paint)
//   per frame    the same scroll again on a second page, under a DevTools trace (devtools.timeline): Chromium's
//                paint (recording, main thread), raster (its raster threads, which on two cores take the same
//                cores) and style + layout, each summed over the trace and divided by the frames; a trace costs
//                some time itself, so the p95 above comes from the scroll without one
//   loading rows the same scroll again on a third page, counting after each frame the rows in view still drawn as
//                "loading…" (their page not yet come from the host): the frames that showed any, and the rows in all
//                (counted apart, so that looking at the rows adds nothing to the frames timed above)
// Prints one JSON line; run as a child of scripts/bench.mjs (node scripts/bench/webview.mjs).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { WebviewHarness, chromiumAvailable } = require('../../out/test/webview/harness.js');
const { FakeHost, FixtureDataset, largeSpec } = require('../../out/test/webview/fixture.js');

const RUNS = 5;
/** Pages (of the RUNS) whose first scroll is timed: the first, and the two that take no other figure. */
const FIRST_SCROLLS = [0, 3, 4];

if (!chromiumAvailable()) {
  process.stdout.write(`${JSON.stringify({ skipped: 'no Chromium at /usr/bin/chromium' })}\n`);
  process.exit(0);
}

// The host's answer to `ready` is the data arriving: time it from there.
let readyAt = 0;
const handle = FakeHost.prototype.handle;
FakeHost.prototype.handle = function (message) {
  if (message.type === 'ready') readyAt = performance.now();
  return handle.call(this, message);
};

// In the page before its own script: when the `init` message arrives (a listener added first runs first), when
// the first row is in the DOM, and when the frame that draws it is done (a message posted from the next animation
// frame is handled once that frame is drawn).
const PAINT_TIMER = `(() => {
  const times = (window.__firstPaint = {});
  window.addEventListener('message', (event) => {
    if (times.dataAt === undefined && event.data && event.data.type === 'init') times.dataAt = performance.now();
  }, true);
  const observer = new MutationObserver(() => {
    if (times.rowAt !== undefined || !document.querySelector('.row[data-status]')) return;
    times.rowAt = performance.now();
    observer.disconnect();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { times.paintedAt = performance.now(); };
      channel.port2.postMessage(0);
    });
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true });
})()`;

const SCROLL = `new Promise((done) => {
  const scroller = document.querySelector('.tl-scroll');
  const intervals = [];
  const works = [];
  let last = performance.now();
  let frames = 0;
  let scrolledAt = undefined;
  scroller.addEventListener('scroll', () => { scrolledAt ??= performance.now(); }, { capture: true });
  const drawn = new MessageChannel();
  drawn.port1.onmessage = (event) => {
    works.push(performance.now() - event.data);
    if (works.length === 300) done({ intervals: intervals.slice(1), works: works.slice(1) });
  };
  const step = (now) => {
    const start = Math.min(scrolledAt ?? performance.now(), performance.now());
    scrolledAt = undefined;
    drawn.port2.postMessage(start);
    intervals.push(now - last);
    last = now;
    scroller.scrollTop += 240;
    if (++frames < 300) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})`;

/** SCROLL's steps, counting after each the rows in view drawn as "loading…": frames that showed any, rows in all. */
const LOADING = `new Promise((done) => {
  const scroller = document.querySelector('.tl-scroll');
  let frames = 0;
  let loadingFrames = 0;
  let loadingRows = 0;
  const step = () => {
    const top = scroller.scrollTop;
    const bottom = top + scroller.clientHeight;
    let shown = 0;
    for (const row of scroller.querySelectorAll('.row.pending')) {
      const rowTop = parseFloat(row.style.top);
      if (rowTop + row.offsetHeight > top && rowTop < bottom) shown++;
    }
    if (shown > 0) loadingFrames++;
    loadingRows += shown;
    scroller.scrollTop += 240;
    if (++frames < 300) requestAnimationFrame(step);
    else done({ loadingFrames, loadingRows });
  };
  requestAnimationFrame(step);
})`;

/** SCROLL under a DevTools trace: Chromium's paint, raster and style + layout per frame, in ms. */
async function tracedScroll(page) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (data) => events.push(...data.value));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  const { works: frames } = await page.evaluate(SCROLL);
  const ended = new Promise((done) => cdp.once('Tracing.tracingComplete', done));
  await cdp.send('Tracing.end');
  await ended;
  await cdp.detach();
  const total = (...names) => events.reduce((sum, e) => (e.ph === 'X' && names.includes(e.name) ? sum + (e.dur ?? 0) / 1000 : sum), 0);
  const perFrame = (ms) => Math.round((ms / (frames.length + 1)) * 100) / 100;
  return {
    paintMsPerFrame: perFrame(total('Paint')),
    rasterMsPerFrame: perFrame(total('RasterTask')),
    styleLayoutMsPerFrame: perFrame(total('UpdateLayoutTree', 'Layout')),
  };
}

const harness = new WebviewHarness();
await harness.start();
try {
  const dataset = new FixtureDataset(largeSpec());
  const paints = [];
  const fromReady = [];
  /** Each first scroll's intervals and frame times. */
  const scrolls = [];
  const warmWorks = [];
  let perFrame = {};
  let loading = {};
  for (let run = 0; run < RUNS; run += 1) {
    const { page } = await harness.open(dataset, { initScript: PAINT_TIMER });
    fromReady.push(performance.now() - readyAt);
    await page.waitForFunction('window.__firstPaint.paintedAt !== undefined');
    const times = await page.evaluate('window.__firstPaint');
    paints.push(times.paintedAt - times.dataAt);
    if (FIRST_SCROLLS.includes(run)) scrolls.push(await page.evaluate(SCROLL));
    if (run === 0) {
      await page.evaluate('document.querySelector(".tl-scroll").scrollTop = 0');
      await page.waitForTimeout(300);
      warmWorks.push(...(await page.evaluate(SCROLL)).works);
    } else if (run === 1) {
      perFrame = await tracedScroll(page);
    } else if (run === 2) {
      loading = await page.evaluate(LOADING);
    }
    await page.close();
  }
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
  const p95Of = (xs) => sorted(xs)[Math.floor(xs.length * 0.95)];
  const round = (ms) => Math.round(ms * 10) / 10;
  const p95s = (field) => scrolls.map((scroll) => p95Of(scroll[field]));
  const longest = (field) => Math.max(...scrolls.flatMap((scroll) => scroll[field]));
  const figures = {
    turns: dataset.analysis.turnCount,
    firstPaintMs: round(median(paints)),
    fromReadyMs: round(median(fromReady)),
    p95FrameMs: round(median(p95s('intervals'))),
    longestFrameMs: round(longest('intervals')),
    p95FrameWorkMs: round(median(p95s('works'))),
    p95FrameWorkRangeMs: [round(Math.min(...p95s('works'))), round(Math.max(...p95s('works')))],
    longestFrameWorkMs: round(longest('works')),
    p95WarmFrameWorkMs: round(p95Of(warmWorks)),
    ...perFrame,
    ...loading,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  await harness.stop();
}
