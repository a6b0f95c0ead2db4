// Counts, in TokenPool's worker threads, every text an analysis of a transcript will tokenize (core's
// textsToCount, which the caller works out), before the analysis runs: the turns' counts go into the per-file
// token cache, and the returned counter serves the summaries' counts. analyze() then runs without tokenizing.
import type { TokenCache, TokenCounter, Turn } from '../core/model';
import type { EncodingName } from './tokenCounter';
import type { CountLimits, CountProgress, TokenPool } from './tokenPool';

/**
 * Fills `cache` with the counts of `toCount`, what textsToCount(transcript, cache) says analyze(transcript,
 * { tokenCache: cache }) would count, and returns the countTokens to give that analyze call. The counter answers the summaries from the counts made
 * here. Any other text — which textsToCount's tests say analyze never asks for — is counted synchronously in
 * this thread as a last resort: slower, but never a missing or wrong figure (a thrown error would instead
 * turn into a failed, fail-closed checkpoint). When the counting itself fails (tiktoken cannot load, say),
 * the returned counter counts in this thread too, so analyze reports the failure per checkpoint as it would
 * without workers. Rejects only with an AbortError when `signal` aborts, or when the pool is disposed meanwhile.
 */
export async function warmTokenCache(
  toCount: { turns: readonly Turn[]; summaries: readonly string[] },
  cache: TokenCache,
  pool: TokenPool,
  encoding: EncodingName,
  onProgress?: CountProgress,
  signal?: AbortSignal,
  limits?: CountLimits,
): Promise<TokenCounter> {
  const { turns, summaries } = toCount;
  // Turns come back one per text; summaries are counted once per text, and not again once cached.
  const texts = [
    ...new Set([...turns.map((turn) => (typeof turn.text === 'string' ? turn.text : '')), ...summaries.filter((s) => !cache.has(s))]),
  ];
  const here: TokenCounter = (text) => pool.countHere(text, encoding);
  if (texts.length === 0) {
    onProgress?.(0, 0); // nothing to count: done at once
  } else {
    let counts: number[];
    try {
      counts = await pool.count(texts, encoding, signal, onProgress, limits);
    } catch (error) {
      if ((error as Error)?.name === 'AbortError' || pool.disposed) throw error;
      return here;
    }
    texts.forEach((text, i) => cache.set(text, counts[i]));
  }
  return (text: string) => cache.get(text) ?? here(text);
}
