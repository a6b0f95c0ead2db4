// Tests for TranscriptFile on real files in a temp folder: detection, unusable inputs, gzip, an
// incomplete last line, appends read incrementally (same Turn objects kept), rewrites, read-only access, and the
// checkpoints given as the first read passes them (onSettledCheckpoints).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { TranscriptFile, UnusableTranscriptError } from '../../../src/node/transcriptFile';
import { claudeCodeCompaction, claudeCodePrompt } from '../formats/claudeCodeRecords';
import { fixtureSeeds } from '../fuzz/seeds';

const turn = (id: number) => JSON.stringify({ type: 'turn', id, role: 'user', content: `turn ${id}` });
const checkpoint = (to: number) =>
  JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary: 's', summary_budget: 10, covered: { from: 0, to } });

describe('TranscriptFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, data: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, data);
    return path;
  };

  async function unusable(path: string, pattern: RegExp) {
    await assert.rejects(TranscriptFile.open(path), (error: unknown) => {
      assert.ok(error instanceof UnusableTranscriptError);
      assert.match(error.message, pattern);
      return true;
    });
  }

  it('refuses what cannot be used, saying why', async () => {
    await unusable(join(dir, 'missing.jsonl'), /no such file/);
    await unusable(write('empty.jsonl', ''), /is empty/);
    await unusable(write('binary.jsonl', Buffer.from([0x00, 0x01, 0xff, 0x00, 0x0a])), /binary data/);
    await unusable(
      write('other.json', '{"name":"x","version":"1"}\n'),
      /not a transcript I know: none of the 1 JSON record in its first 1 line belongs to a format I read \(8 tried\)\. If it is one of them, name it with --format\./,
    );
    await assert.rejects(TranscriptFile.open(join(dir, 'other.json')), (error: UnusableTranscriptError) => {
      assert.equal(error.details.length, 8, 'one line per format tried');
      assert.match(error.details[0], /^canonical: needs a record with "type": "turn" or "checkpoint"$/);
      return true;
    });
    await unusable(write('bad.jsonl', '{"type":"turn"}\n'), /no usable records.*line 1/);
  });

  it("names the session's transcript when given a Claude Code sub-agent's own run", async () => {
    const sidechain = (uuid: string) =>
      `${JSON.stringify({ type: 'user', isSidechain: true, sessionId: 'sess-1', uuid, message: { role: 'user', content: 'Summarise.' } })}\n`;
    mkdirSync(join(dir, 'sess-1', 'subagents'), { recursive: true });
    const summariser = write(join('sess-1', 'subagents', 'agent-acompact-ab12.jsonl'), sidechain('u1'));
    await unusable(
      summariser,
      /has no usable records \(read as claude-code\)\. It is the summariser's own run for a compaction of Claude Code session sess-1, which Compaction Lens reads beside that session's transcript: check the session's transcript instead \(.*sess-1\.jsonl, not found\)\.$/,
    );
    const session = write('sess-1.jsonl.gz', gzipSync(sidechain('u0')));
    await unusable(summariser, new RegExp(`: check ${session.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} instead\\.$`));
    const task = write(join('sess-1', 'subagents', 'agent-a9f3.jsonl'), sidechain('u2'));
    await unusable(
      task,
      /It is a sub-agent's own run within Claude Code session sess-1: its records are the sub-agent's, not the session's turns: check .*sess-1\.jsonl\.gz instead\.$/,
    );
    // The same records anywhere else: no hint.
    await assert.rejects(TranscriptFile.open(write('agent-acompact-cd34.jsonl', sidechain('u3'))), (error: Error) => {
      assert.match(error.message, /has no usable records \(read as claude-code\)\.$/);
      return true;
    });
  });

  it('reads a gzip-compressed transcript', async () => {
    const path = write('t.jsonl.gz', gzipSync(`${turn(0)}\n${turn(1)}\n${checkpoint(1)}\n`));
    const file = await TranscriptFile.open(path);
    assert.equal(file.format, 'canonical');
    assert.equal(file.transcript.turns.length, 2);
    assert.equal(file.transcript.checkpoints.length, 1);
  });

  it('reads a large gzip transcript as its text, deflated or stored (its head inflated from its first bytes or, stored, from the file)', async () => {
    // 600 turns of about 1 KB: 600 KB of text, past the 256 KiB head either way.
    const pad = 'x'.repeat(1000);
    const lines = Array.from({ length: 600 }, (_, id) => JSON.stringify({ type: 'turn', id, role: 'user', content: `turn ${id} ${pad}` }));
    const text = `${lines.join('\n')}\n${checkpoint(599)}\n`;
    const plain = await TranscriptFile.open(write('t.jsonl', text));
    for (const level of [0, 1, 9]) {
      const file = await TranscriptFile.open(write(`t${level}.jsonl.gz`, gzipSync(text, { level })));
      assert.equal(file.format, 'canonical');
      assert.deepEqual(file.transcript.turns, plain.transcript.turns, `level ${level}`);
      assert.equal(file.transcript.checkpoints.length, 1);
    }
  });

  it('a first record past the 256 KiB head (a large paste) is read on to its end and parsed, plain or compressed', async () => {
    // Its keys alone ("role", "content") would say message array; its "type": "turn" says canonical.
    const paste = Array.from({ length: 60_000 }, (_, k) => `w${k}`).join(' ');
    const first = JSON.stringify({ type: 'turn', id: 0, role: 'user', content: `Fix this log:\n${paste}` });
    assert.ok(first.length > 400_000);
    const text = `${first}\n${turn(1)}\n${checkpoint(1)}\n`;
    for (const [name, data] of [
      ['big-first.jsonl', text],
      ['big-first.jsonl.gz', gzipSync(text)],
    ] as const) {
      const file = await TranscriptFile.open(write(name, data));
      assert.equal(file.format, 'canonical', name);
      assert.equal(file.transcript.turns.length, 2, name);
      assert.equal(file.transcript.checkpoints.length, 1, name);
    }
  });

  it('leaves an incomplete last line for later and reads it once it is complete', async () => {
    const path = write('t.jsonl', `${turn(0)}\n{"type":"turn","id":1,`);
    const file = await TranscriptFile.open(path);
    assert.equal(file.transcript.turns.length, 1);
    assert.equal(file.transcript.problems.length, 1);
    assert.match(file.transcript.problems[0].message, /line 2 is incomplete/);
    appendFileSync(path, '"role":"user","content":"x"}\n');
    assert.equal(await file.refresh(), 'appended');
    assert.deepEqual(
      file.transcript.turns.map((t) => t.id),
      [0, 1],
    );
    assert.equal(file.transcript.turns[1].span.startLine, 2);
    assert.deepEqual(file.transcript.problems, []);
  });

  it('a file read once lets its reader go: a refresh reads it anew, to the same transcript', async () => {
    const path = write('t.jsonl', `${turn(0)}\n${turn(1)}\n`);
    const file = await TranscriptFile.open(path, { readOnce: true });
    assert.deepEqual(
      file.transcript.turns.map((t) => t.id),
      [0, 1],
    );
    assert.equal((file as unknown as { reader: unknown }).reader, undefined, 'no reader kept');
    assert.equal(await file.refresh(), 'unchanged');
    appendFileSync(path, `${turn(2)}\n${checkpoint(2)}\n`);
    assert.equal(await file.refresh(), 'reloaded');
    const kept = await TranscriptFile.open(path);
    assert.deepEqual(file.transcript, kept.transcript);
  });

  it('reads only the appended lines and keeps the turns it already had', async () => {
    const path = write('t.jsonl', `${turn(0)}\n${turn(1)}\n`);
    const file = await TranscriptFile.open(path);
    const first = file.transcript.turns[0];
    assert.equal(await file.refresh(), 'unchanged');
    appendFileSync(path, `${turn(2)}\n${checkpoint(2)}\n`);
    assert.equal(await file.refresh(), 'appended');
    assert.equal(file.transcript.turns[0], first, 'the same Turn object, so token counts stay cached');
    assert.equal(file.transcript.turns[2].span.startLine, 3);
    assert.equal(file.transcript.turns[2].span.startOffset, statSync(path).size - checkpoint(2).length - 1 - turn(2).length - 1);
    assert.deepEqual(file.transcript.checkpoints[0].claimedIds, [0, 1, 2]);
  });

  it('continues after a complete last line that had no newline', async () => {
    const path = write('t.jsonl', `${turn(0)}\n${turn(1)}`);
    const file = await TranscriptFile.open(path);
    assert.equal(file.transcript.turns.length, 2);
    appendFileSync(path, `\n${turn(2)}\n`);
    assert.equal(await file.refresh(), 'appended');
    assert.deepEqual(
      file.transcript.turns.map((t) => [t.id, t.span.startLine]),
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    );
  });

  it('reloads from the start when the file shrinks or is replaced', async () => {
    const path = write('t.jsonl', `${turn(0)}\n${turn(1)}\n${turn(2)}\n`);
    const file = await TranscriptFile.open(path);
    writeFileSync(path, `${turn(5)}\n`);
    assert.equal(await file.refresh(), 'reloaded');
    assert.deepEqual(
      file.transcript.turns.map((t) => t.id),
      [5],
    );
  });

  it('reads anew a file rewritten in place and left longer, rather than taking it for an append', async () => {
    const path = write('t.jsonl', `${turn(0)}\n${turn(1)}\n${turn(2)}\n`);
    const file = await TranscriptFile.open(path);
    const inode = statSync(path).ino;
    // Truncated and written again (as cp or an editor's save does): the same inode, a larger size.
    writeFileSync(path, [1, 2, 3, 4, 5].map((id) => `${turn(id)}\n`).join(''));
    assert.equal(statSync(path).ino, inode);
    assert.equal(await file.refresh(), 'reloaded');
    assert.deepEqual(
      file.transcript.turns.map((t) => t.id),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(file.transcript.problems, []);
    // Appends after the reload are read as appends again.
    appendFileSync(path, `${turn(6)}\n`);
    assert.equal(await file.refresh(), 'appended');
    assert.equal(file.transcript.turns.at(-1)?.id, 6);
  });

  it('reads anew a file rewritten to the same size, and leaves a file that was only touched as it was', async () => {
    const path = write('t.jsonl', `${turn(0)}\n${turn(1)}\n`);
    const file = await TranscriptFile.open(path);
    const first = file.transcript.turns[0];
    const later = (seconds: number) => new Date(statSync(path).mtimeMs + seconds * 1000);
    utimesSync(path, later(5), later(5));
    assert.equal(await file.refresh(), 'unchanged');
    assert.equal(file.transcript.turns[0], first);
    writeFileSync(path, `${turn(0)}\n${turn(7)}\n`);
    utimesSync(path, later(5), later(5));
    assert.equal(await file.refresh(), 'reloaded');
    assert.deepEqual(
      file.transcript.turns.map((t) => t.id),
      [0, 7],
    );
  });

  it('sees an edit of the same size anywhere by the digest of the bytes read; after a read that left its last line, by the seam alone', async () => {
    const lines = Array.from({ length: 200 }, (_, id) => `${turn(id)}\n`).join('');
    const path = write('t.jsonl', lines);
    const file = await TranscriptFile.open(path);
    let stamp = statSync(path).mtimeMs;
    const rewrite = (text: string) => {
      writeFileSync(path, text);
      stamp += 5000;
      utimesSync(path, new Date(stamp), new Date(stamp));
    };
    rewrite(lines);
    assert.equal(await file.refresh(), 'unchanged', 'the same bytes written again');
    rewrite(lines.replace('"turn 3"', '"TURN 3"'));
    assert.equal(await file.refresh(), 'reloaded', 'the whole prefix is compared, not only its last 4 KB');
    assert.equal(file.transcript.turns[3].text, 'TURN 3');

    // A read that leaves an unfinished last line for the next digests bytes past where the reader stopped: from
    // then on until the file is read from its start, only the seam is compared, and an edit far from it is missed.
    const grown = `${lines.replace('"turn 3"', '"TURN 3"')}${turn(200).slice(0, 10)}`;
    rewrite(grown);
    assert.equal(await file.refresh(), 'appended');
    rewrite(grown.replace('"turn 4"', '"TURN 4"'));
    assert.equal(await file.refresh(), 'unchanged', 'only the seam is known');
    assert.equal(file.transcript.turns[4].text, 'turn 4');
    assert.equal(await file.refresh(undefined, true), 'reloaded');
    assert.equal(file.transcript.turns[4].text, 'TURN 4');
  });

  it('reads on from where it stopped when a file written anew begins with the bytes read: renamed over, saved, rewritten', async () => {
    // Over 1 MB, so the digest has whole blocks and one under way.
    const lines = Array.from({ length: 20000 }, (_, id) => `${turn(id)}\n`).join('');
    assert.ok(lines.length > 1024 * 1024);
    const path = write('t.jsonl', lines);
    const file = await TranscriptFile.open(path);
    const renamedOver = (text: string) => {
      const next = write('next.jsonl', text);
      renameSync(next, path);
    };
    const same = async () => assert.deepEqual(file.transcript, (await TranscriptFile.open(path)).transcript);

    renamedOver(`${lines}${turn(20000)}\n${turn(20001)}\n`);
    assert.equal(await file.refresh(), 'appended', 'a new file (another inode) that begins with the old one');
    await same();
    renamedOver(readFileSync(path, 'utf8'));
    assert.equal(await file.refresh(), 'unchanged', 'the same bytes, another inode');
    appendFileSync(path, `${turn(20002)}\n`);
    assert.equal(await file.refresh(), 'appended', 'appends go on after it');
    appendFileSync(path, `${turn(20003)}\n`);
    assert.equal(await file.refresh(undefined, true), 'appended', 'saved from an editor with a line more');
    assert.equal(await file.refresh(undefined, true), 'unchanged', 'saved from an editor as it was');
    await same();

    // A last line without its newline, then a file that goes on after it with one.
    renamedOver(`${readFileSync(path, 'utf8')}${turn(20004)}`);
    assert.equal(await file.refresh(), 'appended');
    renamedOver(`${readFileSync(path, 'utf8')}\n${turn(20005)}\n`);
    assert.equal(await file.refresh(), 'appended');
    await same();
    assert.deepEqual(
      file.transcript.turns.slice(-3).map((t) => t.id),
      [20003, 20004, 20005],
    );
    // …and one where the line without its newline goes on without one: read from the start.
    renamedOver(`${readFileSync(path, 'utf8')}${turn(20006)}`);
    assert.equal(await file.refresh(), 'appended');
    renamedOver(`${readFileSync(path, 'utf8')} `);
    assert.equal(await file.refresh(), 'reloaded');
    await same();

    // A change anywhere in what was read, at the start, the middle or in the last block: read from the start.
    for (const id of [1, 10000, 20004]) {
      renamedOver(readFileSync(path, 'utf8').replace(`"turn ${id}"`, `"TURN ${id}"`));
      assert.equal(await file.refresh(), 'reloaded', `turn ${id} changed`);
      await same();
    }
    assert.deepEqual(file.transcript.problems, []);
  });

  it('keeps taking appends for appends: small ones, past a read chunk, and an unfinished line completed', async () => {
    // Over 1 MB, so the first read's seam comes from the end of its last chunks.
    const lines = Array.from({ length: 20000 }, (_, id) => `${turn(id)}\n`).join('');
    assert.ok(lines.length > 1024 * 1024);
    const path = write('t.jsonl', lines);
    const file = await TranscriptFile.open(path);
    for (let id = 20000; id < 20005; id++) {
      appendFileSync(path, `${turn(id)}\n`);
      assert.equal(await file.refresh(), 'appended');
    }
    const unfinished = turn(20005);
    appendFileSync(path, unfinished.slice(0, 20));
    assert.equal(await file.refresh(), 'appended');
    assert.equal(file.transcript.turns.length, 20005);
    appendFileSync(path, `${unfinished.slice(20)}\n${turn(20006)}`);
    assert.equal(await file.refresh(), 'appended');
    appendFileSync(path, `\n${turn(20007)}\n`);
    assert.equal(await file.refresh(), 'appended');
    // The newline that ended the open line is part of the seam now.
    appendFileSync(path, `${turn(20008)}\n`);
    assert.equal(await file.refresh(), 'appended');
    assert.deepEqual(
      file.transcript.turns.slice(-4).map((t) => t.id),
      [20005, 20006, 20007, 20008],
    );
    assert.deepEqual(file.transcript.problems, []);
  });

  it('reads anew, to the right turns, a grown file whose last line read was left unfinished past the seam it keeps', async () => {
    const path = write('t.jsonl', `${turn(0)}\n{"type":"turn","id":1,"role":"user","content":"${'x'.repeat(2600 * 1024)}`);
    const file = await TranscriptFile.open(path);
    assert.equal(file.transcript.turns.length, 1);
    appendFileSync(path, `"}\n${turn(2)}\n`);
    assert.equal(await file.refresh(), 'reloaded');
    assert.deepEqual(
      file.transcript.turns.map((t) => t.id),
      [0, 1, 2],
    );
  });

  it('never writes to the transcript', async () => {
    const path = write('t.jsonl', `${turn(0)}\n{bad\n${checkpoint(0)}\n`);
    const before = createHash('sha256').update(readFileSync(path)).digest('hex');
    const mtime = statSync(path).mtimeMs;
    const file = await TranscriptFile.open(path);
    await file.refresh();
    assert.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), before);
    assert.equal(statSync(path).mtimeMs, mtime);
    assert.equal(file.transcript.problems[0].line, 2);
  });
});

