// Tests for src/formats/correctedSidecar.ts: the sidecar document round-trips (written, read back, the same
// pointer sets) on the note's incident and on a multi-checkpoint transcript of a corpus format, its text has the
// documented shape, and every kind of bad input gives a problem naming the field, never a throw.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import { correctedCheckpoints } from '../../../src/core/correctedCheckpoint';
import type { AnalysisOptions, CorrectedCheckpoints } from '../../../src/core/model';
import { CanonicalReader } from '../../../src/formats/canonical';
import { readSidecar, sidecarPieces, sidecarText, SIDECAR_SCHEMA } from '../../../src/formats/correctedSidecar';
import { createReader } from '../../../src/formats/readers';
import { incident, range } from '../core/transcripts';
import { corpusBytes, feed, requireCorpus } from './feedLines';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words };
const root = join(__dirname, '../../../..');

function roundTrip(document: CorrectedCheckpoints): CorrectedCheckpoints {
  const { document: read, problems } = readSidecar(sidecarText(document));
  assert.deepEqual(problems, []);
  assert.ok(read);
  return read;
}

describe('formats/correctedSidecar: round trip', () => {
  it('the incident sample: read back, the same claimed, safe and uncovered sets and the same moved turns', () => {
    const text = readFileSync(join(root, 'samples/incident.jsonl'), 'utf8');
    const analysis = analyze(feed(new CanonicalReader({ fileName: 'incident.jsonl' }), text), OPTS);
    const document = correctedCheckpoints(analysis, join(root, 'samples/incident.jsonl'));
    const read = roundTrip(document);
    assert.deepEqual(read, document);
    const cp = read.checkpoints[0];
    assert.deepEqual(cp.claimedIds, range(0, 419));
    assert.deepEqual(cp.safeIds, range(0, 379));
    assert.deepEqual(
      cp.moved.map((turn) => turn.id),
      range(380, 419),
    );
    assert.equal(read.source, 'incident.jsonl');
  });

  it('the documented shape: schema and version first, one id array per line, one moved turn per line', () => {
    const text = sidecarText(correctedCheckpoints(analyze(incident(false), OPTS), 'incident.jsonl'));
    const lines = text.split('\n');
    assert.equal(lines[1], `  "schema": "${SIDECAR_SCHEMA}",`);
    assert.equal(lines[2], '  "version": 1,');
    assert.equal(lines[3], '  "source": "incident.jsonl",');
    assert.equal(lines[4], '  "format": "canonical",');
    assert.ok(lines.some((line) => line.startsWith('      "safe_ids": [0,1,2,') && line.endsWith(',379],')));
    const moved = lines.filter((line) => line.startsWith('        {"id": '));
    assert.equal(moved.length, 40);
    assert.match(moved[0], /^ {8}\{"id": 380, "status": "claimed-missing", "line": 381, "reason": ".+"\},$/);
    assert.ok(text.endsWith('}\n'));
    assert.deepEqual(JSON.parse(text).checkpoints[0].uncovered_ids, range(380, 419));
  });

  it('a transcript with no checkpoint: an empty list, read back', () => {
    const document: CorrectedCheckpoints = { source: 'quiet.jsonl', format: 'pi', checkpoints: [] };
    assert.deepEqual(roundTrip(document), document);
  });

  it('string ids, quotes and newlines in ids, reasons on one line: all read back exactly', () => {
    const document: CorrectedCheckpoints = {
      source: 'we"ird\nname.jsonl',
      format: 'claude-code',
      checkpoints: [
        {
          summaryId: 'compact-1',
          line: 12,
          verdict: 'conditional',
          path: 'B',
          claimedIds: ['msg_1', 'msg "2"', 7],
          safeIds: ['msg_1'],
          uncoveredIds: ['msg "2"', 7, 'later\u2028'],
          moved: [
            { id: 'msg "2"', status: 'claimed-missing', line: 4, reason: 'Nothing of it is in the summary: “src/a.ts”.' },
            { id: 7, status: 'nothing-to-check', line: 9, reason: 'An acknowledgement.' },
          ],
        },
      ],
    };
    assert.deepEqual(roundTrip(document), document);
  });

  it('in pieces: two checkpoints of 600 moved turns each, written a few hundred at a time, read back exactly', () => {
    const ids = range(0, 599);
    const checkpoint = (summaryId: string, line: number) => ({
      summaryId,
      line,
      verdict: 'fail-closed' as const,
      path: 'B' as const,
      claimedIds: ids,
      safeIds: [],
      uncoveredIds: ids,
      moved: ids.map((id) => ({ id, status: 'claimed-missing' as const, line: id + 1, reason: `Turn ${id} is not in the summary.` })),
    });
    const document: CorrectedCheckpoints = {
      source: 't.jsonl',
      format: 'codex',
      checkpoints: [checkpoint('S1', 601), checkpoint('S2', 900)],
    };
    const pieces = [...sidecarPieces(document)];
    assert.equal(pieces.join(''), sidecarText(document));
    assert.ok(
      pieces.filter((piece) => piece.startsWith(',\n        {"id"')).length >= 4,
      "each checkpoint's moved turns in several pieces",
    );
    assert.deepEqual(roundTrip(document), document);
  });

  it('a corpus transcript with several checkpoints (pi session): read back, the same pointer sets', function () {
    this.timeout(30000);
    requireCorpus(this);
    const relative = 'pi/before-compaction.jsonl.gz';
    const transcript = feed(createReader('pi', { fileName: relative }), corpusBytes(relative));
    const analysis = analyze(transcript, OPTS);
    assert.ok(analysis.checkpoints.length >= 2, 'the pi session has two compactions');
    const document = correctedCheckpoints(analysis, relative);
    const read = roundTrip(document);
    assert.deepEqual(read, document);
    assert.equal(read.source, 'before-compaction.jsonl.gz');
    assert.equal(read.format, 'pi');
    read.checkpoints.forEach((cp, index) => assert.deepEqual(cp.safeIds, analysis.checkpoints[index].safeCovered));
  });
});

