// Where counting by pieces (src/core/tokenPieces.ts) parts from tiktoken because the two read Unicode from
// different tables: the scanner's letters, numbers and marks come from this Node's ICU, tiktoken's from the Rust
// regex crate it was built with. For every code point that is a letter, number, mark or space here, or unassigned
// here, a short probe text around it is counted both ways; the code points whose counts differ are listed, by
// encoding, with whether this Node assigns them. Run it after upgrading Node (VS Code's Electron included) or
// tiktoken. About a minute per encoding. Needs `npm run compile` (out/).
//
// Usage: node scripts/unicode-drift.mjs [o200k_base|cl100k_base …]
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createTokenCounter, ENCODINGS } = require('../out/src/node/tokenCounter.js');
const tiktoken = require('tiktoken');

const encodings = process.argv.length > 2 ? process.argv.slice(2) : [...ENCODINGS];
for (const name of encodings) {
  if (!ENCODINGS.includes(name)) {
    process.stderr.write(`unicode-drift: unknown encoding ${name} (${ENCODINGS.join(', ')})\n`);
    process.exit(2);
  }
}

const PROBED = /[\p{L}\p{N}\p{M}\s]|\p{Cn}/u;
const UNASSIGNED = /\p{Cn}/u;

console.log(`node ${process.version}, ICU ${process.versions.icu}, Unicode ${process.versions.unicode}`);
let drift = 0;
for (const name of encodings) {
  const count = createTokenCounter(name);
  const encoder = tiktoken.get_encoding(name);
  const assigned = [];
  const unassigned = [];
  let probed = 0;
  for (let c = 0x80; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const char = String.fromCodePoint(c);
    if (!PROBED.test(char)) continue;
    probed += 1;
    const text = `ab${char}cd x${char}1 ${char}${char}'s`;
    if (count(text) === encoder.encode_ordinary(text).length) continue;
    (UNASSIGNED.test(char) ? unassigned : assigned).push(`U+${c.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  drift += assigned.length + unassigned.length;
  console.log(`${name}: ${probed} code points probed, ${assigned.length + unassigned.length} counted differently`);
  if (assigned.length > 0) console.log(`  assigned by this Node (newer here than in tiktoken): ${assigned.join(' ')}`);
  if (unassigned.length > 0) console.log(`  unassigned by this Node (newer in tiktoken): ${unassigned.join(' ')}`);
}
process.exitCode = drift > 0 ? 1 : 0;
