// Base of the readers whose file is JSON Lines or one JSON document (OpenHands, message arrays, LangChain), read as
// its lines are pushed. How the file is read is decided by its first line that is not blank: JSON Lines when that
// line is a JSON object by itself, whose records are read a batch at a time; an array read an element at a time when
// it starts with `[` (arrayElements.ts); an object whose lists of records are read an element at a time when it
// starts with `{` and the reader names such lists (`listKey`, objectLists.ts); otherwise one JSON document, kept and
// parsed whole at each finish. Its JSON Lines records are let go once read. A file read once hands each turn to
// ReaderContext.keepTurn as it is made (a large file's texts go to disk as they are read). A line pushed again
// forgets what was read and reads the kept lines before it again; a reader whose lines come once each
// (ReaderContext.linesOnce, or readOnce) keeps none. The problems of the JSON Lines are handed over
// capped (problemCap.ts), so a file of a million bad lines gives a thousand problems and one summary to merge, not a
// million.
import type { Problem, RawLine, ReaderContext, SourceSpan, TextKeeper, Transcript, Turn } from '../core/model';
import { ArrayElements } from './arrayElements';
import { isObject, JsonLinesBuffer, type JsonLine } from './jsonLines';
import { DocumentLines, documentProblem, type LocatedJson } from './jsonSpans';
import { MAX_LEVEL, ObjectLists, type ListPlace, type OutlineDocument } from './objectLists';
import { capProblems } from './problemCap';
import { RebuildingReader } from './rebuildingReader';

/** JSON Lines whose problems are read capped: the first MAX_KEPT_PROBLEMS, then one summary of the rest. */
class CappedJsonLines extends JsonLinesBuffer {
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

/** How the file is read (see the header); undecided until its first line that is not blank. */
type Mode = 'undecided' | 'jsonl' | 'array' | 'object' | 'document';

/** How many pushed records wait before push() reads them: reading as they come, a batch at a time. */
const READ_AHEAD_RECORDS = 512;

/** A document parsed whole: the parse, the span of a node of it, and the span of the whole document. */
export interface WholeDocument {
  located: LocatedJson;
  spanOf(node: unknown): SourceSpan;
  whole: SourceSpan;
}

export abstract class StreamedDocumentReader<State> extends RebuildingReader {
  /** What the file is called in a syntax error's problem ("OpenHands event file"). */
  protected abstract readonly documentName: string;
  private mode: Mode = 'undecided';
  private state: State;
  /** Every line pushed, to read again from the start when a line is pushed again; none when the file is read once. */
  private readonly kept: RawLine[] = [];
  /** The blank lines before the first that is not. */
  private leading: RawLine[] = [];
  private lines: JsonLinesBuffer = new CappedJsonLines();
  /** How many records were read in all (the line buffer's are let go once read). */
  private recordIndex = 0;
  private elements: ArrayElements | undefined;
  private elementIndex = 0;
  private objectLists: ObjectLists | undefined;
  /** The state each list of an object is read into (the first: `state`). */
  private listStates: State[] = [];
  private document: DocumentLines | undefined;
  private first: RawLine | undefined;
  private last: RawLine | undefined;
  private pushed = 0;
  private rewinds = 0;
  /**
   * True while records or elements are read as they are pushed: only then are turns handed over. What is read at a
   * finish (a document read whole, or what a reader kept to read then) is read again at the next, and keeps its own.
   */
  private readingAsPushed = false;

  /**
   * `readAheadRecords`: how many pushed records wait before push() reads them; `streamArrays`: false reads an
   * array, or an object with lists, whole, as one document (tests vary both, to compare).
   */
  constructor(
    context?: ReaderContext,
    private readonly readAheadRecords = READ_AHEAD_RECORDS,
    private readonly streamArrays = true,
  ) {
    super(context);
    this.state = this.newState(this.context.textKeeper);
  }

  /** A state to read into; `keeper`: where the calls' texts are kept (ReaderContext.textKeeper). */
  protected abstract newState(keeper: TextKeeper | undefined): State;

  /** Reads one JSON Lines record; `index`: its place among the file's records. */
  protected abstract readRecord(state: State, record: JsonLine, index: number): void;

  /** Reads one element of a document that is an array; `index`: its place in the array. */
  protected abstract readElement(state: State, value: unknown, span: SourceSpan, index: number): void;

  /** Reads a document parsed whole (what is not an array, or any document when arrays are not streamed). */
  protected abstract readWhole(state: State, document: WholeDocument): void;

