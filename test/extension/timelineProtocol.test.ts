// The host side of the timeline protocol in a real extension host, observed by recording what the host
// posts to the webview: ready -> init with the checkpoint headers, rows paged on request (with statuses
// relative to the selected checkpoint), turn details (evidence, score, threshold) and the summary, and
// `updated` after the file grows.
import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import type { TimelinePanel } from '../../src/extension/timelinePanel';
import type { HostMessage } from '../../src/protocol';
import { bandBoundaries, rowIndexAt } from '../../src/view/timelineGeometry';
import { closeAllEditors, copySample, extensionApi, recordPosts, waitFor } from './helpers';

function last<T extends HostMessage['type']>(posted: HostMessage[], type: T): Extract<HostMessage, { type: T }> {
  const found = posted.filter((message) => message.type === type).at(-1);
  assert.ok(found, `the host posted no ${type}`);
  return found as Extract<HostMessage, { type: T }>;
}

describe('timeline protocol (host side)', () => {
  let api: CompactionLensApi;
  let uri: vscode.Uri;
  let timeline: TimelinePanel;
  let posted: HostMessage[];

  before(async () => {
    api = await extensionApi();
    uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const panel = api.panels.get(uri);
    assert.ok(panel);
    timeline = panel;
    posted = recordPosts(timeline);
  });

  after(closeAllEditors);

  it('answers ready with init: file info and checkpoint headers, and the rows the timeline starts on', async () => {
    assert.equal(await timeline.receive({ type: 'ready' }), 'handled');
    const init = last(posted, 'init');
    assert.equal(init.file.turnCount, 422);
    assert.equal(init.file.format, 'canonical');
    assert.equal(init.checkpoints.length, 1);
    const [header] = init.checkpoints;
    assert.equal(header.summaryId, 'S1');
    assert.equal(header.line, 421);
    assert.equal(header.turnsBefore, 420);
    assert.equal(header.verdict, 'fail-closed');
    assert.deepEqual(header.counts, { covered: 380, 'claimed-missing': 40, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 });
    assert.equal(header.opaque, false);
    assert.equal(header.unverifiable, undefined);
    assert.deepEqual(
      header.claimedMissingIndexes,
      Array.from({ length: 40 }, (_, index) => 380 + index),
    );
    assert.equal(header.safeBoundaryIndex, 379);
    assert.equal(header.safeCoveredCount, 380);
    assert.equal(header.summaryBudget, 4096);
    assert.equal(header.truncation.truncated, true);
    // The pages of the view the timeline opens on come along, as getRows gives them: without a view to restore,
    // the one around the first claimed-missing turn (380); with one (the real webview may have reported its view
    // state already), the one it was scrolled to.
    assert.ok(init.rows, 'init carries the first rows');
    assert.equal(init.rows.checkpointIndex, 0);
    const { start, rows } = init.rows;
    // (With a view to restore, its first row in view is found by the list's geometry: rows of 24 px, bands of 22.)
    const top =
      init.restore === undefined
        ? 377
        : rowIndexAt(init.restore.scrollTop, 422, bandBoundaries(init.checkpoints, init.restore.checkpointIndex));
    assert.equal(start, Math.floor(Math.max(0, Math.min(top, 422 - 120) - 12) / 100) * 100);
    assert.equal(await timeline.receive({ type: 'getRows', requestId: 70, checkpointIndex: 0, start, count: rows.length }), 'handled');
    assert.deepEqual(rows, last(posted, 'rows').rows);
    if (init.restore === undefined) assert.equal(rows[180].status, 'claimed-missing');
  });

  it('sends the rows of the view the webview restores', async () => {
    const state = { version: 1 as const, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 12, scrollTop: 0 };
    assert.equal(await timeline.receive({ type: 'viewState', state }), 'handled');
    assert.equal(await timeline.receive({ type: 'ready' }), 'handled');
    const init = last(posted, 'init');
    assert.deepEqual(init.restore, state);
    assert.ok(init.rows);
    assert.equal(init.rows.start, 0);
    assert.deepEqual(
      init.rows.rows.map((row) => row.index),
      Array.from({ length: 200 }, (_, index) => index),
    );
  });

  it('pages rows on request with statuses for the selected checkpoint', async () => {
    assert.equal(await timeline.receive({ type: 'getRows', requestId: 7, checkpointIndex: 0, start: 370, count: 20 }), 'handled');
    const page = last(posted, 'rows');
    assert.equal(page.requestId, 7);
    assert.equal(page.start, 370);
    assert.deepEqual(
      page.rows.map((row) => row.index),
      Array.from({ length: 20 }, (_, index) => 370 + index),
    );
    assert.equal(page.rows[9].status, 'covered');
    assert.equal(page.rows[10].status, 'claimed-missing');
    assert.equal(page.rows[10].line, 381);
    assert.ok(
      page.rows.every((row) => !/[\n\r]/.test(row.preview)),
      'previews are single-line',
    );

    assert.equal(await timeline.receive({ type: 'getRows', requestId: 8, checkpointIndex: 0, start: 415, count: 100 }), 'handled');
    const tail = last(posted, 'rows');
    assert.equal(tail.requestId, 8);
    assert.deepEqual(
      tail.rows.map((row) => row.status),
      [...Array<string>(5).fill('claimed-missing'), 'after', 'after'],
    );
  });

  it('sends turn details and the summary with its cut point', async () => {
    assert.equal(await timeline.receive({ type: 'getTurnDetails', requestId: 9, checkpointIndex: 0, turnIndex: 385 }), 'handled');
    const details = last(posted, 'turnDetails');
    assert.equal(details.requestId, 9);
    assert.equal(details.details.id, 385);
    assert.equal(details.details.status, 'claimed-missing');
    assert.equal(details.details.line, 386);
    // The incident's turns carry explicit anchors: one piece of evidence each, weight 1, not in the summary.
    assert.deepEqual(
      details.details.evidence.map(({ kind, found, weight }) => ({ kind, found, weight })),
      [{ kind: 'explicit', found: false, weight: 1 }],
    );
    assert.equal(details.details.score, 0);
    assert.equal(details.details.threshold, 1);
    assert.ok(details.details.reason.length > 0);

    assert.equal(await timeline.receive({ type: 'getSummary', requestId: 10, checkpointIndex: 0 }), 'handled');
    const summary = last(posted, 'summary');
    assert.equal(summary.requestId, 10);
    assert.equal(summary.details.summaryId, 'S1');
    assert.ok(summary.details.text.startsWith('# Session summary'));
    assert.equal(typeof summary.details.cutAt, 'number');
    assert.ok(summary.details.foundAnchors.length >= 380);
  });

  /** Appends a record to the transcript and waits for the `updated` the host posts after it. */
  async function appendAndWait(record: object, what: string): Promise<HostMessage> {
    const before = posted.length;
    const text = readFileSync(uri.fsPath, 'utf8');
    appendFileSync(uri.fsPath, `${text.endsWith('\n') ? '' : '\n'}${JSON.stringify(record)}\n`);
    return waitFor(() => posted.slice(before).find((message) => message.type === 'updated'), `an updated message after ${what}`, 20000);
  }

  it('posts updated when the transcript grows, and later pages see the new turn', async () => {
    const turn = { type: 'turn', id: 422, role: 'user', content: 'Any news on the reconcile job?', tokens: 9 };
    const updated = await appendAndWait(turn, 'the append');
    assert.equal(updated.type === 'updated' && updated.file.turnCount, 423);
    assert.equal(await timeline.receive({ type: 'getRows', requestId: 11, checkpointIndex: 0, start: 420, count: 10 }), 'handled');
    const rows = last(posted, 'rows');
    assert.deepEqual(
      rows.rows.map((row) => row.id),
      [420, 421, 422],
    );
  });

  it('sends the rows of the view last reported with an updated whose checkpoints changed', async () => {
    // The view reported: scrolled to the top (the default view would start at row 377, its rows at 200).
    const state = { version: 1 as const, file: uri.fsPath, checkpointIndex: 0, selectedTurn: 12, scrollTop: 0 };
    assert.equal(await timeline.receive({ type: 'viewState', state }), 'handled');
    const summary = 'Looked at the reconcile job.';
    const checkpoint = { type: 'checkpoint', summary_id: 'S2', summary, summary_budget: 4096, covered: { from: 0, to: 422 } };
    const updated = await appendAndWait(checkpoint, 'the new checkpoint');
    assert.ok(updated.type === 'updated' && updated.checkpoints.length === 2 && !updated.sameCheckpoints);
    assert.ok(updated.rows, 'the rows in view came along');
    const { checkpointIndex, start, rows } = updated.rows;
    assert.equal(checkpointIndex, 0);
    assert.equal(start, 0, 'the rows of the view reported, from its top');
    assert.equal(rows.length, 200);
    assert.equal(await timeline.receive({ type: 'getRows', requestId: 12, checkpointIndex, start, count: rows.length }), 'handled');
    assert.deepEqual(rows, last(posted, 'rows').rows, 'as getRows gives them');
  });
});
