// The fuzzer's one copy of its mutations and driver, used by `npm run fuzz` (scripts/fuzz.mjs, through out/) and by
// the seeded subset in `npm test` (fuzz.test.ts). A mutant is derived from (fuzz seed, reader, index) alone, so any
// one can be rebuilt: byte flips, line deletion, duplication, moves and swaps, truncation, random JSON values in a
// record, inserted junk and records from other seeds, side-file damage and gzip corruption. Each mutant is read and
// analysed (with a cheap token counter); the driver records exceptions out of the reader or analyze (crashes),
// errors analyze caught and turned into problems (contained), the time taken, and history changes: a checkpoint
// whose turn statuses, verdict or safe pointer set differ from what its prefix (the lines up to its last record)
// gives alone, or a checkpoint its reader says is settled while the lines are pushed one at a time (what the
// verdicts said while a file is read rest on) that differs from the whole file's. `shrink` cuts a failing mutant
// down to a small reproduction.
import { isDeepStrictEqual } from 'node:util';
import { constants as zlibConstants, gzipSync, gunzipSync } from 'node:zlib';
import { analyze } from '../../../src/core/analyze';
import { DEFAULT_SUMMARY_BUDGETS } from '../../../src/core/defaults';
import type { Analysis, CheckpointAnalysis, FormatId, RawLine, SideFile, TokenCache, Transcript } from '../../../src/core/model';
import { createReader } from '../../../src/formats/readers';
import { LineSplitter } from '../../../src/node/lineSplitter';
import type { Seed } from './seeds';

export const READERS: readonly FormatId[] = ['canonical', 'claude-code', 'codex', 'openhands', 'langchain', 'letta', 'pi', 'message-array'];

