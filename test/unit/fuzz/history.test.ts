// Property tests of stable history (issue #10): a checkpoint's result depends only on the lines up to its last
// record. For generated canonical and Claude Code transcripts, the analysis of the file up to (and including) its
// checkpoints is compared with the analysis of the same file with lines appended: every checkpoint keeps its turn
// statuses, its verdict and its safe pointer set. Appended lines are turns and records that refer back (answering
// claimed calls, reusing ids, claiming earlier turns again), new checkpoints, copies of earlier lines and junk.
// And what the verdicts said while a file is read rest on: the checkpoints a reader of the file cut anywhere says
// are settled (TranscriptReader.settledCheckpoints) are the whole file's, with the turns before them.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/core/analyze';
import type { Analysis, FormatId } from '../../../src/core/model';
import { createReader } from '../../../src/formats/readers';
import { cheapTokens, splitRawLines } from './fuzzCore';

function analyse(format: FormatId, text: string): Analysis {
  const reader = createReader(format, { fileName: 'history.jsonl', defaultBudget: format === 'claude-code' ? 20000 : undefined });
  for (const line of splitRawLines(Buffer.from(text, 'utf8'))) reader.push(line);
  return analyze(reader.finish(), { countTokens: cheapTokens });
}

/** Every checkpoint of `prefix` is found in `whole` (same id and line) with the same statuses, verdict and safe set. */
function assertHistoryKept(format: FormatId, prefix: string, appended: readonly string[]): void {
  const before = analyse(format, prefix);
  const after = analyse(format, prefix + appended.map((line) => `${line}\n`).join(''));
  for (const cp of before.checkpoints) {
    const same = after.checkpoints.find((c) => c.summaryId === cp.summaryId && c.line === cp.line);
    assert.ok(same, `checkpoint ${cp.summaryId} (line ${cp.line}) vanished once lines were appended`);
    assert.deepEqual(
      same.turns.map((t) => [t.id, t.status]),
      cp.turns.map((t) => [t.id, t.status]),
      `statuses of ${cp.summaryId} changed`,
    );
    assert.equal(same.verdict, cp.verdict, `verdict of ${cp.summaryId} changed`);
    assert.deepEqual(same.safeCovered, cp.safeCovered, `safe pointer set of ${cp.summaryId} changed`);
  }
}

const FRAGMENTS = [
  'Fixed ERR_LEDGER_4107 in src/core/ledger.ts',
  'ok, go ahead',
  'renamed parseEntry to readEntry',
  'bumped lodash to v4.17.21',
  'see "reconciliation mismatch"',
  'ran `npm test`: 49 tests pass',
  'ticket JIRA-881 closed',
  'PORT=8080 in .env',
  'thanks!',
  'The file src/core/ledger.ts has been updated successfully.',
  'Checked src/invoice/handler.ts: INVOICE_12 needs a guard.',
  'git commit -m "ledger: retry post"',
  'https://example.com/runbook#ledger',
  'sha a1b2c3d4',
  'Postgres 16 and Redis 7',
  '[tool call Read] {"file_path":"src/core/ledger.ts"}',
  '[tool call Bash] {"command":"npm test"}',
  '[tool call Grep] {"pattern":"ERR_1"}',
  '[tool call Edit] {"file_path":"src/a.ts","new_string":"retryPost()"}',
];
const fragment = fc.constantFrom(...FRAGMENTS);
const text = fc.array(fragment, { minLength: 0, maxLength: 3 }).map((parts) => parts.join(' '));
/** `arb` one time in `every` (undefined otherwise). */
const sometimes = <T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.json({ maxDepth: 2 }),
  fc.constantFrom('', '{', '[1,2]', 'null', '{"type":"turn"}', '{"type":"checkpoint"}'),
);

// ---------------------------------------------------------------------------------------------------------------
// Canonical

interface CanonicalSpec {
  turns: { id: string | number; role: string; content: string; tokens?: number; anchor?: string; answers?: string | number }[];
  lines: string[];
}

