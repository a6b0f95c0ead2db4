// Counts, in TokenPool's worker threads, every text an analysis of a transcript will tokenize (core's
// textsToCount, which the caller works out), before the analysis runs: the turns' counts go into the per-file
// token cache, and the returned counter serves the summaries' counts. analyze() then runs without tokenizing.
// A transcript whose texts are on disk has them read a group at a time (CountPlan.groupChars), so they are never
// all in memory at once; texts in memory are sent in groups too, a group a turn of the event loop, so the thread
// (in the extension, the extension host) is never held long by 100k texts at once.
import { setMaxListeners } from 'node:events';
import type { TokenCache, TokenCounter, Turn } from '../core/model';
import type { EncodingName } from './tokenCounter';
import type { CountLimits, TokenPool } from './tokenPool';

/**
 * Characters of the texts in memory sent to the pool in one count: the texts are grouped, and their counts put
 * into the cache, a group at a time between turns of the event loop, rather than 100k texts in one go (137 ms of
 * the extension host's time at once on the 100k-turn generated file, and 53 ms for their counts; docs/performance-history.md).
 */
export const SENT_AT_ONCE_CHARS = 1024 * 1024;

/** Progress of the counting: texts counted so far (a group's counted bytes spread over its texts), of the total. */
export type WarmProgress = (done: number, total: number) => void;

/** How the texts are counted. */
export interface CountPlan extends CountLimits {
  /**
   * The texts are read and sent to the pool in groups of about this many characters, each group once the one
   * before is counted (analyzeFile gives COUNT_GROUP_CHARS for a transcript whose texts are on disk, where each
   * text read is a string of its own). Default: the texts are in memory, and are sent in groups of
   * SENT_AT_ONCE_CHARS, one a turn of the event loop, without waiting for the one before.
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
  // Texts on disk are read a group at a time, each once the one before is counted; texts in memory are sent in
  // groups too, one a turn of the event loop, all counted together.
  const oneAfterAnother = plan.groupChars !== undefined;
  const groupChars = plan.groupChars ?? SENT_AT_ONCE_CHARS;
  const total = turns.length + summaries.length;
  // The groups counted together each listen for the abort: on a signal of this count's own, so that their number
  // is not taken for a leak of listeners on the caller's.
  const ours = new AbortController();
  setMaxListeners(0, ours.signal);
  const abort = (): void => ours.abort(signal?.reason);
  if (signal?.aborted) abort();
  signal?.addEventListener('abort', abort, { once: true });
  let done = 0; // texts of the groups counted
  let counted = 0; // distinct texts sent to the pool
  let group: string[] = [];
  let chars = 0;
  // Each group's progress while it is counted (its texts times the share of its bytes counted), so that groups
  // counted together add up and progress never goes back.
  const counting = new Map<number, number>();
  let groups = 0;
  const report = (): void => {
    let partial = 0;
    for (const share of counting.values()) partial += share;
    onProgress?.(done + partial, total);
  };
  /** Counts the group into the cache; false when the counting failed (the counter then counts here). */
  const countGroup = async (): Promise<boolean> => {
    const texts = [...new Set(group)]; // a text once per group
    const size = group.length;
    const id = groups++;
    group = [];
    chars = 0;
    if (texts.length === 0) return true;
    counted += texts.length;
    let counts: number[];
    try {
      const progress = (bytes: number, of: number): void => {
        counting.set(id, (of > 0 ? bytes / of : 1) * size);
        report();
      };
      counts = await pool.count(texts, encoding, ours.signal, progress, { maxWorkers: plan.maxWorkers });
    } catch (error) {
      if ((error as Error)?.name === 'AbortError' || pool.disposed) throw error;
      return false;
    } finally {
      counting.delete(id);
    }
    texts.forEach((text, i) => cache.set(text, counts[i]));
    done += size;
    return true;
  };
  /** Counts every text, a group at a time; false when the counting failed. */
  const countAll = async (): Promise<boolean> => {
    const sent: Promise<boolean>[] = [];
    for (let i = 0; i < total; i++) {
      const text = i < turns.length ? turnText(turns[i]) : summaries[i - turns.length];
      // A summary is counted once per text, not again once cached; so is a turn's text counted in groups (its
      // turns may repeat a text: see textsToCountInSteps's keepRepeats).
      if ((i >= turns.length || oneAfterAnother) && cache.has(text)) {
        done++;
        continue;
      }
      group.push(text);
      chars += text.length;
      if (chars < groupChars) continue;
      if (oneAfterAnother) {
        if (!(await countGroup())) return false;
      } else {
        sent.push(countGroup());
        await new Promise((resolve) => setImmediate(resolve));
        if (ours.signal.aborted) break;
      }
    }
    sent.push(countGroup());
    // Every group settles before this returns (none rejects unheard); an abort or a disposed pool is rethrown.
    const settled = await Promise.allSettled(sent);
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.every((result) => result.status === 'fulfilled' && result.value);
  };
  try {
    if (!(await countAll())) return here;
  } finally {
    signal?.removeEventListener('abort', abort);
    if (plan.retireAfter === true) pool.retireIdle();
  }
  if (counted === 0) onProgress?.(0, 0); // nothing to count: done at once
  return (text: string) => cache.get(text) ?? here(text);
}

/** The text a turn is counted by ('' for a malformed turn). */
function turnText(turn: Turn): string {
  return typeof turn.text === 'string' ? turn.text : '';
}
