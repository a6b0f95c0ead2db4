// A token cache (core TokenCache) keyed by a SHA-256 digest of each text instead of the text: for a file whose
// texts went to disk, a cache keyed by text kept every counted text in memory to the end of the analysis (a
// 300k-turn Claude Code file: 101k texts, 31 MB). A digest is 44 characters. Two texts with one digest would share
// a count; none is known for SHA-256. Hashing a text costs about as much as reading it (0.5 µs for 300 characters).
import * as crypto from 'node:crypto';
import type { TokenCache } from '../core/model';

/**
 * The text's digest, as base64. crypto.hash (Node 20.12 and later, one call) hashes the text's UTF-8, where every
 * lone surrogate becomes U+FFFD, so two texts that differ only there would share a digest: such a text is hashed
 * as UTF-16 code units instead, as is every text where crypto.hash is missing.
 */
function digest(text: string): string {
  if (typeof crypto.hash === 'function' && wellFormed(text)) return crypto.hash('sha256', text, 'base64');
  return crypto.createHash('sha256').update(text, 'utf16le').digest('base64');
}

/** String.prototype.isWellFormed (Node 20 has it; this project's TypeScript library predates it). */
function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

export class DigestTokenCache implements TokenCache {
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.counts.size;
  }

  get(text: string): number | undefined {
    return this.counts.get(digest(text));
  }

  has(text: string): boolean {
    return this.counts.has(digest(text));
  }

  set(text: string, count: number): this {
    this.counts.set(digest(text), count);
    return this;
  }
}
