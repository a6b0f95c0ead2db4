// Base of the readers that keep every pushed line and read the whole transcript again in finish(): the
// result is cached, and rebuilt only when lines were pushed since the last finish(). Subclasses say what
// they keep (push), what identifies that state (stateKey) and how to read it (build, which may resume from what
// it read before, as the Claude Code reader's does, when that gives what reading everything again gives). What
// is built gets the problems of turns and summaries with no readable text (unreadableText.ts), and its problems
// are capped (problemCap.ts): the first MAX_KEPT_PROBLEMS in line order, the rest as one summary.
import type { FormatId, RawLine, ReaderContext, Transcript, TranscriptReader } from '../core/model';
import { capProblems } from './problemCap';
import { withUnreadableTextProblems } from './unreadableText';

export abstract class RebuildingReader implements TranscriptReader {
  abstract readonly format: FormatId;
  private cache: { key: string; transcript: Transcript } | undefined;

  constructor(protected readonly context: ReaderContext = { fileName: '' }) {}

  abstract push(line: RawLine): void;

  finish(): Transcript {
    const key = this.stateKey();
    if (this.cache?.key === key) {
      const t = this.cache.transcript;
      return { ...t, turns: t.turns.slice(), checkpoints: t.checkpoints.slice(), problems: t.problems.slice() };
    }
    // Built now, its arrays are its own (build's copies of what it keeps): handed out as they are, and copied only
    // when finish() gives them again before a push (a copy of a 125k-turn array takes some 3 ms, on every append).
    const transcript = capped(withUnreadableTextProblems(this.build()));
    this.cache = { key, transcript };
    return { ...transcript };
  }

  /** Changes whenever push() kept something new. */
  protected abstract stateKey(): string;

  /**
   * Reads everything pushed so far into a transcript whose arrays (turns, checkpoints, problems) are its own: no
   * later push or build changes them.
   */
  protected abstract build(): Transcript;
}

/** The transcript with its problems in line order and capped. */
function capped(transcript: Transcript): Transcript {
  const { problems } = transcript;
  let sorted = true;
  for (let i = 1; i < problems.length && sorted; i++) sorted = problems[i - 1].line <= problems[i].line;
  return { ...transcript, problems: capProblems(sorted ? problems : problems.slice().sort((a, b) => a.line - b.line)) };
}
