// Base of the readers whose files may be one JSON document over many lines as well as JSON Lines
// (OpenHands, LangChain/LangMem/Letta, message arrays): it keeps every pushed line both ways.
import type { RawLine } from '../core/model';
import { JsonLinesBuffer } from './jsonLines';
import { DocumentLines } from './jsonSpans';
import { RebuildingReader } from './rebuildingReader';

export abstract class DocumentReader extends RebuildingReader {
  protected readonly document = new DocumentLines();
  protected readonly jsonLines = new JsonLinesBuffer();

  push(line: RawLine): void {
    this.document.push(line);
    this.jsonLines.push(line);
  }

  protected stateKey(): string {
    return `${this.document.lineCount}:${this.document.all.length}:${this.jsonLines.records.length}`;
  }
}
