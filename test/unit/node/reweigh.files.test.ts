// Tests for re-weighing (src/core/reweigh.ts) on real and generated files read as the extension reads them
// (TranscriptFile): every file of the shared corpus, the incident sample and generated canonical and Claude Code
// files, analysed with one checkpoint memo at one coverage threshold after another, give at each the
// analysis a fresh one gives at it (no memo, nothing kept), work out no evidence again after the first, and the
// thresholds change statuses of every weighed kind in the corpus. With a judging worker (node/judgeInWorker.ts), the
// rules come back with its columns: another threshold then takes nothing of the host's evidence either.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyze, checkpointsToJudge } from '../../../src/core/analyze';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { JudgementCache } from '../../../src/core/judgementCache';
import type { Analysis, TokenCache, Transcript, TurnStatus } from '../../../src/core/model';
import { runSteps } from '../../../src/core/steps';
import { judgeInWorker } from '../../../src/node/judgeInWorker';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { corpusFiles } from '../../corpusFiles';
import { skipOrFailInCi } from '../../sharedFolder';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus');
const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
const GENERATOR = resolve(__dirname, '../../../../scripts/bench/generate.mjs');
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
/** One threshold after another: lower, higher, far lower and higher, and back. */
const THRESHOLDS = [1, 0.4, 2, 0.05, 5, 1];

/** Writes a generated transcript of 3,000 turns to `path` with the bench's generator (an ES module: in a child). */
function generated(writer: 'writeCanonical' | 'writeClaudeCode', path: string): void {
  const script = `import(${JSON.stringify(GENERATOR)}).then((g) => g.${writer}(${JSON.stringify(path)}, { turns: 3000 }))`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script]);
}

/** Each status change between two analyses of one transcript, as "from→to", counted. */
function changes(before: Analysis, after: Analysis, into: Map<string, number>): void {
  after.checkpoints.forEach((cp, c) =>
    cp.turns.forEach((r, k) => {
      const was: TurnStatus = before.checkpoints[c].turns[k].status;
      if (was !== r.status) into.set(`${was}→${r.status}`, (into.get(`${was}→${r.status}`) ?? 0) + 1);
    }),
  );
}

/**
 * Analyses `t` with one memo and one set of caches at each of THRESHOLDS; checks each against a fresh analysis and
 * that no evidence is worked out after the first; adds the status changes to `seen`.
 */
function reweighedAlike(t: Transcript, what: string, seen: Map<string, number>): void {
  const memo = new CheckpointMemo();
  const tokenCache: TokenCache = new Map();
  const evidenceCache = new EvidenceCache();
  let previous: Analysis | undefined;
  let misses = 0;
  for (const [k, threshold] of THRESHOLDS.entries()) {
    const analysis = analyze(t, { countTokens: words, tokenCache, evidenceCache, checkpointMemo: memo, coverageThreshold: threshold });
    assert.deepEqual(analysis, analyze(t, { countTokens: words, coverageThreshold: threshold }), `${what} at ${threshold}`);
    if (k === 0) misses = evidenceCache.stats.misses;
    else assert.equal(evidenceCache.stats.misses, misses, `${what} at ${threshold}: evidence worked out again`);
    if (previous) changes(previous, analysis, seen);
    previous = analysis;
  }
}

describe('core/reweigh: another coverage threshold on whole files', function () {
  this.timeout(120_000);

  it('gives what a fresh analysis gives, for every file of the shared corpus, and judges nothing again', async function () {
    if (!existsSync(CORPUS)) skipOrFailInCi(this, `the shared corpus folder ${CORPUS} is absent`);
    const files = corpusFiles(CORPUS);
    assert.ok(files.length >= 10, `${files.length} corpus files`);
    const seen = new Map<string, number>();
    for (const path of files) reweighedAlike((await TranscriptFile.open(path, {})).transcript, path, seen);
    // The thresholds reach every way a weighed turn's status can go (reweigh.ts weighedStatus).
    for (const change of ['covered→claimed-missing', 'claimed-missing→covered', 'covered→nothing-to-check', 'nothing-to-check→covered']) {
      assert.ok((seen.get(change) ?? 0) > 0, `${change}: ${JSON.stringify([...seen])}`);
    }
    if (process.env.REWEIGH_SEEN) console.log(JSON.stringify([...seen]));
  });

  it('gives what a fresh analysis gives for the sample and generated files of two formats', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reweigh-'));
    try {
      const seen = new Map<string, number>();
      const paths = [SAMPLE, join(dir, 'canonical.jsonl'), join(dir, 'claude.jsonl')];
      generated('writeCanonical', paths[1]);
      generated('writeClaudeCode', paths[2]);
      for (const path of paths) reweighedAlike((await TranscriptFile.open(path, {})).transcript, path, seen);
      assert.ok((seen.get('claimed-missing→covered') ?? 0) > 0, JSON.stringify([...seen]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('re-weighs what a judging worker judged: its rules come back with its columns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reweigh-'));
    const path = join(dir, 'canonical.jsonl');
    generated('writeCanonical', path);
    const t = (await TranscriptFile.open(path, {})).transcript;
    rmSync(dir, { recursive: true, force: true });
    const memo = new CheckpointMemo();
    const evidenceCache = new EvidenceCache();
    const judgements = new JudgementCache();
    const plan = runSteps(checkpointsToJudge(t, { checkpointMemo: memo }));
    assert.ok(plan.length > 0);
    const kept = await judgeInWorker(
      t,
      plan.map((p) => p.index),
      {},
      judgements,
    );
    assert.equal(kept, plan.length);
    analyze(t, { countTokens: words, evidenceCache, checkpointMemo: memo, judgements });
    assert.equal(evidenceCache.stats.misses, 0, 'the worker judged');
    let previous = analyze(t, { countTokens: words, checkpointMemo: new CheckpointMemo() });
    for (const threshold of [2, 0.3]) {
      assert.deepEqual(runSteps(checkpointsToJudge(t, { checkpointMemo: memo, coverageThreshold: threshold })), [], 'nothing to judge');
      const again = analyze(t, { countTokens: words, evidenceCache, checkpointMemo: memo, coverageThreshold: threshold });
      assert.deepEqual(again, analyze(t, { countTokens: words, coverageThreshold: threshold }), `at ${threshold}`);
      assert.equal(evidenceCache.stats.misses, 0, `at ${threshold}: judged here`);
      const seen = new Map<string, number>();
      changes(previous, again, seen);
      assert.ok(seen.size > 0, `at ${threshold}: some status changed`);
      previous = again;
    }
  });
});
