// Tests for src/core/pieceTable.ts: pieces alike are one object, pieces that differ in any field (a flag, an
// alternative, each field PIECE_FIELDS lists) are not, a key keeps at most MAX_PIECE_VARIANTS pieces, the table
// starts again past MAX_TABLE_KEYS keys; and the evidence cache gives two turns naming the same file one piece.
import * as assert from 'node:assert/strict';
import type { EvidencePiece } from '../../../src/core/evidence';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { MAX_PIECE_VARIANTS, MAX_TABLE_KEYS, PIECE_FIELDS, PieceTable } from '../../../src/core/pieceTable';
import { turn } from './transcripts';

const PATH: EvidencePiece = {
  text: 'src/ledger/post.ts',
  kind: 'path',
  key: 'src ledger post ts',
  shareKey: 'post ts',
  alt: ['post ts', 'ledger post ts'],
  parts: ['src', 'src ledger'],
  file: true,
};

describe('core/PieceTable', () => {
  it('gives the piece seen before for a piece alike, arrays compared by their strings', () => {
    const table = new PieceTable();
    assert.equal(table.shared(PATH), PATH);
    const alike = { ...PATH, alt: [...(PATH.alt ?? [])], parts: [...(PATH.parts ?? [])] };
    assert.equal(table.shared(alike), PATH);
    assert.equal(table.size, 1);
  });

  it('keeps apart pieces that differ in any field', () => {
    const changes: Record<string, unknown>[] = [
      // Every field a piece may have, changed (PIECE_FIELDS lists them, and the compiler keeps the list whole).
      ...Object.keys(PIECE_FIELDS).map((name) => ({ [name]: ['changed'] })),
      { text: 'src/ledger/post.ts:12' },
      { kind: 'identifier' },
      { shareKey: 'src ledger post ts' },
      { alt: ['post ts'] },
      { alt: ['ledger post ts', 'post ts'] },
      { alt: undefined },
      { parts: ['src'] },
      { file: undefined },
      { introduced: true },
      { fromCall: true },
      { toolName: true },
      { fromReasoning: true },
    ];
    for (const change of changes) {
      const table = new PieceTable();
      table.shared(PATH);
      const other = { ...PATH, ...change } as EvidencePiece;
      assert.equal(table.shared(other), other, JSON.stringify(change));
      assert.equal(table.shared({ ...other }), other, `the variant ${JSON.stringify(change)} is kept too`);
      assert.equal(table.shared({ ...PATH }), PATH);
    }
  });

  it(`keeps at most ${MAX_PIECE_VARIANTS} pieces a key`, () => {
    const table = new PieceTable();
    const kept = Array.from({ length: MAX_PIECE_VARIANTS }, (_, k) => table.shared({ ...PATH, text: `v${k}` }));
    kept.forEach((p, k) => assert.equal(table.shared({ ...PATH, text: `v${k}` }), p));
    const extra = { ...PATH, text: 'one too many' };
    assert.equal(table.shared(extra), extra);
    const again = { ...extra };
    assert.equal(table.shared(again), again, 'not kept');
  });

  it(`starts again, empty, past ${MAX_TABLE_KEYS} keys`, () => {
    const table = new PieceTable();
    for (let k = 0; k < MAX_TABLE_KEYS; k++) table.shared({ text: `n${k}`, kind: 'name', key: `n${k}`, shareKey: `n${k}` });
    assert.equal(table.size, MAX_TABLE_KEYS);
    table.shared(PATH);
    assert.equal(table.size, 1);
    table.clear();
    assert.equal(table.size, 0);
  });

  it('the evidence cache gives turns that name the same file one piece, and each turn its own pieces', () => {
    const cache = new EvidenceCache();
    const a = cache.piecesOf(turn(0, 'Edited src/ledger/post.ts for ERR_LEDGER_4107.', { role: 'assistant' }), false);
    const b = cache.piecesOf(turn(1, 'Then src/ledger/post.ts again, and lib/queue.ex.', { role: 'assistant' }), false);
    const pathOf = (pieces: readonly EvidencePiece[]) => pieces.find((p) => p.text === 'src/ledger/post.ts');
    assert.ok(pathOf(a.pieces));
    assert.equal(pathOf(b.pieces), pathOf(a.pieces));
    assert.ok(a.pieces.some((p) => p.text === 'ERR_LEDGER_4107') && !b.pieces.some((p) => p.text === 'ERR_LEDGER_4107'));
    assert.ok(b.pieces.some((p) => p.text === 'lib/queue.ex') && !a.pieces.some((p) => p.text === 'lib/queue.ex'));
  });
});