// ---------------------------------------------------------------------------------------------------------------
// Randomness: sfc32 seeded by a hash of a string, so a mutant depends on its (seed, reader, index) only.

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(key: string) {
    let h1 = 1779033703;
    let h2 = 3144134277;
    let h3 = 1013904242;
    let h4 = 2773480762;
    for (let i = 0; i < key.length; i++) {
      const k = key.charCodeAt(i);
      h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
      h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
      h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
      h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
    }
    this.a = Math.imul(h3 ^ (h1 >>> 18), 597399067) >>> 0;
    this.b = Math.imul(h4 ^ (h2 >>> 22), 2869860233) >>> 0;
    this.c = Math.imul(h1 ^ (h3 >>> 17), 951274213) >>> 0;
    this.d = Math.imul(h2 ^ (h4 >>> 19), 2716044179) >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A number in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 0 ? 0 : Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Small numbers more often than large ones: in [1, max]. */
  small(max: number): number {
    return Math.max(1, Math.min(max, Math.floor(max ** this.next())));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Mutants

/** How hostile generated text may get: `quick` (npm test) keeps runs of one character short. */
export type Profile = 'quick' | 'full';

export interface Mutant {
  reader: FormatId;
  index: number;
  seedName: string;
  fileName: string;
  bytes: Buffer;
  sideFiles?: SideFile[];
  /** The mutations applied, in order. */
  ops: string[];
}

interface Work {
  bytes: Buffer;
  sideFiles?: SideFile[];
  rng: Rng;
  profile: Profile;
  seeds: readonly Seed[];
}

const NL = 0x0a;

function splitBytes(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (;;) {
    const at = bytes.indexOf(NL, start);
    if (at === -1) {
      parts.push(bytes.subarray(start));
      return parts;
    }
    parts.push(bytes.subarray(start, at));
    start = at + 1;
  }
}

/** The lines of `bytes` (the last is '' when it ends with a newline), and back: join(split(x)) === x. */
function joinBytes(parts: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  parts.forEach((part, i) => {
    if (i > 0) out.push(Buffer.from([NL]));
    out.push(part);
  });
  return Buffer.concat(out);
}

/** Indexes of the real lines (not the empty remainder after a final newline). */
function lineCount(parts: readonly Buffer[]): number {
  return parts.length > 1 && parts[parts.length - 1].length === 0 ? parts.length - 1 : parts.length;
}

function withLines(w: Work, edit: (lines: Buffer[], n: number) => void): void {
  const parts = splitBytes(w.bytes);
  const n = lineCount(parts);
  const lines = parts.slice(0, n);
  const tail = parts.slice(n);
  if (n === 0) return;
  edit(lines, n);
  w.bytes = joinBytes([...lines, ...tail]);
}

const SPECIAL_BYTES = [0x00, 0x0a, 0x0d, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x20, 0xff, 0xc3, 0xe2, 0x80, 0x1b, 0x30, 0x39];

function flipBytes(bytes: Buffer, rng: Rng, count: number): Buffer {
  if (bytes.length === 0) return bytes;
  const out = Buffer.from(bytes);
  for (let i = 0; i < count; i++) {
    const at = rng.int(out.length);
    out[at] = rng.chance(0.5) ? out[at] ^ (1 << rng.int(8)) : rng.chance(0.6) ? rng.pick(SPECIAL_BYTES) : rng.int(256);
  }
  return out;
}

function hostileString(rng: Rng, profile: Profile): string {
  const max = profile === 'quick' ? 200 : 4000;
  const n = rng.chance(0.7) ? rng.int(40) + 1 : rng.int(max) + 1;
  const unit = rng.pick([
    '-',
    "'",
    '’',
    '\n',
    ' ',
    '/',
    'a',
    '.',
    '_',
    '`',
    '*',
    '#',
    '1. ',
    'ab',
    'İ',
    '\u200b',
    '\u202e',
    '\t',
    '\r\n',
    '(',
    '"',
    '\\',
    '}',
    'ERR_',
    'a/',
    'x-',
  ]);
  const body = unit.repeat(n);
  switch (rng.int(4)) {
    case 0:
      return body;
    case 1:
      return `x${body}x`;
    case 2:
      return `Intro.\n${body}\nMore prose.`;
    default:
      return `${body} b`;
  }
}

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  '😀',
  'e\u0301',
  '\u202e1 99-05',
  'src/\u202etxt.exe',
  '\u001b[2K\rREVERSIBLE',
  '__proto__',
  'constructor',
  'toString',
  'null',
  '0',
  '-1',
  '1e309',
  'NaN',
  'true',
  '{"a":1}',
  '[1,2]',
  'C:\\path\\to\\file.ts',
  'https://example.com/a?b=c',
  '$(rm -rf /)',
  '<summary>',
  '</summary>',
  'Please continue the conversation from where we left off.',
  'This session is being continued from a previous conversation that ran out of context.',
  'Here is a summary of the conversation to date:',
  'Summary of the conversation so far:',
  'Note: prior messages (3 of 6 total messages) have been hidden',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  2,
  3,
  0.5,
  -0.5,
  7,
  42,
  4107,
  1e21,
  1e308,
  -1e308,
  5e-324,
  2 ** 31,
  -(2 ** 31),
  2 ** 53,
  2 ** 53 + 2,
  9007199254740992,
  1e6,
];
const KEYS = [
  'type',
  'id',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'role',
  'content',
  'message',
  'summary',
  'summary_id',
  'covered',
  'from',
  'to',
  'reported_ids',
  'anchor',
  'tokens',
  'summary_budget',
  'answers',
  'reply_to',
  'tool_use_id',
  'tool_call_id',
  'call_id',
  'isCompactSummary',
  'subtype',
  'compactMetadata',
  'preTokens',
  'preservedSegment',
  'payload',
  'replacement_history',
  'encrypted_content',
  'forgotten_event_ids',
  'forgotten_events_start_id',
  'forgotten_events_end_id',
  'cause',
  'action',
  'observation',
  'args',
  'kind',
  'running_summary',
  'summarized_message_ids',
  'additional_kwargs',
  'lc_source',
  'tool_calls',
  'is_error',
  'text',
  'input',
  'name',
  'sessionId',
  'isMeta',
  'usage',
  'output_tokens',
  'messages',
  'values',
  'timestamp',
  'leafUuid',
  'isSidechain',
  'error',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function randomScalar(rng: Rng, profile: Profile, strings: readonly string[]): Json {
  switch (rng.int(7)) {
    case 0:
      return rng.pick([null, true, false]);
    case 1:
      return rng.pick(NUMBERS);
    case 2:
      return rng.pick(ODD_STRINGS);
    case 3:
      return hostileString(rng, profile);
    case 4:
      return strings.length > 0 ? rng.pick(strings) : 'x';
    case 5: {
      const s = strings.length > 0 ? rng.pick(strings) : 'abc';
      const at = rng.int(s.length + 1);
      return (
        s.slice(0, at) +
        rng.pick([...ODD_STRINGS, ' ', '-', 'ERR_4107', 'src/a.ts']) +
        s.slice(rng.chance(0.5) ? at : rng.int(s.length + 1))
      );
    }
    default:
      return String.fromCharCode(...Array.from({ length: rng.int(12) }, () => (rng.chance(0.8) ? 32 + rng.int(95) : rng.int(0x3000))));
  }
}

function randomValue(rng: Rng, profile: Profile, strings: readonly string[], depth = 0): Json {
  const roll = rng.int(10);
  if (depth > 3 || roll < 6) return randomScalar(rng, profile, strings);
  if (roll === 6) {
    // deep nesting
    const levels = rng.int(profile === 'quick' ? 60 : 3000) + 1;
    let v: Json = randomScalar(rng, profile, strings);
    for (let i = 0; i < levels; i++) v = rng.chance(0.5) ? [v] : { [rng.pick(KEYS)]: v };
    return v;
  }
  if (roll === 7) return Array.from({ length: rng.int(5) }, () => randomValue(rng, profile, strings, depth + 1));
  const o: { [key: string]: Json } = {};
  for (let i = rng.int(5); i > 0; i--)
    o[rng.chance(0.8) ? rng.pick(KEYS) : String(randomScalar(rng, profile, strings))] = randomValue(rng, profile, strings, depth + 1);
  return o;
}

interface Slot {
  parent: Json[] | { [key: string]: Json };
  key: string | number;
}

/** Up to `max` places in a JSON value (each a parent and a key), breadth first. */
function slotsOf(root: { v: Json }, max: number): Slot[] {
  const slots: Slot[] = [{ parent: root as unknown as { [key: string]: Json }, key: 'v' }];
  for (let i = 0; i < slots.length && slots.length < max; i++) {
    const { parent, key } = slots[i];
    const v = (parent as Record<string | number, Json>)[key];
    if (Array.isArray(v)) v.forEach((_, k) => slots.push({ parent: v, key: k }));
    else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) slots.push({ parent: v, key: k });
  }
  return slots.slice(0, max);
}

function stringsOf(v: Json, out: string[], max = 200): string[] {
  if (out.length >= max) return out;
  if (typeof v === 'string') {
    if (v.length <= 200) out.push(v);
  } else if (typeof v === 'number') {
    out.push(String(v));
  } else if (Array.isArray(v)) {
    for (const x of v) stringsOf(x, out, max);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out, max);
    }
  }
  return out;
}

