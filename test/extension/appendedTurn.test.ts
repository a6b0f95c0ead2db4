// An appended turn that changes no checkpoint, in a real extension host: the re-analysis gives back the same
// checkpoint analysis (core's checkpoint memo), and the listeners that would walk every claimed turn again leave
// what they made as it was: the diagnostics are not sent again (no diagnostics change for the file), the
// end-of-line marks stay on the same lines, and the timeline's `updated` leaves the checkpoint headers out and
// carries the new turn's row. What the append does change is still shown: a broken line is flagged, a new
// checkpoint gets its flags, marks and header.
import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, ourDiagnostics, recordPosts, waitFor } from './helpers';

const config = () => vscode.workspace.getConfiguration('compactionLens');

async function setInlineMarks(value: boolean | undefined): Promise<void> {
  await config().update('inlineMarks', value, vscode.ConfigurationTarget.Global);
  await waitFor(() => config().inspect('inlineMarks')?.globalValue === value, `inlineMarks = ${value}`);
}

/** What the user sees of the diagnostics: code, lines and message of each, in order. */
const shown = (uri: vscode.Uri) =>
  ourDiagnostics(uri).map(
    (diagnostic) => `${diagnostic.code}:${diagnostic.range.start.line}-${diagnostic.range.end.line}:${diagnostic.message}`,
  );

/** Lets VS Code's change events for diagnostics (sent in batches) arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

const lateTurn = (id: number) =>
  JSON.stringify({ type: 'turn', id, role: 'assistant', content: `Checked src/late/handler_${id}.ts: LATE_${id} passes.` });

describe('an appended turn that changes no checkpoint', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  after(() => setInlineMarks(undefined));

  it('sends no diagnostics again, and still flags what the append changed', async () => {
    // In no editor: a language service checking the open document would change its own diagnostics.
    const uri = copySample();
    const entry = await api.store.load(uri);
    await waitFor(() => ourDiagnostics(uri).length > 0, 'the diagnostics of the incident');
    const before = shown(uri);
    const [checkpoint] = entry.analysis.checkpoints;
    let changes = 0;
    const listening = vscode.languages.onDidChangeDiagnostics((event) => {
      if (event.uris.some((changed) => changed.toString() === uri.toString())) changes++;
    });
    try {
      await settle();
      changes = 0;
      const version = entry.version;
      appendFileSync(uri.fsPath, `${lateTurn(1000)}\n`);
      await api.store.refresh(uri);
      assert.equal(entry.version, version + 1, 're-analysed');
      assert.equal(entry.transcript.turns.length, 423);
      assert.equal(entry.analysis.checkpoints[0], checkpoint, 'the same checkpoint analysis');
      await settle();
      assert.equal(changes, 0, 'no diagnostics sent again');
      assert.deepEqual(shown(uri), before);

      // A broken line (line 425) is a new reader problem: flagged, the checkpoint's flags as they were.
      appendFileSync(uri.fsPath, '{"type":"turn", this line is broken\n');
      await api.store.refresh(uri);
      await waitFor(() => changes > 0, 'the diagnostics to change');
      const after = shown(uri);
      assert.equal(after.length, before.length + 1, after.join('\n'));
      assert.ok(
        after.some((line) => line.startsWith('transcript-problem:424-424:')),
        after.join('\n'),
      );
      assert.deepEqual(
        after.filter((line) => !line.startsWith('transcript-problem:')),
        before.filter((line) => !line.startsWith('transcript-problem:')),
      );
    } finally {
      listening.dispose();
      api.store.remove(uri);
    }
  });

  it('leaves the end-of-line marks on their lines, and marks a new checkpoint’s turns', async () => {
    const uri = copySample();
    await vscode.window.showTextDocument(uri);
    await api.store.load(uri);
    await setInlineMarks(true);
    try {
      const marks = await waitFor(() => api.marks.marked().get(uri.toString()), 'marks on the incident');
      assert.equal(marks.length, 40);
      appendFileSync(uri.fsPath, `${lateTurn(1000)}\n`);
      await api.store.refresh(uri);
      assert.equal(api.store.get(uri)!.transcript.turns.length, 423);
      assert.deepEqual([...(api.marks.marked().get(uri.toString()) ?? [])], [...marks], 'the same marks');

      // A checkpoint claiming the late turn without carrying it: the late turn (line 424) is marked too.
      const summary = {
        type: 'checkpoint',
        summary_id: 'S2',
        summary: 'Nothing of note.',
        summary_budget: 4096,
        covered: { from: 1000, to: 1000 },
      };
      appendFileSync(uri.fsPath, `${JSON.stringify(summary)}\n`);
      await api.store.refresh(uri);
      await waitFor(() => api.marks.marked().get(uri.toString())?.includes(423), 'a mark on the late turn (line 424)');
      assert.deepEqual(
        api.marks
          .marked()
          .get(uri.toString())
          ?.filter((line) => line !== 423),
        [...marks],
      );
    } finally {
      api.store.remove(uri);
    }
  });

  it('leaves the checkpoint headers out of the timeline’s update, and sends them when a checkpoint is new', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = await waitFor(() => api.panels.get(uri), 'the timeline panel');
    await waitFor(() => timeline.isReady, 'the webview to send ready', 30000);
    const posted = recordPosts(timeline);
    try {
      appendFileSync(uri.fsPath, `${lateTurn(1000)}\n`);
      await api.store.refresh(uri);
      const updates = () => posted.filter((message) => message.type === 'updated');
      const same = await waitFor(() => updates()[0], 'an updated message');
      assert.ok(same.type === 'updated' && same.sameCheckpoints === true, 'the checkpoints are left out');
      assert.equal(same.type === 'updated' && same.checkpoints.length, 0);
      assert.equal(same.type === 'updated' && same.file.turnCount, 423);
      // The new turn's row rides along: the webview draws it without asking.
      assert.deepEqual(
        same.type === 'updated' && same.tail && { start: same.tail.start, rows: same.tail.rows.map((row) => [row.id, row.status]) },
        { start: 422, rows: [[1000, 'after']] },
      );

      const summary = {
        type: 'checkpoint',
        summary_id: 'S2',
        summary: 'Nothing of note.',
        summary_budget: 4096,
        covered: { from: 1000, to: 1000 },
      };
      appendFileSync(uri.fsPath, `${JSON.stringify(summary)}\n`);
      await api.store.refresh(uri);
      const full = await waitFor(() => updates()[1], 'a second updated message');
      assert.ok(full.type === 'updated' && full.sameCheckpoints === undefined, 'the checkpoints are sent');
      assert.equal(full.type === 'updated' && full.tail, undefined, 'no rows ride along when a checkpoint changed');
      assert.deepEqual(full.type === 'updated' && full.checkpoints.map((header) => header.summaryId), ['S1', 'S2']);
    } finally {
      api.store.remove(uri);
    }
  });
});
