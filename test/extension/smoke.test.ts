// Smoke test inside a real VS Code extension host: the extension under development is present, activates,
// and registers every command its manifest contributes (compactionLens.openTimeline among them).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'compaction-lens.compaction-lens';

interface ContributedCommand {
  command: string;
}

describe('extension smoke', () => {
  it('is loaded as the extension under development', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not among the loaded extensions`);
    assert.equal(extension.packageJSON.name, 'compaction-lens');
  });

  it('activates and registers every contributed command', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    const contributed: ContributedCommand[] = extension.packageJSON.contributes?.commands ?? [];
    const ids = contributed.map((entry) => entry.command);
    for (const id of ['compactionLens.openTimeline', 'compactionLens.analyzeWorkspace', 'compactionLens.revealTurn']) {
      assert.ok(ids.includes(id), `the manifest must contribute ${id}`);
    }
    const activationEvents: string[] = extension.packageJSON.activationEvents ?? [];
    for (const startup of ['*', 'onStartupFinished']) {
      assert.ok(!activationEvents.includes(startup), `the extension must not activate at startup (${startup})`);
    }
    await extension.activate();
    assert.equal(extension.isActive, true);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = ids.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });
});
