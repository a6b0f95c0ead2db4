// A token cache (core TokenCache) keyed by the SHA-256 digest of each text (textDigest.ts) instead of the text: for
// a file whose texts went to disk, a cache keyed by text kept every counted text in memory to the end of the
// analysis (a 300k-turn Claude Code file: 101k texts, 31 MB). A digest is 44 characters.
import type { TokenCache } from '../core/model';
import { textDigest } from './textDigest';

export class DigestTokenCache implements TokenCache {
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.counts.size;
  }

  get(text: string): number | undefined {
    return this.counts.get(textDigest(text));
  }

  has(text: string): boolean {
    return this.counts.has(textDigest(text));
  }

  set(text: string, count: number): this {
    this.counts.set(textDigest(text), count);
    return this;
  }
}
