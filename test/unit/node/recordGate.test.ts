// Unit tests for the record gate (src/node/recordGate.ts): isJsonText agrees with JSON.parse on mutants of
// JSON texts, and the gate withholds lines that cannot be records only after 1,000 of them were seen.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawLine } from '../../../src/core/model';
import { problemCount } from '../../../src/formats/problemCap';
import { RecordGate, isJsonText } from '../../../src/node/recordGate';
import { TranscriptFile } from '../../../src/node/transcriptFile';

const raw = (text: string, line = 1): RawLine => ({ line, offset: 0, endOffset: text.length, text, terminated: true });

describe('record gate', () => {
  it('isJsonText agrees with JSON.parse on 50,000 seeded mutants of JSON texts', () => {
    const seeds = [
      '{"a":1}',
      '[1,2,{"b":[true,false,null]}]',
      '"x\\u00e9\\n"',
      '-0.5e+10',
      '{}',
      '[]',
      ' {"a" : [ 1 , -2.5E3 ] } ',
      '{"type":"turn","id":3,"content":"héllo \\"q\\" 😀"}',
      '0',
      '"\\ud800"',
    ];
    const alphabet = '{}[]":,.-+eE0123456789 \t\n\r\\/ubfnrtaxtruefalsnl\u0001é';
    let seed = 1;
    const random = (k: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % k;
    };
    for (let t = 0; t < 50_000; t++) {
      let text = seeds[random(seeds.length)];
      for (let k = 1 + random(3); k > 0; k--) {
        const at = random(text.length + 1);
        const ch = alphabet[random(alphabet.length)];
        const op = random(3);
        text =
          op === 0
            ? text.slice(0, at) + ch + text.slice(at)
            : op === 1
              ? text.slice(0, at) + text.slice(at + 1)
              : text.slice(0, at) + ch + text.slice(at + 1);
      }
      let parsed = true;
      try {
        JSON.parse(text);
      } catch {
        parsed = false;
      }
      assert.equal(isJsonText(text), parsed, JSON.stringify(text));
    }
    assert.equal(isJsonText(`${'['.repeat(5000)}${']'.repeat(5000)}`), true);
    assert.equal(isJsonText(`${'['.repeat(5000)}${']'.repeat(4999)}`), false);
  });

  it('lets everything through until 1,000 lines cannot be records, then only what can be', () => {
    const gate = new RecordGate();
    for (let i = 0; i < 999; i++) assert.equal(gate.admits(raw(`junk ${i}`)), true);
    assert.equal(gate.closed, false);
    assert.equal(gate.admits(raw('junk')), true);
    assert.equal(gate.closed, true);
    assert.equal(gate.admits(raw('junk')), false);
    assert.equal(gate.admits(raw('{"junk": 1 1}')), false);
    assert.equal(gate.admits(raw('{"type":"user"}')), true);
    assert.equal(gate.admits(raw('   ')), true);
  });

  it('notices junk shaped like records by a sample, so a file of it is bounded too', async function () {
    this.timeout(20_000);
    const dir = mkdtempSync(join(tmpdir(), 'cl-gate-'));
    try {
      const session = [
        { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'Fix ledger.ts' } },
        {
          type: 'assistant',
          uuid: 'a1',
          parentUuid: 'u1',
          sessionId: 's',
          message: { id: 'm', role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
        },
      ].map((r) => JSON.stringify(r));
      const junk = Array.from({ length: 200_000 }, (_, k) => `{"junk": ${k} ${k}}`);
      const path = join(dir, 's.jsonl');
      writeFileSync(path, `${[...session, ...junk].join('\n')}\n`);
      const file = await TranscriptFile.open(path);
      const { problems, turns } = file.transcript;
      assert.equal(file.format, 'claude-code');
      assert.equal(turns.length, 2);
      assert.ok(problems.length <= 1001, `${problems.length} problems`);
      assert.equal(problemCount(problems), 200_000);
      assert.match(problems[problems.length - 1].message, /^…and 199,000 more unreadable or unusable lines on lines 1,003–200,002/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
