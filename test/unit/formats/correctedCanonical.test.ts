// Tests for src/formats/correctedCanonical.ts: the corrected copy of the incident sample keeps every other line
// byte for byte, its checkpoint claims exactly the safe pointer set when read back (and is then no longer
// missing anything), the claimed pointer set and the moved turns are recorded, padding is kept, and a
// transcript that changed since its analysis gives a problem instead of a wrong copy.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import { correctedCheckpoints } from '../../../src/core/correctedCheckpoint';
import type { AnalysisOptions, CorrectedCheckpoints } from '../../../src/core/model';
import { CanonicalReader } from '../../../src/formats/canonical';
import { CanonicalCorrector, CORRECTION_KEY, correctedCanonicalText } from '../../../src/formats/correctedCanonical';
import { range } from '../core/transcripts';
import { feed } from './feedLines';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words };
const root = join(__dirname, '../../../..');

function correct(text: string, name = 't.jsonl'): { document: CorrectedCheckpoints; corrected: string } {
  const analysis = analyze(feed(new CanonicalReader({ fileName: name }), text), OPTS);
  const document = correctedCheckpoints(analysis, name);
  const { text: corrected, problems } = correctedCanonicalText(text, document);
  assert.deepEqual(problems, []);
  assert.ok(corrected !== undefined);
  return { document, corrected };
}

const turn = (id: number | string, content: string) => JSON.stringify({ type: 'turn', id, role: 'user', content });

