// One appended turn for the append benchmarks (scripts/bench/measure.mjs append, scripts/bench/appendUi.mjs): the
// last record of a generated transcript, and a realistic next turn after it in the same shape (canonical or Claude
// Code), with a new id.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** The last complete JSON record of `path` (read from its last 256 KB). */
export function lastRecord(path) {
  const size = statSync(path).size;
  const length = Math.min(size, 256 * 1024);
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  const lines = buffer
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  for (let at = lines.length - 1; at >= 0; at -= 1) {
    try {
      return JSON.parse(lines[at]);
    } catch {
      // the first line may be cut
    }
  }
  throw new Error(`${path}: no JSON record in its last ${length} bytes`);
}

/** One new turn after `last` (the file's last record), in its shape, numbered `n`: a realistic assistant reply. */
export function nextTurnLine(last, n) {
  const text = `Checked src/ledger/handler_live_${n}.ts: case LEDGER_LIVE_${n} now passes after the retry fix; the tests in test/ledger.test.ts pass.`;
  if (typeof last.uuid === 'string') {
    const uuid = `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
    return JSON.stringify({
      parentUuid: last.uuid,
      isSidechain: false,
      userType: 'external',
      cwd: last.cwd ?? '/home/user/project',
      sessionId: last.sessionId,
      version: last.version ?? '2.1.39',
      gitBranch: last.gitBranch ?? 'main',
      type: 'assistant',
      requestId: `req_live_${n}`,
      message: {
        model: 'claude-opus-4-6',
        id: `msg_live_${n}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 3, output_tokens: 40 },
      },
      uuid,
      timestamp: new Date().toISOString(),
    });
  }
  if (last.type === 'turn') {
    const id = typeof last.id === 'number' ? last.id + 1 : `${last.id}-live-${n}`;
    return JSON.stringify({ type: 'turn', id, role: 'assistant', content: text });
  }
  throw new Error('append: the file is neither canonical nor Claude Code (its last record has no uuid and is no turn)');
}
