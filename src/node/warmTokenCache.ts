// Counts, in TokenPool's worker threads, every text an analysis of a transcript will tokenize (core's
// textsToCount, which the caller works out), before the analysis runs: the turns' counts go into the per-file
// token cache, and the returned counter serves the summaries' counts. analyze() then runs without tokenizing.
// A transcript whose texts are on disk has them read a group at a time (CountPlan.groupChars), so they are never
// all in memory at once.
import type { TokenCache, TokenCounter, Turn } from '../core/model';
import type { EncodingName } from './tokenCounter';
import type { CountLimits, TokenPool } from './tokenPool';

/** Progress of the counting: texts counted so far (a group's counted bytes spread over its texts), of the total. */
export type WarmProgress = (done: number, total: number) => void;

/** How the texts are counted. */
export interface CountPlan extends CountLimits {
  /**
   * The texts are read and sent to the pool in groups of about this many characters, each group once the one
   * before is counted (analyzeFile gives COUNT_GROUP_CHARS for a transcript whose texts are on disk, where each
   * text read is a string of its own). Default: all in one group.
   */
  groupChars?: number;
  /**
   * The pool's idle workers are ended as soon as this count is done (TokenPool.retireIdle): analyzeFile asks it for
   * a file read once whose texts are on disk, judged for long after its counts are in.
   */
  retireAfter?: boolean;
  /** analyzeFile judges the turns only once this count is done (see LEAN_COUNTING). */
  beforeJudging?: boolean;
}

/**
 * Fills `cache` with the counts of `toCount`, what textsToCount(transcript, cache) says analyze(transcript,
 * { tokenCache: cache }) would count, and returns the countTokens to give that analyze call. The counter answers
 * the summaries from the counts made here. Any other text — which textsToCount's tests say analyze never asks
 * for — is counted synchronously in this thread as a last resort: slower, but never a missing or wrong figure (a
 * thrown error would instead turn into a failed, fail-closed checkpoint). When the counting itself fails (tiktoken
 * cannot load, say), the returned counter counts in this thread too, so analyze reports the failure per checkpoint
 * as it would without workers. Rejects only with an AbortError when `signal` aborts, or when the pool is disposed
 * meanwhile.
 */
export async function warmTokenCache(
  toCount: { turns: readonly Turn[]; summaries: readonly string[] },
  cache: TokenCache,
  pool: TokenPool,
  encoding: EncodingName,
  onProgress?: WarmProgress,
  signal?: AbortSignal,
  plan: CountPlan = {},
): Promise<TokenCounter> {
  const { turns, summaries } = toCount;
  const here: TokenCounter = (text) => pool.countHere(text, encoding);
  const groupChars = plan.groupChars ?? Infinity;
  const total = turns.length + summaries.length;
  let done = 0; // texts of the groups counted
  let counted = 0; // distinct texts sent to the pool
  let group: string[] = [];
  let chars = 0;
  /** Counts the group into the cache; false when the counting failed (the counter then counts here). */
  const countGroup = async (): Promise<boolean> => {
    const texts = [...new Set(group)]; // a text once per group
    const size = group.length;
    group = [];
    chars = 0;
    if (texts.length === 0) return true;
    counted += texts.length;
    let counts: number[];
    try {
      const progress = (bytes: number, of: number): void => onProgress?.(done + (of > 0 ? bytes / of : 1) * size, total);
      counts = await pool.count(texts, encoding, signal, progress, { maxWorkers: plan.maxWorkers });
    } catch (error) {
      if ((error as Error)?.name === 'AbortError' || pool.disposed) throw error;
      return false;
    }
    texts.forEach((text, i) => cache.set(text, counts[i]));
    done += size;
    return true;
  };
  /** Counts every text, a group at a time; false when the counting failed. */
  const countAll = async (): Promise<boolean> => {
    for (let i = 0; i < total; i++) {
      const text = i < turns.length ? turnText(turns[i]) : summaries[i - turns.length];
      // A summary is counted once per text, not again once cached; so is a turn's text counted in groups (its
      // turns may repeat a text: see textsToCountInSteps's keepRepeats).
      if ((i >= turns.length || groupChars !== Infinity) && cache.has(text)) {
        done++;
        continue;
      }
      group.push(text);
      chars += text.length;
      if (chars >= groupChars && !(await countGroup())) return false;
    }
    return countGroup();
  };
  try {
    if (!(await countAll())) return here;
  } finally {
    if (plan.retireAfter === true) pool.retireIdle();
  }
  if (counted === 0) onProgress?.(0, 0); // nothing to count: done at once
  return (text: string) => cache.get(text) ?? here(text);
}

/** The text a turn is counted by ('' for a malformed turn). */
function turnText(turn: Turn): string {
  return typeof turn.text === 'string' ? turn.text : '';
}
