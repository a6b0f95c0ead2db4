// The appended-turn figure in a real VS Code (issue 13: "one appended turn on a 100k-turn live file updates the UI
// in ≤ 50 ms"): VS Code's server from .tools/ and Debian's Chromium, as scripts/test-vscode.mjs runs them, with the
// extension of this tree (dist/, `npm run build` first) and scripts/bench/appendUiHost.cjs as the extension-host
// side. A generated transcript is opened in an editor and in its timeline; then APPENDS turn lines are appended one
// at a time, each re-read at once by the store (the debounce and the poll, latency before the update starts, are
// left out). Per append: the host's figures (appendUiHost.cjs says what each is) and the workbench page's long
// tasks (its main thread busy ≥ 50 ms at a time) in the seconds after it, and `rowShown`: from the re-read's start
// to the new turn's row first in the timeline webview's DOM with its status (following the end), split into
// `updateInMs` (to the `updated` message's arrival in the webview's frame) and `drawnMs` (from there). Prints the
// appends and one JSON line of medians and worsts, with the host's figures while the file was loaded (hostLoad),
// while its editor and timeline opened (hostViews), and then through the commands on the file (Copy Dropped Turns
// for the Agent, copied and saved to a file; Reveal Turn…; Export Corrected Checkpoint, both kinds): how long, its busy time, its longest stall and its stalls
// of 50 ms or more. COMPACTION_LENS_BENCH_PROFILE=FOLDER writes the host's CPU profile of each phase (appendUiHost.cjs).
// Usage: node scripts/bench/appendUi.mjs [--turns 100000] [--shape canonical|claude-code] [--appends 5] [--no-editor] [--view-start] [--keep]
//   --no-editor   the file is not opened in a text editor (VS Code then does not reload its text on each append)
//   --view-start  the timeline stays where it opens (the first claimed-missing turn) instead of following the end
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser } from '../browser.mjs';
import { ROOT, ensureTools } from '../ensure-tools.mjs';
import { remoteUri, startServer, workbenchUrl } from '../vscodeServer.mjs';
import { lastRecord, nextTurnLine } from './appendTurn.mjs';
import { writeCanonical, writeClaudeCode } from './generate.mjs';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '100000' },
    shape: { type: 'string', default: 'canonical' },
    appends: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    'no-editor': { type: 'boolean', default: false },
    'view-start': { type: 'boolean', default: false },
  },
});
const turns = Number(values.turns);
const appends = Number(values.appends);
if (!['canonical', 'claude-code'].includes(values.shape)) throw new Error(`--shape: canonical or claude-code, not ${values.shape}`);

await ensureTools();
const runDir = path.join(tmpdir(), `cl-append-ui-${process.pid}`);
const workspace = path.join(runDir, 'workspace');
mkdirSync(workspace, { recursive: true });
const file = path.join(workspace, `${values.shape}-${turns}.jsonl`);
if (values.shape === 'claude-code') writeClaudeCode(file, { turns });
else writeCanonical(file, { turns });
let last = lastRecord(file);
const lines = [];
for (let n = 1; n <= appends; n += 1) {
  lines.push(nextTurnLine(last, n));
  last = JSON.parse(lines.at(-1));
}
const linesFile = path.join(runDir, 'lines.jsonl');
writeFileSync(linesFile, `${lines.join('\n')}\n`);
const outFile = path.join(runDir, 'result.json');

