// Entry of the timeline webview: lays out the panel (header, then the turn list — with the "where did this
// go?" search box in its heading — and the details pane in a resizable split, the selected turn and the summary
// in another), answers the host's messages (init / updated / selectTurn / error), asks for what is on screen
// (rows, the selected turn, the summary) and persists the view state and the layout (never the data). The webview analyses nothing; it renders what the host sends.
// A transcript without a compaction lists its turns with checkpoint -1 ("none selected"), which the host answers.

import './timeline.css';
import type { CheckpointHeader, FileInfo, FirstRows, PanelLayout, TimelineRow, ViewState } from '../src/protocol';
import type { Problem } from '../src/core/model';
import { ErrorBanner } from './banner';
import { DetailsPane } from './details';
import { turnName, turnPosition } from '../src/core/displayText';
import { el, fmt } from './dom';
import { FactSearch } from './factSearch';
import { Header } from './header';
import { HostApi, RowCache, type HostEvent } from './hostApi';
import { Splitter, type SplitDirection } from './splitter';
import { Timeline, type TimelineBand } from './timeline';
import { checkpointBandRow, ROW_HEIGHT, safeBandRow } from '../src/view/timelineGeometry';
import { checkpointShown, defaultCheckpoint, firstTurnShown, ROWS_SHOWN_ABOVE } from '../src/view/firstView';
import { registerToolkit } from './toolkit';

registerToolkit();

interface Data {
  file: FileInfo;
  checkpoints: CheckpointHeader[];
  problems: Problem[];
}

let data: Data | undefined;
/** The selected checkpoint; -1 when the transcript has none. */
let checkpointIndex = -1;
let detailsTimer: number | undefined;
let saveTimer: number | undefined;
/** Increments per details / summary request so late answers for an older selection are dropped. */
let detailsTicket = 0;
let summaryTicket = 0;

const root = document.getElementById('root') ?? document.body.appendChild(el('div'));
const banner = new ErrorBanner();
const api = new HostApi(onHostEvent);
const cache = new RowCache(
  api,
  () => timeline.refresh(),
  (message) => banner.show(message),
);
const DEFAULT_LAYOUT: PanelLayout = { detailsOpen: false, listShare: 0.6, turnShare: 0.55 };
const layout: PanelLayout = { ...DEFAULT_LAYOUT, ...api.loadLayout() };
const header = new Header({
  onCheckpointChange: (index) => switchCheckpoint(index),
  onCopySafePointerSet: () => {
    if (checkpointIndex >= 0) api.post({ type: 'copySafePointerSet', checkpointIndex });
  },
  onOpenCheckpoint: () => {
    if (checkpointIndex >= 0) api.post({ type: 'openCheckpoint', checkpointIndex });
  },
  onDetailsToggle: (open) => {
    layout.detailsOpen = open;
    scheduleSave();
  },
});
header.setDetailsOpen(layout.detailsOpen);
const liveRegion = el('div', 'sr-only');
liveRegion.setAttribute('aria-live', 'polite');
const timeline = new Timeline(
  {
    rowAt: (index) => (data ? cache.row(checkpointIndex, index, data.file.turnCount) : undefined),
    rowProblem: (index) => (cache.failedAt(checkpointIndex, index) ? 'could not be loaded (see the message above)' : undefined),
    preload: (first, last) => {
      if (data) cache.preload(checkpointIndex, first, last, data.file.turnCount);
    },
    onSelect: (index) => {
      requestDetails(index);
      scheduleSave();
    },
    onOpen: (index) => api.post({ type: 'openTurn', turnIndex: index }),
    onScroll: () => scheduleSave(),
    announce: (message) => {
      liveRegion.textContent = message;
    },
  },
  'Turns in log order, coloured by status for the selected checkpoint',
);
const details = new DetailsPane({ onOpenTurn: (index) => api.post({ type: 'openTurn', turnIndex: index }) });
const search = new FactSearch({
  find: (query) => api.request('findFact', { checkpointIndex, query }),
  onMatches: (indexes) => timeline.setFound(indexes),
  onGo: (index) => timeline.select(index, { scroll: 'center' }),
  onDone: () => timeline.focus(),
  announce: (message) => {
    liveRegion.textContent = message;
  },
});

const timelineSection = el('section', 'cl-timeline');
const timelineHeading = el('div', 'tl-heading');
timelineHeading.append(
  el('span', 'tl-heading-title', 'Timeline'),
  search.controls,
  el('span', 'tl-keys', '↑↓ PgUp PgDn Home End move · Enter opens · n / p next / previous claimed-missing · / finds'),
);
timelineSection.append(timelineHeading, search.routeBar, timeline.element);
// "/" from anywhere but a text field puts the keyboard in the search box, as in many lists.
document.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement | null;
  if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || target?.closest('input, textarea')) return;
  event.preventDefault();
  search.focus();
});
const body = el('div', 'cl-body');

