// Tests for turnsWithTextsOnDisk (src/node/turnTextsOnDisk.ts): every text comes back exactly as it was, in any
// order of asking (forwards, backwards, at random), whatever it holds (empty, accents, emoji, a lone surrogate,
// texts longer than a block); every other field is the turn's own, a plain span comes back equal from the
// columns and any other span as it was, and JSON gives the turn as it was; nothing is left in the folder; a
// folder that cannot be written gives undefined. A turn whose id is its number in the file keeps nothing in the
// ids' column. TranscriptFile moves a read-once file's texts past its bound,
// and the analysis of the moved turns is the analysis of the turns kept in memory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { analyze } from '../../../src/core/analyze';
import type { SourceSpan, Turn } from '../../../src/core/model';
import { ROLES } from '../../../src/core/model';
import { createTokenCounter } from '../../../src/node/tokenCounter';
import { TranscriptFile } from '../../../src/node/transcriptFile';
import { CHUNK } from '../../../src/node/chunkedColumns';
import { TurnTextStore, turnsWithTextsOnDisk } from '../../../src/node/turnTextsOnDisk';

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
    role: ROLES[i % ROLES.length], // each role, in the flags' bits
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

  /** A turn's fields as read through it: its own, and those the columns keep when it had them. */
  function fieldsOf(turn: Turn): Record<string, unknown> {
    const fields: Record<string, unknown> = { ...turn };
    for (const key of ['id', 'role', 'tokens', 'span'] as const) if (turn[key] !== undefined) fields[key] = turn[key];
    // The call's text is read back from the calls' file: not a field of its own.
    if (turn.answers) fields.answers = { turnId: turn.answers.turnId, callText: turn.answers.callText };
    return fields;
  }

  it('keeps every other field, and JSON gives the turn as it was', () => {
    const turns = turnsOf(texts(200, 3));
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    for (let i = 0; i < turns.length; i++) {
      const { text: _text, ...rest } = turns[i];
      assert.deepEqual(fieldsOf(onDisk[i]), rest);
      assert.deepEqual(JSON.parse(JSON.stringify(onDisk[i])), JSON.parse(JSON.stringify(turns[i])));
    }
    // A number id, a role and recorded tokens are kept in the columns; a string id is the turn's own.
    assert.ok(!Object.hasOwn(onDisk[1], 'id') && !Object.hasOwn(onDisk[1], 'role'));
    assert.ok(!Object.hasOwn(onDisk[5], 'tokens') && onDisk[5].tokens === 5);
    assert.ok(Object.hasOwn(onDisk[3], 'id') && onDisk[3].id === 't3');
    assert.equal(onDisk[1].tokens, undefined, 'no tokens where the turn had none');
    // The text of the call a turn answers is on disk too.
    assert.ok(onDisk[7].answers && !Object.hasOwn(onDisk[7].answers, 'callText'));
    assert.equal(onDisk[7].answers.callText, '[tool call Read] 7');
  });

  it('keeps answers of another shape as the turn had them', () => {
    const odd = [
      { turnId: 1, callText: 'x', extra: true },
      { turnId: 1, callText: 7 },
      { turnId: null, callText: 'x' },
      Object.assign(Object.create({ inherited: 1 }) as object, { turnId: 1, callText: 'x' }),
    ];
    const turns = odd.map((answers, i) => ({ id: i, role: 'tool', text: `result ${i}`, answers }) as unknown as Turn);
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    onDisk.forEach((turn, i) => assert.equal(turn.answers, odd[i]));
  });

  it('keeps in the columns only what they give back equal: other ids, roles and token figures stay the turn’s own', () => {
    const odd: unknown[][] = [
      ['id', 2 ** 31],
      ['id', -0],
      ['id', 1.5],
      ['id', ''],
      ['role', 'narrator'],
      ['role', undefined],
      ['tokens', 2 ** 32],
      ['tokens', -1],
      ['tokens', 0.5],
      ['tokens', -0],
      ['tokens', undefined],
    ];
    const base = turnsOf(odd.map((_, i) => `text ${i}`));
    const turns = base.map((turn, i) => ({ ...turn, [odd[i][0] as string]: odd[i][1] }) as Turn);
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    odd.forEach(([key, value], i) => {
      assert.ok(Object.hasOwn(onDisk[i], key as string), `${String(key)} ${String(value)} is the turn's own`);
      assert.ok(Object.is((onDisk[i] as unknown as Record<string, unknown>)[key as string], value), `${String(key)} ${String(value)}`);
    });
    const kept = turnsWithTextsOnDisk(
      turnsOf(['a', 'b']).map((t) => ({ ...t, id: -(2 ** 31), tokens: 2 ** 32 - 1 })),
      dir,
    );
    assert.ok(kept);
    assert.ok(!Object.hasOwn(kept[0], 'id') && kept[0].id === -(2 ** 31));
    assert.ok(!Object.hasOwn(kept[0], 'tokens') && kept[0].tokens === 2 ** 32 - 1);
  });

  it('gives each plain span back equal from the columns, and keeps any other span as the turn had it', () => {
    const kept: unknown[] = [
      { startLine: 1, endLine: 3, startOffset: 2 ** 40, endOffset: 2 ** 40 + 2 ** 32 - 1 }, // the widest in bytes
      { startLine: -1, endLine: 65_534, startOffset: 0, endOffset: 0 }, // the widest in lines
      { startLine: 7, endLine: 7, startOffset: -0, endOffset: 3 }, // -0 comes back as -0
    ];
    const own: unknown[] = [
      { startLine: 1, endLine: 1, startOffset: 0, endOffset: 1, file: 'side.jsonl' }, // a field more
      { startLine: '1', endLine: 1, startOffset: 0, endOffset: 1 }, // not a number
      { startLine: 1, endLine: 1, startOffset: 0 }, // a field less
      null,
      { startLine: 2 ** 31, endLine: 2 ** 31, startOffset: 0, endOffset: 1 }, // lines past 32 bits
      { startLine: 1.5, endLine: 2, startOffset: 0, endOffset: 1 },
      { startLine: 1, endLine: 65_537, startOffset: 0, endOffset: 1 }, // more lines than the column holds
      { startLine: 1, endLine: 0, startOffset: 0, endOffset: 1 }, // ends before it starts
      { startLine: 1, endLine: 1, startOffset: 0, endOffset: 2 ** 32 }, // more bytes than the column holds
      { startLine: 1, endLine: 1, startOffset: 5, endOffset: 4 }, // ends before it starts
      { startLine: 1, endLine: 1, startOffset: 0, endOffset: 2 ** 40 + 0.5 }, // a fraction of a byte
      { startLine: 1, endLine: 1, startOffset: 1e-9, endOffset: 7 }, // would not add back to its end
      { startLine: 1, endLine: 1, startOffset: 0, endOffset: -0 }, // would come back as 0
    ];
    const spans = [...kept, ...own];
    const base = turnsOf([...spans.map((_, i) => `t${i}`), 'last']);
    const turns = base.map((turn, i) => {
      if (i < spans.length) return { ...turn, span: spans[i] } as Turn;
      const { span: _span, ...rest } = turn;
      return rest as Turn; // no span at all
    });
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    for (let i = 0; i < kept.length; i++) {
      assert.deepEqual(onDisk[i].span, kept[i]);
      assert.ok(Object.is(onDisk[i].span.startOffset, (kept[i] as SourceSpan).startOffset), `span ${i}'s start`);
      assert.ok(!Object.hasOwn(onDisk[i], 'span'), `plain span ${i} is kept in the columns`);
    }
    for (let i = kept.length; i < spans.length; i++) {
      assert.equal(onDisk[i].span, spans[i], `span ${i} kept as it was`);
      assert.ok(Object.hasOwn(onDisk[i], 'span'));
    }
    const last = onDisk[spans.length];
    assert.ok(!Object.hasOwn(last, 'span'));
    assert.equal(last.span, undefined, 'a turn without a span has none');
    for (let i = 0; i < turns.length; i++) {
      assert.deepEqual(JSON.parse(JSON.stringify(onDisk[i])), JSON.parse(JSON.stringify(turns[i])), `JSON of turn ${i}`);
      assert.equal(onDisk[i].text, turns[i].text);
    }
  });

  it('gives offsets and ids back as written over three chunks of the columns, two of them widened', () => {
    const count = 2 * CHUNK + 600;
    const farAt = CHUNK + 500; // 2^32 bytes past its chunk's first offset: that chunk is widened, 500 offsets in
    const belowAt = 2 * CHUNK + 300; // below its chunk's first offset: that chunk too
    const turns: Turn[] = [];
    for (let i = 0; i < count; i++) {
      let start = 1_000 * i;
      if (i === farAt) start = 1_000 * CHUNK + 2 ** 32;
      if (i === belowAt) start = 7;
      const id = i % 1_000 === 1 ? i + 1 : i; // mostly the turn's number (a flag, not the ids' column), some not
      turns.push({
        id,
        role: 'user',
        text: `t${i}`,
        span: { startLine: i + 1, endLine: i + 2, startOffset: start, endOffset: start + 999 },
      });
    }
    const onDisk = turnsWithTextsOnDisk(turns, dir);
    assert.ok(onDisk);
    for (let i = 0; i < count; i++) {
      const kept: Turn = onDisk[i];
      if (kept.id !== turns[i].id || kept.span.startOffset !== turns[i].span.startOffset || kept.span.endOffset !== turns[i].span.endOffset)
        assert.fail(
          `turn ${i}: ${JSON.stringify({ id: kept.id, span: kept.span })}, not ${JSON.stringify({ id: turns[i].id, span: turns[i].span })}`,
        );
      assert.ok(!Object.hasOwn(kept, 'span') && !Object.hasOwn(kept, 'id'), `turn ${i} is kept in the columns`);
    }
    assert.equal(onDisk[count - 1].text, `t${count - 1}`);
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

describe('TurnTextStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps a reader's texts (TextKeeper) beside the answers' call texts, and gives each back at once and later", () => {
    const all = texts(3000, 29);
    all[10] = 'z'.repeat(500_000); // written alone
    const store = TurnTextStore.open(dir);
    assert.ok(store);
    const numbers: number[] = [];
    const answering: Turn[] = [];
    const next = random(31);
    for (let i = 0; i < all.length; i++) {
      const at = store.keepText(all[i]);
      assert.ok(at !== undefined, `text ${i} kept`);
      numbers.push(at);
      assert.equal(store.keptText(at), all[i], `text ${i} at once`);
      // A result answering it, its answers' call text in the same file.
      answering.push(store.keep({ id: i, role: 'tool', text: `result ${i}`, answers: { turnId: i, callText: all[i] } } as Turn));
      const j = Math.floor(next() * (i + 1));
      assert.equal(store.keptText(numbers[j]), all[j], `text ${j} after text ${i}`);
      assert.equal(answering[j].answers?.callText, all[j], `answers ${j} after text ${i}`);
    }
    for (let i = all.length - 1; i >= 0; i--) assert.equal(store.keptText(numbers[i]), all[i], `backwards, text ${i}`);
    assert.equal(store.broken, false);
    assert.deepEqual(readdirSync(dir), [], 'both files deleted once open');
  });

  it('gives each text back as soon as it is kept, still gathered or written, and any earlier one', () => {
    const all = texts(6000, 13);
    all[100] = 'y'.repeat(400_000); // more than the gathered megabyte at three bytes a character: written alone
    all[2000] = `${'ö'.repeat(600_000)}\udfff`; // the same, as UTF-16
    all[2001] = '';
    const store = TurnTextStore.open(dir);
    assert.ok(store);
    assert.deepEqual(readdirSync(dir), [], 'the file is deleted once open');
    const turns = turnsOf(all);
    const kept: Turn[] = [];
    const next = random(17);
    for (let i = 0; i < turns.length; i++) {
      kept.push(store.keep(turns[i]));
      assert.ok(!Object.hasOwn(kept[i], 'text'), `turn ${i} reads its text from the store`);
      assert.equal(kept[i].text, all[i], `turn ${i} at once`);
      const j = Math.floor(next() * (i + 1));
      assert.equal(kept[j].text, all[j], `turn ${j} after turn ${i} was kept`);
    }
    assert.equal(store.kept, all.length);
    assert.equal(store.broken, false);
    for (let i = turns.length - 1; i >= 0; i--) assert.equal(kept[i].text, all[i], `backwards, turn ${i}`);
    for (let i = 0; i < turns.length; i++) {
      assert.deepEqual(JSON.parse(JSON.stringify(kept[i])), JSON.parse(JSON.stringify(turns[i])), `JSON of turn ${i}`);
    }
  });

  it('keeps nothing in the ids’ column for a turn whose id is its number in the file', () => {
    const count = CHUNK + 10; // two chunks of each column
    const bytesWith = (idOf: (at: number) => number): number => {
      const store = TurnTextStore.open(dir);
      assert.ok(store);
      const kept = Array.from({ length: count }, (_, at) =>
        store.keep({
          id: idOf(at),
          role: 'user',
          text: `text ${at}`,
          span: { startLine: at + 1, endLine: at + 1, startOffset: 0, endOffset: 0 },
        }),
      );
      for (const at of [0, 1, CHUNK, count - 1]) assert.equal(kept[at].id, idOf(at), `turn ${at}'s id`);
      const bytes = store.columnBytes;
      store.close();
      return bytes;
    };
    const own = bytesWith((at) => at);
    // The same turns with ids one past their numbers: two chunks of 4-byte ids more, and nothing else.
    assert.equal(bytesWith((at) => at + 1) - own, 2 * CHUNK * 4);
    assert.equal(bytesWith((at) => (at === 5 ? -1 : at)) - own, CHUNK * 4, 'one other id, in the first chunk: that chunk only');
  });

  /**
   * Keeps `count` turns' texts in a store in a child whose files may not pass 2 MB (a write past it fails with
   * EFBIG, as on a full disk), and says what came of it.
   */
  function keepInSmallRoom(textOf: string): { broken: boolean; kept: number; firstOwn: number; lastNotOwn: number; bad: number } {
    const module = join(__dirname, '../../../src/node/turnTextsOnDisk.js');
    const script = `
      const { TurnTextStore } = require(${JSON.stringify(module)});
      const store = TurnTextStore.open(${JSON.stringify(dir)});
      const texts = [];
      for (let i = 0; i < 3000; i++) texts.push((${textOf})(i));
      const turns = texts.map((text, i) => store.keep({ id: i, role: 'user', text, span: { startLine: i + 1, endLine: i + 1, startOffset: 0, endOffset: 1 } }));
      store.flush();
      const own = turns.map((t) => Object.hasOwn(t, 'text'));
      const bad = turns.filter((t, i) => t.text !== texts[i]).length;
      console.log(JSON.stringify({ broken: store.broken, kept: store.kept, firstOwn: own.indexOf(true), lastNotOwn: own.lastIndexOf(false), bad }));`;
    const run = spawnSync('bash', ['-c', 'ulimit -f 2048 && exec "$0" -e "$1"', process.execPath, script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as { broken: boolean; kept: number; firstOwn: number; lastNotOwn: number; bad: number };
  }

  for (const [what, textOf] of [
    ['gathered texts', "(i) => 'text ' + i + ' é'.repeat(i % 1400)"],
    ['a long text written alone', "(i) => i === 1500 ? 'y'.repeat(1_200_000) : 'text ' + i + ' é'.repeat(i % 700)"],
  ]) {
    it(`keeps in memory what a write that fails held (${what}), and the turns after it keep their own texts`, function () {
      if (process.platform === 'win32') this.skip();
      const result = keepInSmallRoom(textOf);
      assert.equal(result.broken, true, 'a write failed');
      assert.equal(result.bad, 0, 'every text comes back: from the file, from memory, or its own');
      assert.ok(result.kept > 0 && result.kept < 3000, `some texts were kept before the failure (${result.kept})`);
      assert.equal(result.firstOwn, result.kept, 'every turn after the failure keeps its own text');
      assert.equal(result.lastNotOwn, result.kept - 1);
    });
  }
});

describe('TranscriptFile with texts on disk', function () {
  // Each reads and analyses a file of thousands of turns: about a second alone, over mocha's 2 s beside other work.
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-file-texts-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const line = (id: number, text: string) => JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'assistant', content: text });

  /** A canonical transcript of 400 turns (a tool turn in ten answers the turn before it) and a checkpoint. */
  function canonicalText(): string {
    const all = texts(400, 5).map((text, i) => `${text} src/file${i}.ts`);
    const records = all.map((text, i) =>
      i % 10 === 3 ? JSON.stringify({ type: 'turn', id: i, role: 'tool', content: text, answers: i - 1 }) : line(i, text),
    );
    records.push(
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S1',
        summary: 'Edited src/file3.ts and src/file8.ts.',
        summary_budget: 500,
        covered: { from: 0, to: 399 },
      }),
    );
    return `${records.join('\n')}\n`;
  }

  /**
   * Whether a file read once past the bound (`past` characters) gives the turns and the analysis of the file kept
   * in memory.
   */
  async function assertSameAsKept(path: string, past = 1000): Promise<TranscriptFile> {
    const kept = await TranscriptFile.open(path);
    const small = await TranscriptFile.open(path, { readOnce: true, textsOnDiskPast: Number.MAX_SAFE_INTEGER });
    assert.equal(small.textsOnDisk, false, 'not past the bound: kept in memory');
    const moved = await TranscriptFile.open(path, { readOnce: true, textsOnDiskPast: past });
    assert.equal(moved.textsOnDisk, true);
    assert.ok(
      moved.transcript.turns.every((turn) => !Object.hasOwn(turn, 'text')),
      'every turn reads its text from the temporary file',
    );
    assert.deepEqual(
      moved.transcript.turns.map((t) => t.text),
      kept.transcript.turns.map((t) => t.text),
    );
    assert.deepEqual(JSON.parse(JSON.stringify(moved.transcript)), JSON.parse(JSON.stringify(kept.transcript)));
    const count = createTokenCounter('o200k_base');
    assert.deepEqual(analyze(moved.transcript, { countTokens: count }), analyze(kept.transcript, { countTokens: count }));
    return moved;
  }

  it('keeps a read-once canonical file’s texts past the bound on disk (its reader hands them over), to the same turns and analysis', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, canonicalText());
    const moved = await assertSameAsKept(path);
    const answering = moved.transcript.turns[13];
    assert.deepEqual(
      { turnId: answering.answers?.turnId, callText: answering.answers?.callText },
      { turnId: 12, callText: moved.transcript.turns[12].text },
      'a call read back while reading',
    );
  });

  /**
   * A Claude Code session of 300 exchanges (a prompt, a reply of two records under one message id, its tool call's
   * result), a compaction of the first 200, and its summary.
   */
  function claudeCodeText(): string {
    const session = 'sess-1';
    const records: object[] = [];
    let parent: string | null = null;
    const add = (record: Record<string, unknown>): void => {
      const uuid = `u-${records.length}`;
      records.push({ ...record, uuid, parentUuid: parent, sessionId: session });
      parent = uuid;
    };
    const all = texts(300, 7);
    for (let i = 0; i < 300; i++) {
      if (i === 200) {
        const boundaryUuid = `u-${records.length}`;
        records.push({
          type: 'system',
          subtype: 'compact_boundary',
          uuid: boundaryUuid,
          parentUuid: null,
          logicalParentUuid: parent,
          sessionId: session,
          compactMetadata: { trigger: 'auto', preTokens: 50_000 },
        });
        parent = boundaryUuid;
        add({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'Edited src/file3.ts and src/file8.ts.' } });
      }
      add({ type: 'user', message: { role: 'user', content: `${all[i]} src/file${i}.ts` } });
      const id = `msg_${i}`;
      add({ type: 'assistant', message: { id, role: 'assistant', content: [{ type: 'text', text: `Looking at src/file${i}.ts` }] } });
      const content = [{ type: 'tool_use', id: `tu_${i}`, name: 'Read', input: { file_path: `src/file${i}.ts` } }];
      add({ type: 'assistant', message: { id, role: 'assistant', content } });
      add({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: `line ${i}: ok` }] },
      });
    }
    return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
  }

  it('keeps a read-once Claude Code file’s texts past the bound on disk (its reader hands them over), to the same turns and analysis', async () => {
    const path = join(dir, 'session.jsonl');
    writeFileSync(path, claudeCodeText());
    const moved = await assertSameAsKept(path);
    assert.equal(moved.format, 'claude-code');
    assert.equal(moved.transcript.turns.length, 900);
    assert.match(moved.transcript.turns[1].text, /^Looking at src\/file0\.ts\n\[tool call Read\]/, 'a reply of two records, one turn');
    assert.equal(moved.transcript.checkpoints[0].claimedIds.length, 600);
  });

  // Whether the texts went to disk as read or once read is not seen from outside: both give the same turns, and
  // the difference is memory (docs/performance-history.md, "Claude Code's texts written as read").
  it('keeps a compressed file’s texts on disk past the bound, whether four times its bytes pass it or only its texts do', async () => {
    const gz = join(dir, 't.jsonl.gz');
    const text = canonicalText();
    const bytes = gzipSync(text);
    writeFileSync(gz, bytes);
    // Past 1,000 characters: four times its bytes are past it, so its reader hands its turns over as it reads.
    await assertSameAsKept(gz);
    // A bound its texts pass but four times its bytes do not: moved once the read is done.
    const chars = (await TranscriptFile.open(gz)).transcript.turns.reduce((sum, turn) => sum + turn.text.length, 0);
    assert.ok(chars > bytes.length * 4, `${chars} characters of text, ${bytes.length} bytes`);
    await assertSameAsKept(gz, bytes.length * 4);
  });

  it('moves the texts once read when its reader does not hand them over as it reads', async () => {
    const messages = texts(300, 9).map((text, i) => JSON.stringify({ role: i % 2 === 0 ? 'user' : 'assistant', content: `${text} ${i}` }));
    const array = join(dir, 'messages.jsonl');
    writeFileSync(array, `${messages.join('\n')}\n`);
    const moved = await assertSameAsKept(array);
    assert.equal(moved.format, 'message-array');
  });
});
