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
// and writes them as JSON to COMPACTION_LENS_BENCH_OUT. Plain CommonJS: VS Code requires it as it is.
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

async function run() {
  const file = process.env.COMPACTION_LENS_BENCH_FILE;
  const outPath = process.env.COMPACTION_LENS_BENCH_OUT;
  const lines = readFileSync(process.env.COMPACTION_LENS_BENCH_LINES, 'utf8').split('\n').filter(Boolean);
  const uri = vscode.Uri.file(file);
  const api = await vscode.extensions.getExtension(EXTENSION_ID).activate();
  const result = { file, appends: [] };
  try {
    const openStart = now();
    const entry = await api.store.load(uri);
    result.openMs = now() - openStart;
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
    // Following the live end of the file: its last turn selected (the rows after the last checkpoint are the ones
    // an update asks for again). COMPACTION_LENS_BENCH_VIEW=start leaves the timeline where it opened.
    if (process.env.COMPACTION_LENS_BENCH_VIEW !== 'start') {
      timeline.selectTurn(0, entry.transcript.turns.length - 1);
      await sleep(SETTLE_MS);
    }
    result.view = process.env.COMPACTION_LENS_BENCH_VIEW === 'start' ? 'start' : 'end';

    let current;
    /** Replaces `object[name]` by a wrapper that adds its synchronous time to the current append's `label`. */
    const wrap = (object, name, label) => {
      const original = object[name];
      object[name] = function (...args) {
        const start = now();
        try {
          return original.apply(this, args);
        } finally {
          if (current) {
            current[label] = (current[label] ?? 0) + now() - start;
            current[`${label}Calls`] = (current[`${label}Calls`] ?? 0) + 1;
          }
        }
      };
    };
    wrap(api.diagnostics, 'update', 'diagnosticsMs');
    wrap(api.marks, 'refresh', 'marksMs');
    wrap(api.statusBar, 'show', 'statusBarMs');
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
  } catch (error) {
    result.error = error instanceof Error ? error.stack : String(error);
  } finally {
    writeFileSync(outPath, JSON.stringify(result));
  }
}

module.exports = { run };
