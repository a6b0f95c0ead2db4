// Base of the LangChain/LangMem/Letta reader, whose files may be one JSON document over many lines as well as JSON
// Lines: it keeps every pushed line both ways. The problems of its JSON Lines view are handed to the reader capped
// (problemCap.ts, CappedJsonLines, which streamedDocument.ts uses too), so a file of a million bad lines gives
// them a thousand problems and one summary to merge, not a million. (The OpenHands and message-array readers read
// as pushed instead: streamedDocument.ts.)
import type { Problem, RawLine } from '../core/model';
import { JsonLinesBuffer } from './jsonLines';
import { DocumentLines } from './jsonSpans';
import { capProblems } from './problemCap';
import { RebuildingReader } from './rebuildingReader';

/** JSON Lines whose problems are read capped: the first MAX_KEPT_PROBLEMS, then one summary of the rest. */
export class CappedJsonLines extends JsonLinesBuffer {
  private view: { length: number; last: Problem | undefined; problems: readonly Problem[] } | undefined;

  override get problems(): readonly Problem[] {
    const all = super.problems;
    const last = all[all.length - 1];
    if (this.view === undefined || this.view.length !== all.length || this.view.last !== last) {
      this.view = { length: all.length, last, problems: capProblems(all) };
    }
    return this.view.problems;
  }
}

export abstract class DocumentReader extends RebuildingReader {
  protected readonly document = new DocumentLines();
  protected readonly jsonLines: JsonLinesBuffer = new CappedJsonLines();

  push(line: RawLine): void {
    this.document.push(line);
    this.jsonLines.push(line);
  }

  protected stateKey(): string {
    return `${this.document.lineCount}:${this.document.all.length}:${this.jsonLines.records.length}`;
  }
}