/** One structural change to a parsed JSON value; returns a short name of what was done. */
function mutateJson(root: { v: Json }, rng: Rng, profile: Profile, strings: readonly string[], donors: readonly Json[]): string {
  const slots = slotsOf(root, 4000);
  const slot = slots.length > 1 && rng.chance(0.95) ? slots[1 + rng.int(slots.length - 1)] : slots[0];
  const parent = slot.parent as Record<string | number, Json>;
  const current = parent[slot.key];
  const roll = rng.int(10);
  if (roll <= 2) {
    parent[slot.key] = randomValue(rng, profile, strings);
    return 'json:value';
  }
  if (roll === 3 && slot.parent !== (root as unknown)) {
    if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
    else delete (slot.parent as Record<string, Json>)[slot.key as string];
    return 'json:delete';
  }
  if (roll === 4 && donors.length > 0) {
    const donor = { v: rng.pick(donors) };
    const from = slotsOf(donor, 400);
    const picked = rng.pick(from);
    parent[slot.key] = structuredClone((picked.parent as Record<string | number, Json>)[picked.key]);
    return 'json:transplant';
  }
  if (roll === 5 && typeof current === 'string') {
    const at = rng.int(current.length + 1);
    parent[slot.key] = rng.chance(0.4)
      ? current.slice(0, at)
      : current.slice(0, at) + (rng.chance(0.5) ? hostileString(rng, profile) : rng.pick(ODD_STRINGS)) + current.slice(at);
    return 'json:string';
  }
  if (roll === 6 && typeof current === 'number') {
    parent[slot.key] = rng.pick([current + 1, current - 1, -current, current * 1000, current + 0.5, rng.pick(NUMBERS)]);
    return 'json:number';
  }
  if (roll === 7 && Array.isArray(current) && current.length > 0) {
    const i = rng.int(current.length);
    const j = rng.int(current.length);
    if (rng.chance(0.5)) current.splice(j, 0, structuredClone(current[i]));
    else [current[i], current[j]] = [current[j], current[i]];
    return 'json:array';
  }
  if (roll === 8 && current !== null && typeof current === 'object' && !Array.isArray(current)) {
    const keys = Object.keys(current);
    if (keys.length >= 2 && rng.chance(0.5)) {
      const [k1, k2] = [rng.pick(keys), rng.pick(keys)];
      [current[k1], current[k2]] = [current[k2], current[k1]];
      return 'json:swap-values';
    }
    current[rng.pick(KEYS)] = randomValue(rng, profile, strings);
    return 'json:add-key';
  }
  parent[slot.key] = rng.chance(0.5) && strings.length > 0 ? rng.pick(strings) : randomScalar(rng, profile, strings);
  return 'json:scalar';
}

function tryParse(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}

/** Replaces a record (or the whole document) with a structurally mutated copy of itself. */
function jsonOp(w: Work): string {
  const { rng } = w;
  // A whole document (pretty-printed JSON) of modest size is mutated as one value.
  if (w.bytes.length < 256 * 1024 && rng.chance(0.3)) {
    const doc = tryParse(w.bytes.toString('utf8'));
    if (doc.ok) {
      const root = { v: doc.value };
      const what = mutateJson(root, rng, w.profile, stringsOf(doc.value, []), [doc.value]);
      const multiline = w.bytes.includes(NL) && w.bytes.indexOf(NL) < w.bytes.length - 1;
      w.bytes = Buffer.from(JSON.stringify(root.v, null, multiline ? 2 : undefined) ?? 'null', 'utf8');
      return `${what} (document)`;
    }
  }
  let done = 'json:none';
  withLines(w, (lines, n) => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const i = rng.int(n);
      const parsed = tryParse(lines[i].toString('utf8'));
      if (!parsed.ok) continue;
      const donors: Json[] = [];
      for (let d = 0; d < 2; d++) {
        const other = tryParse(lines[rng.int(n)].toString('utf8'));
        if (other.ok) donors.push(other.value);
      }
      const strings = stringsOf(parsed.value, []);
      for (const donor of donors) stringsOf(donor, strings, 400);
      const root = { v: parsed.value };
      const edits = rng.chance(0.8) ? 1 : 1 + rng.int(4);
      const names: string[] = [];
      for (let e = 0; e < edits; e++) names.push(mutateJson(root, rng, w.profile, strings, donors));
      lines[i] = Buffer.from(JSON.stringify(root.v) ?? 'null', 'utf8');
      done = names.join('+');
      return;
    }
  });
  return done;
}

