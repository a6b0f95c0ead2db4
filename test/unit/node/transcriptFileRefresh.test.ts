// A property of TranscriptFile.refresh on real files: whatever a writer does between refreshes — appends whole
// lines, appends half a line and finishes it later, leaves a complete last line without its newline, truncates and
// writes other lines in place (longer, shorter or the same size), writes the same bytes again, touches the file,
// edits its first line at the same size, writes a new file with lines more and renames it over, appends and saves
// as an editor does (a refresh that reads anew) — the transcript after a refresh is the one a fresh open of the file
// reads. (An edit that keeps the size and the last 4 KB read, made after a read that left an unfinished last line,
// is the one change a refresh does not see: prefixDigest.ts, readSeam.ts; these writers never make one.)
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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
  | { kind: 'checkpoint' }
  | { kind: 'edit-start' }
  | { kind: 'renamed-over'; lines: number; words: number }
  | { kind: 'saved'; lines: number; words: number };

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
  fc.record({ kind: fc.constant('edit-start' as const) }),
  fc.record({ kind: fc.constant('renamed-over' as const), lines: fc.integer({ min: 0, max: 3 }), words: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('saved' as const), lines: fc.integer({ min: 0, max: 3 }), words: fc.integer({ min: 0, max: 300 }) }),
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
        // Whether a read left an unfinished last line since the file was last read from its start: the digest of
        // the bytes read is then not known, and a file written anew is read from its start.
        let lineLeft = false;
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
          } else if (s.kind === 'edit-start') {
            // The first turn's text changed in place at the same size (far from the last bytes read).
            const text = readFileSync(path, 'utf8');
            const at = text.indexOf('turn ');
            if (pending !== undefined || at < 0 || text.slice(at, at + 5) !== 'turn ') continue;
            writeFileSync(path, `${text.slice(0, at)}TURN ${text.slice(at + 5)}`);
          } else if (s.kind === 'renamed-over' || s.kind === 'saved') {
            if (pending !== undefined) continue;
            const more = Array.from({ length: s.lines }, () => `${turn(next++, s.words)}\n`).join('');
            if (s.kind === 'saved') appendFileSync(path, more);
            else {
              writeFileSync(`${path}.next`, `${readFileSync(path, 'utf8')}${more}`);
              renameSync(`${path}.next`, path);
            }
          } else if (pending === undefined) {
            appendFileSync(path, `${checkpoint(next - 1)}\n`);
          }
          if (s.kind !== 'touch') {
            const at = later();
            utimesSync(path, at, at);
          }
          const change = await file.refresh(undefined, s.kind === 'saved');
          const fresh = (await TranscriptFile.open(path)).transcript;
          assert.deepEqual(file.transcript, fresh, `after ${JSON.stringify(s)}`);
          const where = `after ${JSON.stringify(s)} (${change})`;
          // What only adds to the file is read as an append, or found unchanged: never read from the start. So is
          // a file written anew with the bytes read at its start, unless a read left its last line since.
          const reloads = ['rewrite', 'edit-end', 'edit-start'].includes(s.kind);
          if (!reloads && (!['renamed-over', 'saved'].includes(s.kind) || !lineLeft)) assert.notEqual(change, 'reloaded', where);
          if (reloads) assert.equal(change, 'reloaded', where);
          if (change === 'reloaded') lineLeft = false;
          if (s.kind === 'half') lineLeft = true;
        }
      }),
      { seed: 2906, numRuns: 120 },
    );
  });
});
