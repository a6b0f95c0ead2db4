// Real third-party transcripts (../shared/corpus, read in place, never copied) through the extension in a
// real extension host: each opens in the timeline, and its checkpoints reach the tree, the CodeLens and
// the Problems panel without an error. Skipped, with a message, when the corpus folder is absent.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { closeAllEditors, extensionApi, extensionPath, ourDiagnostics } from './helpers';
import { skipOrFailInCi } from '../sharedFolder';

/** Sessions with at least one compaction (a .gz one cannot be shown in a text editor: no CodeLens check). */
const SESSIONS = [
  'claude-code/wpfleger96/session_with_compact.jsonl',
  'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz',
  'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
];
/** A JSON file of the corpus that is not a transcript. */
const NOT_A_TRANSCRIPT = 'codex/localpush-2026-02-23-manifest.json';

describe('real transcripts from the corpus', () => {
  let api: CompactionLensApi;
  const corpus = path.resolve(process.env.COMPACTION_LENS_REPO_ROOT ?? '', '..', 'shared', 'corpus');

  before(async function () {
    const folder = existsSync(corpus) ? corpus : path.resolve(extensionPath(), '..', 'shared', 'corpus');
    if (!existsSync(folder)) {
      skipOrFailInCi(this, `no transcript corpus at ${folder}`);
    }
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  for (const session of SESSIONS) {
    it(`opens ${session} and lists its checkpoints`, async function () {
      const file = path.join(existsSync(corpus) ? corpus : path.resolve(extensionPath(), '..', 'shared', 'corpus'), session);
      if (!existsSync(file)) {
        skipOrFailInCi(this, `${file} is not in the corpus`);
      }
      const uri = vscode.Uri.file(file);
      await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
      const entry = api.store.get(uri);
      assert.ok(entry, `${session} was not analysed`);
      assert.ok(entry.transcript.turns.length > 0);
      assert.ok(entry.analysis.checkpoints.length > 0, 'the compaction was not found');
      assert.ok(api.panels.get(uri), 'no timeline panel');
      const node = api.tree.getChildren().find((candidate) => candidate.uri.toString() === uri.toString());
      assert.ok(node, 'not in the tree');
      assert.equal(api.tree.getChildren(node).length, entry.analysis.checkpoints.length);
      if (!file.endsWith('.gz')) {
        await vscode.workspace.openTextDocument(uri); // the CodeLens API command needs the document loaded
        const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
        assert.equal(lenses.length, entry.analysis.checkpoints.length);
      }
      for (const diagnostic of ourDiagnostics(uri)) {
        assert.ok(diagnostic.range.start.line < entry.transcript.lineCount + 1, 'a diagnostic points past the end of the file');
        assert.ok(diagnostic.message.length > 0);
      }
    });
  }

  it('declines a JSON file that is not a transcript without opening a panel', async function () {
    const file = path.join(existsSync(corpus) ? corpus : path.resolve(extensionPath(), '..', 'shared', 'corpus'), NOT_A_TRANSCRIPT);
    if (!existsSync(file)) {
      skipOrFailInCi(this, `${file} is not in the corpus`);
    }
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    assert.equal(api.store.get(uri), undefined);
    assert.equal(api.panels.get(uri), undefined);
  });
});
