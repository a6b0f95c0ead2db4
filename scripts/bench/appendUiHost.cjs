// The extension-host half of scripts/bench/appendUi.mjs, loaded by VS Code as the `extensionTestsPath` of a real
// workbench (never part of the extension or of the tests). It opens a large transcript (COMPACTION_LENS_BENCH_FILE)
// in an editor (unless COMPACTION_LENS_BENCH_EDITOR=0) and in its timeline, then appends one turn line at a time
// (the lines in COMPACTION_LENS_BENCH_LINES, one JSON record each) and asks the store to re-read at once (the
// debounce and the poll are latency before the update starts, reported apart). For each append it times, by wrapping the live objects' methods:
//   refresh      TranscriptFile.refresh (the appended bytes read and parsed)
//   sync         from that refresh's start to the end of the store's onDidChange listeners (a listener added
//                after the extension's own runs last): refresh + re-analysis + every listener
//   listeners    each wrapped listener's own time: diagnostics.update, marks.refresh, statusBar.show, the
//                timeline's postUpdate
//   webview      from the refresh's start to the answer of the last request the webview sent after `updated`
//                (once it has handled `updated` it asks again for the rows on screen that an append can change,
//                and for the selected turn's details; the timeline follows the file's end unless
//                COMPACTION_LENS_BENCH_VIEW=start, where it asks for nothing)
//   tree         the checkpoints tree's getChildren/getTreeItem calls VS Code makes after the change
// Before the appends, the same host is watched while the store loads the file (hostLoad: read, counted, judged in
// its worker, analysed, its listeners run) and then while the editor and the timeline open and settle (hostViews):
// a 5 ms timer's longest wait (the longest the host was held), each wait of 50 ms or more, and the thread's busy
// time; the listeners above are timed in each phase too (loadListeners, viewsListeners). With
// COMPACTION_LENS_BENCH_PROFILE set to a folder, each phase's CPU profile is written there (load.cpuprofile,
// views.cpuprofile, and copy.cpuprofile and save.cpuprofile for Copy Dropped Turns copied and saved); the profiler slows the host, so take the stalls from a run without it.
// After the appends, the host is watched the same way through Copy Dropped Turns for the Agent (asked to copy, then
// saved to a file with "Save As…"; a bundle past COPY_MAX_TOKENS, the generated 100k-turn files' among them, is
// not copied: that phase's outcome is then "cancelled", after the bundle was made and counted), Reveal Turn… (its quick pick shown for SETTLE_MS, then closed) and Export Corrected Checkpoint (both kinds) on the file
// (hostCommands).
// It writes them as JSON to COMPACTION_LENS_BENCH_OUT. Plain CommonJS: VS Code requires it as it is.
const { appendFileSync, readFileSync, writeFileSync } = require('node:fs');
const vscode = require('vscode');

const EXTENSION_ID = 'compaction-lens.compaction-lens';
const SETTLE_MS = 2500;

