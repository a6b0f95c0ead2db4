// The first analysis of a transcript in a real extension host: its tokens are counted in the token pool's
// worker threads, never in the extension host's own thread, so VS Code does not see the host as unresponsive.
// Logs the analysis time and the longest event-loop block (perf_hooks.monitorEventLoopDelay) while it runs;
// run alone (COMPACTION_LENS_TEST_GREP='first analysis') for cold figures (no worker or tokenizer started yet).
// Cancelling while the tokens are counted stops the analysis. A large file's judging worker is kept while something
// holds the file; another ratio floor or coverage threshold re-analyses it on the host from its turns as judged.
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import type { Analysis } from '../../src/core/model';
import { analyze } from '../../src/core/analyze';
import { DEFAULT_RATIO_FLOOR } from '../../src/core/defaults';
import { DEFAULT_COVERAGE_THRESHOLD } from '../../src/core/evidence';
import { createTokenCounter, DEFAULT_ENCODING } from '../../src/node/tokenCounter';
import { copySample, extensionApi, extensionPath, waitFor, writeTranscript } from './helpers';
import { skipOrFailInCi } from '../sharedFolder';

/** Real Claude Code sessions (3 MB JSONL, gzipped, one compaction) that no other extension-host test opens. */
const SESSION = 'claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz';
const OTHER_SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz';

function corpusFile(session: string): string {
  const corpus = path.resolve(process.env.COMPACTION_LENS_REPO_ROOT ?? extensionPath(), '..', 'shared', 'corpus');
  return path.join(corpus, session);
}

/**
 * A transcript of 12,000 turns, all claimed: past JUDGE_IN_WORKER_TURNS, so the extension judges them in
 * judgeWorker.js. Each turn names a file under `folder` and a ticket; the summary names two of them unless given.
 */
function largeRecords(folder: string, summary = `Handled FLOW_10000 in ${folder}_0/handler.ts and FLOW_10001.`): object[] {
  const turns = Array.from({ length: 12_000 }, (_, i) => ({
    type: 'turn',
    id: i,
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `Updated ${folder}_${i}/handler.ts for ticket FLOW_${10_000 + i} and ran the tests.`,
  }));
  return [...turns, { type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 4096, covered: { from: 0, to: 11_999 } }];
}

