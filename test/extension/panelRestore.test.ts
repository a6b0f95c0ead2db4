// The timeline's WebviewPanelSerializer in a real extension host: a panel is restored from its view state
// alone (the file is analysed again, nothing is taken from the state but file, checkpoint, selection and
// scroll), and a panel whose state is invalid or whose file is gone is closed.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, waitFor } from './helpers';

function blankPanel(): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel('compactionLens.timeline', 'restoring…', vscode.ViewColumn.Active, {});
}

describe('timeline restore after a reload', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('restores a panel from its view state and hands the state back on ready', async () => {
    const uri = copySample();
    const panel = blankPanel();
    const state = { version: 1, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 385, scrollTop: 1200 };
    await api.panels.deserializeWebviewPanel(panel, state);
    const timeline = api.panels.get(uri);
    assert.ok(timeline, 'no timeline adopted the restored panel');
    assert.equal(timeline.panel, panel);
    assert.equal(panel.title, 'Timeline: incident.jsonl');
    assert.deepEqual(timeline.currentViewState, state);
    assert.equal(panel.webview.options.enableScripts, true);
    assert.ok(api.store.get(uri), 'the transcript was analysed again');
    await waitFor(() => timeline.isReady, 'the restored webview to send ready', 30000);
  });

  it('closes a restored panel whose state is not a view state', async () => {
    for (const state of [
      undefined,
      {},
      { version: 1, file: 42 },
      { version: 2, file: '/tmp/x.jsonl', checkpointIndex: 0, selectedTurn: 0, scrollTop: 0 },
    ]) {
      const panel = blankPanel();
      let disposed = false;
      panel.onDidDispose(() => (disposed = true));
      await api.panels.deserializeWebviewPanel(panel, state);
      assert.equal(disposed, true, `kept a panel restored from ${JSON.stringify(state)}`);
    }
  });

  it('closes a restored panel whose transcript no longer exists', async () => {
    const uri = copySample();
    rmSync(uri.fsPath);
    const panel = blankPanel();
    let disposed = false;
    panel.onDidDispose(() => (disposed = true));
    await api.panels.deserializeWebviewPanel(panel, { version: 1, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 0, scrollTop: 0 });
    assert.equal(disposed, true);
    assert.equal(api.panels.get(uri), undefined);
  });
});