const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(probe, what, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Watches this thread (the extension host's) from now until `stop()`: a 5 ms timer's longest wait past its time
 * (the longest the host was held), how many waits were 50 ms or more, and how long the thread worked (the event
 * loop's active time), over `ms`.
 */
function watchHost() {
  const start = now();
  const utilization = performance.eventLoopUtilization();
  let last = start;
  let longestStallMs = 0;
  let stallsOver50 = 0;
  /** Each wait of 50 ms or more: when it ended (ms from the start) and how long. */
  const stalls = [];
  const timer = setInterval(() => {
    const at = now();
    const stall = at - last - 5;
    if (stall > longestStallMs) longestStallMs = stall;
    if (stall >= 50) {
      stallsOver50++;
      stalls.push({ at: Math.round(at - start), ms: Math.round(stall) });
    }
    last = at;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      const stall = now() - last - 5;
      if (stall > longestStallMs) longestStallMs = stall;
      if (stall >= 50) stalls.push({ at: 'end', ms: Math.round(stall) });
      return { ms: now() - start, busyMs: performance.eventLoopUtilization(utilization).active, longestStallMs, stallsOver50, stalls };
    },
  };
}

/** With COMPACTION_LENS_BENCH_PROFILE set (a folder): this thread's CPU profile from now until `stop(name)`. */
async function profileHost() {
  const folder = process.env.COMPACTION_LENS_BENCH_PROFILE;
  if (!folder) return { stop: async () => undefined };
  const { Session } = require('node:inspector');
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (error, answer) => (error ? reject(error) : resolve(answer))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      writeFileSync(require('node:path').join(folder, `${name}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

async function run() {
  const file = process.env.COMPACTION_LENS_BENCH_FILE;
  const outPath = process.env.COMPACTION_LENS_BENCH_OUT;
  const lines = readFileSync(process.env.COMPACTION_LENS_BENCH_LINES, 'utf8').split('\n').filter(Boolean);
  const uri = vscode.Uri.file(file);
  const api = await vscode.extensions.getExtension(EXTENSION_ID).activate();
  const result = { file, appends: [] };
  try {
    let current;
    /**
     * Replaces `object[name]` by a wrapper that adds its synchronous time to the current phase's `label` (the load,
     * the views' opening, an append), and notes its longest call.
     */
    const wrap = (object, name, label) => {
      const original = object[name];
      object[name] = function (...args) {
        const start = now();
        try {
          return original.apply(this, args);
        } finally {
          if (current) {
            const ms = now() - start;
            current[label] = (current[label] ?? 0) + ms;
            current[`${label}Calls`] = (current[`${label}Calls`] ?? 0) + 1;
            const longest = `${label.replace(/Ms$/, '')}LongestMs`;
            current[longest] = Math.max(current[longest] ?? 0, ms);
          }
        }
      };
    };
    wrap(api.diagnostics, 'update', 'diagnosticsMs');
    // Of which: the flags handed to VS Code (its DiagnosticCollection turning them into messages to the workbench).
    wrap(api.diagnostics.collection, 'set', 'diagnosticsSetMs');
    wrap(api.marks, 'refresh', 'marksMs');
    wrap(api.statusBar, 'show', 'statusBarMs');
    current = {};
    // The profiler (when asked for) starts before the watch, so that its own start is not taken for a stall.
    let profile = await profileHost();
    const loading = watchHost();
    const openStart = now();
    const entry = await api.store.load(uri);
    result.openMs = now() - openStart;
    result.hostLoad = loading.stop();
    result.loadListeners = current;
    current = {};
    await profile.stop('load');
    profile = await profileHost();
    const showing = watchHost();
    result.turns = entry.transcript.turns.length;
    // An editor on the file (diagnostics, marks, CodeLens and the status bar follow it), then its timeline.
    try {
      if (process.env.COMPACTION_LENS_BENCH_EDITOR !== '0') await vscode.window.showTextDocument(uri, { preview: false });
      result.editor = process.env.COMPACTION_LENS_BENCH_EDITOR !== '0';
    } catch (error) {
      result.editor = `not opened: ${error instanceof Error ? error.message : String(error)}`;
    }
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    await waitFor(() => timeline && timeline.isReady, 'the timeline to send ready');
    await sleep(SETTLE_MS);
    result.hostViews = showing.stop();
    result.viewsListeners = current;
    current = undefined;
    await profile.stop('views');
    // Following the live end of the file: its last turn selected (the rows after the last checkpoint are the ones
    // an update asks for again). COMPACTION_LENS_BENCH_VIEW=start leaves the timeline where it opened.
    if (process.env.COMPACTION_LENS_BENCH_VIEW !== 'start') {
      timeline.selectTurn(0, entry.transcript.turns.length - 1);
      await sleep(SETTLE_MS);
    }
    result.view = process.env.COMPACTION_LENS_BENCH_VIEW === 'start' ? 'start' : 'end';

    wrap(timeline, 'postUpdate', 'timelinePostMs');
    wrap(api.tree, 'getChildren', 'treeMs');
    wrap(api.tree, 'getTreeItem', 'treeMs');
    // The webview's requests after `updated`: when the last one is answered, it has handled the update.
    const receive = timeline.receive;
    timeline.receive = async function (raw) {
      const outcome = await receive.call(this, raw);
      if (current && current.syncEnd !== undefined && raw && typeof raw === 'object' && 'requestId' in raw) {
        current.webviewMs = now() - current.start;
        current.webviewRequests = (current.webviewRequests ?? 0) + 1;
      }
      return outcome;
    };
    const fileRefresh = entry.file.refresh;
    entry.file.refresh = async function (...args) {
      const start = now();
      const outcome = await fileRefresh.apply(this, args);
      if (current && outcome !== 'unchanged') {
        current.start = start;
        current.startEpoch = performance.timeOrigin + start; // for the webview's row times (appendUi.mjs)
        current.refreshMs = now() - start;
        current.result = outcome;
      }
      return outcome;
    };
    const last = api.store.onDidChange((changed) => {
      if (current && changed.uri.toString() === uri.toString() && current.start !== undefined) {
        current.syncEnd = now();
        current.syncMs = current.syncEnd - current.start;
      }
    });

    for (const line of lines) {
      current = {};
      appendFileSync(file, `${line}\n`);
      current.appendedAt = Date.now();
      await api.store.refresh(uri);
      await sleep(SETTLE_MS);
      const { syncEnd, ...figures } = current;
      void syncEnd;
      figures.turns = api.store.get(uri)?.transcript.turns.length;
      result.appends.push(figures);
      current = undefined;
    }
    last.dispose();

    // Two commands whose work grows with a checkpoint's turns, each with the host watched from its call to its end
    // (hostCommands): Copy Dropped Turns for the Agent (its bundle written and counted, its offer accepted, the text
    // put on the clipboard; then again, saved to a file instead) and Export Corrected Checkpoint (written beside the file, replacing an earlier export).
    result.hostCommands = {};
    profile = await profileHost();
    const copying = watchHost();
    const prompts = (choice) => ({
      pickCheckpoint: async () => 0,
      confirmCopy: async () => choice,
      chooseFile: async () => vscode.Uri.file(file.replace(/\.jsonl$/, '.dropped-turns.md')),
      confirmOverwrite: async () => true,
    });
    const copied = await vscode.commands.executeCommand('compactionLens.copyDroppedTurns', uri, prompts('masked'));
    result.hostCommands.copyDroppedTurns = { ...copying.stop(), outcome: copied?.kind, turns: copied?.turnIds?.length };
    await profile.stop('copy');
    await sleep(SETTLE_MS);
    // The same bundle saved to a file instead ("Save As…").
    profile = await profileHost();
    const saving = watchHost();
    const saved = await vscode.commands.executeCommand('compactionLens.copyDroppedTurns', uri, prompts('save'));
    result.hostCommands.saveDroppedTurns = { ...saving.stop(), outcome: saved?.kind, turns: saved?.turnIds?.length };
    await profile.stop('save');
    await sleep(SETTLE_MS);
    // Reveal Turn… (its quick pick of the file's turns), from the call until the pick is shown, then closed.
    const revealing = watchHost();
    const shown = vscode.commands.executeCommand('compactionLens.revealTurn');
    await sleep(SETTLE_MS);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await shown;
    result.hostCommands.revealTurn = { ...revealing.stop(), outcome: 'closed' };
    await sleep(SETTLE_MS);
    for (const suffix of ['.corrected.jsonl', '.compaction-lens.json']) {
      const output = vscode.Uri.file(file.replace(/\.jsonl$/, suffix));
      const exporting = watchHost();
      const exported = await vscode.commands.executeCommand('compactionLens.exportCorrectedCheckpoint', uri, {
        chooseOutput: async () => output,
        confirmOverwrite: async () => true,
        announce: async () => undefined,
      });
      result.hostCommands[`export${suffix}`] = { ...exporting.stop(), outcome: exported?.kind };
      await sleep(SETTLE_MS);
    }
  } catch (error) {
    result.error = error instanceof Error ? error.stack : String(error);
  } finally {
    writeFileSync(outPath, JSON.stringify(result));
  }
}

module.exports = { run };
