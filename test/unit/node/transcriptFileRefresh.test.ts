// A property of TranscriptFile.refresh on real files: whatever a writer does between refreshes — appends whole
// lines, appends half a line and finishes it later, leaves a complete last line without its newline, truncates and
// writes other lines in place (longer, shorter or the same size), writes the same bytes again, touches the file —
// the transcript after a refresh is the one a fresh open of the file reads. (An edit that keeps the size and the last
// 4 KB read is the one change a refresh does not see: readSeam.ts; these writers never make one.)
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { TranscriptFile } from '../../../src/node/transcriptFile';

const turn = (id: number, words: number) =>
  JSON.stringify({ type: 'turn', id, role: id % 2 === 0 ? 'user' : 'assistant', content: `turn ${id}: ${'word '.repeat(words)}` });
const checkpoint = (to: number) =>
  JSON.stringify({ type: 'checkpoint', summary_id: `S${to}`, summary: `turns to ${to}`, summary_budget: 10, covered: { from: 0, to } });

/** What a writer does to the file between two refreshes. */
type Step =
  | { kind: 'append'; lines: number; words: number }
  | { kind: 'half'; words: number }
  | { kind: 'finish' }
  | { kind: 'no-newline'; words: number }
  | { kind: 'rewrite'; lines: number; words: number }
  | { kind: 'same-bytes' }
  | { kind: 'edit-end' }
  | { kind: 'touch' }
  | { kind: 'checkpoint' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), lines: fc.integer({ min: 1, max: 5 }), words: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('half' as const), words: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('finish' as const) }),
  fc.record({ kind: fc.constant('no-newline' as const), words: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ kind: fc.constant('rewrite' as const), lines: fc.integer({ min: 1, max: 30 }), words: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('same-bytes' as const) }),
  fc.record({ kind: fc.constant('edit-end' as const) }),
  fc.record({ kind: fc.constant('touch' as const) }),
  fc.record({ kind: fc.constant('checkpoint' as const) }),
);

describe('TranscriptFile.refresh against a fresh open (property)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-refresh-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the transcript a fresh open of the file gives, after any of these writes', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const path = join(dir, `t${run++}.jsonl`);
        let next = 0; // the next turn id
        let pending: string | undefined; // half a line written, to be finished
        let stamp = statSync(dir).mtimeMs;
        const later = () => {
          stamp += 5000;
          return new Date(stamp);
        };
        writeFileSync(path, `${turn(next++, 3)}\n${turn(next++, 3)}\n`);
        const file = await TranscriptFile.open(path);
        for (const s of steps) {
          if (s.kind === 'append') {
            if (pending !== undefined) continue;
            for (let k = 0; k < s.lines; k++) appendFileSync(path, `${turn(next++, s.words)}\n`);
          } else if (s.kind === 'half') {
            if (pending !== undefined) continue;
            const line = turn(next++, s.words);
            const cut = Math.floor(line.length / 2);
            appendFileSync(path, line.slice(0, cut));
            pending = line.slice(cut);
          } else if (s.kind === 'finish') {
            if (pending === undefined) continue;
            appendFileSync(path, `${pending}\n`);
            pending = undefined;
          } else if (s.kind === 'no-newline') {
            if (pending !== undefined) continue;
            // A complete record without its newline: the next append starts with one.
            appendFileSync(path, turn(next++, s.words));
            pending = '';
          } else if (s.kind === 'rewrite') {
            // Other turns written over the file in place: new ids, so nothing of the old content stays at its end.
            next += 1000;
            const lines = Array.from({ length: s.lines }, () => turn(next++, s.words));
            writeFileSync(path, `${lines.join('\n')}\n`);
            pending = undefined;
          } else if (s.kind === 'same-bytes') {
            writeFileSync(path, readFileSync(path));
          } else if (s.kind === 'edit-end') {
            // The last turn's text changed in place at the same size.
            const text = readFileSync(path, 'utf8');
            const at = text.lastIndexOf('turn ');
            if (pending !== undefined || at < 0) continue;
            writeFileSync(path, `${text.slice(0, at)}TURN ${text.slice(at + 5)}`);
          } else if (s.kind === 'touch') {
            const at = later();
            utimesSync(path, at, at);
          } else if (pending === undefined) {
            appendFileSync(path, `${checkpoint(next - 1)}\n`);
          }
          if (s.kind !== 'touch') {
            const at = later();
            utimesSync(path, at, at);
          }
          const change = await file.refresh();
          const fresh = (await TranscriptFile.open(path)).transcript;
          assert.deepEqual(file.transcript, fresh, `after ${JSON.stringify(s)}`);
          // What only adds to the file is read as an append, or found unchanged: never read from the start.
          if (!['rewrite', 'edit-end'].includes(s.kind)) assert.notEqual(change, 'reloaded', `after ${JSON.stringify(s)}`);
          if (s.kind === 'rewrite' || s.kind === 'edit-end') assert.equal(change, 'reloaded', `after ${JSON.stringify(s)}`);
        }
      }),
      { seed: 2906, numRuns: 120 },
    );
  });
});
