// Tests for src/core/pieceTable.ts: samePiece tells apart pieces that differ in any field (each field PIECE_FIELDS
// lists, a flag, an alternative), compares lists by their strings, and sharePieces gives turns that name the same
// file one piece in the evidence cache, each turn keeping its own pieces otherwise; a table for a small cache keeps
// as few pieces as that cache can hold.
import * as assert from 'node:assert/strict';
import type { EvidencePiece } from '../../../src/core/evidence';
import { EvidenceCache } from '../../../src/core/evidenceCache';
import { PIECE_FIELDS, PIECE_LIMITS, pieceTable, samePiece, sharePieces } from '../../../src/core/pieceTable';
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

describe('core/pieceTable', function () {
  // One test fills a table with half a million pieces: about 0.9 s alone, over mocha's 2 s beside other work.
  this.timeout(20_000);

  it('samePiece: pieces alike, lists compared by their strings', () => {
    assert.ok(samePiece(PATH, { ...PATH, alt: [...(PATH.alt ?? [])], parts: [...(PATH.parts ?? [])] }));
    assert.ok(samePiece({ text: 'a', kind: 'name', key: 'a', shareKey: 'a' }, { text: 'a', kind: 'name', key: 'a', shareKey: 'a' }));
  });

  it('samePiece: pieces that differ in any field are not alike', () => {
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
      const other = { ...PATH, ...change } as EvidencePiece;
      assert.ok(!samePiece(PATH, other), JSON.stringify(change));
      assert.ok(!samePiece(other, PATH), JSON.stringify(change));
    }
  });

  it('sharePieces replaces each piece by the one alike seen before, in place', () => {
    const table = pieceTable();
    const first = sharePieces(table, { pieces: [PATH] });
    const made = { pieces: [{ ...PATH }, { text: 'ERR_9', kind: 'error-code' as const, key: 'err 9', shareKey: 'err 9' }] };
    const shared = sharePieces(table, made);
    assert.equal(shared, made);
    assert.equal(shared.pieces[0], first.pieces[0]);
    assert.equal(shared.pieces[1].text, 'ERR_9');
  });

  it('a table for a cache of few characters keeps few pieces: it starts again past one piece in 64 characters', () => {
    const piece = (k: number): EvidencePiece => ({ text: `name_${k}`, kind: 'identifier', key: `name ${k}`, shareKey: `name ${k}` });
    const fill = (table: ReturnType<typeof pieceTable>, n: number) => {
      for (let k = 0; k < n; k++) sharePieces(table, { pieces: [piece(k)] });
      return table.size;
    };
    assert.equal(fill(pieceTable(64 * 2000), 2000), 2000);
    assert.equal(fill(pieceTable(64 * 2000), 2001), 1, 'the 2,001st piece starts the table again');
    assert.equal(fill(pieceTable(64 * 10), 1024), 1024, 'never fewer than 1,024');
    assert.equal(fill(pieceTable(64 * 10), 1025), 1);
    assert.equal(fill(pieceTable(), 3000), 3000, 'no cache size: the full limit');
    assert.equal(fill(pieceTable(Number.MAX_SAFE_INTEGER), PIECE_LIMITS.values + 1), 1);
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