function junkLine(w: Work, lines: readonly Buffer[]): Buffer {
  const { rng } = w;
  switch (rng.int(8)) {
    case 0:
      return Buffer.from(
        rng.pick(['', ' ', '\r', '\t', '{', '}', '[', ']', 'null', '0', '""', '{}', '[]', '\ufeff{}', '{"type":', ',', '\u0000']),
        'utf8',
      );
    case 1:
      return Buffer.from(JSON.stringify(randomValue(w.rng, w.profile, [])) ?? 'null', 'utf8');
    case 2: {
      const o: { [key: string]: Json } = {};
      for (let i = 1 + rng.int(6); i > 0; i--) o[rng.pick(KEYS)] = randomValue(rng, w.profile, []);
      return Buffer.from(JSON.stringify(o), 'utf8');
    }
    case 3:
      return Buffer.from(Array.from({ length: rng.int(64) }, () => rng.int(256)));
    case 4:
      return Buffer.from('x'.repeat(w.profile === 'quick' ? rng.int(2000) : rng.int(200_000)), 'utf8');
    default: {
      // a record of this file, mutated
      if (lines.length === 0) return Buffer.alloc(0);
      const parsed = tryParse(rng.pick(lines).toString('utf8'));
      if (!parsed.ok) return Buffer.from(rng.pick(lines));
      const root = { v: parsed.value };
      mutateJson(root, rng, w.profile, stringsOf(parsed.value, []), [parsed.value]);
      return Buffer.from(JSON.stringify(root.v) ?? 'null', 'utf8');
    }
  }
}

/** Decompresses what a damaged gzip stream yields before the damage (as a streamed read keeps what it got). */
export function gunzipPartial(bytes: Buffer): Buffer {
  const opts = { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: 64 * 1024 * 1024 };
  try {
    return gunzipSync(bytes, opts);
  } catch {
    // the longest prefix that decompresses without an error
  }
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      gunzipSync(bytes.subarray(0, mid), opts);
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  try {
    return gunzipSync(bytes.subarray(0, lo), opts);
  } catch {
    return Buffer.alloc(0);
  }
}

function gzipOp(w: Work): string {
  const { rng } = w;
  let gz: Buffer = gzipSync(w.bytes, { level: 1 + rng.int(9) });
  let what: string;
  switch (rng.int(5)) {
    case 0:
      gz = gz.subarray(0, rng.int(gz.length));
      what = 'gzip:truncate';
      break;
    case 1: {
      const at = 10 + rng.int(Math.max(1, gz.length - 18));
      gz = Buffer.concat([gz.subarray(0, at), Buffer.alloc(1 + rng.int(64)), gz.subarray(at + 1 + rng.int(64))]);
      what = 'gzip:zeroed';
      break;
    }
    case 2:
      gz = Buffer.concat([gz, rng.chance(0.5) ? gz : flipBytes(gz.subarray(0, 24), rng, 4)]);
      what = 'gzip:trailing';
      break;
    case 3:
      gz = Buffer.concat([gz.subarray(0, gz.length - 8), flipBytes(gz.subarray(gz.length - 8), rng, 1)]);
      what = 'gzip:trailer';
      break;
    default:
      gz = flipBytes(gz, rng, 1 + rng.int(4));
      what = 'gzip:flip';
  }
  // A file whose gzip magic was lost is read as it is (binary), as TranscriptFile would hand it on.
  w.bytes = gz.length >= 2 && gz[0] === 0x1f && gz[1] === 0x8b ? gunzipPartial(gz) : gz;
  return what;
}

type Op = (w: Work) => string;

