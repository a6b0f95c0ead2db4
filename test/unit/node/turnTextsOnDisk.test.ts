// Tests for turnsWithTextsOnDisk (src/node/turnTextsOnDisk.ts): every text comes back exactly as it was, in any
// order of asking (forwards, backwards, at random), whatever it holds (empty, accents, emoji, a lone surrogate,
// texts longer than a block); every other field is the turn's own, a plain span comes back equal from the
// columns and any other span as it was, and JSON gives the turn as it was; nothing is left in the folder; a
// folder that cannot be written gives undefined. TranscriptFile moves a read-once file's texts past its bound,
// and the analysis of the moved turns is the analysis of the turns kept in memory.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../../src/core/analyze';
import type { Turn } from '../../../src/core/model';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { turnsWithTextsOnDisk } from '../../../src/node/turnTextsOnDisk';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PARTS = ['plain words ', 'src/core/analyze.ts ', 'café ', 'naïve ', '😀 ', '\ud800', '\udc00x', '\u202e', '日本語 ', '\n', '"q" '];

function texts(count: number, seed: number): string[] {
  const next = random(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const size = next() < 0.02 ? 4000 : Math.floor(next() * 40);
    let text = '';
    for (let k = 0; k < size; k++) text += PARTS[Math.floor(next() * PARTS.length)];
    out.push(text);
  }
  return out;
}

function turnsOf(all: string[]): Turn[] {
  return all.map((text, i) => ({
    id: i % 3 === 0 ? `t${i}` : i,
    role: i % 2 === 0 ? 'user' : 'assistant',
    text,
    span: { startLine: i + 1, endLine: i + 1, startOffset: i * 10, endOffset: i * 10 + 9 },
    ...(i % 5 === 0 ? { tokens: i } : {}),
    ...(i % 7 === 0 ? { answers: { turnId: i - 1, callText: `[tool call Read] ${i}` }, label: 'Read' } : {}),
  }));
}

