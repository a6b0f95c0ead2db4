// Talking to the extension host: wraps acquireVsCodeApi, types every message with src/protocol.ts, pairs
// requests and responses by id, and keeps a small LRU cache of timeline row pages so scrolling back and
// forth does not ask the host again. Holds no rendering code.

import type { HostMessage, PanelLayout, SummaryDetails, TimelineRow, TurnDetails, ViewState, WebviewMessage } from '../src/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** Messages the host sends without being asked (responses to requests are routed to their promise). */
export type HostEvent = Extract<HostMessage, { type: 'init' | 'updated' | 'selectTurn' | 'error' }>;

type Pending = { resolve: (message: HostMessage) => void; reject: (error: Error) => void };

/** Distributes Omit over a union, so each request keeps its own fields. */
type WithoutId<T> = T extends unknown ? Omit<T, 'requestId'> : never;
type RequestMessage = WithoutId<Extract<WebviewMessage, { requestId: number }>>;

export class HostApi {
  private readonly vscode: VsCodeApi;
  private nextRequestId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly onEvent: (event: HostEvent) => void) {
    this.vscode = acquireVsCodeApi();
    window.addEventListener('message', (event: MessageEvent) => this.receive(event.data));
  }

  post(message: WebviewMessage): void {
    this.vscode.postMessage(message);
  }

  /** Sends a request and resolves with the host's answer carrying the same id (or rejects on an error answer). */
  request(message: RequestMessage): Promise<HostMessage> {
    const requestId = this.nextRequestId++;
    return new Promise<HostMessage>((resolve, reject) => {
      this.pending.set(requestId, { resolve, reject });
      this.post({ ...message, requestId } as WebviewMessage);
    });
  }

  async getTurnDetails(checkpointIndex: number, turnIndex: number): Promise<TurnDetails> {
    const answer = await this.request({ type: 'getTurnDetails', checkpointIndex, turnIndex });
    if (answer.type !== 'turnDetails') throw new Error(`expected turnDetails, got ${answer.type}`);
    return answer.details;
  }

  async getSummary(checkpointIndex: number): Promise<SummaryDetails> {
    const answer = await this.request({ type: 'getSummary', checkpointIndex });
    if (answer.type !== 'summary') throw new Error(`expected summary, got ${answer.type}`);
    return answer.details;
  }

  async getRows(checkpointIndex: number, start: number, count: number): Promise<TimelineRow[]> {
    const answer = await this.request({ type: 'getRows', checkpointIndex, start, count });
    if (answer.type !== 'rows') throw new Error(`expected rows, got ${answer.type}`);
    return answer.rows;
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
        if (message.type === 'error') waiting.reject(new Error(message.message));
        else waiting.resolve(message);
        return;
      }
      if (message.type !== 'error') return; // an answer nobody waits for any more
    }
    switch (message.type) {
      case 'init':
      case 'updated':
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
  static readonly pageSize = 100;
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

  invalidate(): void {
    this.generation++;
    this.pages.clear();
    this.inFlight.clear();
    this.failed.clear();
  }

  get size(): number {
    return this.pages.size;
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
        while (this.pages.size > this.capacity) {
          const oldest = this.pages.keys().next().value as string;
          this.pages.delete(oldest);
        }
        this.onPageLoaded();
      },
      (error: Error) => {
        if (generation !== this.generation) return;
        this.inFlight.delete(key);
        this.failed.add(key);
        this.onError(`Could not load turns ${start}–${start + count - 1}: ${error.message}`);
      },
    );
  }
}
