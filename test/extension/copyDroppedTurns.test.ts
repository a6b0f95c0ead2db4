// "Compaction Lens: Copy Dropped Turns for the Agent" in a real extension host, with the command's dialogs
// answered by the test (its CopyDroppedTurnsPrompts, passed as the second argument): on the incident's active
// editor, the one checkpoint with claimed-missing turns is taken without a question, the confirmation states the
// size as tiktoken counts the Markdown, and the clipboard then holds the 40 turns 380–419; with two such
// checkpoints a quick pick asks which; secrets are masked unless "Copy Unmasked" is chosen; a cancelled
// confirmation leaves the clipboard alone; the tree's context menu passes its checkpoint, the active timeline its
// selected one; a transcript with nothing dropped copies nothing; the turns a find matched (Where Did This Go?'s
// copy button) are copied instead when passed as FoundTurns; "Save As…" writes the masked bundle to the file chosen
// (starting beside the transcript), asks before replacing one, never writes the transcript, and is offered first
// past LARGE_BUNDLE_TOKENS and alone past COPY_MAX_TOKENS (no choice then copies the bundle); from
// LONG_WORK_TURNS turns the work shows in VS Code's progress notification (the test's withProgress passes it on,
// recording what it reports, and presses Cancel as its button would), and Cancel stops it with nothing offered.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import {
  type CopyChoice,
  type CopyDroppedTurnsPrompts,
  type CopyDroppedTurnsResult,
  type CopyOffer,
  type DroppedTurnsChoice,
  COPY_MAX_TOKENS,
  describeOffer,
  LARGE_BUNDLE_TOKENS,
  offerQuestion,
} from '../../src/extension/copyDroppedTurns';
import type { CompactionLensApi } from '../../src/extension/extension';
import { LONG_WORK_TURNS, type ProgressRunner, type ProgressStep } from '../../src/extension/longWork';
import { createTokenCounter } from '../../src/node/tokenCounter';
import { closeAllEditors, copySample, extensionApi, waitFor, writeTranscript } from './helpers';
import { RecordedProgress } from './recordedProgress';
import { tempFolder } from './tempFolders';

const COMMAND = 'compactionLens.copyDroppedTurns';

/** Dialogs answered by the test, each call recorded. */
class TestPrompts implements CopyDroppedTurnsPrompts {
  readonly picks: { choices: DroppedTurnsChoice[]; fileName: string }[] = [];
  readonly offers: CopyOffer[] = [];
  readonly saveDialogs: vscode.SaveDialogOptions[] = [];
  readonly overwrites: string[] = [];
  readonly progress: RecordedProgress;
  readonly withProgress: ProgressRunner;

  constructor(
    private readonly answers: {
      pick?: (choices: DroppedTurnsChoice[]) => number | undefined;
      copy?: CopyChoice;
      saveTo?: vscode.Uri;
      replace?: boolean;
      /** Press the progress notification's Cancel once it reports a step this is true of. */
      cancelAt?: (step: ProgressStep) => boolean;
    } = {},
  ) {
    this.progress = new RecordedProgress(answers.cancelAt);
    this.withProgress = this.progress.run;
  }

  async pickCheckpoint(choices: DroppedTurnsChoice[], fileName: string): Promise<number | undefined> {
    this.picks.push({ choices, fileName });
    return this.answers.pick ? this.answers.pick(choices) : choices[0]?.checkpointIndex;
  }

  async confirmCopy(offer: CopyOffer): Promise<CopyChoice | undefined> {
    this.offers.push(offer);
    return this.answers.copy;
  }

  async chooseFile(options: vscode.SaveDialogOptions): Promise<vscode.Uri | undefined> {
    this.saveDialogs.push(options);
    return this.answers.saveTo;
  }

  async confirmOverwrite(uri: vscode.Uri): Promise<boolean> {
    this.overwrites.push(uri.fsPath);
    return this.answers.replace ?? false;
  }
}