  /** The transcript of what was read; `problems`: those of the file's shape, to put before the state's. */
  protected abstract transcriptOf(state: State, problems: Problem[], lineCount: number): Transcript;

  /**
   * The names of the lists of records in a document that is an object (a LangGraph state's `messages`, an OpenHands
   * run's `history` or `events`, a request body's `messages` or `input`), read an element at a time with
   * transcriptOfOutline; without them, such a document is read whole.
   */
  protected readonly listKey: string | readonly string[] | undefined = undefined;

  /** How many objects down from the root such a list may sit (objectLists.ts MAX_LEVEL; 0: the root's own). */
  protected readonly listMaxLevel: number = MAX_LEVEL;

  /** Whether such a list may sit in an object in an array (a Letta file's `agents[i].messages`). */
  protected readonly listsInArrays: boolean = false;

  /** Whether a document that is an array is read whole, as one document (a format whose documents are objects). */
  protected readonly arraysAsDocuments: boolean = false;

  /**
   * Readies `state` for the elements of a list under `key`, at `place` (called as the list opens, before its
   * elements); `first` is the state of the read's first list, where what its lists share may be kept.
   */
  protected openList?(state: State, key: string, place: ListPlace, first: State): void;

  /**
   * The transcript of a document that is an object, its lists read an element at a time (listKey): `outline` is the
   * rest of it, parsed; `stateOf` the state a list of the outline was read into (undefined: a list read with the
   * outline, whose elements are its own); `fresh` a new state; `problems` those of the file's shape.
   */
  protected transcriptOfOutline?(
    outline: OutlineDocument,
    stateOf: (list: unknown) => State | undefined,
    fresh: () => State,
    problems: Problem[],
    lineCount: number,
  ): Transcript;

  /** The turn to keep: given to the context's keepTurn while read as pushed, else kept as it is. */
  protected keepTurn(turn: Turn): Turn {
    const keep = this.readingAsPushed ? this.context.keepTurn : undefined;
    return keep?.(turn) ?? turn;
  }

  push(line: RawLine): void {
    if (this.last !== undefined && line.line <= this.last.line) {
      this.rewinds++;
      this.readAgainBefore(line.line);
    }
    // Kept to read again after a line pushed again, which a reader whose lines come once each never has.
    if (this.context.readOnce !== true && this.context.linesOnce !== true) this.kept.push(line);
    this.pushed++;
    this.read(line);
  }

  protected stateKey(): string {
    return `${this.rewinds}:${this.pushed}:${this.last?.line ?? 0}`;
  }

  /**
   * How many of `state`'s checkpoints are settled once made (TranscriptReader.settledCheckpoints), for a reader
   * whose checkpoints read only the records before them; without it, none is.
   */
  protected checkpointsIn?(state: State): number;

  /**
   * The checkpoints read so far, when the file is read as pushed a record or an element at a time and the reader
   * can tell (checkpointsIn); none for an object's lists (which list the transcript shows is known only at the
   * end) or a document read whole. The JSON Lines records pushed so far are read first.
   */
  settledCheckpoints(): number {
    if (this.checkpointsIn === undefined) return 0;
    if (this.mode === 'jsonl') {
      if (this.lines.records.length > 0) this.readRecords();
      return this.checkpointsIn(this.state);
    }
    return this.mode === 'array' ? this.checkpointsIn(this.state) : 0;
  }

  protected build(): Transcript {
    const problems: Problem[] = [];
    let state = this.state;
    if (this.mode === 'jsonl') {
      this.readRecords();
      problems.push(...this.lines.problems);
    } else if (this.mode === 'array') {
      this.pushSyntaxError(problems, this.elements!.end());
    } else if (this.mode === 'object') {
      const outline = this.objectLists!.end();
      this.pushSyntaxError(problems, outline.error);
      const stateOf = (list: unknown): State | undefined => {
        const k = outline.listAt(list);
        return k === undefined ? undefined : this.listStates[k];
      };
      return this.transcriptOfOutline!(outline, stateOf, () => this.newState(undefined), problems, this.last?.line ?? 0);
    } else if (this.mode === 'document') {
      state = this.readDocument(problems);
    }
    return this.transcriptOf(state, problems, this.last?.line ?? 0);
  }

