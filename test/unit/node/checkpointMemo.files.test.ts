// Tests for CheckpointMemo (src/core/checkpointMemo.ts) on files read as the extension reads them (TranscriptFile:
// the format's own reader, appended bytes only): the incident sample and the shared corpus's line-based sessions
// (Claude Code, Codex, OpenHands, pi), written out in parts and re-read after each, are analysed with the file's
// memo exactly as without one, and no reader modifies a Turn it returned (the memo tells turns by identity); the
// canonical, Claude Code and OpenHands readers seal their checkpoints and hand back the same objects (the memo tells sealed
// checkpoints by identity too); on
// the canonical sample, whose reader keeps its turns, turns appended after the checkpoint leave it the same object.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { analyze } from '../../../src/core/analyze';
import { CheckpointMemo } from '../../../src/core/checkpointMemo';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import type { Analysis, Checkpoint, TokenCache, Transcript, Turn } from '../../../src/core/model';
import { isSealed } from '../../../src/core/sealedRecord';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { skipOrFailInCi, skipWithoutShared } from '../../sharedFolder';

const CORPUS = resolve(__dirname, '../../../../../shared/corpus');
/** The corpus's line-based formats (Letta's .af and OpenHands' .json are whole documents). */
const LINE_FOLDERS = ['claude-code', 'codex', 'openhands', 'pi'];
const SAMPLE = resolve(__dirname, '../../../../samples/incident.jsonl');
/** The formats whose readers seal their checkpoints (core/sealedRecord.ts). */
const SEALING_FORMATS = new Set(['canonical', 'claude-code', 'openhands']);

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;

/** Writes `lines` to a new file up to each of `cuts` in turn, re-reading and analysing after each; returns every analysis. */
async function grow(dir: string, name: string, lines: string[], cuts: number[]): Promise<Analysis[]> {
  const path = join(dir, name);
  const cut = (k: number) => cuts[k - 1];
  const parts = cuts.length;
  writeFileSync(
    path,
    lines
      .slice(0, cut(1))
      .map((l) => `${l}\n`)
      .join(''),
  );
  const file = await TranscriptFile.open(path, {});
  const memo = new CheckpointMemo();
  const tokenCache: TokenCache = new Map();
  const evidenceCache = new EvidenceCache();
  const plainEvidence = new EvidenceCache();
  const analyses: Analysis[] = [];
  /** Each Turn object returned so far, as it was then. */
  const seen = new Map<Turn, string>();
  let previous: readonly Checkpoint[] = [];
  for (let k = 1; k <= parts; k++) {
    if (k > 1) {
      appendFileSync(
        path,
        lines
          .slice(cut(k - 1), cut(k))
          .map((l) => `${l}\n`)
          .join(''),
      );
      await file.refresh();
    }
    const t: Transcript = file.transcript;
    for (const [turn, then] of seen) assert.equal(JSON.stringify(turn), then, `${name}, part ${k}: a turn returned before was modified`);
    for (const turn of t.turns) if (!seen.has(turn)) seen.set(turn, JSON.stringify(turn));
    if (SEALING_FORMATS.has(t.format)) {
      // Their checkpoints are sealed and handed back as the same objects: the memo compares them by identity.
      t.checkpoints.forEach((cp, i) => {
        assert.ok(isSealed(cp), `${name}, part ${k}: checkpoint ${cp.summaryId} is sealed`);
        const earlier = previous[i];
        if (earlier?.summaryId === cp.summaryId)
          assert.equal(cp, earlier, `${name}, part ${k}: checkpoint ${cp.summaryId} is the same object`);
      });
    }
    previous = t.checkpoints;
    const analysis = analyze(t, { countTokens: words, tokenCache, evidenceCache, checkpointMemo: memo });
    assert.deepEqual(analysis, analyze(t, { countTokens: words, evidenceCache: plainEvidence }), `${name}, part ${k} of ${parts}`);
    analyses.push(analysis);
  }
  return analyses;
}

describe('node/checkpointMemo: files re-read as they grow', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'checkpoint-memo-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the incident sample in parts, then turns appended after its checkpoint: the same analyses, the checkpoint reused', async () => {
    const lines = readFileSync(SAMPLE, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const appended = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify({ type: 'turn', id: `appended-${i}`, role: 'user', content: `appended turn ${i} about src/appended_${i}.ts` }),
    );
    const all = [...lines, ...appended];
    const analyses = await grow(dir, 'incident.jsonl', all, [100, 250, lines.length, lines.length + 1, lines.length + 3, all.length]);
    const last = analyses[analyses.length - 1];
    const before = analyses[analyses.length - 2];
    assert.ok(last.checkpoints.length > 0);
    assert.equal(last.checkpoints.length, before.checkpoints.length);
    last.checkpoints.forEach((cp, i) => assert.equal(cp, before.checkpoints[i], `checkpoint ${i} reused`));
  });

  it('the corpus sessions in parts: the same analyses as without the memo, no turn modified once returned', async function () {
    skipWithoutShared(this, existsSync(CORPUS), `the corpus at ${CORPUS}`);
    const files = LINE_FOLDERS.filter((f) => existsSync(join(CORPUS, f))).flatMap((f) =>
      readdirSync(join(CORPUS, f))
        .filter((n) => n.endsWith('.jsonl') || n.endsWith('.jsonl.gz'))
        .sort()
        .map((n) => join(CORPUS, f, n)),
    );
    if (files.length === 0) skipOrFailInCi(this, `no .jsonl or .jsonl.gz session in ${CORPUS}`);
    for (const path of files) {
      const bytes = readFileSync(path);
      const lines = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes)
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      await grow(
        dir,
        basename(path).replace(/\.gz$/, ''),
        lines,
        // From the half on: a session's first lines may hold no turn yet (a file with none cannot be opened).
        [5, 6, 7, 8, 9, 10].map((k) => Math.round((lines.length * k) / 10)),
      );
    }
  });
});