const canonicalTurnArb = fc.record({
  stringId: fc.boolean(),
  role: fc.constantFrom('user', 'assistant', 'tool', 'system'),
  content: text,
  tokens: sometimes(fc.integer({ min: 0, max: 400 }), 2),
  anchor: sometimes(fc.constantFrom('ERR_1', 'ledger', 'Ω-7', 'x', 'fact 9', ''), 5),
  answersBack: sometimes(fc.nat(20), 3),
});
const canonicalCheckpointArb = fc.record({
  from: fc.nat(40),
  to: fc.nat(40),
  list: fc.boolean(),
  summary: fc
    .array(fc.oneof(fragment, fc.constantFrom('ERR_1', 'ledger', 'x', 'The next step is')), { maxLength: 5 })
    .map((p) => p.join('. ')),
  budget: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 300 }) }),
  report: sometimes(fc.array(fc.nat(40), { maxLength: 6 }), 4),
});

/** A canonical file: turns with checkpoints among them (each claiming a range or list of earlier ids). */
const canonicalArb = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: canonicalTurnArb.map((t) => ({ kind: 'turn' as const, t })) },
      { weight: 1, arbitrary: canonicalCheckpointArb.map((c) => ({ kind: 'checkpoint' as const, c })) },
    ),
    { minLength: 1, maxLength: 24 },
  )
  .map((items): CanonicalSpec => {
    const spec: CanonicalSpec = { turns: [], lines: [] };
    let checkpoints = 0;
    for (const item of items) {
      if (item.kind === 'turn') {
        const i = spec.turns.length;
        const t = item.t;
        const turn: CanonicalSpec['turns'][number] = { id: t.stringId ? `t-${i}` : i, role: t.role, content: t.content };
        if (t.tokens !== undefined) turn.tokens = t.tokens;
        if (t.anchor !== undefined) turn.anchor = t.anchor;
        if (t.answersBack !== undefined && i > 0) turn.answers = spec.turns[Math.max(0, i - 1 - (t.answersBack % i))].id;
        spec.turns.push(turn);
        spec.lines.push(JSON.stringify({ type: 'turn', ...turn }));
      } else if (spec.turns.length > 0) {
        const ids = spec.turns.map((t) => t.id);
        const c = item.c;
        const a = c.from % ids.length;
        const b = c.to % ids.length;
        const covered = c.list ? ids.filter((_, k) => (k * 7 + c.from) % 3 !== 0) : { from: ids[Math.min(a, b)], to: ids[Math.max(a, b)] };
        const record: Record<string, unknown> = { type: 'checkpoint', summary_id: `S${++checkpoints}`, summary: c.summary, covered };
        if (c.budget !== undefined) record.summary_budget = c.budget;
        if (c.report !== undefined) record.reported_ids = c.report.map((k) => ids[k % ids.length]);
        spec.lines.push(JSON.stringify(record));
      }
    }
    return spec;
  });

