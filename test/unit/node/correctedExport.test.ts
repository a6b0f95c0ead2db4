// Tests for src/node/correctedExport.ts on the real file system: the export is written as it is made, the
// transcript read again a piece at a time (64 KB chunks, gzip inflated, UTF-16 decoded), and gives the same bytes
// as the whole-text functions (correctedCanonicalText, sidecarText) on a transcript of several chunks whose
// characters of two and four bytes fall across them; a transcript that changed since its analysis, or one that
// cannot be read to its end, is refused with nothing written; the export says where it stands, and an abort stops
// it with nothing written.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { analyze } from '../../../src/core/analyze';
import { correctedCheckpoints } from '../../../src/core/correctedCheckpoint';
import type { Analysis, AnalysisOptions } from '../../../src/core/model';
import { CanonicalReader } from '../../../src/formats/canonical';
import { correctedCanonicalText } from '../../../src/formats/correctedCanonical';
import { sidecarText } from '../../../src/formats/correctedSidecar';
import { CorrectedExportError, type CorrectedExportProgress, exportCorrectedCheckpoint } from '../../../src/node/correctedExport';
import { feed } from '../formats/feedLines';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
const OPTS: AnalysisOptions = { countTokens: words };

const turn = (id: number, content: string) => JSON.stringify({ type: 'turn', id, role: 'user', content });

/** About 250 KB over 1,201 lines: 1,200 turns (text of one to four UTF-8 bytes a character) and a checkpoint claiming 0–999. */
function transcriptText(): string {
  const lines: string[] = [];
  for (let i = 0; i < 1200; i++) {
    if (i === 1000) {
      lines.push(
        JSON.stringify({
          type: 'checkpoint',
          summary_id: 'S1',
          summary: 'Kept ERR_7 only.',
          summary_budget: 900,
          covered: { from: 0, to: 999 },
        }),
      );
    }
    lines.push(turn(i, `Turn ${i}: café ✓ 𝄞 ${'value '.repeat(i % 40)}ERR_${i} — done.`));
  }
  return `${lines.join('\n')}\n`;
}

async function refusal(promise: Promise<unknown>): Promise<CorrectedExportError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CorrectedExportError, `a CorrectedExportError, got ${String(error)}`);
    return error;
  }
  assert.fail('the export was expected to fail');
}