  /** The document's syntax error, if any, as a problem: a warning when the file ends there unfinished. */
  private pushSyntaxError(problems: Problem[], error: { line: number; message: string; atEnd: boolean } | undefined): void {
    if (error === undefined) return;
    problems.push(documentProblem(this.documentName, error.line, error.message, error.atEnd && this.last?.terminated === false));
  }

  /** Forgets what was read and reads the kept lines before line `n` again. */
  private readAgainBefore(n: number): void {
    const again = this.kept.filter((line) => line.line < n);
    this.kept.length = 0;
    this.mode = 'undecided';
    this.state = this.newState(this.context.textKeeper);
    this.leading = [];
    this.lines = new CappedJsonLines();
    this.recordIndex = 0;
    this.elements = undefined;
    this.elementIndex = 0;
    this.objectLists = undefined;
    this.listStates = [];
    this.document = undefined;
    this.first = undefined;
    this.last = undefined;
    for (const line of again) {
      this.kept.push(line);
      this.read(line);
    }
  }

  private read(line: RawLine): void {
    this.first ??= line;
    this.last = line;
    if (this.mode === 'undecided') {
      if (line.text.trim() === '') {
        this.leading.push(line);
        return;
      }
      this.mode = this.modeOf(line.text);
      const leading = this.leading;
      this.leading = [];
      if (this.mode === 'array') {
        this.elements = new ArrayElements(({ value, span }) =>
          this.asPushed(() => this.readElement(this.state, value, span, this.elementIndex++)),
        );
      }
      if (this.mode === 'object') {
        this.objectLists = new ObjectLists(
          this.listKey!,
          // Every list's turns are handed over: which list the transcript shows is known only at the end.
          (list, { value, span }, index) => this.asPushed(() => this.readElement(this.listStates[list], value, span, index)),
          {
            maxLevel: this.listMaxLevel,
            inArrays: this.listsInArrays,
            onList: (list, key, place) => {
              while (this.listStates.length <= list) {
                this.listStates.push(this.listStates.length === 0 ? this.state : this.newState(this.context.textKeeper));
              }
              this.openList?.(this.listStates[list], key, place, this.listStates[0]);
            },
          },
        );
      }
      if (this.mode === 'document') this.document = new DocumentLines();
      for (const blank of leading) this.readDecided(blank);
    }
    this.readDecided(line);
  }

  private modeOf(text: string): Mode {
    try {
      if (isObject(JSON.parse(text.trim()))) return 'jsonl';
    } catch {
      // not a record of its own
    }
    if (!this.streamArrays) return 'document';
    const head = text.trimStart();
    if (head.startsWith('[')) return this.arraysAsDocuments ? 'document' : 'array';
    return head.startsWith('{') && this.listKey !== undefined && this.transcriptOfOutline !== undefined ? 'object' : 'document';
  }

  private readDecided(line: RawLine): void {
    if (this.mode === 'jsonl') {
      this.lines.push(line);
      if (this.lines.records.length >= this.readAheadRecords) this.readRecords();
    } else if (this.mode === 'array') this.elements!.push(line);
    else if (this.mode === 'object') this.objectLists!.push(line);
    else this.document!.push(line);
  }

  /**
   * Reads the JSON Lines records pushed since the last read, then lets them go: nothing reads a record twice (a
   * line pushed again reads the kept lines again, into a new buffer), so the extension does not keep each line
   * twice, as a kept line and as a record.
   */
  private readRecords(): void {
    const records = this.lines.records;
    this.asPushed(() => {
      for (const record of records) this.readRecord(this.state, record, this.recordIndex++);
    });
    this.lines.releaseRecords();
  }

  /** A document read whole, into a state of its own; its syntax error, if any, goes to `problems`. */
  private readDocument(problems: Problem[]): State {
    const state = this.newState(undefined);
    const document = this.document!;
    if (document.all.every((l) => l.text.trim() === '')) return state;
    const { located, problem } = document.parse(this.documentName);
    if (problem) problems.push(problem);
    const whole = document.spanOf(0, document.text.length);
    const spanOf = (node: unknown): SourceSpan => {
      const range = typeof node === 'object' && node !== null ? located.rangeOf(node) : undefined;
      return range ? document.spanOf(range[0], range[1]) : whole;
    };
    this.readWhole(state, { located, spanOf, whole });
    return state;
  }

  /** Runs `read` with its turns handed over. */
  private asPushed(read: () => void): void {
    this.readingAsPushed = true;
    try {
      read();
    } finally {
      this.readingAsPushed = false;
    }
  }
}