/** Lines appended after the file: new turns (fresh or reused ids, answering earlier turns), checkpoints, copies, junk. */
function canonicalAppendArb(spec: CanonicalSpec): fc.Arbitrary<string[]> {
  const ids = spec.turns.map((t) => t.id);
  const anyId =
    ids.length > 0
      ? fc.oneof(
          fc.constantFrom(...ids),
          fc.nat(60),
          fc.nat(60).map((k) => `t-${k}`),
        )
      : fc.nat(60);
  const turn = fc
    .record({
      id: anyId,
      role: fc.constantFrom('user', 'assistant', 'tool'),
      content: text,
      tokens: sometimes(fc.nat(500), 2),
      anchor: sometimes(fc.constantFrom('ERR_1', 'ledger', 'x'), 5),
      answers: sometimes(anyId, 2),
    })
    .map((t) => JSON.stringify({ type: 'turn', ...Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)) }));
  const checkpoint = fc
    .record({ from: anyId, to: anyId, summary: text, budget: fc.integer({ min: 1, max: 100 }), id: fc.constantFrom('S1', 'S2', 'S9') })
    .map((c) =>
      JSON.stringify({
        type: 'checkpoint',
        summary_id: c.id,
        summary: c.summary,
        summary_budget: c.budget,
        covered: { from: c.from, to: c.to },
      }),
    );
  const copy = spec.lines.length > 0 ? fc.constantFrom(...spec.lines) : junk;
  return fc.array(
    fc.oneof(
      { weight: 4, arbitrary: turn },
      { weight: 1, arbitrary: checkpoint },
      { weight: 1, arbitrary: copy },
      { weight: 1, arbitrary: junk },
    ),
    { minLength: 1, maxLength: 12 },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Claude Code

interface ClaudeSpec {
  lines: string[];
  uuids: string[];
  messageIds: string[];
  toolUseIds: string[];
}

/**
 * The checkpoints the reader of `prefix` says are settled (TranscriptReader.settledCheckpoints) are those of the
 * whole file, field by field, and so are the turns before each one's turnsBefore: what the verdicts said while a
 * file is read rest on. The whole file settles at least as many.
 */
function assertSettledKept(format: FormatId, prefix: string, whole: string): void {
  const read = (text: string) => {
    const reader = createReader(format, { fileName: 'history.jsonl', defaultBudget: 20000 });
    for (const line of splitRawLines(Buffer.from(text, 'utf8'))) reader.push(line);
    const settled = reader.settledCheckpoints?.() ?? 0;
    return { settled, transcript: reader.finish() };
  };
  const before = read(prefix);
  const after = read(whole);
  assert.ok(after.settled >= before.settled, `${before.settled} settled in the prefix, ${after.settled} in the whole file`);
  for (let k = 0; k < before.settled; k++) {
    const cp = before.transcript.checkpoints[k];
    assert.deepStrictEqual(after.transcript.checkpoints[k], cp, `settled checkpoint ${k} changed`);
    assert.deepStrictEqual(
      after.transcript.turns.slice(0, cp.turnsBefore),
      before.transcript.turns.slice(0, cp.turnsBefore),
      `the turns before settled checkpoint ${k} changed`,
    );
  }
}

const SESSION = 'sess-main';
const OPENING = 'This session is being continued from a previous conversation that ran out of context.';

type ClaudeStep =
  | { kind: 'prompt'; text: string }
  | { kind: 'reply'; text: string; parts: number; tool: boolean; out: number }
  | { kind: 'result'; text: string; error: boolean }
  | { kind: 'noise' }
  | { kind: 'compact'; summary: string; preTokens: number; fromLast: boolean };

const claudeStepArb: fc.Arbitrary<ClaudeStep> = fc.oneof(
  { weight: 3, arbitrary: text.map((t) => ({ kind: 'prompt' as const, text: t })) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      text,
      parts: fc.integer({ min: 1, max: 3 }),
      tool: fc.boolean(),
      out: fc.nat(3000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('result' as const), text, error: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'noise' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('compact' as const),
      summary: fc.array(fragment, { maxLength: 4 }).map((p) => p.join('\n')),
      preTokens: fc.nat(200000),
      fromLast: fc.boolean(),
    }),
  },
);