const OPS: readonly [Op, number][] = [
  [
    (w) => {
      w.bytes = flipBytes(w.bytes, w.rng, w.rng.small(8));
      return 'flip';
    },
    3,
  ],
  [
    (w) => {
      withLines(w, (lines, n) => {
        const at = w.rng.int(n);
        lines.splice(at, w.rng.small(Math.min(n - at, 20)));
      });
      return 'delete';
    },
    3,
  ],
  [
    (w) => {
      withLines(w, (lines, n) => {
        const at = w.rng.int(n);
        const block = lines.slice(at, at + w.rng.small(Math.min(n - at, 8)));
        lines.splice(w.rng.chance(0.5) ? at + block.length : w.rng.int(n + 1), 0, ...block);
      });
      return 'duplicate';
    },
    2,
  ],
  [
    (w) => {
      withLines(w, (lines, n) => {
        const i = w.rng.int(n);
        const j = w.rng.chance(0.5) ? Math.min(n - 1, i + 1) : w.rng.int(n);
        [lines[i], lines[j]] = [lines[j], lines[i]];
      });
      return 'swap';
    },
    2,
  ],
  [
    (w) => {
      withLines(w, (lines, n) => {
        const [line] = lines.splice(w.rng.int(n), 1);
        lines.splice(w.rng.int(n), 0, line);
      });
      return 'move';
    },
    1,
  ],
  [
    (w) => {
      const cut = w.rng.int(w.bytes.length + 1);
      const atLine = w.rng.chance(0.4);
      const newline = atLine ? w.bytes.indexOf(NL, cut) : -1;
      w.bytes = w.bytes.subarray(0, newline >= 0 ? newline + 1 : cut);
      return atLine ? 'truncate:line' : 'truncate';
    },
    2,
  ],
  [jsonOp, 6],
  [
    (w) => {
      withLines(w, (lines, n) => {
        lines.splice(w.rng.int(n + 1), 0, junkLine(w, lines));
      });
      return 'insert';
    },
    2,
  ],
  [
    (w) => {
      const donor = w.rng.pick(w.seeds);
      const parts = splitBytes(donor.bytes);
      const from = w.rng.int(lineCount(parts));
      const block = parts.slice(from, from + w.rng.small(6));
      withLines(w, (lines, n) => {
        lines.splice(w.rng.int(n + 1), 0, ...block);
      });
      return `splice:${donor.format}`;
    },
    1,
  ],
  [
    (w) => {
      if (!w.sideFiles || w.sideFiles.length === 0) return 'side:none';
      const i = w.rng.int(w.sideFiles.length);
      const file = w.sideFiles[i];
      const bytes = Buffer.from(file.text, 'utf8');
      const damaged = w.rng.chance(0.5) ? bytes.subarray(0, w.rng.int(bytes.length + 1)) : flipBytes(bytes, w.rng, w.rng.small(8));
      w.sideFiles = w.sideFiles.map((f, k) => (k === i ? { path: f.path, text: damaged.toString('utf8') } : f));
      return 'side';
    },
    0.5,
  ],
];
const OP_WEIGHT = OPS.reduce((sum, [, weight]) => sum + weight, 0);

function pickWeighted<T extends { weight?: number }>(items: readonly T[], rng: Rng): T {
  const total = items.reduce((sum, item) => sum + (item.weight ?? 1), 0);
  let r = rng.next() * total;
  for (const item of items) {
    r -= item.weight ?? 1;
    if (r < 0) return item;
  }
  return items[items.length - 1];
}

/**
 * Mutant `index` of `reader` under fuzz seed `seed`: a seed of the reader's own format (sometimes of any format),
 * with one to six mutations (rarely none, so the seeds themselves are checked too), then sometimes gzip damage.
 */
export function makeMutant(seeds: readonly Seed[], reader: FormatId, seed: number, index: number, profile: Profile = 'full'): Mutant {
  const rng = new Rng(`${seed}:${reader}:${index}`);
  const native = seeds.filter((s) => s.format === reader);
  const from = pickWeighted(native.length > 0 && rng.chance(0.85) ? native : seeds, rng);
  const w: Work = { bytes: from.bytes, sideFiles: from.sideFiles, rng, profile, seeds };
  const ops: string[] = [];
  const count = rng.chance(0.03) ? 0 : rng.chance(0.7) ? 1 + rng.int(2) : 1 + rng.int(6);
  for (let i = 0; i < count; i++) {
    let r = rng.next() * OP_WEIGHT;
    for (const [op, weight] of OPS) {
      r -= weight;
      if (r < 0) {
        ops.push(op(w));
        break;
      }
    }
  }
  if (rng.chance(0.06)) ops.push(gzipOp(w));
  return { reader, index, seedName: from.name, fileName: from.fileName, bytes: w.bytes, sideFiles: w.sideFiles, ops };
}

// ---------------------------------------------------------------------------------------------------------------
// Running a mutant

/** The token counter of the fuzzer: cheap and deterministic (about four characters a token). */
export const cheapTokens = (text: string): number => Math.ceil((typeof text === 'string' ? text.length : 0) / 4);

export function splitRawLines(bytes: Buffer): RawLine[] {
  const lines: RawLine[] = [];
  const splitter = new LineSplitter(
    { maxLineBytes: 16 * 1024 * 1024 },
    (line) => lines.push(line),
    () => undefined,
  );
  splitter.write(bytes);
  splitter.end();
  return lines;
}

/** As TranscriptFile decides: a file is JSON Lines (read by appending) when its first non-blank line is JSON. */
export function isJsonLines(bytes: Buffer): boolean {
  const head = bytes
    .subarray(0, 256 * 1024)
    .toString('utf8')
    .split('\n')
    .slice(0, 50);
  const first = head.find((line) => line.trim() !== '');
  if (first === undefined) return false;
  return tryParse(first.trim()).ok;
}

export interface HistoryChange {
  checkpoint: string;
  /** Line of the checkpoint's first record. */
  line: number;
  /** Line of its last record: the prefix analysed alone. */
  endLine: number;
  what: ('statuses' | 'verdict' | 'safe set' | 'vanished' | 'settled')[];
  detail: string;
}