describe('turnsWithTextsOnDisk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-texts-'));
  });
  afterEach(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives every text back exactly, forwards, backwards and at random, and leaves nothing in the folder', () => {
    const all = texts(3000, 7);
    all[10] = '';
    all[11] = 'x'.repeat(200_000); // longer than a block
    all[12] = `${'é'.repeat(30_000)}\ud83d`; // long, and ends in a lone surrogate
    const turns = turnsOf(all);
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    assert.deepEqual(readdirSync(dir), [], 'the file is deleted once open');
    for (let i = 0; i < turns.length; i++) assert.equal(onDisk[i].text, all[i], `forwards, turn ${i}`);
    for (let i = turns.length - 1; i >= 0; i--) assert.equal(onDisk[i].text, all[i], `backwards, turn ${i}`);
    const next = random(11);
    for (let k = 0; k < 5000; k++) {
      const i = Math.floor(next() * turns.length);
      assert.equal(onDisk[i].text, all[i], `at random, turn ${i}`);
    }
  });

  it('keeps every other field, and JSON gives the turn as it was', () => {
    const turns = turnsOf(texts(200, 3));
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    for (let i = 0; i < turns.length; i++) {
      const { text: _text, ...rest } = turns[i];
      assert.deepEqual({ ...onDisk[i], span: onDisk[i].span }, rest);
      assert.deepEqual(JSON.parse(JSON.stringify(onDisk[i])), JSON.parse(JSON.stringify(turns[i])));
    }
  });

  it('gives each plain span back equal from the columns, and keeps any other span as the turn had it', () => {
    const base = turnsOf(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
    const spans: unknown[] = [
      { startLine: 1, endLine: 3, startOffset: 0, endOffset: 2 ** 40 + 0.5 }, // plain: any numbers
      { startLine: -1, endLine: 2 ** 31 - 1, startOffset: 1e-9, endOffset: 7 },
      { startLine: 1, endLine: 1, startOffset: 0, endOffset: 1, file: 'side.jsonl' }, // a field more
      { startLine: '1', endLine: 1, startOffset: 0, endOffset: 1 }, // not a number
      { startLine: 1, endLine: 1, startOffset: 0 }, // a field less
      null,
      { startLine: 2 ** 31, endLine: 2 ** 31, startOffset: 0, endOffset: 1 }, // lines past 32 bits
      { startLine: 1.5, endLine: 2, startOffset: 0, endOffset: 1 },
    ];
    const turns = base.map((turn, i) => {
      if (i < spans.length) return { ...turn, span: spans[i] } as Turn;
      const { span: _span, ...rest } = turn;
      return rest as Turn; // no span at all
    });
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    assert.deepEqual(onDisk[0].span, spans[0]);
    assert.deepEqual(onDisk[1].span, spans[1]);
    assert.ok(!Object.hasOwn(onDisk[0], 'span'), 'a plain span is kept in the columns');
    for (const i of [2, 3, 4, 5, 6, 7]) {
      assert.equal(onDisk[i].span, spans[i], `span ${i} kept as it was`);
      assert.ok(Object.hasOwn(onDisk[i], 'span'));
    }
    assert.ok(!Object.hasOwn(onDisk[8], 'span'));
    assert.equal(onDisk[8].span, undefined, 'a turn without a span has none');
    for (let i = 0; i < turns.length; i++) {
      assert.deepEqual(JSON.parse(JSON.stringify(onDisk[i])), JSON.parse(JSON.stringify(turns[i])), `JSON of turn ${i}`);
    }
  });

  it('leaves a turn without a string text as it is', () => {
    const odd = { id: 1, role: 'user', span: { startLine: 1, endLine: 1, startOffset: 0, endOffset: 1 } } as unknown as Turn;
    const turns = [...turnsOf(['a', 'b']), odd];
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    assert.equal(onDisk[2], odd);
    assert.equal(onDisk[1].text, 'b');
  });

  it('gives undefined when the folder cannot be written, and leaves nothing there', function () {
    if (process.getuid?.() === 0 || process.platform === 'win32') {
      // root writes anywhere; a folder that is not there fails for everyone
      assert.equal(turnsWithTextsOnDisk(turnsOf(['a']), join(dir, 'missing')), undefined);
      return;
    }
    chmodSync(dir, 0o500);
    assert.equal(turnsWithTextsOnDisk(turnsOf(['a']), dir), undefined);
    assert.deepEqual(readdirSync(dir), []);
  });
});

describe('TranscriptFile with texts on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-file-texts-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const line = (id: number, text: string) => JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'assistant', content: text });

  it('moves a read-once file’s texts past the bound, to the same turns and the same analysis', async () => {
    const all = texts(400, 5).map((text, i) => `${text} src/file${i}.ts`);
    const records = all.map((text, i) => line(i, text));
    records.push(
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'Edited src/file3.ts and src/file8.ts.',
        summary_budget: 500,
        covered: { from: 0, to: 399 },
      }),
    );
    const path = join(dir, 't.jsonl');
    writeFileSync(path, `${records.join('\n')}\n`);

    const kept = await TranscriptFile.open(path);
    const small = await TranscriptFile.open(path, { readOnce: true, textsOnDiskPast: Number.MAX_SAFE_INTEGER });
    assert.equal(small.textsOnDisk, false, 'not past the bound: kept in memory');
    const moved = await TranscriptFile.open(path, { readOnce: true, textsOnDiskPast: 1000 });
    assert.equal(moved.textsOnDisk, true);
    assert.deepEqual(
      moved.transcript.turns.map((t) => t.text),
      kept.transcript.turns.map((t) => t.text),
    );
    assert.deepEqual(JSON.parse(JSON.stringify(moved.transcript)), JSON.parse(JSON.stringify(kept.transcript)));
    const count = createTokenCounter('o200k_base');
    assert.deepEqual(analyze(moved.transcript, { countTokens: count }), analyze(kept.transcript, { countTokens: count }));
  });
});