/** Side by side, or (in a narrow panel) the details under the list: the same query as timeline.css. */
const stacked = window.matchMedia('(max-width: 520px)');
const bodyDirection = (): SplitDirection => (stacked.matches ? 'rows' : 'columns');
const listSplitter = new Splitter({
  container: body,
  property: '--cl-list-size',
  label: 'Resize the turn list and the details',
  direction: bodyDirection,
  // The list keeps at least half the panel's height when the details sit under it, and 240 px of width beside them.
  limits: (total, direction) =>
    direction === 'columns'
      ? { min: Math.min(240, total), max: Math.max(Math.min(240, total), total - 220) }
      : { min: Math.min(total, Math.ceil(window.innerHeight / 2) + timelineHeading.offsetHeight), max: total },
  share: layout.listShare,
  defaultShare: DEFAULT_LAYOUT.listShare,
  onChange: (share) => {
    layout.listShare = share;
    scheduleSave();
  },
});
const turnSplitter = new Splitter({
  container: details.element,
  property: '--cl-turn-size',
  label: 'Resize the selected turn and the summary',
  direction: () => 'rows',
  limits: (total) => ({ min: Math.min(48, total), max: Math.max(Math.min(48, total), total - 48) }),
  share: layout.turnShare,
  defaultShare: DEFAULT_LAYOUT.turnShare,
  onChange: (share) => {
    layout.turnShare = share;
    scheduleSave();
  },
});
details.addSplitter(turnSplitter.element);
stacked.addEventListener('change', () => listSplitter.apply());
body.append(timelineSection, listSplitter.element, details.element);
root.replaceChildren(banner.element, header.element, body, liveRegion);
listSplitter.apply();
turnSplitter.apply();
root.setAttribute('aria-busy', 'true');

api.post({ type: 'ready' });

function onHostEvent(event: HostEvent): void {
  switch (event.type) {
    case 'init':
      init(event, event.restore ?? savedStateFor(event.file.path));
      break;
    case 'updated':
      update(event);
      break;
    case 'selectTurn':
      if (!data) return;
      if (event.checkpointIndex !== checkpointIndex && data.checkpoints[event.checkpointIndex]) {
        switchCheckpoint(event.checkpointIndex);
      }
      timeline.select(event.turnIndex, { scroll: 'center' });
      timeline.focus();
      // Report at once, not after the save's delay: the host owes this selection until a view state shows it,
      // and asks for it again if this document is torn down first (src/view/selectionHandoff.ts).
      saveNow();
      break;
    case 'error':
      banner.show(event.message);
      break;
  }
}

function savedStateFor(file: string): ViewState | undefined {
  const state = api.loadState();
  return state && state.file === file ? state : undefined;
}

function init(next: Data & { rows?: FirstRows }, restore: ViewState | undefined): void {
  data = { file: next.file, checkpoints: next.checkpoints, problems: next.problems };
  root.removeAttribute('aria-busy');
  cache.invalidate();
  seedRows(next);
  checkpointIndex = checkpointShown(data.checkpoints, restore);
  // The model, the selection and the scroll position together: the rows are drawn once, where the view starts.
  timeline.batch(() => {
    renderAll();
    if (restore) {
      timeline.restoreSelection(restore.selectedTurn);
      timeline.scrollTop = restore.scrollTop;
    } else {
      // Start on the first claimed-missing turn, if any: that is what the user came to see.
      const first = firstTurnShown(currentCheckpoint());
      if (first !== undefined) timeline.restoreSelection(first);
      timeline.scrollTop = first !== undefined ? Math.max(0, timeline.rowTop(first) - ROWS_SHOWN_ABOVE * ROW_HEIGHT) : 0;
    }
  });
  if (timeline.selected >= 0) requestDetails(timeline.selected);
  else details.showNoTurn();
  requestSummary();
  scheduleSave();
}

function update(next: Data & { sameCheckpoints?: boolean; tail?: { start: number; rows: TimelineRow[] }; rows?: FirstRows }): void {
  if (!data) {
    init(next, undefined);
    return;
  }
  data = { file: next.file, checkpoints: next.sameCheckpoints ? data.checkpoints : next.checkpoints, problems: next.problems };
  if (!data.checkpoints[checkpointIndex]) checkpointIndex = defaultCheckpoint(data.checkpoints);
  const scrollTop = timeline.scrollTop;
  // Checkpoints unchanged (an append): the turns up to the last checkpoint, their rows, details and the summaries
  // are as they were; only the rows from there on are asked for again.
  // When the rows that changed came along (`tail`), they are taken as they are and nothing is asked for.
  let unchangedBefore = next.sameCheckpoints ? Math.max(0, ...data.checkpoints.map((checkpoint) => checkpoint.turnsBefore)) : 0;
  if (next.sameCheckpoints && next.tail) {
    unchangedBefore = next.tail.start;
    cache.patchTail(next.tail.start, next.tail.rows, data.file.turnCount, checkpointIndex, data.checkpoints.length > 0);
  } else if (next.sameCheckpoints) cache.invalidateFrom(unchangedBefore);
  else {
    cache.invalidate();
    seedRows(next);
  }
  renderAll();
  timeline.scrollTop = scrollTop;
  if (timeline.selected >= unchangedBefore) requestDetails(timeline.selected);
  if (!next.sameCheckpoints) requestSummary();
  search.refresh();
}