/** A Claude Code session: prompts, replies (some over several records), tool results, noise and compactions. */
const claudeArb = fc.array(claudeStepArb, { minLength: 1, maxLength: 24 }).map((steps): ClaudeSpec => {
  const spec: ClaudeSpec = { lines: [], uuids: [], messageIds: [], toolUseIds: [] };
  let parent: string | null = null;
  let n = 0;
  const push = (record: Record<string, unknown>) => {
    spec.lines.push(JSON.stringify(record));
    if (typeof record.uuid === 'string') {
      spec.uuids.push(record.uuid);
      parent = record.uuid;
    }
  };
  for (const step of steps) {
    n++;
    switch (step.kind) {
      case 'prompt':
        push({
          type: 'user',
          uuid: `u${n}`,
          parentUuid: parent,
          sessionId: SESSION,
          message: { role: 'user', content: step.text || 'go on' },
        });
        break;
      case 'reply': {
        const id = `msg_${n}`;
        spec.messageIds.push(id);
        for (let p = 0; p < step.parts; p++) {
          const last = p === step.parts - 1;
          const content =
            last && step.tool
              ? [{ type: 'tool_use', id: `tu${n}`, name: 'Bash', input: { command: step.text || 'ls' } }]
              : [{ type: 'text', text: step.text || 'ok' }];
          if (last && step.tool) spec.toolUseIds.push(`tu${n}`);
          push({
            type: 'assistant',
            uuid: `a${n}.${p}`,
            parentUuid: parent,
            sessionId: SESSION,
            message: { id, role: 'assistant', content, usage: { output_tokens: last ? step.out : 1 } },
          });
        }
        break;
      }
      case 'result': {
        const call = spec.toolUseIds[spec.toolUseIds.length - 1];
        if (call === undefined) break;
        push({
          type: 'user',
          uuid: `r${n}`,
          parentUuid: parent,
          sessionId: SESSION,
          message: {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: call, content: step.text || 'done', ...(step.error ? { is_error: true } : {}) }],
          },
        });
        break;
      }
      case 'noise':
        spec.lines.push(
          JSON.stringify({ type: 'progress', uuid: `p${n}`, parentUuid: parent, sessionId: SESSION, data: { type: 'hook_progress' } }),
        );
        break;
      case 'compact': {
        const logical = step.fromLast || spec.uuids.length === 0 ? parent : spec.uuids[(n * 7) % spec.uuids.length];
        push({
          type: 'system',
          subtype: 'compact_boundary',
          uuid: `b${n}`,
          parentUuid: null,
          logicalParentUuid: logical,
          sessionId: SESSION,
          compactMetadata: { trigger: 'auto', preTokens: step.preTokens },
        });
        push({
          type: 'user',
          uuid: `s${n}`,
          parentUuid: `b${n}`,
          sessionId: SESSION,
          isCompactSummary: true,
          isVisibleInTranscriptOnly: true,
          message: { role: 'user', content: `${OPENING}\n\n${step.summary}\nPlease continue the conversation from where we left off.` },
        });
        break;
      }
    }
  }
  return spec;
});

/**
 * Lines appended to a session. `hostile` false: what an agent writes next (fresh uuids and message ids, parents and
 * tool results pointing back, new compactions, noise, junk, same session). `hostile` true adds records reusing
 * earlier uuids and message ids, other sessions, and copies of earlier lines.
 */
