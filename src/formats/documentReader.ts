// Base of the readers whose files may be one JSON document over many lines as well as JSON Lines
// (OpenHands, LangChain/LangMem/Letta, message arrays): it keeps every pushed line both ways and rebuilds
// the transcript only when lines were added since the last finish().
import type { RawLine, ReaderContext, Transcript, TranscriptReader, FormatId } from '../core/model';
import { JsonLinesBuffer } from './jsonLines';
import { DocumentLines } from './jsonSpans';

export abstract class DocumentReader implements TranscriptReader {
  abstract readonly format: FormatId;
  protected readonly document = new DocumentLines();
  protected readonly jsonLines = new JsonLinesBuffer();
  private cache: { key: string; transcript: Transcript } | undefined;

  constructor(protected readonly context: ReaderContext = { fileName: '' }) {}

  push(line: RawLine): void {
    this.document.push(line);
    this.jsonLines.push(line);
  }

  finish(): Transcript {
    const key = `${this.document.lineCount}:${this.document.all.length}:${this.jsonLines.records.length}`;
    if (this.cache?.key !== key) this.cache = { key, transcript: this.build() };
    const t = this.cache.transcript;
    return { ...t, turns: t.turns.slice(), checkpoints: t.checkpoints.slice(), problems: t.problems.slice() };
  }

  /** Reads everything pushed so far into a transcript. */
  protected abstract build(): Transcript;
}
