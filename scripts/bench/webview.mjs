// The webview figures of `npm run bench`: the real timeline bundle in Debian's Chromium (test/webview/harness.ts,
// compiled to out/ by `npm run compile`) on the 100,000-turn fixture of the webview tests (largeSpec).
//   first paint  from the moment the fake host receives the page's `ready` (and answers with its data) to the
//                first drawn row of the timeline (median of RUNS pages)
//   frames       the timeline scrolled 240 px per animation frame for 300 frames: the p95 and the longest
//                interval between frames (16.7 ms at 60 Hz means no frame was dropped)
// Prints one JSON line; run as a child of scripts/bench.mjs (node scripts/bench/webview.mjs).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { WebviewHarness, chromiumAvailable } = require('../../out/test/webview/harness.js');
const { FakeHost, FixtureDataset, largeSpec } = require('../../out/test/webview/fixture.js');

const RUNS = 5;

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

const SCROLL = `new Promise((done) => {
  const scroller = document.querySelector('.tl-scroll');
  const intervals = [];
  let last = performance.now();
  let frames = 0;
  const step = (now) => {
    intervals.push(now - last);
    last = now;
    scroller.scrollTop += 240;
    if (++frames < 300) requestAnimationFrame(step);
    else done(intervals.slice(1));
  };
  requestAnimationFrame(step);
})`;

const harness = new WebviewHarness();
await harness.start();
try {
  const dataset = new FixtureDataset(largeSpec());
  const paints = [];
  const intervals = [];
  for (let run = 0; run < RUNS; run += 1) {
    const { page } = await harness.open(dataset);
    paints.push(performance.now() - readyAt);
    if (run === 0) intervals.push(...(await page.evaluate(SCROLL)));
    await page.close();
  }
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const paint = sorted(paints)[Math.floor(RUNS / 2)];
  const frames = sorted(intervals);
  const p95 = frames[Math.floor(frames.length * 0.95)];
  process.stdout.write(
    `${JSON.stringify({ turns: dataset.analysis.turnCount, firstPaintMs: paint, p95FrameMs: p95, longestFrameMs: frames.at(-1) })}\n`,
  );
} finally {
  await harness.stop();
}