function claudeAppendArb(spec: ClaudeSpec, hostile: boolean): fc.Arbitrary<string[]> {
  const back = spec.uuids.length > 0 ? fc.constantFrom(...spec.uuids) : fc.constant(null);
  const call = spec.toolUseIds.length > 0 ? fc.constantFrom(...spec.toolUseIds) : fc.constant('tu-none');
  const fresh = fc.nat(1_000_000).map((k) => `new-${k}`);
  const session = hostile ? fc.constantFrom(SESSION, SESSION, 'sess-other') : fc.constant(SESSION);
  const uuid = hostile && spec.uuids.length > 0 ? fc.oneof(fresh, fc.constantFrom(...spec.uuids)) : fresh;
  const messageId = hostile && spec.messageIds.length > 0 ? fc.oneof(fresh, fc.constantFrom(...spec.messageIds)) : fresh;
  const records: fc.Arbitrary<string>[] = [
    fc.record({ uuid, parent: back, text, session }).map((r) =>
      JSON.stringify({
        type: 'user',
        uuid: r.uuid,
        parentUuid: r.parent,
        sessionId: r.session,
        message: { role: 'user', content: r.text || 'next' },
      }),
    ),
    fc.record({ uuid, parent: back, id: messageId, text, out: fc.nat(5000), session }).map((r) =>
      JSON.stringify({
        type: 'assistant',
        uuid: r.uuid,
        parentUuid: r.parent,
        sessionId: r.session,
        message: { id: r.id, role: 'assistant', content: [{ type: 'text', text: r.text || 'ok' }], usage: { output_tokens: r.out } },
      }),
    ),
    fc.record({ uuid, parent: back, call, text, error: fc.boolean(), session }).map((r) =>
      JSON.stringify({
        type: 'user',
        uuid: r.uuid,
        parentUuid: r.parent,
        sessionId: r.session,
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: r.call, content: r.text || 'late result', is_error: r.error }],
        },
      }),
    ),
    fc.record({ uuid, logical: back, summary: text, session }).map((r) =>
      [
        JSON.stringify({
          type: 'system',
          subtype: 'compact_boundary',
          uuid: `${r.uuid}-b`,
          parentUuid: null,
          logicalParentUuid: r.logical,
          sessionId: r.session,
          compactMetadata: { trigger: 'manual', preTokens: 1000 },
        }),
        JSON.stringify({
          type: 'user',
          uuid: `${r.uuid}-s`,
          parentUuid: `${r.uuid}-b`,
          sessionId: r.session,
          isCompactSummary: true,
          message: { role: 'user', content: `${OPENING}\n\n${r.summary}` },
        }),
      ].join('\n'),
    ),
    fc
      .record({ uuid, parent: back })
      .map((r) =>
        JSON.stringify({ type: 'progress', uuid: r.uuid, parentUuid: r.parent, sessionId: SESSION, data: { type: 'hook_progress' } }),
      ),
    junk,
  ];
  if (hostile && spec.lines.length > 0) records.push(fc.constantFrom(...spec.lines));
  return fc.array(fc.oneof(...records), { minLength: 1, maxLength: 10 });
}

describe('stable history: appending lines never changes a checkpoint (property)', function () {
  this.timeout(120000);

  it('canonical: statuses, verdict and safe pointer set of every checkpoint survive any appended lines', () => {
    fc.assert(
      fc.property(
        canonicalArb.chain((spec) => fc.tuple(fc.constant(spec), canonicalAppendArb(spec))),
        ([spec, appended]) => assertHistoryKept('canonical', spec.lines.join('\n') + '\n', appended),
      ),
      { numRuns: 400 },
    );
  });

  it('canonical: a checkpoint the reader says is settled, cut anywhere, is as the whole file reads it, and so are the turns before it', () => {
    fc.assert(
      fc.property(
        canonicalArb.chain((spec) => fc.tuple(fc.constant(spec), canonicalAppendArb(spec), fc.nat(spec.lines.length))),
        ([spec, appended, cut]) => {
          const lines = [...spec.lines, ...appended];
          assertSettledKept('canonical', lines.slice(0, cut).join('\n') + '\n', lines.join('\n') + '\n');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('claude-code: … survive the records an agent appends (fresh uuids and message ids, one session)', () => {
    fc.assert(
      fc.property(
        claudeArb.chain((spec) => fc.tuple(fc.constant(spec), claudeAppendArb(spec, false))),
        ([spec, appended]) => assertHistoryKept('claude-code', spec.lines.join('\n') + '\n', appended),
      ),
      { numRuns: 300 },
    );
  });

  it('claude-code: a checkpoint the reader says is settled, cut anywhere, is as the whole file reads it, and so are the turns before it', () => {
    fc.assert(
      fc.property(
        claudeArb.chain((spec) => fc.tuple(fc.constant(spec), claudeAppendArb(spec, true), fc.nat(spec.lines.length))),
        ([spec, appended, cut]) => {
          const lines = [...spec.lines, ...appended];
          assertSettledKept('claude-code', lines.slice(0, cut).join('\n') + '\n', lines.join('\n') + '\n');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('claude-code: … survive any appended lines (reused uuids and message ids, other sessions, junk)', () => {
    fc.assert(
      fc.property(
        claudeArb.chain((spec) => fc.tuple(fc.constant(spec), claudeAppendArb(spec, true))),
        ([spec, appended]) => assertHistoryKept('claude-code', spec.lines.join('\n') + '\n', appended),
      ),
      { numRuns: 300 },
    );
  });
});