describe('formats/correctedSidecar: bad input', () => {
  const good = sidecarText({
    source: 't.jsonl',
    format: 'canonical',
    checkpoints: [
      {
        summaryId: 'S1',
        line: 4,
        verdict: 'conditional',
        path: 'B',
        claimedIds: [0, 1, 2],
        safeIds: [0, 1],
        uncoveredIds: [2],
        moved: [{ id: 2, status: 'claimed-missing', line: 3, reason: 'Not in the summary.' }],
      },
    ],
  });
  type Json = Record<string, unknown>;
  /** Changes the good document: the whole of it, its checkpoint, or its first moved turn. */
  type Change = (doc: Json, checkpoint: Json, moved: Json) => unknown;
  const edit = (change: Change): string => {
    const doc = JSON.parse(good) as Json & { checkpoints: (Json & { moved_to_uncovered: Json[] })[] };
    const checkpoint = doc.checkpoints[0];
    change(doc, checkpoint, checkpoint.moved_to_uncovered[0]);
    return JSON.stringify(doc);
  };
  const problemsOf = (text: string): string[] => {
    const { document, problems } = readSidecar(text);
    assert.equal(document, undefined, 'no document when anything is wrong');
    assert.ok(problems.length > 0);
    for (const problem of problems) assert.equal(problem.severity, 'error');
    return problems.map((problem) => problem.message);
  };

  it('reads the good one (a byte-order mark is ignored)', () => {
    assert.equal(readSidecar(good).problems.length, 0);
    assert.equal(readSidecar(`\ufeff${good}`).problems.length, 0);
  });

  const cases: [string, string | Change, RegExp][] = [
    ['not JSON', '{"schema": ', /not a Compaction Lens sidecar: the text is not JSON/],
    ['empty', '', /the text is not JSON/],
    ['an array', '[]', /"schema" is missing, expected "compaction-lens\/corrected-checkpoint"/],
    ['another schema', (doc) => (doc.schema = 'something/else'), /"schema" is "something\/else"/],
    ['a newer version', (doc) => (doc.version = 2), /version 2, newer than this Compaction Lens reads \(1\): update/],
    ['no version', (doc) => delete doc.version, /"version" is missing, expected 1/],
    ['no source', (doc) => (doc.source = ''), /"source" must be the transcript's file name/],
    ['an unknown format', (doc) => (doc.format = 'word'), /"format" is "word", not a transcript format/],
    ['checkpoints not an array', (doc) => (doc.checkpoints = {}), /"checkpoints" must be an array/],
    ['a checkpoint not an object', (doc) => (doc.checkpoints = [3]), /checkpoints\[0\] must be an object/],
    [
      'a bad verdict',
      (_doc, cp) => (cp.verdict = 'fine'),
      /checkpoints\[0\]\.verdict is "fine"; expected one of reversible, conditional, fail-closed/,
    ],
    ['a bad path', (_doc, cp) => (cp.path = 'C'), /checkpoints\[0\]\.path is "C"; expected "A" or "B"/],
    ['a bad line', (_doc, cp) => (cp.line = -1), /checkpoints\[0\]\.line is -1, not a line number/],
    ['no summary id', (_doc, cp) => delete cp.summary_id, /checkpoints\[0\]\.summary_id must be a non-empty string/],
    ['safe ids not an array', (_doc, cp) => (cp.safe_ids = '0-1'), /checkpoints\[0\]\.safe_ids must be an array of turn ids/],
    ['a bad id', (_doc, cp) => (cp.claimed_ids = [0, 1.5, 2]), /checkpoints\[0\]\.claimed_ids\[1\] is 1\.5, not a turn id/],
    ['an empty id', (_doc, cp) => (cp.uncovered_ids = ['']), /uncovered_ids\[0\] is "", not a turn id/],
    ['a bad status', (_doc, _cp, moved) => (moved.status = 'gone'), /moved_to_uncovered\[0\]\.status is "gone"/],
    ['no reason', (_doc, _cp, moved) => delete moved.reason, /moved_to_uncovered\[0\]\.reason is missing/],
    ['a moved id never claimed', (_doc, _cp, moved) => (moved.id = 9), /names turn 9, which claimed_ids does not hold/],
    ['a moved id still safe', (_doc, _cp, moved) => (moved.id = 1), /names turn 1, which safe_ids still holds/],
    ['safe and uncovered overlap', (_doc, cp) => (cp.uncovered_ids as unknown[]).push(0), /turn 0 is in both safe_ids and uncovered_ids/],
  ];
  for (const [name, change, expected] of cases) {
    it(`${name}: a problem that says so`, () => {
      const messages = problemsOf(typeof change === 'string' ? change : edit(change));
      assert.ok(
        messages.some((message) => expected.test(message)),
        messages.join('\n'),
      );
    });
  }

  it('many bad ids: at most 20 problems listed, the rest counted', () => {
    const messages = problemsOf(edit((_doc, cp) => (cp.claimed_ids = Array.from({ length: 100_000 }, () => null))));
    assert.equal(messages.length, 21);
    assert.match(messages[20], /…and \d+ more problems of this kind\./);
  });
});

describe('formats/correctedSidecar: any input', () => {
  it('never throws: a document with no problems, or problems and no document', () => {
    const good = JSON.parse(sidecarText(correctedCheckpoints(analyze(incident(false), OPTS), 'incident.jsonl')));
    const mutated = fc.record({ path: fc.array(fc.nat(), { maxLength: 4 }), value: fc.jsonValue() }).map(({ path, value }) => {
      const doc = structuredClone(good);
      let at: unknown = doc;
      for (const step of path.slice(0, -1)) {
        if (typeof at !== 'object' || at === null) break;
        const keys = Object.keys(at);
        at = (at as Record<string, unknown>)[keys[step % Math.max(1, keys.length)]];
      }
      if (typeof at === 'object' && at !== null) {
        const keys = Object.keys(at);
        if (keys.length > 0) (at as Record<string, unknown>)[keys[(path.at(-1) ?? 0) % keys.length]] = value;
      }
      return JSON.stringify(doc);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), mutated), (text) => {
        const { document, problems } = readSidecar(text);
        assert.equal(document === undefined, problems.length > 0);
        if (document) assert.deepEqual(readSidecar(sidecarText(document)).document, document, 'what was read writes back the same');
      }),
      { numRuns: 300 },
    );
  });
});
