// Talking to the extension host: wraps acquireVsCodeApi, types every message with src/protocol.ts, sends each
// request with `request(type, params)` and resolves with the response the protocol's `Requests` map ties to that
// type (rejecting on the host's error answer, or when no answer comes in time, so no pane waits forever), and
// keeps a small LRU cache of timeline row pages so scrolling back and forth does not ask the host again. Holds
// no rendering code.

import {
  REPLY_TYPES,
  type HostMessage,
  type PanelLayout,
  type ReplyMessage,
  type RequestMessage,
  type RequestParams,
  type RequestResponse,
  type RequestType,
  type TimelineRow,
  type ViewState,
  type WebviewMessage,
} from '../src/protocol';
import { ROW_PAGE_SIZE } from '../src/view/firstView';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** Messages the host sends without being asked (responses to requests are routed to their promise). */
export type HostEvent = Extract<HostMessage, { type: 'init' | 'updated' | 'selectTurn' | 'error' }>;

/** How long a request waits for the host's answer before it fails with a message (the host answers every one). */
export const REQUEST_TIMEOUT_MS = 30_000;

interface Pending {
  type: RequestType;
  resolve: (message: ReplyMessage) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** A request the host refused or could not answer; `reason` says why (see protocol.ts's ErrorMessage). */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid' | 'stale' | 'failed' | 'unavailable' | 'timeout' | 'mismatch' | undefined,
  ) {
    super(message);
  }
}

export class HostApi {
  private readonly vscode: VsCodeApi;
  private nextRequestId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The analysis version of the last init / updated; requests carry it, so the host can tell a stale one. */
  private version: number | undefined;

  constructor(
    private readonly onEvent: (event: HostEvent) => void,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {
    this.vscode = acquireVsCodeApi();
    window.addEventListener('message', (event: MessageEvent) => this.receive(event.data));
  }

  post(message: WebviewMessage): void {
    this.vscode.postMessage(message);
  }

  /**
   * Sends a request of type K and resolves with its response (the reply's payload, typed by the protocol's
   * `Requests` map). Rejects with a RequestError on the host's error answer, a reply of another type, or when
   * nothing comes within the timeout.
   */
  request<K extends RequestType>(type: K, params: RequestParams<K>): Promise<RequestResponse<K>> {
    const requestId = this.nextRequestId++;
    return new Promise<RequestResponse<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(requestId)) return;
        reject(new RequestError(`the extension did not answer within ${Math.round(this.timeoutMs / 1000)} s`, 'timeout'));
      }, this.timeoutMs);
      this.pending.set(requestId, {
        type,
        timer,
        reject,
        resolve: (reply) => {
          const { type: _type, requestId: _id, ...response } = reply;
          resolve(response as unknown as RequestResponse<K>);
        },
      });
      const message = { ...params, type, requestId, ...(this.version === undefined ? {} : { version: this.version }) };
      this.post(message as unknown as RequestMessage<K> as WebviewMessage);
    });
  }

  async getRows(checkpointIndex: number, start: number, count: number): Promise<TimelineRow[]> {
    return (await this.request('getRows', { checkpointIndex, start, count })).rows;
  }

  /** The persisted view state, when it has the current schema version. */
  loadState(): ViewState | undefined {
    const state = this.vscode.getState() as Partial<ViewState> | undefined;
    if (
      state &&
      state.version === 1 &&
      typeof state.file === 'string' &&
      typeof state.checkpointIndex === 'number' &&
      typeof state.selectedTurn === 'number' &&
      typeof state.scrollTop === 'number'
    ) {
      return state as ViewState;
    }
    return undefined;
  }

  /** The remembered layout (whatever file it was saved with), keeping only well-formed fields. */
  loadLayout(): Partial<PanelLayout> {
    const state = this.vscode.getState() as { layout?: unknown } | undefined;
    const saved = state && typeof state === 'object' ? state.layout : undefined;
    if (!saved || typeof saved !== 'object') return {};
    const { detailsOpen, listShare, turnShare } = saved as Record<string, unknown>;
    const share = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
    return {
      ...(typeof detailsOpen === 'boolean' ? { detailsOpen } : {}),
      ...(share(listShare) ? { listShare } : {}),
      ...(share(turnShare) ? { turnShare } : {}),
    };
  }

  /** Persists view state (never data) and tells the host, whose serializer restores the panel after a reload. */
  saveState(state: ViewState): void {
    this.vscode.setState(state);
    this.post({ type: 'viewState', state });
  }

  private receive(data: unknown): void {
    if (!data || typeof data !== 'object' || typeof (data as { type?: unknown }).type !== 'string') return;
    const message = data as HostMessage;
    const requestId = 'requestId' in message ? message.requestId : undefined;
    if (requestId !== undefined) {
      const waiting = this.pending.get(requestId);
      if (waiting) {
        this.pending.delete(requestId);
        clearTimeout(waiting.timer);
        if (message.type === 'error') waiting.reject(new RequestError(message.message, message.reason));
        else if (message.type !== REPLY_TYPES[waiting.type]) {
          waiting.reject(new RequestError(`expected ${REPLY_TYPES[waiting.type]}, got ${message.type}`, 'mismatch'));
        } else waiting.resolve(message as ReplyMessage);
        return;
      }
      if (message.type !== 'error') return; // an answer nobody waits for any more
      return; // an error for a request nobody waits for any more (an older selection or analysis)
    }
    switch (message.type) {
      case 'init':
      case 'updated':
        this.version = message.version;
        this.onEvent(message);
        break;
      case 'selectTurn':
      case 'error':
        this.onEvent(message);
        break;
      default:
        break;
    }
  }
}

