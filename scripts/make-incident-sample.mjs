// Writes samples/incident.jsonl: the design note's incident in the canonical format. 420 turns of 100
// recorded tokens each (prefix 42,000 > ceiling 4,096 × 5 = 20,480), one checkpoint claiming turns 0..419
// whose summary carries the anchors of turns 0..379 only and stops mid-sentence. Deterministic.
// Usage: node scripts/make-incident-sample.mjs [out-file]
import { writeFileSync } from 'node:fs';

const out = process.argv[2] ?? 'samples/incident.jsonl';
const TURNS = 420;
const KEPT = 380;
const topics = ['ledger', 'invoice', 'payout', 'refund', 'settlement', 'audit', 'currency', 'webhook'];
const roles = ['user', 'assistant', 'tool', 'assistant'];

function anchorFor(i) {
  if (i === 408) return 'ERR_LEDGER_4107';
  const topic = topics[i % topics.length];
  return `${topic.toUpperCase()}_${String(1000 + i * 7)}`;
}

function contentFor(i) {
  const topic = topics[i % topics.length];
  const anchor = anchorFor(i);
  if (i === 408) {
    return 'Found it: the nightly reconcile fails with ERR_LEDGER_4107 when the shard key in config/ledger.toml is rotated before 02:00 UTC. Keep the old key until the batch ends.';
  }
  switch (roles[i % roles.length]) {
    case 'user':
      return `Please look at the ${topic} flow next; the failing case is tagged ${anchor} in the tracker.`;
    case 'tool':
      return `$ grep -rn ${anchor} src/${topic}/\nsrc/${topic}/handler.ts:${40 + (i % 60)}: // ${anchor}: guard added`;
    default:
      return `I checked src/${topic}/handler.ts: the ${topic} path now handles ${anchor} and the tests pass.`;
  }
}

const lines = [];
for (let i = 0; i < TURNS; i += 1) {
  lines.push(
    JSON.stringify({ type: 'turn', id: i, role: roles[i % roles.length], content: contentFor(i), tokens: 100, anchor: anchorFor(i) }),
  );
}

const parts = [
  '# Session summary',
  '',
  '1. Primary request: harden the payment pipeline, one flow at a time. The user wants every failing case in the',
  'tracker reproduced, guarded in its handler under src/<flow>/handler.ts, and covered by a test before moving on.',
  'Flows rotate in a fixed order: ledger, invoice, payout, refund, settlement, audit, currency, webhook. Each flow',
  'has its own handler and its own tag in the tracker; the tags are listed below in the order they were handled.',
  'The user asked for no refactoring outside the handlers, for small commits, and for the test suite to stay green',
  'after every change. Deployment is out of scope for this session; the staging environment is only read from.',
  'Open questions are tracked at the end of this summary, with the next step the assistant planned to take.',
  'Known risks: the nightly batches share one database, so a handler change can surface in another flow first.',
  '',
  '2. Work so far (turn: tracker tag handled):',
];
for (let i = 0; i < KEPT; i += 1) {
  parts.push(`- ${i}: ${anchorFor(i)}`);
}
// The summariser ran out of budget here: the sentence stops and sections 3 and 4 never come.
parts.push(
  '- 380: started on the ledger reconcile job; the nightly batch fails after the shard key is rotated, and the assistant was reading the config to see where the',
);
const summary = parts.join('\n');

lines.push(JSON.stringify({ type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 4096, covered: { from: 0, to: TURNS - 1 } }));
// Work continues after the compaction.
lines.push(JSON.stringify({ type: 'turn', id: 420, role: 'user', content: 'Why does the nightly reconcile keep failing?', tokens: 12 }));
lines.push(
  JSON.stringify({
    type: 'turn',
    id: 421,
    role: 'assistant',
    content: 'The summary has no record of a reconcile failure, so I will start from scratch.',
    tokens: 18,
  }),
);
writeFileSync(out, lines.join('\n') + '\n');
console.log(`wrote ${out}: ${TURNS + 2} turns, 1 checkpoint`);
