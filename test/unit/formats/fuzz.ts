// Test helper: a property that feeds a reader mutated, truncated and garbage lines and checks it never throws,
// always returns a well-formed transcript, and reports every line that is not JSON as a problem.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { TranscriptReader } from '../../../src/core/model';
import { splitLines } from './feedLines';

function mutate(line: string, cut: number, insert: string, mode: number): string {
  const at = line.length === 0 ? 0 : cut % (line.length + 1);
  switch (mode % 4) {
    case 0:
      return line.slice(0, at); // truncated
    case 1:
      return line.slice(0, at) + insert + line.slice(at); // garbage inserted
    case 2:
      return insert; // pure garbage
    default:
      return line; // kept
  }
}

/** Runs the fuzz property over lines derived from `seed` (a valid file of this format). */
export function fuzzReader(makeReader: () => TranscriptReader, seed: string, runs = 150): void {
  const seedLines = seed.split('\n');
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(seedLines.length - 1), fc.nat(4000), fc.string({ maxLength: 12 }), fc.nat(7)), {
        minLength: 1,
        maxLength: 25,
      }),
      fc.boolean(),
      (edits, finalNewline) => {
        const lines = edits.map(([which, cut, insert, mode]) => mutate(seedLines[which], cut, insert, mode));
        const text = lines.join('\n') + (finalNewline ? '\n' : '');
        const reader = makeReader();
        const raw = splitLines(Buffer.from(text, 'utf8'));
        for (const line of raw) reader.push(line);
        const transcript = reader.finish();
        assert.ok(Array.isArray(transcript.turns) && Array.isArray(transcript.checkpoints) && Array.isArray(transcript.problems));
        for (const p of transcript.problems) {
          assert.ok(Number.isInteger(p.line) && p.line >= 0, `problem line ${p.line}`);
          assert.ok(typeof p.message === 'string' && p.message.length > 0);
        }
        for (const turn of transcript.turns) assert.ok(turn.span.startLine >= 1 && turn.span.endLine >= turn.span.startLine);
        // finish is repeatable and does not destroy state
        assert.equal(reader.finish().turns.length, transcript.turns.length);
        // a JSONL file (first line parses alone) with a line that is not JSON must report a problem
        const isJsonl = raw.length > 0 && parses(raw[0].text) && raw[0].text.trim().startsWith('{');
        const bad = raw.filter((l) => l.text.trim() !== '' && !parses(l.text));
        if (isJsonl && bad.length > 0)
          assert.ok(transcript.problems.length > 0, `no problem for bad line(s) ${bad.map((l) => l.line).join(', ')}`);
      },
    ),
    { numRuns: runs },
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