/** The turn headings of a bundle: "### turn 380 · line 381 · user" → "380". */
function headedIds(markdown: string): string[] {
  return [...markdown.matchAll(/^### turn (\S+) · /gm)].map((match) => match[1]);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

const GITHUB_TOKEN = `gh${'p_'}${'Qr7St6Uv5W'.repeat(4)}`;

/** Two checkpoints, each claiming four turns and carrying the anchor of the first only; secrets in S2's turns. */
function twoCheckpoints(): vscode.Uri {
  const turn = (id: number, content: string) => ({ type: 'turn', id, role: 'user', content, tokens: 20, anchor: `ANCHOR-${id}-` });
  return writeTranscript('two-checkpoints.jsonl', [
    ...[0, 1, 2, 3].map((id) => turn(id, `ANCHOR-${id}- step ${id}`)),
    { type: 'checkpoint', summary_id: 'S1', summary: 'Did ANCHOR-0-.', summary_budget: 4096, covered: { from: 0, to: 3 } },
    turn(4, 'ANCHOR-4- deploy'),
    turn(5, `ANCHOR-5- git push https://${GITHUB_TOKEN}@github.com/o/r`),
    turn(6, 'ANCHOR-6- export DB_PASSWORD=hunter2-Secret'),
    turn(7, 'ANCHOR-7- done'),
    { type: 'checkpoint', summary_id: 'S2', summary: 'Did ANCHOR-4-.', summary_budget: 4096, covered: { from: 4, to: 7 } },
  ]);
}

async function run(arg: unknown, prompts: TestPrompts): Promise<CopyDroppedTurnsResult> {
  return vscode.commands.executeCommand<CopyDroppedTurnsResult>(COMMAND, arg, prompts);
}

describe('Copy Dropped Turns for the Agent', () => {
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

  it("on the incident's active editor: confirms with the size in tokens, then copies turns 380–419", async () => {
    const uri = copySample();
    await vscode.window.showTextDocument(uri);
    const prompts = new TestPrompts({ copy: 'masked' });
    const result = await run(undefined, prompts);
    assert.equal(result.kind, 'copied', JSON.stringify(result));
    assert.deepEqual(prompts.picks, [], 'one checkpoint dropped turns: no question which');
    const copied = await vscode.env.clipboard.readText();
    assert.match(copied, /^## Turns dropped by checkpoint S1, recovered from the raw log\n/);
    assert.match(copied, /Checkpoint S1 \(line 421 of `incident\.jsonl`\) claims that its summary covers these 40 turns/);
    assert.deepEqual(headedIds(copied), range(380, 419));
    assert.match(copied, /### turn 380 · line 381 · user\n\n```text\nPlease look at the settlement flow next/);
    const tokens = createTokenCounter('o200k_base')(copied);
    assert.deepEqual(prompts.offers, [
      {
        summaryId: 'S1',
        fileName: 'incident.jsonl',
        turns: 40,
        tokens,
        masked: 0,
        unmaskedTokens: undefined,
        encoding: 'o200k_base',
        large: false,
        copyable: true,
      },
    ]);
    assert.deepEqual(
      prompts.progress.shown.map(({ options }) => options),
      [{ location: vscode.ProgressLocation.Window, title: 'Compaction Lens: writing and counting the turns to copy' }],
      'forty turns: the status bar, no notification',
    );
    if (result.kind === 'copied') {
      assert.deepEqual(result.turnIds, range(380, 419));
      assert.equal(result.tokens, tokens);
    }
  });

  it("copies the turns a find matched (Where Did This Go?'s copy button), saying what they hold", async () => {
    const uri = copySample();
    const prompts = new TestPrompts({ copy: 'masked' });
    const result = await run({ uri, query: 'ERR_LEDGER_4107', turnIds: [408] }, prompts);
    assert.equal(result.kind, 'copied', JSON.stringify(result));
    const copied = await vscode.env.clipboard.readText();
    assert.deepEqual(headedIds(copied), ['408']);
    assert.match(copied, /Claimed by checkpoint S1, but absent from its summary\./);
    assert.equal(prompts.offers.length, 1);
    assert.equal(prompts.offers[0].query, 'ERR_LEDGER_4107');
    assert.equal(prompts.offers[0].turns, 1);
    assert.equal(prompts.offers[0].tokens, createTokenCounter('o200k_base')(copied));
    if (result.kind === 'copied') assert.equal(result.query, 'ERR_LEDGER_4107');
    const none = await run({ uri, query: 'NOWHERE_9', turnIds: [] }, new TestPrompts({ copy: 'masked' }));
    assert.equal(none.kind, 'nothing');
  });

  it('with two checkpoints that dropped turns: asks which; masks secrets, or copies them with "Copy Unmasked"', async () => {
    const uri = twoCheckpoints();
    await vscode.window.showTextDocument(uri);
    const masked = new TestPrompts({
      pick: (choices) => choices.find((choice) => choice.summaryId === 'S2')?.checkpointIndex,
      copy: 'masked',
    });
    const result = await run(undefined, masked);
    assert.equal(result.kind, 'copied', JSON.stringify(result));
    assert.deepEqual(masked.picks, [
      {
        fileName: 'two-checkpoints.jsonl',
        choices: [
          { checkpointIndex: 0, summaryId: 'S1', line: 5, dropped: 3 },
          { checkpointIndex: 1, summaryId: 'S2', line: 10, dropped: 3 },
        ],
      },
    ]);
    const offer = masked.offers[0];
    assert.equal(offer.summaryId, 'S2');
    assert.equal(offer.masked, 2);
    assert.ok(offer.unmaskedTokens !== undefined && offer.unmaskedTokens > 0, '"Copy Unmasked" is offered with its size');
    const copied = await vscode.env.clipboard.readText();
    assert.deepEqual(headedIds(copied), ['5', '6', '7']);
    assert.ok(!copied.includes(GITHUB_TOKEN) && !copied.includes('hunter2-Secret'), 'the secrets are masked');
    assert.match(copied, /git push https:\/\/\[masked GitHub token\]@github\.com/);
    assert.match(copied, /DB_PASSWORD=\[masked secret value\]/);
    assert.equal(offer.tokens, createTokenCounter('o200k_base')(copied));

    const unmasked = new TestPrompts({ pick: () => 1, copy: 'unmasked' });
    const second = await run(undefined, unmasked);
    assert.equal(second.kind, 'copied');
    if (second.kind === 'copied') assert.equal(second.unmasked, true);
    const plain = await vscode.env.clipboard.readText();
    assert.ok(plain.includes(GITHUB_TOKEN) && plain.includes('hunter2-Secret'), 'Copy Unmasked keeps them');
    assert.equal(unmasked.offers[0].unmaskedTokens, createTokenCounter('o200k_base')(plain));
  });

  it('a cancelled confirmation or quick pick leaves the clipboard alone', async () => {
    const uri = twoCheckpoints();
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    const declined = new TestPrompts({ pick: () => 0, copy: undefined });
    assert.equal((await run(uri, declined)).kind, 'cancelled');
    assert.equal(declined.offers.length, 1);
    const noPick = new TestPrompts({ pick: () => undefined, copy: 'masked' });
    assert.equal((await run(uri, noPick)).kind, 'cancelled');
    assert.equal(noPick.offers.length, 0);
    assert.equal(await vscode.env.clipboard.readText(), sentinel);
  });

  it("from the checkpoint tree's context menu: copies that checkpoint's turns without asking which", async () => {
    const uri = twoCheckpoints();
    const api = await extensionApi();
    await api.store.load(uri);
    const file = api.tree.getChildren().find((node) => node.uri.toString() === uri.toString());
    assert.ok(file, 'the transcript is in the tree');
    const [first] = api.tree.getChildren(file);
    assert.equal(first.kind, 'checkpoint');
    assert.equal(api.tree.getTreeItem(first).contextValue, 'checkpoint', "the menu's when clause names this context value");
    const prompts = new TestPrompts({ copy: 'masked' });
    const result = await run(first, prompts);
    assert.equal(result.kind, 'copied', JSON.stringify(result));
    assert.deepEqual(prompts.picks, []);
    if (result.kind === 'copied') {
      assert.equal(result.summaryId, 'S1');
      assert.deepEqual(result.turnIds, ['1', '2', '3']);
    }
    assert.deepEqual(headedIds(await vscode.env.clipboard.readText()), ['1', '2', '3']);
  });

  it("from the active timeline: copies the selected checkpoint's turns without asking which", async () => {
    const uri = twoCheckpoints();
    const api = await extensionApi();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const timeline = api.panels.get(uri);
    assert.ok(timeline);
    await waitFor(() => api.panels.active()?.uri.toString() === uri.toString(), 'the timeline to be active');
    timeline.selectTurn(1, 5);
    await waitFor(() => timeline.currentViewState?.checkpointIndex === 1, 'the timeline to report checkpoint S2 selected');
    const prompts = new TestPrompts({ copy: 'masked' });
    const result = await run(undefined, prompts);
    assert.equal(result.kind, 'copied', JSON.stringify(result));
    assert.deepEqual(prompts.picks, []);
    if (result.kind === 'copied') assert.equal(result.summaryId, 'S2');
    assert.deepEqual(headedIds(await vscode.env.clipboard.readText()), ['5', '6', '7']);
  });

  it('"Save As…" writes the bundle to the file chosen (offered beside the transcript), not the clipboard', async () => {
    const uri = copySample();
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    const target = join(tempFolder(), 'for the agent.md');
    const prompts = new TestPrompts({ copy: 'save', saveTo: vscode.Uri.file(target) });
    const result = await run(uri, prompts);
    assert.equal(result.kind, 'saved', JSON.stringify(result));
    assert.equal(prompts.saveDialogs.length, 1);
    assert.equal(prompts.saveDialogs[0].defaultUri?.fsPath, join(dirname(uri.fsPath), 'incident.S1.dropped-turns.md'));
    assert.deepEqual(prompts.saveDialogs[0].filters, { Markdown: ['md'] });
    assert.deepEqual(prompts.overwrites, [], 'a new file: no question');
    const saved = readFileSync(target, 'utf8');
    assert.match(saved, /^## Turns dropped by checkpoint S1, recovered from the raw log\n/);
    assert.deepEqual(headedIds(saved), range(380, 419));
    assert.equal(prompts.offers[0].tokens, createTokenCounter('o200k_base')(saved));
    if (result.kind === 'saved') {
      assert.equal(result.path, target);
      assert.deepEqual(result.turnIds, range(380, 419));
      assert.equal(result.tokens, prompts.offers[0].tokens);
    }
    assert.equal(await vscode.env.clipboard.readText(), sentinel, 'the clipboard is left alone');
  });

  it('"Save As…" asks before replacing a file, saves the masked bundle, and never writes the transcript', async () => {
    const uri = twoCheckpoints();
    const transcriptBefore = readFileSync(uri.fsPath, 'utf8');
    const target = join(tempFolder(), 'kept.md');
    writeFileSync(target, 'an earlier file');
    const declined = new TestPrompts({ pick: () => 1, copy: 'save', saveTo: vscode.Uri.file(target), replace: false });
    assert.equal((await run(uri, declined)).kind, 'cancelled');
    assert.deepEqual(declined.overwrites, [target]);
    assert.equal(readFileSync(target, 'utf8'), 'an earlier file', 'declined: the file is as it was');

    const replaced = new TestPrompts({ pick: () => 1, copy: 'save', saveTo: vscode.Uri.file(target), replace: true });
    const result = await run(uri, replaced);
    assert.equal(result.kind, 'saved', JSON.stringify(result));
    if (result.kind === 'saved') assert.equal(result.masked, 2);
    const saved = readFileSync(target, 'utf8');
    assert.deepEqual(headedIds(saved), ['5', '6', '7']);
    assert.ok(!saved.includes(GITHUB_TOKEN) && !saved.includes('hunter2-Secret'), 'the saved bundle is the masked one');
    assert.equal(replaced.saveDialogs[0].defaultUri?.fsPath, join(dirname(uri.fsPath), 'two-checkpoints.S2.dropped-turns.md'));

    const onto = new TestPrompts({ pick: () => 1, copy: 'save', saveTo: uri, replace: true });
    const refused = await run(uri, onto);
    assert.equal(refused.kind, 'failed', JSON.stringify(refused));
    if (refused.kind === 'failed') assert.match(refused.message, /never writes to a transcript/);
    assert.equal(readFileSync(uri.fsPath, 'utf8'), transcriptBefore, 'the transcript is unchanged');
  });

  it(`past ${LARGE_BUNDLE_TOKENS} tokens the offer says the bundle is too large to paste well`, async () => {
    // Two dropped turns of some 75,000 tokens each ("w1 w2 …": a few tokens a word).
    const words = (from: number) => Array.from({ length: 30_000 }, (_, i) => `w${from + i}`).join(' ');
    const uri = writeTranscript('large-drop.jsonl', [
      { type: 'turn', id: 0, role: 'user', content: 'ANCHOR-0- begin', tokens: 20, anchor: 'ANCHOR-0-' },
      { type: 'turn', id: 1, role: 'tool', content: `ANCHOR-1- ${words(0)}`, tokens: 75_000, anchor: 'ANCHOR-1-' },
      { type: 'turn', id: 2, role: 'tool', content: `ANCHOR-2- ${words(30_000)}`, tokens: 75_000, anchor: 'ANCHOR-2-' },
      { type: 'checkpoint', summary_id: 'S1', summary: 'Did ANCHOR-0-.', summary_budget: 4096, covered: { from: 0, to: 2 } },
    ]);
    large.push(uri);
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    const prompts = new TestPrompts({ copy: undefined });
    assert.equal((await run(uri, prompts)).kind, 'cancelled');
    const [offer] = prompts.offers;
    assert.equal(offer.turns, 2);
    assert.ok(offer.tokens > LARGE_BUNDLE_TOKENS, `${offer.tokens} tokens`);
    assert.equal(offer.large, true);
    assert.equal(offer.copyable, true, 'a large bundle under COPY_MAX_TOKENS may still be copied');
    assert.match(offerQuestion(offer), /too many to paste well/);
    assert.match(describeOffer(offer), /more than 100,000 tokens: pasted whole/);
    assert.match(describeOffer(offer), /Where Did This Go\? copies only the turns that hold a text\.$/);
    assert.doesNotMatch(describeOffer({ ...offer, query: 'w1' }), /Where Did This Go\?/, "a find's turns: no pointer to the find");
    assert.equal(await vscode.env.clipboard.readText(), sentinel);

    const small = new TestPrompts({ copy: undefined });
    await run(copySample(), small);
    assert.equal(small.offers[0].large, false);
    assert.match(describeOffer(small.offers[0]), /"Save As…" saves it as a Markdown file instead\./);
  });

  it(`past ${COPY_MAX_TOKENS} tokens only "Save As…" is offered, and no choice copies the bundle`, async () => {
    // Thirty dropped turns of some 75,000 tokens each, a secret in one: about 2.25 million tokens in all.
    const words = (from: number) => Array.from({ length: 30_000 }, (_, i) => `w${from + i}`).join(' ');
    const uri = writeTranscript('huge-drop.jsonl', [
      { type: 'turn', id: 0, role: 'user', content: 'ANCHOR-0- begin', tokens: 20, anchor: 'ANCHOR-0-' },
      ...Array.from({ length: 30 }, (_, k) => ({
        type: 'turn',
        id: k + 1,
        role: 'tool',
        content: `ANCHOR-${k + 1}- ${k === 5 ? `export DB_PASSWORD=hunter2-Secret ` : ''}${words(k * 30_000)}`,
        tokens: 75_000,
        anchor: `ANCHOR-${k + 1}-`,
      })),
      { type: 'checkpoint', summary_id: 'S1', summary: 'Did ANCHOR-0-.', summary_budget: 4096, covered: { from: 0, to: 30 } },
    ]);
    large.push(uri);
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    for (const copy of ['masked', 'unmasked'] as const) {
      const prompts = new TestPrompts({ copy });
      assert.equal((await run(uri, prompts)).kind, 'cancelled', `"${copy}" copies nothing`);
      const [offer] = prompts.offers;
      assert.equal(offer.turns, 30);
      assert.ok(offer.tokens > COPY_MAX_TOKENS, `${offer.tokens} tokens`);
      assert.equal(offer.copyable, false);
      assert.equal(offer.large, true);
      assert.equal(offer.masked, 1);
      assert.equal(offer.unmaskedTokens, undefined, 'the unmasked bundle is not made');
      assert.match(
        offerQuestion(offer),
        /^30 dropped turns of checkpoint S1 come to [\d,]+ tokens, more than any agent's context window holds\. Save them/,
      );
      assert.match(describeOffer(offer), /more than 2,000,000 tokens, more than the largest context windows hold, so it is not copied\./);
      assert.doesNotMatch(describeOffer(offer), /Copy Unmasked/);
      assert.match(
        describeOffer(offer),
        /1 string that looked like secrets .* is masked\. From a terminal, `compaction-lens bundle FILE --no-mask` writes the turns unmasked\./,
      );
    }
    assert.equal(await vscode.env.clipboard.readText(), sentinel, 'the clipboard is untouched');

    const target = join(tempFolder(), 'huge.md');
    const saving = new TestPrompts({ copy: 'save', saveTo: vscode.Uri.file(target) });
    const saved = await run(uri, saving);
    assert.equal(saved.kind, 'saved', JSON.stringify(saved).slice(0, 500));
    const written = readFileSync(target, 'utf8');
    assert.deepEqual(headedIds(written), range(1, 30));
    assert.doesNotMatch(written, /hunter2/, 'saved masked');
    if (saved.kind === 'saved') assert.equal(saved.tokens, saving.offers[0].tokens);
  });

  it(`from ${LONG_WORK_TURNS} turns a notification shows the turns written and counted, and its Cancel stops the work`, async () => {
    const dropped = 30_000;
    const uri = writeTranscript('many-dropped.jsonl', [
      { type: 'turn', id: 0, role: 'user', content: 'ANCHOR-0- begin', tokens: 20, anchor: 'ANCHOR-0-' },
      ...Array.from({ length: dropped }, (_, k) => ({
        type: 'turn',
        id: k + 1,
        role: 'tool',
        content: `ANCHOR-${k + 1}- step ${k + 1}${k === 7 ? ' export DB_PASSWORD=hunter2-Secret' : ''}`,
        tokens: 20,
        anchor: `ANCHOR-${k + 1}-`,
      })),
      { type: 'checkpoint', summary_id: 'S1', summary: 'Did ANCHOR-0-.', summary_budget: 4096, covered: { from: 0, to: dropped } },
    ]);
    large.push(uri);
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    const notification = {
      location: vscode.ProgressLocation.Notification,
      title: 'Compaction Lens: 30,000 turns for the agent',
      cancellable: true,
    };
    for (const [phase, cancelAt] of [
      ['writing', (step: ProgressStep) => step.message?.startsWith('masking and writing') === true],
      ['counting', (step: ProgressStep) => step.message?.startsWith('counting') === true],
    ] as const) {
      const prompts = new TestPrompts({ copy: 'masked', cancelAt });
      const result = await run(uri, prompts);
      assert.deepEqual(result, { kind: 'cancelled' }, `cancelled while ${phase}`);
      assert.deepEqual(prompts.offers, [], `cancelled while ${phase}: nothing offered`);
      assert.deepEqual(
        prompts.progress.shown.map(({ options }) => options),
        [notification],
      );
    }
    assert.equal(await vscode.env.clipboard.readText(), sentinel, 'the clipboard is untouched');

    const prompts = new TestPrompts({ copy: 'masked' });
    const result = await run(uri, prompts);
    assert.equal(result.kind, 'copied', JSON.stringify(result).slice(0, 300));
    assert.equal(prompts.offers[0].turns, dropped);
    assert.equal(prompts.offers[0].masked, 1);
    assert.ok(prompts.offers[0].unmaskedTokens !== undefined, 'the unmasked bundle made and counted');
    const [{ reports }] = prompts.progress.shown;
    const messages = new Set(reports.map((step) => step.message));
    for (const message of [
      'masking and writing: 1,200 of 30,000 turns',
      'masking and writing: 30,000 of 30,000 turns',
      'counting the tokens (o200k_base)',
      'writing unmasked: 30,000 of 30,000 turns',
      'counting the unmasked tokens (o200k_base)',
    ]) {
      assert.ok(messages.has(message), `${message} in ${[...messages].join(' | ')}`);
    }
    const increments = reports.map((step) => step.increment ?? 0);
    assert.ok(
      increments.every((increment) => Number.isInteger(increment) && increment >= 0),
      increments.join(),
    );
    assert.equal(
      increments.reduce((a, b) => a + b, 0),
      100,
      'the bar reaches its end',
    );
    assert.ok(reports.length <= 110, `${reports.length} reports: one a hundredth at most, and the counts' messages`);
  });

  it('a transcript with nothing dropped copies nothing', async () => {
    const uri = writeTranscript('covered.jsonl', [
      { type: 'turn', id: 0, role: 'user', content: 'ANCHOR-0- all', tokens: 20, anchor: 'ANCHOR-0-' },
      { type: 'checkpoint', summary_id: 'S1', summary: 'Did ANCHOR-0-.', summary_budget: 4096, covered: { from: 0, to: 0 } },
    ]);
    const sentinel = `clipboard sentinel ${Date.now()}`;
    await vscode.env.clipboard.writeText(sentinel);
    const prompts = new TestPrompts({ copy: 'masked' });
    const result = await run(uri, prompts);
    assert.deepEqual(result, { kind: 'nothing', message: 'No checkpoint of covered.jsonl has claimed-missing turns: nothing to copy.' });
    assert.deepEqual(prompts.offers, []);
    assert.equal(await vscode.env.clipboard.readText(), sentinel);
  });
});
