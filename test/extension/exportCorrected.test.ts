// "Compaction Lens: Export Corrected Checkpoint" in a real extension host, with the command's dialogs answered by
// the test (its ExportPrompts, passed as the second argument): on the incident's active editor, the save dialog
// starts at incident.corrected.jsonl beside it; the written copy claims the safe pointer set when read back, the
// transcript is unchanged and "Open" opens the copy; from the active timeline, its transcript is exported; an
// existing file is replaced only once the modal question says yes; a .json name writes the sidecar, which
// round-trips to the analysis's pointer sets; the transcript itself is refused; from LONG_WORK_TURNS turns the
// export shows in VS Code's progress notification, whose Cancel (pressed by the test's withProgress as the button
// would) stops it with no file written; a real Claude Code session (its copy) gets the sidecar.
import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import type { ExportCorrectedResult, ExportPrompts } from '../../src/extension/exportCorrected';
import { LONG_WORK_TURNS, type ProgressRunner, type ProgressStep } from '../../src/extension/longWork';
import { CanonicalReader } from '../../src/formats/canonical';
import { readSidecar } from '../../src/formats/correctedSidecar';
import { splitLines } from '../unit/formats/feedLines';
import { skipOrFailInCi } from '../sharedFolder';
import { closeAllEditors, copySample, extensionApi, waitFor, writeTranscript } from './helpers';
import { RecordedProgress } from './recordedProgress';
import { tempFolder } from './tempFolders';

const COMMAND = 'compactionLens.exportCorrectedCheckpoint';

/** Dialogs answered by the test, each call recorded. */
class TestPrompts implements ExportPrompts {
  readonly saveDialogs: vscode.SaveDialogOptions[] = [];
  readonly overwriteQuestions: string[] = [];
  readonly announcements: { message: string; buttons: string[] }[] = [];
  readonly progress: RecordedProgress;
  readonly withProgress: ProgressRunner;

  constructor(
    private readonly answers: {
      output?: (defaultUri: vscode.Uri) => vscode.Uri | undefined;
      overwrite?: boolean;
      button?: string;
      /** Press the progress notification's Cancel once it reports a step this is true of. */
      cancelAt?: (step: ProgressStep) => boolean;
    } = {},
  ) {
    this.progress = new RecordedProgress(answers.cancelAt);
    this.withProgress = this.progress.run;
  }

  async chooseOutput(options: vscode.SaveDialogOptions): Promise<vscode.Uri | undefined> {
    this.saveDialogs.push(options);
    return this.answers.output ? this.answers.output(options.defaultUri!) : options.defaultUri;
  }

  async confirmOverwrite(uri: vscode.Uri): Promise<boolean> {
    this.overwriteQuestions.push(uri.fsPath);
    return this.answers.overwrite ?? false;
  }

  async announce(message: string, buttons: string[]): Promise<string | undefined> {
    this.announcements.push({ message, buttons });
    return this.answers.button;
  }
}

