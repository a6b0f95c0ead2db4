// Small helpers for the SourceSpan every turn and checkpoint carries (line range and byte offsets).
import type { RawLine, SourceSpan } from '../core/model';

/** The span of one whole line. */
export function lineSpan(line: RawLine): SourceSpan {
  return { startLine: line.line, endLine: line.line, startOffset: line.offset, endOffset: line.endOffset };
}

/** The span from the start of `first` to the end of `last` (records of one turn spread over several lines). */
export function joinSpans(first: SourceSpan, last: SourceSpan): SourceSpan {
  const startsFirst = first.startOffset <= last.startOffset;
  const start = startsFirst ? first : last;
  const end = first.endOffset >= last.endOffset ? first : last;
  return { startLine: start.startLine, endLine: end.endLine, startOffset: start.startOffset, endOffset: end.endOffset };
}