/**
 * Timeline rows in fixed-size pages, least recently used evicted first. `invalidate` drops everything and
 * makes answers to requests sent before it be ignored (the host re-analysed the file).
 */
export class RowCache {
  static readonly pageSize = ROW_PAGE_SIZE;
  private readonly pages = new Map<string, TimelineRow[]>();
  private readonly inFlight = new Set<string>();
  /** Pages whose request failed: not asked again until the next invalidate (the host re-analysed). */
  private readonly failed = new Set<string>();
  private generation = 0;

  constructor(
    private readonly api: HostApi,
    private readonly onPageLoaded: () => void,
    private readonly onError: (message: string) => void,
    private readonly capacity = 40,
  ) {}

  /** The row if its page is cached; otherwise undefined, and the page is requested once. */
  row(checkpointIndex: number, index: number, turnCount: number): TimelineRow | undefined {
    const pageStart = Math.floor(index / RowCache.pageSize) * RowCache.pageSize;
    const key = `${checkpointIndex}:${pageStart}`;
    const page = this.pages.get(key);
    if (page) {
      this.pages.delete(key); // re-insert: most recently used last
      this.pages.set(key, page);
      return page[index - pageStart];
    }
    this.load(key, checkpointIndex, pageStart, Math.min(RowCache.pageSize, turnCount - pageStart));
    return undefined;
  }

  /**
   * Asks for the pages holding rows `first`–`last` (inclusive, clamped to the `turnCount` turns) that are neither
   * kept, nor asked for, nor failed; pages kept are left where they are in the order of use.
   */
  preload(checkpointIndex: number, first: number, last: number, turnCount: number): void {
    const size = RowCache.pageSize;
    const end = Math.min(last, turnCount - 1);
    for (let pageStart = Math.floor(Math.max(0, first) / size) * size; pageStart <= end; pageStart += size) {
      const key = `${checkpointIndex}:${pageStart}`;
      if (!this.pages.has(key)) this.load(key, checkpointIndex, pageStart, Math.min(size, turnCount - pageStart));
    }
  }

  /** True when the page holding row `index` could not be loaded (until the next invalidate). */
  failedAt(checkpointIndex: number, index: number): boolean {
    return this.failed.has(`${checkpointIndex}:${Math.floor(index / RowCache.pageSize) * RowCache.pageSize}`);
  }

  invalidate(): void {
    this.generation++;
    this.pages.clear();
    this.inFlight.clear();
    this.failed.clear();
  }