function claimedIdsOf(file: string): unknown[][] {
  const reader = new CanonicalReader({ fileName: file });
  for (const line of splitLines(readFileSync(file))) reader.push(line);
  return reader.finish().checkpoints.map((checkpoint) => checkpoint.claimedIds);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('Export Corrected Checkpoint', () => {
  let api: CompactionLensApi;
  /**
   * The large files a test loaded, removed from the store after it: a later test's change of settings reads every
   * file the store lists again, and would still be reading these while the next tests run (heapGuard's among them).
   */
  const large: vscode.Uri[] = [];
  before(async () => {
    api = await extensionApi();
  });
  afterEach(closeAllEditors);
  afterEach(() => {
    for (const uri of large.splice(0)) api.store.remove(uri);
  });

  it('on the active transcript: saves incident.corrected.jsonl beside it, which claims 0–379; the transcript is unchanged; Open opens it', async () => {
    const uri = copySample();
    const before = readFileSync(uri.fsPath);
    await vscode.window.showTextDocument(uri);
    const prompts = new TestPrompts({ button: 'Open' });
    const result = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, undefined, prompts);
    assert.equal(result.kind, 'written', JSON.stringify(result));
    if (result.kind !== 'written') return;
    const expected = path.join(path.dirname(uri.fsPath), 'incident.corrected.jsonl');
    assert.equal(prompts.saveDialogs.length, 1);
    assert.equal(prompts.saveDialogs[0].defaultUri?.fsPath, expected, 'the save dialog starts at the default name beside the transcript');
    assert.deepEqual(Object.keys(prompts.saveDialogs[0].filters ?? {}), ['Corrected canonical transcript', 'Sidecar document']);
    assert.deepEqual(prompts.overwriteQuestions, [], 'nothing to replace: no question');
    assert.equal(result.output, expected);
    assert.equal(result.exportKind, 'canonical-jsonl');
    assert.deepEqual(claimedIdsOf(expected), [range(0, 379)]);
    assert.ok(readFileSync(uri.fsPath).equals(before), 'the transcript is unchanged');
    assert.deepEqual(readdirSync(path.dirname(uri.fsPath)).sort(), ['incident.corrected.jsonl', 'incident.jsonl'], 'no temporary file');
    assert.deepEqual(prompts.announcements, [
      {
        message:
          'Exported the corrected checkpoints of incident.jsonl to incident.corrected.jsonl: S1 (line 421, fail-closed): 380 of 420 claimed turns kept, 40 moved to uncovered (40 claimed-missing).',
        buttons: ['Open'],
      },
    ]);
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === expected, 'Open to show the corrected copy');
  });

  it("from the active timeline (its title menu passes no file): exports the timeline's transcript", async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const api = await extensionApi();
    await waitFor(() => api.panels.active()?.uri.toString() === uri.toString(), 'the timeline to be active');
    const prompts = new TestPrompts();
    const result = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, undefined, prompts);
    assert.equal(result.kind, 'written', JSON.stringify(result));
    if (result.kind === 'written') assert.equal(result.transcript, uri.fsPath);
    assert.equal(prompts.saveDialogs[0].title, 'Export Corrected Checkpoint of incident.jsonl');
  });

  it('an existing file: replaced only when the modal question says yes', async () => {
    const uri = copySample();
    const existing = path.join(path.dirname(uri.fsPath), 'incident.corrected.jsonl');
    writeFileSync(existing, 'EARLIER');
    const declined = new TestPrompts({ overwrite: false });
    const kept = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, uri, declined);
    assert.equal(kept.kind, 'cancelled');
    assert.deepEqual(declined.overwriteQuestions, [existing]);
    assert.equal(readFileSync(existing, 'utf8'), 'EARLIER');
    assert.deepEqual(declined.announcements, []);

    const accepted = new TestPrompts({ overwrite: true });
    const replaced = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, uri, accepted);
    assert.equal(replaced.kind, 'written');
    assert.deepEqual(accepted.overwriteQuestions, [existing]);
    assert.deepEqual(claimedIdsOf(existing), [range(0, 379)]);
  });

  it('a .json name: the sidecar, read back with the pointer sets of the analysis', async () => {
    const uri = copySample();
    const api = await extensionApi();
    const sidecar = path.join(path.dirname(uri.fsPath), 'incident.jsonl.compaction-lens.json');
    const prompts = new TestPrompts({ output: () => vscode.Uri.file(sidecar) });
    const result = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, uri, prompts);
    assert.equal(result.kind, 'written');
    if (result.kind !== 'written') return;
    assert.equal(result.exportKind, 'sidecar');
    const { document, problems } = readSidecar(readFileSync(sidecar, 'utf8'));
    assert.deepEqual(problems, []);
    const analysis = api.store.get(uri)!.analysis;
    assert.deepEqual(
      document?.checkpoints.map((checkpoint) => [checkpoint.claimedIds, checkpoint.safeIds]),
      analysis.checkpoints.map((checkpoint) => [checkpoint.claimedIds, checkpoint.safeCovered]),
    );
  });

  it('the transcript itself, or a cancelled dialog: nothing is written', async () => {
    const uri = copySample();
    const before = readFileSync(uri.fsPath);
    const prompts = new TestPrompts({ output: () => uri, overwrite: true });
    const refused = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, uri, prompts);
    assert.equal(refused.kind, 'failed');
    assert.deepEqual(prompts.overwriteQuestions, [], 'the transcript is refused before any question about replacing it');
    if (refused.kind === 'failed') assert.match(refused.message, /is the transcript itself: Compaction Lens never writes to a transcript/);
    const cancelled = await vscode.commands.executeCommand<ExportCorrectedResult>(
      COMMAND,
      uri,
      new TestPrompts({ output: () => undefined }),
    );
    assert.equal(cancelled.kind, 'cancelled');
    assert.ok(readFileSync(uri.fsPath).equals(before), 'the transcript is unchanged');
    assert.deepEqual(readdirSync(path.dirname(uri.fsPath)), ['incident.jsonl']);
  });

  it(`from ${LONG_WORK_TURNS} turns a notification shows the export, and its Cancel stops it with nothing written`, async () => {
    const turns = 30_000;
    const uri = writeTranscript('many.jsonl', [
      ...Array.from({ length: turns }, (_, id) => ({
        type: 'turn',
        id,
        role: id % 2 === 0 ? 'user' : 'assistant',
        content: `ANCHOR-${id}- step ${id} of the migration`,
        tokens: 20,
        anchor: `ANCHOR-${id}-`,
      })),
      {
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'Did ANCHOR-0- and ANCHOR-1-.',
        summary_budget: 4096,
        covered: { from: 0, to: turns - 1 },
      },
    ]);
    large.push(uri);
    const folder = path.dirname(uri.fsPath);
    const output = path.join(folder, 'many.corrected.jsonl');
    const notification = {
      location: vscode.ProgressLocation.Notification,
      title: 'Compaction Lens: exporting the corrected checkpoints of many.jsonl',
      cancellable: true,
    };
    for (const [phase, cancelAt] of [
      ['working out the corrections', (step: ProgressStep) => step.message === 'working out the corrections'],
      ['writing', (step: ProgressStep) => step.message?.startsWith('writing') === true],
    ] as const) {
      const prompts = new TestPrompts({ cancelAt });
      const result = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, uri, prompts);
      assert.deepEqual(result, { kind: 'cancelled' }, `cancelled while ${phase}`);
      assert.deepEqual(
        prompts.progress.shown.map(({ options }) => options),
        [notification],
      );
      assert.deepEqual(readdirSync(folder), ['many.jsonl'], `cancelled while ${phase}: no file, no temporary file`);
      assert.deepEqual(prompts.announcements, []);
    }

    const prompts = new TestPrompts();
    const result = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, uri, prompts);
    assert.equal(result.kind, 'written', JSON.stringify(result));
    assert.deepEqual(claimedIdsOf(output), [[0, 1]]);
    const messages = prompts.progress.shown[0].reports.map((step) => step.message);
    assert.equal(messages[0], 'working out the corrections');
    assert.ok(messages.length >= 3, messages.join(' | '));
    for (const message of messages.slice(1)) assert.match(message ?? '', /^writing many\.corrected\.jsonl: [\d.]+ (KB|MB)$/);
  });

  it('a real Claude Code session (a copy): the sidecar beside it, and a .jsonl name is refused', async function () {
    const session = path.join(
      __dirname,
      '..',
      '..',
      '..',
      '..',
      'shared',
      'corpus',
      'claude-code',
      '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz',
    );
    if (!existsSync(session)) skipOrFailInCi(this, `the corpus file ${session} is absent`);
    const copy = path.join(tempFolder(), '8463c716.jsonl.gz');
    copyFileSync(session, copy);
    const before = readFileSync(copy);
    const prompts = new TestPrompts();
    const result = await vscode.commands.executeCommand<ExportCorrectedResult>(COMMAND, vscode.Uri.file(copy), prompts);
    assert.equal(result.kind, 'written', JSON.stringify(result));
    assert.equal(prompts.saveDialogs[0].defaultUri?.fsPath, `${copy}.compaction-lens.json`);
    assert.deepEqual(Object.keys(prompts.saveDialogs[0].filters ?? {}), ['Sidecar document']);
    const { document, problems } = readSidecar(readFileSync(`${copy}.compaction-lens.json`, 'utf8'));
    assert.deepEqual(problems, []);
    assert.equal(document?.format, 'claude-code');
    assert.ok(document!.checkpoints[0].moved.length > 0);
    assert.ok(readFileSync(copy).equals(before), 'the session is unchanged');
    const refused = await vscode.commands.executeCommand<ExportCorrectedResult>(
      COMMAND,
      vscode.Uri.file(copy),
      new TestPrompts({ output: () => vscode.Uri.file(`${copy}.corrected.jsonl`) }),
    );
    assert.equal(refused.kind, 'failed');
    if (refused.kind === 'failed')
      assert.match(refused.message, /can only be written for a canonical transcript, and this one is claude-code/);
  });
});