describe('node/correctedExport: written as it is made', function () {
  this.timeout(20000);
  let dir: string;
  const text = transcriptText();
  const analysis: Analysis = analyze(feed(new CanonicalReader({ fileName: 't.jsonl' }), text), OPTS);
  const document = correctedCheckpoints(analysis, 't.jsonl');
  /** The corrected copy made of the whole text, for a transcript of that name (the record names it). */
  const expectedOf = (name: string) => correctedCanonicalText(text, correctedCheckpoints(analysis, name)).text;
  const expected = expectedOf('t.jsonl');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-export-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a transcript of several chunks: the corrected copy and the sidecar are the whole-text functions’ bytes', async () => {
    assert.ok(Buffer.byteLength(text) > 3 * 65536, 'several read chunks');
    assert.ok(document.checkpoints[0].moved.length > 512, 'a record written in several pieces');
    assert.ok(expected !== undefined);
    const transcript = join(dir, 't.jsonl');
    writeFileSync(transcript, text);
    const copy = await exportCorrectedCheckpoint(transcript, analysis, { outputPath: join(dir, 'out.jsonl') });
    assert.equal(copy.kind, 'canonical-jsonl');
    assert.equal(readFileSync(join(dir, 'out.jsonl'), 'utf8'), expected);
    const sidecar = await exportCorrectedCheckpoint(transcript, analysis, { outputPath: join(dir, 'out.json') });
    assert.equal(sidecar.kind, 'sidecar');
    assert.equal(readFileSync(join(dir, 'out.json'), 'utf8'), sidecarText(document));
    assert.deepEqual(sidecar.document, document);
  });

  it('gzip-compressed, or UTF-16 with a byte-order mark: the same corrected copy, in UTF-8', async () => {
    writeFileSync(join(dir, 't.jsonl.gz'), gzipSync(text));
    await exportCorrectedCheckpoint(join(dir, 't.jsonl.gz'), analysis, { outputPath: join(dir, 'from-gz.jsonl') });
    assert.equal(readFileSync(join(dir, 'from-gz.jsonl'), 'utf8'), expectedOf('t.jsonl.gz'));
    writeFileSync(join(dir, 'utf16.jsonl'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    await exportCorrectedCheckpoint(join(dir, 'utf16.jsonl'), analysis, { outputPath: join(dir, 'from-utf16.jsonl') });
    assert.equal(readFileSync(join(dir, 'from-utf16.jsonl'), 'utf8'), expectedOf('utf16.jsonl'));
  });

  it('a transcript changed since its analysis, or cut short: refused, nothing written, no temporary file', async () => {
    const transcript = join(dir, 't.jsonl');
    writeFileSync(transcript, `${turn(-1, 'a line added at the top')}\n${text}`);
    const shifted = await refusal(exportCorrectedCheckpoint(transcript, analysis, { outputPath: join(dir, 'out.jsonl') }));
    assert.equal(shifted.reason, 'unreadable');
    assert.match(
      shifted.message,
      /line 1001 is no longer the record of checkpoint S1: the transcript changed since it was analysed.* Nothing was written\./,
    );
    writeFileSync(transcript, text.split('\n').slice(0, 900).join('\n'));
    const cut = await refusal(exportCorrectedCheckpoint(transcript, analysis, { outputPath: join(dir, 'out.jsonl') }));
    assert.match(cut.message, /line 1001 is past the end of the file/);
    assert.deepEqual(readdirSync(dir), ['t.jsonl']);
  });

  it('says where it stands (correcting, then the bytes written), and an abort stops it with nothing written', async () => {
    const transcript = join(dir, 't.jsonl');
    writeFileSync(transcript, text);
    const steps: CorrectedExportProgress[] = [];
    await exportCorrectedCheckpoint(transcript, analysis, { outputPath: join(dir, 'out.jsonl'), onProgress: (step) => steps.push(step) });
    assert.deepEqual(steps[0], { step: 'correcting' });
    const written = steps.slice(1).map((step) => (step.step === 'writing' ? step.bytes : -1));
    assert.ok(written.length >= 2, `${written.length} writes`);
    assert.ok(
      written.every((bytes, k) => bytes > (written[k - 1] ?? 0)),
      written.join(),
    );
    assert.equal(written.at(-1), Buffer.byteLength(expected ?? ''), 'the last says every byte');
    rmSync(join(dir, 'out.jsonl'));

    for (const abortAt of ['correcting', 'writing'] as const) {
      const abort = new AbortController();
      const stopped = exportCorrectedCheckpoint(transcript, analysis, {
        outputPath: join(dir, 'out.jsonl'),
        signal: abort.signal,
        onProgress: (step) => step.step === abortAt && abort.abort(),
      });
      await assert.rejects(stopped, { name: 'AbortError' }, `aborted while ${abortAt}`);
      assert.deepEqual(readdirSync(dir), ['t.jsonl'], `aborted while ${abortAt}: no file, no temporary file`);
    }
  });

  it('a gzip transcript past the inflation limit: refused as unreadable, nothing written', async () => {
    writeFileSync(join(dir, 't.jsonl.gz'), gzipSync(text));
    const refused = await refusal(
      exportCorrectedCheckpoint(join(dir, 't.jsonl.gz'), analysis, {
        outputPath: join(dir, 'out.jsonl'),
        inflateLimits: { maxInflatedBytes: 100_000 },
      }),
    );
    assert.equal(refused.reason, 'unreadable');
    assert.match(
      refused.message,
      /could not read .+t\.jsonl\.gz again to copy it: the transcript could not be read to its end \(decompression stopped/,
    );
    assert.deepEqual(readdirSync(dir), ['t.jsonl.gz']);
  });
});
