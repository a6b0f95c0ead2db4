// A text's SHA-256 digest, as 44 characters of base64: what is kept in place of a long text that is only compared
// or looked up (the token counts of a file whose texts went to disk, the Codex reader's keys of items). Two texts
// with one digest would be taken as one; none is known for SHA-256. Hashing costs about as much as reading the text
// (0.5 µs for 300 characters).
import * as crypto from 'node:crypto';

/**
 * The text's digest, as base64. crypto.hash (Node 20.12 and later, one call) hashes the text's UTF-8, where every
 * lone surrogate becomes U+FFFD, so two texts that differ only there would share a digest: such a text is hashed
 * as UTF-16 code units instead, as is every text where crypto.hash is missing.
 */
export function textDigest(text: string): string {
  if (typeof crypto.hash === 'function' && wellFormed(text)) return crypto.hash('sha256', text, 'base64');
  return crypto.createHash('sha256').update(text, 'utf16le').digest('base64');
}

/** String.prototype.isWellFormed (Node 20 has it; this project's TypeScript library predates it). */
function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
