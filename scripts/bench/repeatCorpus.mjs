// Writes a large transcript made of a corpus session repeated, for the memory figures of formats the generator
// (generate.mjs) does not write: the Codex rollout and the pi session of the shared corpus, read in place and
// written to OUT (never into the project). Each copy's tool call ids (`toolu_…`, `call_…`) get a suffix of their
// own, so that they are unique, as in a real session; --same-ids leaves them as they are. A pi session's header
// line is written once.
// Usage: node scripts/bench/repeatCorpus.mjs codex|pi MEGABYTES OUT [--same-ids]
// Then: /usr/bin/time -f '%e s %M KB' node dist/cli.js check OUT (docs/performance.md)
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const SOURCES = {
  codex: { path: join('codex', 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'), header: false },
  pi: { path: join('pi', 'before-compaction.jsonl.gz'), header: true },
};
const CALL_ID = /"((?:toolu|call)_[A-Za-z0-9]{16,})"/g;

const [kind, megabytes, out, flag] = process.argv.slice(2);
const source = SOURCES[kind];
if (source === undefined || !(Number(megabytes) > 0) || out === undefined || (flag !== undefined && flag !== '--same-ids')) {
  console.error('usage: node scripts/bench/repeatCorpus.mjs codex|pi MEGABYTES OUT [--same-ids]');
  process.exit(2);
}
const raw = readFileSync(join(CORPUS, source.path));
const text = (source.path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
const firstBreak = text.indexOf('\n') + 1;
const header = source.header ? text.slice(0, firstBreak) : '';
const body = source.header ? text.slice(firstBreak) : text;
const target = Number(megabytes) * 1e6;

const fd = openSync(out, 'w');
try {
  let bytes = writeSync(fd, header);
  let copies = 0;
  while (bytes < target) {
    const copy = flag === '--same-ids' ? body : body.replace(CALL_ID, (_match, id) => `"${id}x${copies}"`);
    bytes += writeSync(fd, copy);
    copies += 1;
  }
  console.log(`${out}: ${copies} copies, ${bytes.toLocaleString('en-US')} bytes`);
} finally {
  closeSync(fd);
}