const server = await startServer(path.join(runDir, 'server'), {
  env: {
    COMPACTION_LENS_BENCH_FILE: file,
    COMPACTION_LENS_BENCH_OUT: outFile,
    COMPACTION_LENS_BENCH_LINES: linesFile,
    COMPACTION_LENS_BENCH_EDITOR: values['no-editor'] ? '0' : '1',
    COMPACTION_LENS_BENCH_VIEW: values['view-start'] ? 'start' : 'end',
    // A folder for the extension host's CPU profiles of the load and of the views' opening (appendUiHost.cjs).
    COMPACTION_LENS_BENCH_PROFILE: process.env.COMPACTION_LENS_BENCH_PROFILE ?? '',
  },
});
let browser;
let longTasks = [];
/** Row index → when that timeline row was first in the DOM with its status (epoch ms), from every frame. */
const rowsShown = {};
/** Turn count → when the `updated` carrying it reached the webview's frame (epoch ms). */
const updatesIn = {};
try {
  browser = await launchBrowser(runDir);
  const { page } = browser;
  let settle;
  const exited = new Promise((resolve) => (settle = resolve));
  await page.exposeFunction('codeAutomationLog', () => undefined);
  await page.exposeFunction('codeAutomationExit', (code) => settle(Number(code)));
  // The workbench page's long tasks, in epoch milliseconds.
  await page.addInitScript(() => {
    globalThis.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const task of list.getEntries()) globalThis.__longTasks.push({ at: performance.timeOrigin + task.startTime, ms: task.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const payload = [
    ['extensionDevelopmentPath', remoteUri(server.port, ROOT)],
    ['extensionTestsPath', remoteUri(server.port, path.join(ROOT, 'scripts', 'bench', 'appendUiHost.cjs'))],
    ['skipWelcome', 'true'],
  ];
  await page.goto(workbenchUrl(server, workspace, payload));
  // Once the timeline's webview is there: note when each of its rows is first in the DOM with its status, in
  // epoch milliseconds, so the new turn's row can be timed from the re-read's start (init scripts do not reach the
  // webview's inner frame, so the observer is put in from here).
  const watchRows = () => {
    if (globalThis.__rowsShown || !globalThis.document.querySelector('.tl-scroll')) return Boolean(globalThis.__rowsShown);
    globalThis.__rowsShown = {};
    // When each `updated` reaches the frame (epoch ms, keyed by the turn count it carries): its transit apart.
    globalThis.__updatesIn = {};
    globalThis.addEventListener('message', (event) => {
      const count = event.data?.type === 'updated' ? event.data.file?.turnCount : undefined;
      if (count !== undefined && globalThis.__updatesIn[count] === undefined)
        globalThis.__updatesIn[count] = performance.timeOrigin + event.timeStamp; // its dispatch, not this listener's turn
    });
    const note = (node) => {
      if (node.nodeType !== 1 || !node.classList.contains('row') || !node.hasAttribute('data-status')) return;
      const index = node.getAttribute('data-index');
      if (index !== null && globalThis.__rowsShown[index] === undefined)
        globalThis.__rowsShown[index] = performance.timeOrigin + performance.now();
    };
    new globalThis.MutationObserver((records) => {
      for (const record of records) {
        if (record.type === 'attributes') note(record.target);
        for (const node of record.addedNodes) {
          note(node);
          if (node.querySelectorAll) for (const row of node.querySelectorAll('.row[data-status]')) note(row);
        }
      }
    }).observe(globalThis.document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status', 'data-index'] });
    return true;
  };
  let watching = false;
  const watcher = setInterval(async () => {
    if (watching) return;
    for (const frame of page.frames()) if (await frame.evaluate(watchRows).catch(() => false)) watching = true;
  }, 100);
  const timer = setTimeout(() => settle('timed out'), 20 * 60_000);
  const code = await exited;
  clearTimeout(timer);
  clearInterval(watcher);
  longTasks = await page.evaluate(() => globalThis.__longTasks).catch(() => []);
  for (const frame of page.frames()) Object.assign(rowsShown, await frame.evaluate(() => globalThis.__rowsShown ?? {}).catch(() => ({})));
  for (const frame of page.frames()) Object.assign(updatesIn, await frame.evaluate(() => globalThis.__updatesIn ?? {}).catch(() => ({})));
  if (code !== 0) console.error(`the extension host's run ended with ${code}`);
} finally {
  await browser?.close();
  await server.stop();
}

const result = JSON.parse(readFileSync(outFile, 'utf8'));
if (!values.keep) rmSync(runDir, { recursive: true, force: true });
if (result.error) {
  console.error(result.error);
  process.exit(1);
}
const round = (ms) => (ms === undefined ? undefined : Math.round(ms * 10) / 10);
const rows = result.appends.map((append, index) => {
  const next = result.appends[index + 1]?.appendedAt ?? Infinity;
  const tasks = longTasks.filter((task) => task.at >= append.appendedAt && task.at < next);
  const row = { ...append, pageLongTasks: tasks.length, pageLongTaskMs: tasks.reduce((sum, task) => sum + task.ms, 0) };
  // The new turn's row in the timeline (following the end; with --view-start it is off screen and not drawn).
  const shownAt = append.turns !== undefined ? rowsShown[append.turns - 1] : undefined;
  if (shownAt !== undefined && append.startEpoch !== undefined) row.rowShownMs = shownAt - append.startEpoch;
  // Split: the re-read's start → the update in the webview's frame (the store's work, the post, the trip), and
  // from there → the row drawn (the webview's own handling).
  const arrivedAt = append.turns !== undefined ? updatesIn[append.turns] : undefined;
  if (arrivedAt !== undefined && append.startEpoch !== undefined) row.updateInMs = arrivedAt - append.startEpoch;
  if (arrivedAt !== undefined && shownAt !== undefined) row.drawnMs = shownAt - arrivedAt;
  delete row.appendedAt;
  delete row.start;
  delete row.startEpoch;
  for (const key of Object.keys(row)) if (key.endsWith('Ms')) row[key] = round(row[key]);
  return row;
});
for (const row of rows) console.log(JSON.stringify(row));
const median = (key) => {
  const xs = rows.map((row) => row[key]).filter((x) => x !== undefined);
  return xs.length === 0 ? undefined : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
};
const worst = (key) => Math.max(...rows.map((row) => row[key] ?? 0));
const summary = {
  shape: values.shape,
  turns: result.turns,
  editor: result.editor,
  view: result.view,
  openMs: round(result.openMs),
  appends: rows.length,
};
// The extension host while the file was opened and analysed (the store's load), then while its editor and timeline
// were opened and settled: how long, how long its thread worked, and the longest it was held.
// Then through Copy Dropped Turns for the Agent (copied, then saved), Reveal Turn… and Export Corrected Checkpoint,
// each from its call to its end.
const commands = Object.entries(result.hostCommands ?? {}).map(([name, watched]) => [`host ${name}`, watched]);
for (const [name, watched] of [['hostLoad', result.hostLoad], ['hostViews', result.hostViews], ...commands]) {
  if (!watched) continue;
  summary[name] = {
    ms: round(watched.ms),
    busyMs: round(watched.busyMs),
    longestStallMs: round(watched.longestStallMs),
    stallsOver50: watched.stallsOver50,
    ...(watched.outcome === undefined ? {} : { outcome: watched.outcome }),
  };
}
for (const key of [
  'syncMs',
  'refreshMs',
  'diagnosticsMs',
  'marksMs',
  'statusBarMs',
  'timelinePostMs',
  'treeMs',
  'webviewMs',
  'rowShownMs',
  'updateInMs',
  'drawnMs',
  'pageLongTaskMs',
]) {
  summary[key] = median(key);
  summary[`${key.replace(/Ms$/, '')}WorstMs`] = worst(key);
}
console.log(JSON.stringify(summary));