export interface Outcome {
  ms: number;
  crash?: { stage: string; message: string; stack?: string };
  /** Errors analyze caught and reported as problems ("could not analyse …"). */
  contained: string[];
  history: HistoryChange[];
  turns: number;
  checkpoints: number;
  jsonLines: boolean;
}

function read(reader: FormatId, m: Pick<Mutant, 'fileName' | 'sideFiles'>, lines: readonly RawLine[]): Transcript {
  const r = createReader(reader, { fileName: m.fileName, sideFiles: m.sideFiles, defaultBudget: DEFAULT_SUMMARY_BUDGETS[reader] });
  for (const line of lines) r.push(line);
  return r.finish();
}

function statusKey(cp: CheckpointAnalysis): string {
  return cp.turns.map((t) => `${JSON.stringify(t.id)}:${t.status}`).join(' ');
}

function firstDifference(a: CheckpointAnalysis, b: CheckpointAnalysis): string {
  const n = Math.max(a.turns.length, b.turns.length);
  for (let i = 0; i < n; i++) {
    const x = a.turns[i];
    const y = b.turns[i];
    if (x?.id !== y?.id || x?.status !== y?.status) {
      return `turn #${i}: ${x ? `${JSON.stringify(x.id)} ${x.status}` : 'absent'} in the prefix, ${y ? `${JSON.stringify(y.id)} ${y.status}` : 'absent'} in the whole file`;
    }
  }
  return '';
}

/** Compares each checkpoint of the whole file with the same checkpoint read from its prefix alone. */
function historyOf(
  reader: FormatId,
  m: Pick<Mutant, 'fileName' | 'sideFiles'>,
  lines: readonly RawLine[],
  t: Transcript,
  a: Analysis,
  tokenCache: TokenCache,
  stage: { name: string },
): HistoryChange[] {
  const changes: HistoryChange[] = [];
  const prefixes = new Map<number, Analysis>();
  const lastLine = lines.length > 0 ? lines[lines.length - 1].line : 0;
  a.checkpoints.forEach((whole, i) => {
    const endLine = t.checkpoints[i]?.span?.endLine;
    if (typeof endLine !== 'number' || endLine >= lastLine) return; // nothing after it
    const k = lines.findIndex((l) => l.line > endLine);
    if (k < 0) return;
    let prefix = prefixes.get(k);
    if (!prefix) {
      stage.name = 'read prefix';
      const pt = read(reader, m, lines.slice(0, k));
      stage.name = 'analyze prefix';
      prefix = analyze(pt, { countTokens: cheapTokens, tokenCache });
      prefixes.set(k, prefix);
    }
    const alone = prefix.checkpoints.find((c) => c.summaryId === whole.summaryId && c.line === whole.line);
    const base = { checkpoint: whole.summaryId, line: whole.line, endLine };
    if (!alone) {
      changes.push({
        ...base,
        what: ['vanished'],
        detail: `checkpoint ${whole.summaryId} (line ${whole.line}) is not read from lines 1–${endLine} alone`,
      });
      return;
    }
    const what: HistoryChange['what'] = [];
    if (statusKey(alone) !== statusKey(whole)) what.push('statuses');
    if (alone.verdict !== whole.verdict) what.push('verdict');
    if (JSON.stringify(alone.safeCovered) !== JSON.stringify(whole.safeCovered)) what.push('safe set');
    if (what.length > 0) {
      const details = [
        what.includes('statuses') ? firstDifference(alone, whole) : '',
        what.includes('verdict') ? `verdict ${alone.verdict} in the prefix, ${whole.verdict} in the whole file` : '',
        what.includes('safe set')
          ? `safe set of ${alone.safeCovered.length} in the prefix, ${whole.safeCovered.length} in the whole file`
          : '',
      ];
      changes.push({ ...base, what, detail: details.filter(Boolean).join('; ') });
    }
  });
  return changes;
}

/**
 * Pushes the lines one at a time into a new reader and, each time it says more checkpoints are settled
 * (TranscriptReader.settledCheckpoints: what the verdicts said while a file is read rest on), checks that those
 * checkpoints (but for their notes) and the turns before each are as the whole file `t` has them.
 */
function settledChangesOf(
  reader: FormatId,
  m: Pick<Mutant, 'fileName' | 'sideFiles'>,
  lines: readonly RawLine[],
  t: Transcript,
): HistoryChange[] {
  const r = createReader(reader, { fileName: m.fileName, sideFiles: m.sideFiles, defaultBudget: DEFAULT_SUMMARY_BUDGETS[reader] });
  if (r.settledCheckpoints === undefined) return [];
  let settled = 0;
  for (const line of lines) {
    r.push(line);
    const now = r.settledCheckpoints();
    if (now <= settled) continue;
    settled = now;
    const read = r.finish();
    for (let k = 0; k < settled; k++) {
      const cp = read.checkpoints[k];
      const whole = t.checkpoints[k];
      const same =
        whole !== undefined &&
        isDeepStrictEqual({ ...cp, notes: [] }, { ...whole, notes: [] }) &&
        isDeepStrictEqual(read.turns.slice(0, cp.turnsBefore), t.turns.slice(0, cp.turnsBefore));
      if (!same) {
        const name = typeof cp?.summaryId === 'string' ? cp.summaryId : `#${k + 1}`;
        const at = cp?.span?.startLine ?? 0;
        return [
          {
            checkpoint: name,
            line: at,
            endLine: line.line,
            what: ['settled'],
            detail: `checkpoint ${name}, said settled at line ${line.line}, is not the whole file's (or the turns before it are not)`,
          },
        ];
      }
    }
  }
  return [];
}

