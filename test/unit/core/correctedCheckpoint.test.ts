// Tests for src/core/correctedCheckpoint.ts: the corrected pointer sets of the note's incident (Path B and Path
// A), of a transcript with two checkpoints and string ids, the one safe-set rule Copy Safe Pointer Set uses too,
// and the names and kinds of an export.
import assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import {
  correctCheckpoint,
  describeCorrection,
  correctedCheckpoints,
  correctedCheckpointsInSteps,
  correctedExportName,
  exportKindFor,
  safePointerSet,
} from '../../../src/core/correctedCheckpoint';
import type { AnalysisOptions } from '../../../src/core/model';
import { checkpoint, incident, range, span, transcript, turn } from './transcripts';
import { turnReason } from '../../../src/core/reweigh';
import { runSteps } from '../../../src/core/steps';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words };

describe('core/correctedCheckpoint: the corrected pointer set', () => {
  it('the incident (Path B): claims 0–419, safe 0–379, turns 380–419 moved to uncovered as claimed-missing, each with its reason on one line', () => {
    const analysis = analyze(incident(false), OPTS);
    const corrected = correctCheckpoint(analysis.checkpoints[0]);
    assert.equal(corrected.summaryId, 'S1');
    assert.equal(corrected.line, 421);
    assert.equal(corrected.verdict, 'fail-closed');
    assert.equal(corrected.path, 'B');
    assert.deepEqual(corrected.claimedIds, range(0, 419));
    assert.deepEqual(corrected.safeIds, range(0, 379));
    assert.deepEqual(corrected.uncoveredIds, range(380, 419));
    assert.deepEqual(
      corrected.moved.map((turn) => turn.id),
      range(380, 419),
    );
    for (const moved of corrected.moved) {
      const result = analysis.checkpoints[0].turns[moved.id as number];
      assert.equal(moved.status, 'claimed-missing');
      assert.equal(moved.line, (moved.id as number) + 1);
      assert.equal(moved.reason, turnReason(result).replace(/\s+/g, ' ').trim());
      assert.doesNotMatch(moved.reason, /\n/);
      assert.ok(moved.reason.length > 0);
    }
  });

  it("the incident with the summariser's report (Path A): the reported ids are the safe set", () => {
    const analysis = analyze(incident(true, range(0, 379)), OPTS);
    const corrected = correctCheckpoint(analysis.checkpoints[0]);
    assert.equal(corrected.path, 'A');
    assert.deepEqual(corrected.safeIds, range(0, 379));
    assert.deepEqual(
      corrected.moved.map((turn) => [turn.id, turn.status]),
      range(380, 419).map((id) => [id, 'claimed-missing']),
    );
  });

  it('two checkpoints, string ids: each has its own sets; unclaimed turns are uncovered but not moved', () => {
    const turns = [
      turn('a', 'Edited src/ledger/post.ts to throw ERR_LEDGER_4107 on a negative amount.', {}, 1),
      turn('b', 'Ran npm test: 49 tests passed in test/ledger.test.ts.', {}, 2),
      turn('c', 'Renamed the shard key setting reconcile.shardKey to reconcile.partitionKey in config/reconcile.yaml.', {}, 3),
      turn('d', 'Opened issue #812 about the nightly reconcile failure after the key rotation.', {}, 5),
    ];
    const s1 = checkpoint({
      summaryId: 'S1',
      summary: 'src/ledger/post.ts throws ERR_LEDGER_4107 on a negative amount; npm test: 49 tests passed in test/ledger.test.ts.',
      summaryBudget: 1000,
      claimedIds: ['a', 'b', 'c'],
      turnsBefore: 3,
      span: span(4),
    });
    const s2 = checkpoint({
      summaryId: 'S2',
      summary: 'Issue #812: nightly reconcile fails after the key rotation; src/ledger/post.ts throws ERR_LEDGER_4107.',
      summaryBudget: 1000,
      claimedIds: ['a', 'd'],
      turnsBefore: 4,
      span: span(6),
    });
    const analysis = analyze(transcript(turns, [s1, s2]), OPTS);
    const document = correctedCheckpoints(analysis, '/some/folder/session.jsonl');
    assert.equal(document.source, 'session.jsonl');
    assert.equal(document.format, 'canonical');
    const [first, second] = document.checkpoints;
    assert.deepEqual(first.claimedIds, ['a', 'b', 'c']);
    assert.deepEqual(first.safeIds, analysis.checkpoints[0].safeCovered);
    assert.ok(!first.safeIds.includes('c'), 'turn c is not carried by S1');
    assert.deepEqual(
      first.moved.map((turn) => turn.id),
      first.claimedIds.filter((id) => !first.safeIds.includes(id)),
    );
    assert.equal(second.summaryId, 'S2');
    assert.equal(second.line, 6);
    assert.deepEqual(second.claimedIds, ['a', 'd']);
    // b and c are not claimed by S2: routed to the raw log, but not "moved" (S2 never claimed them).
    for (const id of ['b', 'c']) assert.ok(second.uncoveredIds.includes(id) && !second.moved.some((turn) => turn.id === id));
    for (const corrected of document.checkpoints) {
      const all = [...corrected.safeIds, ...corrected.uncoveredIds].map(String).sort();
      assert.equal(new Set(all).size, all.length, 'safe and uncovered do not overlap');
    }
  });

  it('is the one safe-set rule: the safe and uncovered ids are those Copy Safe Pointer Set copies', () => {
    const analysis = analyze(incident(false), OPTS);
    const set = safePointerSet(analysis.checkpoints[0]);
    const corrected = correctCheckpoint(analysis.checkpoints[0]);
    assert.deepEqual(set, { summary_id: 'S1', covered: corrected.safeIds, uncovered: corrected.uncoveredIds });
  });

  it('a claimed id that is not a turn of the file is moved as unverifiable, saying so', () => {
    const cp = { ...analyze(incident(false), OPTS).checkpoints[0], claimedIds: [0, 'ghost'], safeCovered: [0], turns: [] };
    const corrected = correctCheckpoint(cp);
    assert.deepEqual(corrected.moved, [
      { id: 'ghost', status: 'unverifiable', line: 0, reason: 'The turn is not in this file, so its coverage cannot be checked.' },
    ]);
  });

  it('in steps: a yield every 64 moved turns at most, and the same document as at once', () => {
    const analysis = analyze(incident(false), OPTS);
    const many = { ...analysis, checkpoints: [analysis.checkpoints[0], analysis.checkpoints[0], analysis.checkpoints[0]] };
    const steps = correctedCheckpointsInSteps(many, 'dir/incident.jsonl');
    let yields = 0;
    let next = steps.next();
    for (; !next.done; next = steps.next()) yields++;
    assert.deepEqual(next.value, correctedCheckpoints(many, 'dir/incident.jsonl'));
    assert.equal(next.value.source, 'incident.jsonl');
    // 40 moved turns a checkpoint: two yields before them (the safe set, the results by id), none among them.
    assert.equal(yields, 3 * 2);
    const ghosts = { ...many.checkpoints[0], claimedIds: range(1000, 1199), safeCovered: [], turns: [] };
    const moved = runSteps(correctedCheckpointsInSteps({ ...analysis, checkpoints: [ghosts] }, 't.jsonl')).checkpoints[0].moved;
    assert.equal(moved.length, 200);
    let ghostYields = 0;
    for (const steps = correctedCheckpointsInSteps({ ...analysis, checkpoints: [ghosts] }, 't.jsonl'); !steps.next().done;) ghostYields++;
    assert.equal(ghostYields, 2 + Math.floor(200 / 64));
  });
});