function switchCheckpoint(index: number): void {
  if (!data || !data.checkpoints[index] || index === checkpointIndex) return;
  checkpointIndex = index;
  renderAll();
  if (timeline.selected >= 0) requestDetails(timeline.selected);
  requestSummary();
  search.refresh();
  scheduleSave();
}

function renderAll(): void {
  if (!data) return;
  header.render(data.file, data.checkpoints, checkpointIndex, data.problems);
  const checkpoint = currentCheckpoint();
  timeline.setModel({
    // Every turn is listed, with or without a checkpoint (without one, the host answers for checkpoint -1).
    rowCount: data.file.turnCount,
    bands: bandsFor(data.checkpoints, checkpoint),
    claimedMissingIndexes: checkpoint?.claimedMissingIndexes ?? [],
  });
}

function bandsFor(checkpoints: CheckpointHeader[], current: CheckpointHeader | undefined): TimelineBand[] {
  const bands: TimelineBand[] = checkpoints.map((checkpoint) => ({
    boundary: checkpointBandRow(checkpoint),
    kind: 'checkpoint',
    current: checkpoint === current,
    label: `\u25BC Checkpoint ${checkpoint.index + 1} of ${checkpoints.length} (line ${checkpoint.line}) — its summary replaced the ${fmt(checkpoint.turnsBefore)} turns above · ${checkpoint.verdict}`,
  }));
  if (current) {
    bands.push({
      boundary: safeBandRow(current),
      kind: 'safe',
      current: true,
      label:
        current.safeBoundaryIndex < 0 || current.safeBoundaryId === undefined
          ? '\u2502 Safe pointer set is empty: nothing above this line may be claimed'
          : `\u2502 Safe pointer set ends here (after ${turnName(current.safeBoundaryId)})`,
    });
  }
  return bands;
}

/** Keeps the rows the host sent along with `init` or `updated` (its view's), so they are drawn without asking. */
function seedRows(next: { file: FileInfo; rows?: FirstRows }): void {
  if (next.rows) cache.seed(next.rows.checkpointIndex, next.rows.start, next.rows.rows, next.file.turnCount);
}

function currentCheckpoint(): CheckpointHeader | undefined {
  return data?.checkpoints[checkpointIndex];
}

function requestDetails(index: number): void {
  if (!data) return;
  details.showTurnLoading(index);
  window.clearTimeout(detailsTimer);
  detailsTimer = window.setTimeout(() => {
    const ticket = ++detailsTicket;
    const forCheckpoint = checkpointIndex;
    api.request('getTurnDetails', { checkpointIndex: forCheckpoint, turnIndex: index }).then(
      (answer) => {
        if (ticket === detailsTicket) details.showTurn(answer.details, data?.file.turnCount);
      },
      (error: Error) => {
        // An answer for an older selection is dropped; for the current one, the message replaces the spinner.
        if (ticket === detailsTicket) {
          details.showTurnError(`Could not load the turn at ${turnPosition(index, data?.file.turnCount ?? index + 1)}: ${error.message}`);
        }
      },
    );
  }, 60);
}

function requestSummary(): void {
  if (!data) return;
  if (!currentCheckpoint()) {
    summaryTicket++;
    details.showNoSummary();
    return;
  }
  const ticket = ++summaryTicket;
  const forCheckpoint = checkpointIndex;
  api.request('getSummary', { checkpointIndex: forCheckpoint }).then(
    (answer) => {
      if (ticket === summaryTicket) details.showSummary(answer.details, data?.checkpoints[forCheckpoint]);
    },
    (error: Error) => {
      if (ticket === summaryTicket) details.showSummaryError(`Could not load the summary: ${error.message}`);
    },
  );
}

function scheduleSave(): void {
  window.clearTimeout(saveTimer);
  saveTimer = window.setTimeout(saveNow, 200);
}

function saveNow(): void {
  window.clearTimeout(saveTimer);
  if (!data) {
    // Before the host's init only the layout is known: keep it without inventing a file's state.
    return;
  }
  api.saveState({
    version: 1,
    file: data.file.path,
    checkpointIndex,
    selectedTurn: timeline.selected,
    scrollTop: Math.round(timeline.scrollTop),
    layout: { ...layout },
  });
}
