// Counts, in TokenPool's worker threads, every text an analysis of a transcript will tokenize (core's
// textsToCount), before the analysis runs: the turns' counts go into the per-file token cache, and the
// returned counter serves the summaries' counts. analyze() then runs synchronously without tokenizing.
import { textsToCount } from '../core/analyze';
import type { TokenCounter, Transcript, Turn } from '../core/model';
import type { EncodingName } from './tokenCounter';
import type { CountProgress, TokenPool } from './tokenPool';

/**
 * Fills `cache` with the counts of the turns analyze(transcript, { tokenCache: cache }) would count, and
 * returns the countTokens to give that analyze call. The counter answers the summaries from the counts made
 * here. Any other text — which textsToCount's tests say analyze never asks for — is counted synchronously in
 * this thread as a last resort: slower, but never a missing or wrong figure (a thrown error would instead
 * turn into a failed, fail-closed checkpoint). When the counting itself fails (tiktoken cannot load, say),
 * the returned counter counts in this thread too, so analyze reports the failure per checkpoint as it would
 * without workers. Rejects only with an AbortError when `signal` aborts, or when the pool is disposed meanwhile.
 */
export async function warmTokenCache(
  transcript: Transcript,
  cache: WeakMap<Turn, number>,
  pool: TokenPool,
  encoding: EncodingName,
  onProgress?: CountProgress,
  signal?: AbortSignal,
): Promise<TokenCounter> {
  const { turns, summaries } = textsToCount(transcript, cache);
  const texts = turns.map((turn) => (typeof turn.text === 'string' ? turn.text : ''));
  texts.push(...summaries);
  const here: TokenCounter = (text) => pool.countHere(text, encoding);
  let counts: number[];
  try {
    counts = await pool.count(texts, encoding, signal, onProgress);
  } catch (error) {
    if ((error as Error)?.name === 'AbortError' || pool.disposed) throw error;
    return here;
  }
  turns.forEach((turn, i) => cache.set(turn, counts[i]));
  const counted = new Map<string, number>();
  summaries.forEach((summary, i) => counted.set(summary, counts[turns.length + i]));
  return (text: string) => counted.get(text) ?? here(text);
}