describe('core/correctedCheckpoint: export names and kinds', () => {
  it('a canonical transcript gets <name>.corrected.jsonl, any other format <transcript>.compaction-lens.json', () => {
    assert.equal(correctedExportName('incident.jsonl', 'canonical'), 'incident.corrected.jsonl');
    assert.equal(correctedExportName('/a/b/incident.jsonl.gz', 'canonical'), 'incident.corrected.jsonl');
    assert.equal(correctedExportName('C:\\logs\\run.json', 'canonical'), 'run.corrected.jsonl');
    assert.equal(correctedExportName('noext', 'canonical'), 'noext.corrected.jsonl');
    assert.equal(correctedExportName('.jsonl', 'canonical'), '.jsonl.corrected.jsonl');
    assert.equal(correctedExportName('/x/8463c716.jsonl.gz', 'claude-code'), '8463c716.jsonl.gz.compaction-lens.json');
    assert.equal(correctedExportName('agent.af', 'letta'), 'agent.af.compaction-lens.json');
  });

  it('a .jsonl output is the corrected transcript (canonical only); any other name the sidecar', () => {
    assert.deepEqual(exportKindFor('canonical', 'x.corrected.jsonl'), { kind: 'canonical-jsonl' });
    assert.deepEqual(exportKindFor('canonical', 'x.jsonl.compaction-lens.json'), { kind: 'sidecar' });
    assert.deepEqual(exportKindFor('codex', 'x.compaction-lens.json'), { kind: 'sidecar' });
    const refused = exportKindFor('codex', 'x.JSONL');
    assert.ok('error' in refused && /only be written for a canonical transcript, and this one is codex/.test(refused.error));
  });
});

describe('core/correctedCheckpoint: describeCorrection', () => {
  it('says what was kept and what was moved, by status', () => {
    const corrected = correctCheckpoint(analyze(incident(false), OPTS).checkpoints[0]);
    assert.equal(
      describeCorrection(corrected),
      'S1 (line 421, fail-closed): 380 of 420 claimed turns kept, 40 moved to uncovered (40 claimed-missing)',
    );
    const kept = { ...corrected, verdict: 'reversible' as const, claimedIds: [1], moved: [] };
    assert.equal(describeCorrection(kept), 'S1 (line 421, reversible): all 1 claimed turn kept');
  });
});