describe('formats/correctedCanonical', () => {
  it('the incident sample: only the checkpoint line changes; read back, it claims 0–379 and nothing is claimed-missing', () => {
    const text = readFileSync(join(root, 'samples/incident.jsonl'), 'utf8');
    const { corrected } = correct(text, 'incident.jsonl');
    const before = text.split('\n');
    const after = corrected.split('\n');
    assert.equal(after.length, before.length);
    for (let i = 0; i < before.length; i++) if (i !== 420) assert.equal(after[i], before[i], `line ${i + 1} is unchanged`);
    const record = JSON.parse(after[420]);
    const original = JSON.parse(before[420]);
    assert.deepEqual(record.covered, range(0, 379));
    assert.equal(record.summary, original.summary);
    assert.equal(record.summary_budget, 4096);
    assert.deepEqual(Object.keys(record).slice(0, -1), Object.keys(original), 'the fields keep their order; one is added');
    const marker = record[CORRECTION_KEY];
    assert.equal(marker.schema, 'compaction-lens/corrected-checkpoint');
    assert.equal(marker.version, 1);
    assert.equal(marker.source, 'incident.jsonl');
    assert.equal(marker.verdict, 'fail-closed');
    assert.deepEqual(marker.claimed_covered, { from: 0, to: 419 });
    assert.deepEqual(
      marker.moved_to_uncovered.map((turn: { id: number }) => turn.id),
      range(380, 419),
    );
    assert.equal(marker.moved_to_uncovered[0].status, 'claimed-missing');
    assert.equal(marker.moved_to_uncovered[0].line, 381);

    const reread = feed(new CanonicalReader({ fileName: 'incident.corrected.jsonl' }), corrected);
    assert.deepEqual(reread.problems, []);
    assert.deepEqual(reread.checkpoints[0].claimedIds, range(0, 379));
    const cp = analyze(reread, OPTS).checkpoints[0];
    assert.equal(cp.counts['claimed-missing'], 0);
    assert.equal(cp.counts.covered, 380);
    assert.equal(cp.counts.uncovered, 40, 'turns 380–419 are routed to the raw log');
  });

  it('correcting a corrected copy again changes nothing but the record of what was claimed', () => {
    const text = readFileSync(join(root, 'samples/incident.jsonl'), 'utf8');
    const once = correct(text).corrected;
    const twice = correct(once).corrected;
    const record = JSON.parse(twice.split('\n')[420]);
    assert.deepEqual(record.covered, range(0, 379));
    assert.deepEqual(record[CORRECTION_KEY].claimed_covered, range(0, 379));
    assert.deepEqual(record[CORRECTION_KEY].moved_to_uncovered, []);
  });

  it('two checkpoints, CRLF line ends, NUL padding and a byte-order mark: kept around the corrected records', () => {
    const lines = [
      `\ufeff${turn('a', 'Edited src/ledger/post.ts to throw ERR_LEDGER_4107.')}`,
      turn('b', 'Renamed reconcile.shardKey to reconcile.partitionKey in config/reconcile.yaml.'),
      `${JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: 'post.ts throws ERR_LEDGER_4107.', summary_budget: 500, covered: ['a', 'b'] })}\u0000\u0000`,
      turn('c', 'Opened issue #812 about the nightly reconcile.'),
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S2',
        summary: 'Issue #812 is open.',
        summary_budget: 500,
        covered: { from: 'b', to: 'c' },
      }),
    ];
    const text = lines.join('\r\n') + '\r\n';
    const { document, corrected } = correct(text);
    const after = corrected.split('\n');
    assert.equal(after[0], `${lines[0]}\r`);
    assert.ok(after[2].endsWith('}\u0000\u0000\r'), 'padding after the record is kept');
    const s1 = JSON.parse(after[2].slice(0, -3));
    assert.deepEqual(s1.covered, document.checkpoints[0].safeIds);
    assert.ok(s1.covered.includes('a') && !s1.covered.includes('b'));
    assert.deepEqual(s1[CORRECTION_KEY].claimed_covered, ['a', 'b']);
    const s2 = JSON.parse(after[4]);
    assert.deepEqual(s2.covered, document.checkpoints[1].safeIds);
    assert.deepEqual(s2[CORRECTION_KEY].claimed_covered, { from: 'b', to: 'c' });
    const reread = feed(new CanonicalReader({ fileName: 't.corrected.jsonl' }), corrected);
    assert.deepEqual(
      reread.checkpoints.map((cp) => cp.claimedIds),
      document.checkpoints.map((cp) => cp.safeIds),
    );
  });

  it('a transcript that changed since its analysis: a problem on the checkpoint line, no copy', () => {
    const text = readFileSync(join(root, 'samples/incident.jsonl'), 'utf8');
    const { document } = correct(text);
    const shifted = `${turn(-1, 'a line added at the top')}\n${text}`;
    const result = correctedCanonicalText(shifted, document);
    assert.equal(result.text, undefined);
    assert.equal(result.problems[0].line, 421);
    assert.match(
      result.problems[0].message,
      /line 421 is no longer the record of checkpoint S1: the transcript changed since it was analysed/,
    );
    const cut = correctedCanonicalText(text.split('\n').slice(0, 100).join('\n'), document);
    assert.match(cut.problems[0].message, /line 421 is past the end of the file/);
  });

  it('fed in pieces cut anywhere (through a character of two code units too), it writes the same; a record of 600 moved turns comes in pieces', () => {
    const lines = range(0, 599).map((i) => turn(i, `Checked handler_${i}.ts: é ✓ 𝄞 value ${i}.`));
    lines.push(
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'Nothing of it.',
        summary_budget: 50,
        covered: { from: 0, to: 599 },
      }),
    );
    lines.push(turn(600, 'After the checkpoint.'));
    const text = `${lines.join('\n')}\n`;
    const { document, corrected } = correct(text);
    const { moved } = document.checkpoints[0];
    assert.equal(moved.length, 600);
    const record = JSON.parse(corrected.split('\n')[600]);
    assert.deepEqual(
      record[CORRECTION_KEY].moved_to_uncovered,
      moved.map(({ id, status, line, reason }) => ({ id, status, line, reason })),
    );
    for (const size of [1, 7, 4096, text.length]) {
      const corrector = new CanonicalCorrector(document);
      const written: string[] = [];
      for (let at = 0; at < text.length; at += size) written.push(...corrector.write(text.slice(at, at + size)));
      written.push(...corrector.end());
      assert.deepEqual(corrector.problems, []);
      assert.equal(written.join(''), corrected, `in pieces of ${size} characters`);
      assert.ok(
        written.some((piece) => piece.startsWith(',{"id":')),
        'the moved turns come in more than one piece',
      );
    }
    const noNewline = new CanonicalCorrector(document);
    assert.equal([...noNewline.write(text.slice(0, -1)), ...noNewline.end()].join(''), corrected.slice(0, -1));
  });

  it('any text around the records, cut anywhere: the pieces written are the whole text corrected (property, seeded)', () => {
    const record = (id: number) => turn(id, `Edited src/a_${id}.ts to throw ERR_${id}.`);
    const checkpointLine = (n: number) =>
      JSON.stringify({
        type: 'checkpoint',
        summary_id: `S${n}`,
        summary: 'Throws ERR_1.',
        summary_budget: 400,
        covered: { from: 0, to: 3 },
      });
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom('\n', '\r\n', '\u0000', '\ufeff', '{"type":"checkpoint"}'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (junk, cuts) => {
        const lines = [record(0), record(1), ...junk, record(2), record(3), checkpointLine(1), ...junk.slice(2), checkpointLine(2)];
        const text = lines.join('\n');
        const analysis = analyze(feed(new CanonicalReader({ fileName: 't.jsonl' }), text), OPTS);
        const document = correctedCheckpoints(analysis, 't.jsonl');
        const whole = correctedCanonicalText(text, document);
        const corrector = new CanonicalCorrector(document);
        const written: string[] = [];
        const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        for (const to of [...at, text.length]) {
          written.push(...corrector.write(text.slice(from, to)));
          from = to;
        }
        written.push(...corrector.end());
        assert.deepEqual(corrector.problems, whole.problems);
        if (whole.text !== undefined) assert.equal(written.join(''), whole.text);
      }),
      { seed: 20261209, numRuns: 300 },
    );
  });

  it("a long line that is no checkpoint's is given on as it comes, never gathered; a checkpoint's is gathered", () => {
    const long = turn(0, `Build log: ${'x'.repeat(1 << 20)}`);
    const checkpointLine = JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: 'Built.', summary_budget: 500, covered: [0] });
    const text = `${long}\n${checkpointLine}\n`;
    const { document, corrected } = correct(text);
    const corrector = new CanonicalCorrector(document);
    const written: string[] = [];
    for (let at = 0; at < long.length; at += 65536) {
      const piece = long.slice(at, at + 65536);
      const given = [...corrector.write(piece)];
      assert.equal(given.join(''), piece, `the piece at ${at} given on at once`);
      written.push(...given);
    }
    written.push(...corrector.write('\n'), ...corrector.write(checkpointLine.slice(0, 40)));
    assert.equal(written.join(''), `${long}\n`, "the checkpoint's line waits for its newline");
    written.push(...corrector.write(`${checkpointLine.slice(40)}\n`), ...corrector.end());
    assert.equal(written.join(''), corrected);
  });

  it('refuses a document of another format', () => {
    const result = correctedCanonicalText('{}', { source: 'x.jsonl', format: 'codex', checkpoints: [] });
    assert.equal(result.text, undefined);
    assert.match(result.problems[0].message, /only be made of a canonical transcript, not codex/);
  });
});