describe('first analysis of a transcript', () => {
  let api: CompactionLensApi;
  before(async () => {
    api = await extensionApi();
  });

  async function measure(uri: vscode.Uri, label: string): Promise<void> {
    api.store.remove(uri);
    const pool = api.store.tokenPool;
    const countHere = pool.countHere;
    let countedHere = 0;
    pool.countHere = (text, encoding) => {
      countedHere++;
      return countHere.call(pool, text, encoding);
    };
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await new Promise((resolve) => setTimeout(resolve, 30)); // the histogram records from its second tick on
    const started = performance.now();
    try {
      const entry = await api.store.load(uri);
      const elapsed = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50)); // the sampling timer records a block when it next fires
      delay.disable();
      const longest = delay.max / 1e6;
      console.log(
        `      (${label}: first analysis ${elapsed.toFixed(0)} ms, longest event-loop block ${longest.toFixed(0)} ms, ` +
          `p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms, ${pool.workerCount} token worker(s))`,
      );
      assert.ok(entry.analysis.checkpoints.length > 0);
      assert.equal(pool.fallbackReason, undefined, 'token workers started');
      assert.ok(pool.workerCount > 0, 'the tokens were counted by workers');
      assert.equal(countedHere, 0, 'nothing was counted in the extension host thread');
      // Before the workers, a cold first analysis blocked the thread for tiktoken's start-up and all the
      // counting (1.4 s for this session on 2 busy cores); what is left is reading and matching anchors.
      assert.ok(longest < 1500, `the extension host thread was blocked for ${longest.toFixed(0)} ms`);
    } finally {
      delay.disable();
      pool.countHere = countHere;
    }
  }

  it('samples/incident.jsonl is counted in worker threads', async () => {
    await measure(copySample(), 'samples/incident.jsonl');
  });

  it('a real Claude Code session (gzipped) is counted in worker threads', async function () {
    const file = corpusFile(SESSION);
    if (!existsSync(file)) {
      skipOrFailInCi(this, `${file} is not in the corpus`);
    }
    await measure(vscode.Uri.file(file), SESSION);
  });

  it('a large transcript is judged in a worker thread, with the analysis judged here', async () => {
    const uri = writeTranscript('large.jsonl', largeRecords('src/flow'));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = performance.now();
    const entry = await api.store.load(uri);
    const elapsed = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
    delay.disable();
    console.log(
      `      (12,000 turns: first analysis ${elapsed.toFixed(0)} ms, longest event-loop block ${(delay.max / 1e6).toFixed(0)} ms)`,
    );
    assert.equal(entry.evidenceCache.stats.misses, 0, 'no turn was judged in the extension host');
    const [cp] = entry.analysis.checkpoints;
    assert.equal(cp.turns.length, 12_000);
    assert.ok(cp.counts.covered >= 1 && cp.counts['claimed-missing'] > 11_000, JSON.stringify(cp.counts));
    // The same analysis as one judged here, with the default settings.
    const plain = analyze(entry.transcript, {
      countTokens: createTokenCounter(DEFAULT_ENCODING),
      ratioFloor: DEFAULT_RATIO_FLOOR,
      coverageThreshold: DEFAULT_COVERAGE_THRESHOLD,
    });
    assert.deepEqual(entry.analysis, plain);
    // The file keeps its judging worker, and the evidence it worked out: rewritten with another summary, and read
    // again, its turns are judged by the same thread, which works out no evidence again.
    const worker = api.store.judgeWorkerOf(uri);
    assert.ok(worker?.running, 'the file keeps its judging worker');
    assert.equal(worker.jobs, 1);
    assert.ok((worker.lastJob?.evidence.misses ?? 0) > 0);
    const rewritten = largeRecords('src/flow', 'Handled FLOW_10002 only.');
    writeFileSync(uri.fsPath, rewritten.map((record) => `${JSON.stringify(record)}\n`).join(''));
    await api.store.refresh(uri);
    await waitFor(() => worker.jobs === 2, 'the file to be judged again in its worker');
    assert.equal(api.store.judgeWorkerOf(uri), worker);
    assert.equal(worker.lastJob?.evidence.misses, 0, 'evidence worked out again');
    assert.ok((worker.lastJob?.evidence.hits ?? 0) > 0);
    assert.equal(entry.evidenceCache.stats.misses, 0, 'no turn was judged in the extension host');
    assert.match(entry.transcript.checkpoints[0].summary ?? '', /FLOW_10002 only/, 'the file read again');
    // Let go, the file's worker ends.
    api.store.remove(uri);
    assert.equal(api.store.judgeWorkerOf(uri), undefined);
    assert.equal(worker.running, false, 'the judging worker of a file let go still runs');
  });

  it('a large file keeps its judging worker while something holds it, and no longer', async () => {
    const uri = writeTranscript('large-held.jsonl', largeRecords('pkg/held'));
    try {
      // Analysed, then held (as a timeline panel holds the file it shows once it is loaded), then let go.
      await api.store.load(uri);
      const worker = api.store.judgeWorkerOf(uri);
      assert.ok(worker?.running, 'the file keeps its judging worker');
      api.store.hold(uri).dispose();
      await waitFor(() => !worker.running, 'the judging worker of a file nothing holds to end');
      assert.equal(api.store.judgeWorkerOf(uri), undefined);
      assert.ok(api.store.get(uri), 'the full entry was let go with its worker');
      // Shown in an editor while it is analysed again, it keeps its new worker until the editor is closed.
      api.store.remove(uri);
      await vscode.window.showTextDocument(uri, { preview: false });
      await api.store.load(uri);
      const shown = api.store.judgeWorkerOf(uri);
      assert.ok(shown?.running && shown !== worker, 'the file analysed again keeps a new judging worker');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await waitFor(() => !shown.running, 'the judging worker of a file whose editor closed to end');
      assert.equal(api.store.judgeWorkerOf(uri), undefined);
      // Shown again, then rewritten and read again (its full entry kept): the worker of that analysis ends with the editor.
      await vscode.window.showTextDocument(uri, { preview: false });
      writeFileSync(
        uri.fsPath,
        `${largeRecords('pkg/held', 'Handled FLOW_10002 only.')
          .map((record) => JSON.stringify(record))
          .join('\n')}\n`,
      );
      await api.store.refresh(uri);
      const again = api.store.judgeWorkerOf(uri);
      assert.ok(again?.running && again !== shown, 'the file read again keeps a new judging worker');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await waitFor(() => !again.running, 'the judging worker of the analysis read again to end with its editor');
    } finally {
      api.store.remove(uri);
    }
  });

  it('another ratio floor re-analyses a large file from its turns as judged, with no job for its judging worker', async () => {
    await analysedAgainOnTheHost('ratioFloor', 2);
  });

  it('another coverage threshold re-weighs a large file from its turns as judged, with no job for its judging worker', async () => {
    const analysis = await analysedAgainOnTheHost('coverageThreshold', 2);
    // Turn 1's one found piece (FLOW_10001) weighs 1: covered at 1, claimed-missing at 2.
    assert.equal(analysis.checkpoints[0].turns[1].status, 'claimed-missing');
  });

  /**
   * Loads a large file (judged in its worker), changes `setting` to `value`, and checks that the re-analysis took
   * the turns as judged (the same evidence, no new job for the worker) and equals a fresh analysis; gives it.
   */
  async function analysedAgainOnTheHost(setting: 'ratioFloor' | 'coverageThreshold', value: number): Promise<Analysis> {
    const uri = writeTranscript(`large-${setting}.jsonl`, largeRecords(`pkg/${setting}`));
    const config = () => vscode.workspace.getConfiguration('compactionLens');
    // The setting as the configuration has it: an update resolves before the remote configuration says so.
    const settled = (expected: number | undefined, what: string) =>
      waitFor(() => config().inspect(setting)?.globalValue === expected, what);
    // Held, so that it stays a full entry while other files are read again (the last test's reset re-reads every
    // demoted file, and past RECENT_FULL_ENTRIES of them an unheld file would be demoted in turn).
    const hold = api.store.hold(uri);
    try {
      await settled(undefined, `${setting} unset`);
      const entry = await api.store.load(uri);
      const worker = api.store.judgeWorkerOf(uri);
      assert.equal(worker?.jobs, 1);
      const version = entry.version;
      const turnsBefore = entry.analysis.checkpoints[0].turns;
      assert.equal(turnsBefore[1].status, 'covered');
      const started = performance.now();
      await config().update(setting, value, vscode.ConfigurationTarget.Global);
      await settled(value, `${setting} = ${value}`);
      // Other files' re-analyses and re-reads for the change (or for the last test's reset) may come first: a
      // generous wait, and what the store had if it times out.
      await waitFor(() => entry.version > version, `the file to be analysed again with the new ${setting}`, 40_000).catch(
        (error: Error) => {
          const held = api.store.get(uri) === entry;
          throw new Error(`${error.message} (the store's entry still: ${held}; version ${entry.version}, was ${version})`);
        },
      );
      console.log(`      (${setting} ${value}: analysed again in ${(performance.now() - started).toFixed(0)} ms)`);
      const [cp] = entry.analysis.checkpoints;
      assert.equal(worker.jobs, 1, 'its turns were judged again');
      assert.equal(cp.turns[5].evidence, turnsBefore[5].evidence, 'a turn judged again');
      const options = { ratioFloor: DEFAULT_RATIO_FLOOR, coverageThreshold: DEFAULT_COVERAGE_THRESHOLD, [setting]: value };
      assert.deepEqual(entry.analysis, analyze(entry.transcript, { countTokens: createTokenCounter(DEFAULT_ENCODING), ...options }));
      return entry.analysis;
    } finally {
      await config().update(setting, undefined, vscode.ConfigurationTarget.Global);
      await settled(undefined, `${setting} unset again`);
      hold.dispose();
      api.store.remove(uri);
    }
  }

  it('only the last large file analysed keeps its judging worker', async () => {
    const first = writeTranscript('large-first.jsonl', largeRecords('lib/first'));
    const second = writeTranscript('large-second.jsonl', largeRecords('lib/second'));
    try {
      await api.store.load(first);
      const firstWorker = api.store.judgeWorkerOf(first);
      assert.ok(firstWorker?.running);
      await api.store.load(second);
      assert.ok(api.store.judgeWorkerOf(second)?.running, 'the last file keeps its worker');
      assert.equal(firstWorker.running, false, 'the first file still has a judging thread');
      assert.equal(api.store.judgeWorkerOf(first), undefined);
    } finally {
      api.store.remove(first);
      api.store.remove(second);
    }
  });

  it('cancelling while its tokens are counted stops the analysis; a later load analyses it', async function () {
    const file = corpusFile(OTHER_SESSION);
    if (!existsSync(file)) {
      skipOrFailInCi(this, `${file} is not in the corpus`);
    }
    const uri = vscode.Uri.file(file);
    api.store.remove(uri);
    const abort = new AbortController();
    const messages: string[] = [];
    await assert.rejects(
      api.store.load(uri, {
        signal: abort.signal,
        onProgress: (fraction, message) => {
          messages.push(message);
          if (message.startsWith('counting tokens… ') && fraction < 0.85) abort.abort();
        },
      }),
      (error: Error) => error.name === 'AbortError',
    );
    assert.ok(
      messages.some((message) => /^counting tokens… \d+%$/.test(message)),
      messages.join(' | '),
    );
    assert.equal(messages.includes('done'), false);
    assert.equal(api.store.get(uri), undefined);
    const entry = await api.store.load(uri);
    assert.ok(entry.analysis.checkpoints.length > 0);
  });
});