describe('TranscriptFile: checkpoints settled while it is read (onSettledCheckpoints)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cl-settled-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const prompt = (n: number) => claudeCodePrompt(`u${n}`, n > 1 ? `u${n - 1}` : null, `step ${n}`);
  const compaction = (k: number, after: number) => claudeCodeCompaction(k, `u${after}`, `summary ${k}`);
  const prompts = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => prompt(from + i));

  async function openWatching(lines: string[]) {
    const path = join(dir, 'session.jsonl');
    writeFileSync(path, lines.join('\n') + '\n');
    const given: { checkpoints: number; turns: number }[] = [];
    const file = await TranscriptFile.open(path, {
      onSettledCheckpoints: (t) => given.push({ checkpoints: t.checkpoints.length, turns: t.turns.length }),
    });
    return { path, file, given };
  }

  it('gives a checkpoint once its summary is read, with the turns read so far, before the read ends', async () => {
    const { file, given } = await openWatching([...prompts(1, 3), ...compaction(1, 3), ...prompts(4, 40)]);
    // The summary is line 5; the next line read is a new turn, so three or four turns are read by then.
    assert.equal(given.length, 1);
    assert.equal(given[0].checkpoints, 1);
    assert.ok(given[0].turns <= 4 && given[0].turns < file.transcript.turns.length, JSON.stringify(given));
  });

  it('does not give a boundary still waiting for its summary', async () => {
    const { file, given } = await openWatching([...prompts(1, 3), compaction(1, 3)[0], ...prompts(4, 40)]);
    assert.equal(file.transcript.checkpoints.length, 1);
    assert.deepEqual(given, []);
  });

  it('gives the next checkpoints only once the lines read have doubled', async () => {
    // Settled at lines 5 and 7: the second waits until line 10 (twice 5).
    const near = await openWatching([...prompts(1, 3), ...compaction(1, 3), prompt(4), ...compaction(2, 4), ...prompts(5, 40)]);
    assert.deepEqual(
      near.given.map((g) => g.checkpoints),
      [1, 2],
    );
    assert.ok(near.given[1].turns >= 6, JSON.stringify(near.given)); // prompts 1–4, then 5 and 6 by line 10
    rmSync(near.path);
    const far = await openWatching([...prompts(1, 3), ...compaction(1, 3), ...prompts(4, 20), ...compaction(2, 20), ...prompts(21, 40)]);
    assert.deepEqual(
      far.given.map((g) => g.checkpoints),
      [1, 2],
    );
    assert.equal(far.given[1].turns, 20);
  });

  it('gives a canonical checkpoint as its line is read', async () => {
    const path = join(dir, 'canonical.jsonl');
    writeFileSync(path, [turn(0), turn(1), checkpoint(1), turn(2), turn(3), turn(4), turn(5)].join('\n') + '\n');
    const given: { checkpoints: number; turns: number }[] = [];
    await TranscriptFile.open(path, {
      onSettledCheckpoints: (t) => given.push({ checkpoints: t.checkpoints.length, turns: t.turns.length }),
    });
    assert.deepEqual(given, [{ checkpoints: 1, turns: 2 }]);
  });

  /** Opens a fuzz fixture's file: how many checkpoints it has read, and how many were given at each call. */
  async function openSeed(name: string): Promise<{ read: number; given: number[] }> {
    const seed = fixtureSeeds().find((s) => s.name === name)!;
    const path = join(dir, seed.fileName);
    writeFileSync(path, seed.bytes);
    const given: number[] = [];
    const file = await TranscriptFile.open(path, { onSettledCheckpoints: (t) => given.push(t.checkpoints.length) });
    return { read: file.transcript.checkpoints.length, given };
  }

  it('gives a Codex compaction as its line is read', async () => {
    assert.deepEqual(await openSeed('fixture:codex-local'), { read: 1, given: [1] });
  });

  it('gives an OpenHands condensation as its element of an event array is read', async () => {
    assert.deepEqual(await openSeed('fixture:openhands-range.json'), { read: 1, given: [1] });
  });

  it("is not called for a reader that cannot tell (an OpenHands run's `history` in an object), nor when an append is read", async () => {
    const openHands = fixtureSeeds().find((seed) => seed.name === 'fixture:openhands-range.json')!;
    const run = join(dir, 'run.json');
    writeFileSync(run, JSON.stringify({ instance_id: 'x', history: JSON.parse(openHands.bytes.toString('utf8')) }, null, 2));
    let calls = 0;
    const read = await TranscriptFile.open(run, { format: 'openhands', onSettledCheckpoints: () => calls++ });
    assert.equal(read.transcript.checkpoints.length, 1);
    assert.equal(calls, 0);
    const { path, file, given } = await openWatching(prompts(1, 3));
    appendFileSync(path, [...compaction(1, 3), ...prompts(4, 10)].join('\n') + '\n');
    assert.equal(await file.refresh(), 'appended');
    assert.equal(file.transcript.checkpoints.length, 1);
    assert.deepEqual(given, []);
  });
});