/** Reads and analyses a mutant, then checks each checkpoint's history against its prefix (JSON Lines only). */
export function runMutant(m: Pick<Mutant, 'reader' | 'fileName' | 'sideFiles' | 'bytes'>): Outcome {
  const start = process.hrtime.bigint();
  const stage = { name: 'read' };
  const outcome: Outcome = { ms: 0, contained: [], history: [], turns: 0, checkpoints: 0, jsonLines: isJsonLines(m.bytes) };
  try {
    const lines = splitRawLines(m.bytes);
    const t = read(m.reader, m, lines);
    outcome.turns = t.turns.length;
    outcome.checkpoints = t.checkpoints.length;
    stage.name = 'analyze';
    const tokenCache: TokenCache = new Map();
    const a = analyze(t, { countTokens: cheapTokens, tokenCache });
    outcome.contained = a.problems.filter((p) => p.message.startsWith('could not analyse')).map((p) => p.message);
    if (outcome.jsonLines) outcome.history = historyOf(m.reader, m, lines, t, a, tokenCache, stage);
    // Any file, a JSON array read an element at a time too.
    stage.name = 'settled checkpoints';
    outcome.history.push(...settledChangesOf(m.reader, m, lines, t));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    outcome.crash = { stage: stage.name, message: `${e.name}: ${e.message}`, stack: e.stack };
  }
  outcome.ms = Number(process.hrtime.bigint() - start) / 1e6;
  return outcome;
}

// ---------------------------------------------------------------------------------------------------------------
// Runs and tallies

export type FailureKind = 'crash' | 'contained' | 'history';

export interface Failure {
  kind: FailureKind;
  reader: FormatId;
  index: number;
  seedName: string;
  ops: string[];
  message: string;
}

export interface Tally {
  reader: FormatId;
  mutants: number;
  crashes: number;
  contained: number;
  hangs: number;
  history: number;
  /** Mutants with at least one checkpoint whose history was checked (JSON Lines with lines after it). */
  withCheckpoints: number;
  slowest: { ms: number; index: number; seedName: string };
  ms: number;
  /** The first failures, as they came. */
  failures: Failure[];
  /** Failures grouped by what went wrong (see signatureOf): how many, and the first of each. */
  groups: Record<string, { count: number; first: Failure }>;
}

/** What a failure says with its ids, numbers and quoted text left out, so alike failures group together. */
export function signatureOf(f: Pick<Failure, 'kind' | 'message'>): string {
  const first = f.message.split(' | ')[0];
  const generic = first
    .replace(/^.*? \(lines \d+–\d+\): /, '')
    .replace(/"(?:[^"\\]|\\.)*"/g, '…')
    .replace(/“[^”]*”/g, '…')
    .replace(/checkpoint \S+/g, 'checkpoint …')
    .replace(/\d+/g, 'N');
  return `${f.kind}: ${generic}`;
}

export function emptyTally(reader: FormatId): Tally {
  return {
    reader,
    mutants: 0,
    crashes: 0,
    contained: 0,
    hangs: 0,
    history: 0,
    withCheckpoints: 0,
    slowest: { ms: 0, index: -1, seedName: '' },
    ms: 0,
    failures: [],
    groups: {},
  };
}

export function mergeTally(into: Tally, from: Tally, keepFailures = 50): Tally {
  into.mutants += from.mutants;
  into.crashes += from.crashes;
  into.contained += from.contained;
  into.hangs += from.hangs;
  into.history += from.history;
  into.withCheckpoints += from.withCheckpoints;
  into.ms += from.ms;
  if (from.slowest.ms > into.slowest.ms) into.slowest = from.slowest;
  into.failures.push(...from.failures.slice(0, Math.max(0, keepFailures - into.failures.length)));
  for (const [signature, group] of Object.entries(from.groups)) {
    const mine = into.groups[signature];
    if (!mine) into.groups[signature] = { ...group };
    else {
      mine.count += group.count;
      if (group.first.index < mine.first.index) mine.first = group.first;
    }
  }
  return into;
}

export interface RangeOptions {
  profile?: Profile;
  /** A mutant slower than this counts as a hang (measured and reported, never asserted). */
  budgetMs?: number;
  /** Called before each mutant (the script's watchdog reads it). */
  onStart?: (index: number) => void;
  keepFailures?: number;
}

