// The two neutral statuses through the editor, in a real extension host: a claimed turn with nothing to check
// is never flagged and its hover says so in plain words; an encrypted summary gets one information
// diagnostic saying coverage could not be checked and why (not one per turn), and the tree, hover and status
// bar say the same.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, extensionApi, ourDiagnostics, waitFor, writeTranscript } from './helpers';

function labelOf(item: vscode.TreeItem): string {
  const label = item.label;
  return typeof label === 'string' ? label : (label?.label ?? '');
}

/** Markdown as the text it shows (appendText turns spaces into &nbsp; and escapes punctuation). */
function plain(markdown: string): string {
  return markdown.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
}

function tooltipOf(item: vscode.TreeItem): string {
  const tooltip = item.tooltip;
  return plain(typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? ''));
}

async function hoverText(uri: vscode.Uri, line: number): Promise<string> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 5));
  return plain(
    hovers
      .flatMap((hover) => hover.contents)
      .map((content) => (typeof content === 'string' ? content : 'value' in content ? content.value : ''))
      .join('\n'),
  );
}

describe('neutral statuses: nothing to check, cannot be checked', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  it('never flags a claimed turn that holds nothing worth carrying', async () => {
    const uri = writeTranscript('acknowledgement.jsonl', [
      {
        type: 'turn',
        id: 0,
        role: 'user',
        content: 'Please fix the timeout in src/reconcile/job.ts; the nightly run fails with RECONCILE_9001.',
        tokens: 30,
      },
      { type: 'turn', id: 1, role: 'assistant', content: 'OK, thanks.', tokens: 4 },
      { type: 'turn', id: 2, role: 'assistant', content: 'Raised the timeout in src/reconcile/job.ts to 900 seconds.', tokens: 20 },
      {
        type: 'checkpoint',
        summary_id: 'S1',
        summary:
          '# Session summary\n\n1. The nightly reconcile failed with RECONCILE_9001; the timeout in src/reconcile/job.ts was raised to 900 seconds. Please continue.',
        summary_budget: 4096,
        covered: { from: 0, to: 2 },
      },
    ]);
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const entry = await waitFor(() => api.store.get(uri), 'the transcript to be analysed');
    const [checkpoint] = entry.analysis.checkpoints;
    assert.equal(checkpoint.counts['nothing-to-check'], 1, `statuses: ${JSON.stringify(checkpoint.counts)}`);
    assert.deepEqual(ourDiagnostics(uri), [], 'nothing to flag: the summary carries every turn that holds something');

    const text = await hoverText(uri, 1);
    assert.match(text, /turn 1/);
    assert.match(text, /S1: nothing to check — /);
    assert.doesNotMatch(text, /Evidence/, 'no evidence is listed for a turn with nothing to check');

    const file = api.tree.getChildren().find((node) => node.uri.toString() === uri.toString());
    assert.ok(file);
    const [checkpointNode] = api.tree.getChildren(file);
    assert.match(String(api.tree.getTreeItem(checkpointNode).description), /^2 covered · 1 nothing to check · reversible$/);
    assert.deepEqual(api.tree.getChildren(checkpointNode), [], 'only claimed-missing ranges are listed as problems');
  });

  it('flags an encrypted summary once, saying coverage could not be checked and why', async () => {
    const uri = writeTranscript('encrypted.jsonl', [
      { role: 'user', content: 'Please fix the timeout in src/reconcile/job.ts; it fails with RECONCILE_9001.' },
      { role: 'assistant', content: 'Raised the timeout in src/reconcile/job.ts to 900 seconds.' },
      { type: 'compaction', encrypted_content: 'gAAAAABn2x8k' },
    ]);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await vscode.window.showTextDocument(uri);
    const entry = await waitFor(() => api.store.get(uri), 'the transcript to be analysed');
    const [checkpoint] = entry.analysis.checkpoints;
    assert.equal(checkpoint.counts.unverifiable, 2);

    const diagnostics = ourDiagnostics(uri);
    const unverifiable = diagnostics.filter((diagnostic) => diagnostic.code === 'unverifiable');
    assert.equal(unverifiable.length, 1, `one flag for the checkpoint, not one per turn: ${diagnostics.map((d) => d.message).join(' | ')}`);
    assert.equal(unverifiable[0].severity, vscode.DiagnosticSeverity.Information);
    assert.equal(unverifiable[0].range.start.line, 2, 'on the compaction record (line 3)');
    assert.match(unverifiable[0].message, /coverage could not be checked for its 2 claimed turns: the summary is encrypted/);
    assert.equal(diagnostics.filter((diagnostic) => diagnostic.code === 'claimed-missing').length, 0);

    assert.match(await hoverText(uri, 0), /: cannot be checked — the summary is encrypted/);

    const file = api.tree.getChildren().find((node) => node.uri.toString() === uri.toString());
    assert.ok(file);
    const [checkpointNode] = api.tree.getChildren(file);
    const item = api.tree.getTreeItem(checkpointNode);
    assert.match(labelOf(item), /message 2/);
    assert.match(String(item.description), /^0 covered · 2 unverifiable · fail-closed$/);
    assert.match(tooltipOf(item), /Coverage could not be checked: the summary is encrypted/);
    assert.deepEqual(api.tree.getChildren(checkpointNode), []);

    const status = await waitFor(() => api.statusBar.text || undefined, 'the status bar item');
    assert.match(status, /: fail-closed · 0 claimed-missing · not checkable$/);
  });
});
