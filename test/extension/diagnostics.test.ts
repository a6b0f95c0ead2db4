// Diagnostics on a transcript in a real extension host: the incident's truncated summary is flagged on its
// checkpoint line (421), the fail-closed verdict and the claimed-missing range 380–419 too (with related
// information on the turns' lines), and appending records to an open transcript updates them live.
import * as assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, copySample, extensionApi, ourDiagnostics, waitFor } from './helpers';

describe('diagnostics', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('flags the truncated summary on the checkpoint record (line 421)', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const truncated = await waitFor(
      () => ourDiagnostics(uri).find((diagnostic) => diagnostic.code === 'truncated-summary'),
      'a truncated-summary diagnostic',
    );
    assert.equal(truncated.range.start.line, 420, 'line 421, 0-based 420');
    assert.equal(truncated.range.end.line, 420);
    assert.equal(truncated.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(truncated.message, /summary appears cut off/);
    assert.match(truncated.message, /\d+ of 4096 tokens/);
  });

  it('flags the fail-closed verdict and the claimed-missing turns 380–419 with related information', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const diagnostics = ourDiagnostics(uri);
    const verdict = diagnostics.find((diagnostic) => diagnostic.code === 'fail-closed');
    assert.ok(verdict, `no fail-closed diagnostic among ${diagnostics.map((d) => d.code).join(', ')}`);
    assert.equal(verdict.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(verdict.range.start.line, 420);
    const missing = diagnostics.filter((diagnostic) => diagnostic.code === 'claimed-missing');
    assert.equal(missing.length, 1, 'one contiguous claimed-missing range');
    assert.equal(missing[0].range.start.line, 420);
    assert.match(missing[0].message, /turns 380–419 \(40\)/);
    const related = missing[0].relatedInformation ?? [];
    assert.equal(related.length, 40);
    assert.deepEqual(
      related.map((info) => info.location.range.start.line),
      Array.from({ length: 40 }, (_, index) => 380 + index),
      'turn n sits on line n+1',
    );
    assert.ok(related.every((info) => info.location.uri.toString() === uri.toString()));
  });

  it('updates the diagnostics when records are appended to an open transcript', async () => {
    const uri = copySample();
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await waitFor(() => api.store.get(uri), 'the transcript to be analysed');
    const before = ourDiagnostics(uri);
    assert.ok(before.length > 0);
    const version = api.store.get(uri)!.version;
    const endsWithNewline = readFileSync(uri.fsPath, 'utf8').endsWith('\n');
    // Lines 424-427: two turns with explicit anchors, a broken line, and a checkpoint whose summary lacks them.
    const appended = [
      JSON.stringify({ type: 'turn', id: 422, role: 'tool', content: 'reconcile.log: RECONCILE_9001 timeout', tokens: 40, anchor: 'RECONCILE_9001' }),
      JSON.stringify({ type: 'turn', id: 423, role: 'assistant', content: 'Raised the reconcile timeout (RECONCILE_9002).', tokens: 30, anchor: 'RECONCILE_9002' }),
      '{"type":"turn", this line is broken',
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S2',
        summary: '# Session summary\n\n1. The nightly reconcile was investigated and the',
        summary_budget: 4096,
        covered: { from: 420, to: 423 },
      }),
    ];
    appendFileSync(uri.fsPath, `${endsWithNewline ? '' : '\n'}${appended.join('\n')}\n`);
    await waitFor(() => api.store.get(uri)!.version > version, 'the transcript to be re-analysed', 20000);
    const after = await waitFor(() => {
      const current = ourDiagnostics(uri);
      return current.some((diagnostic) => diagnostic.range.start.line === 426) ? current : undefined;
    }, 'diagnostics on the appended checkpoint (line 427)');
    const parse = after.find((diagnostic) => diagnostic.code === 'transcript-problem' && diagnostic.range.start.line === 425);
    assert.ok(parse, 'the broken line 426 is flagged');
    assert.equal(parse.severity, vscode.DiagnosticSeverity.Error);
    // One flag per claimed-missing range; how the prose turns 420–421 are judged may split the range.
    const missing = after.filter((diagnostic) => diagnostic.code === 'claimed-missing' && diagnostic.range.start.line === 426);
    assert.ok(missing.length > 0, 'S2 claims turns its summary lacks');
    assert.ok(
      missing.some((diagnostic) => (diagnostic.relatedInformation ?? []).some((info) => info.location.range.start.line === 424)),
      'turn 423 (line 425) is among the related locations',
    );
    const earlier = after.filter((diagnostic) => diagnostic.code === 'truncated-summary' && diagnostic.range.start.line === 420);
    assert.equal(earlier.length, 1, 'S1 is still flagged once');
    assert.equal(api.store.get(uri)!.transcript.turns.length, 424);
  });
});