  /**
   * Takes rows the host sent unasked (`init`'s first rows) for one checkpoint's view: each page they fill whole
   * (or to the transcript's end, at `turnCount` turns) is kept, so those rows are drawn without asking.
   */
  seed(checkpointIndex: number, start: number, rows: readonly TimelineRow[], turnCount: number): void {
    const size = RowCache.pageSize;
    const end = start + rows.length;
    for (let pageStart = Math.ceil(start / size) * size; pageStart < end; pageStart += size) {
      const pageEnd = Math.min(pageStart + size, turnCount);
      if (pageEnd > end) break; // a page the rows fill only in part is asked for whole, as usual
      this.pages.set(`${checkpointIndex}:${pageStart}`, rows.slice(pageStart - start, pageEnd - start));
    }
    this.evictOverCapacity();
  }

  /**
   * Drops the pages holding any row from `first` on (for every checkpoint), and makes answers to requests sent
   * before it be ignored; the pages before it stay (an append that changed no checkpoint left those rows as they were).
   */
  invalidateFrom(first: number): void {
    this.generation++;
    for (const key of [...this.pages.keys()]) {
      const pageStart = Number(key.slice(key.indexOf(':') + 1));
      if (pageStart + RowCache.pageSize > first) this.pages.delete(key);
    }
    this.inFlight.clear();
    this.failed.clear();
  }

  /**
   * Takes the rows from `start` to the end of the transcript (`turnCount` turns) that came with an `updated`:
   * cached pages holding rows from `start` on get them in place of theirs (pages of every checkpoint when
   * `forCheckpoints`, else those without one: index -1), and pages the rows fill from their first row are made
   * for `checkpointIndex`, so the new turns are drawn without asking. Answers to requests sent before are ignored.
   */
  patchTail(start: number, rows: readonly TimelineRow[], turnCount: number, checkpointIndex: number, forCheckpoints: boolean): void {
    this.generation++;
    this.inFlight.clear();
    this.failed.clear();
    const size = RowCache.pageSize;
    const pageOf = (pageStart: number, kept: readonly TimelineRow[]): TimelineRow[] => [
      ...kept,
      ...rows.slice(pageStart + kept.length - start, Math.min(pageStart + size, turnCount) - start),
    ];
    for (const [key, page] of [...this.pages]) {
      const separator = key.indexOf(':');
      const pageCheckpoint = Number(key.slice(0, separator));
      const pageStart = Number(key.slice(separator + 1));
      if (pageStart + size <= start) continue; // wholly before the rows that changed
      const keep = Math.max(0, start - pageStart);
      this.pages.delete(key); // set again below, as the most recently used
      if (pageCheckpoint >= 0 === forCheckpoints && page.length >= keep) this.pages.set(key, pageOf(pageStart, page.slice(0, keep)));
    }
    for (let pageStart = Math.ceil(start / size) * size; pageStart < turnCount; pageStart += size) {
      const key = `${checkpointIndex}:${pageStart}`;
      if (!this.pages.has(key)) this.pages.set(key, pageOf(pageStart, []));
    }
    this.evictOverCapacity();
  }

  get size(): number {
    return this.pages.size;
  }

  /** Drops the least recently used pages past the capacity. */
  private evictOverCapacity(): void {
    while (this.pages.size > this.capacity) this.pages.delete(this.pages.keys().next().value as string);
  }

  private load(key: string, checkpointIndex: number, start: number, count: number): void {
    if (this.inFlight.has(key) || this.failed.has(key) || count <= 0) return;
    this.inFlight.add(key);
    const generation = this.generation;
    this.api.getRows(checkpointIndex, start, count).then(
      (rows) => {
        if (generation !== this.generation) return;
        this.inFlight.delete(key);
        this.pages.set(key, rows);
        this.evictOverCapacity();
        this.onPageLoaded();
      },
      (error: Error) => {
        if (generation !== this.generation) return;
        this.inFlight.delete(key);
        this.failed.add(key);
        this.onError(`Could not load the turns at positions ${start + 1}–${start + count}: ${error.message}`);
        this.onPageLoaded(); // redraw: the page's rows say they could not be loaded instead of "loading…"
      },
    );
  }
}