/** Runs mutants [from, to) of `reader` and tallies what happened. */
export function fuzzRange(
  seeds: readonly Seed[],
  reader: FormatId,
  seed: number,
  from: number,
  to: number,
  options: RangeOptions = {},
): Tally {
  const tally = emptyTally(reader);
  const budget = options.budgetMs ?? 2000;
  const keep = options.keepFailures ?? 50;
  for (let index = from; index < to; index++) {
    options.onStart?.(index);
    const m = makeMutant(seeds, reader, seed, index, options.profile ?? 'full');
    const o = runMutant(m);
    tally.mutants++;
    tally.ms += o.ms;
    if (o.ms > tally.slowest.ms) tally.slowest = { ms: o.ms, index, seedName: m.seedName };
    if (o.ms > budget) tally.hangs++;
    const fail = (kind: FailureKind, message: string) => {
      const failure: Failure = { kind, reader, index, seedName: m.seedName, ops: m.ops, message };
      if (tally.failures.length < keep) tally.failures.push(failure);
      const signature = signatureOf(failure);
      const group = tally.groups[signature];
      if (group) group.count++;
      else if (Object.keys(tally.groups).length < 200) tally.groups[signature] = { count: 1, first: failure };
    };
    if (o.crash) {
      tally.crashes++;
      fail('crash', `${o.crash.stage}: ${o.crash.message}`);
    }
    if (o.contained.length > 0) {
      tally.contained++;
      fail('contained', o.contained[0]);
    }
    if (o.history.length > 0) {
      tally.history++;
      fail(
        'history',
        o.history.map((h) => `${h.checkpoint} (lines ${h.line}–${h.endLine}): ${h.what.join(', ')}: ${h.detail}`).join(' | '),
      );
    }
    if (o.jsonLines && o.checkpoints > 0) tally.withCheckpoints++;
  }
  return tally;
}

// ---------------------------------------------------------------------------------------------------------------
// Shrinking a failure to a small reproduction

/** The signature a shrunk mutant must keep: the same crash, or a history change of the same kind. */
export function failureSignature(o: Outcome, kind: FailureKind): string | undefined {
  if (kind === 'crash') return o.crash ? `${o.crash.stage}: ${o.crash.message.split('\n')[0]}` : undefined;
  if (kind === 'contained') return o.contained[0]?.replace(/checkpoint \S+/, 'checkpoint …');
  if (o.history.length === 0) return undefined;
  return o.history[0].what.join(',');
}

/**
 * Cuts `m` down while `runMutant` keeps failing the same way: whole lines first (halves, then smaller runs), then
 * the keys and array items of each JSON record, then long strings. At most `maxRuns` runs.
 */
export function shrink(m: Mutant, kind: FailureKind, maxRuns = 3000): Mutant {
  const want = failureSignature(runMutant(m), kind);
  if (want === undefined) return m;
  let runs = 0;
  let lines = splitBytes(m.bytes).map((b) => b.toString('latin1'));
  const build = (ls: readonly string[]): Mutant => ({ ...m, bytes: Buffer.from(ls.join('\n'), 'latin1') });
  const fails = (ls: readonly string[]): boolean => {
    runs++;
    return failureSignature(runMutant(build(ls)), kind) === want;
  };
  // 1. lines
  for (let chunk = Math.max(1, lines.length >> 1); chunk >= 1 && runs < maxRuns; chunk = chunk === 1 ? 0 : Math.max(1, chunk >> 1)) {
    for (let at = 0; at < lines.length && runs < maxRuns;) {
      const next = [...lines.slice(0, at), ...lines.slice(at + chunk)];
      if (next.length > 0 && fails(next)) lines = next;
      else at += chunk;
    }
  }
  // 2. inside JSON records (latin1 round trip keeps the bytes; records are re-encoded as UTF-8 JSON)
  for (let i = 0; i < lines.length && runs < maxRuns; i++) {
    const parsed = tryParse(Buffer.from(lines[i], 'latin1').toString('utf8'));
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') continue;
    const root = { v: parsed.value };
    const encode = () => Buffer.from(JSON.stringify(root.v), 'utf8').toString('latin1');
    let progress = true;
    while (progress && runs < maxRuns) {
      progress = false;
      for (const slot of slotsOf(root, 2000).slice(1).reverse()) {
        if (runs >= maxRuns) break;
        const parent = slot.parent as Record<string | number, Json>;
        const saved = parent[slot.key];
        if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
        else delete (slot.parent as Record<string, Json>)[slot.key as string];
        const candidate = [...lines.slice(0, i), encode(), ...lines.slice(i + 1)];
        if (fails(candidate)) {
          lines = candidate;
          progress = true;
          break;
        }
        if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 0, saved);
        else (slot.parent as Record<string, Json>)[slot.key as string] = saved;
        if (typeof saved === 'string' && saved.length > 8) {
          parent[slot.key] = saved.slice(0, saved.length >> 1);
          const shorter = [...lines.slice(0, i), encode(), ...lines.slice(i + 1)];
          if (fails(shorter)) {
            lines = shorter;
            progress = true;
            break;
          }
          parent[slot.key] = saved;
        }
      }
    }
  }
  return build(lines);
}
