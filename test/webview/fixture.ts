// Analysis-like datasets for the webview tests and a fake host that answers the webview's requests from
// them, speaking src/protocol.ts. Turns are generated on demand, so a 100k-turn dataset costs nothing
// until rows are asked for.

import type { Evidence, Problem, TurnStatus, Verdict } from '../../src/core/model';
import type {
  CheckpointHeader,
  FileInfo,
  HostMessage,
  RequestHandlers,
  RowStatus,
  SummaryDetails,
  TimelineRow,
  TurnDetails,
  ViewState,
  WebviewMessage,
} from '../../src/protocol';
import { answerWith } from '../../src/view/requests';

export interface FixtureTurn {
  id: string | number;
  role: string;
  label?: string;
  text: string;
  tokens: number;
}

export interface FixtureCheckpointSpec {
  summaryId: string;
  turnsBefore: number;
  statusOf(index: number): TurnStatus;
  verdict: Verdict;
  reasons: string[];
  summaryBudget?: number;
  budgetAssumed: boolean;
  truncated: boolean;
  notes?: string[];
  /** The summary is encrypted: nothing in it can be matched. */
  opaque?: boolean;
  /** Header fields as a real reader would give them (recorded context, the host's repeated reasons…). */
  header?: Partial<CheckpointHeader>;
}

export interface FixtureSpec {
  name: string;
  turnCount: number;
  turnAt(index: number): FixtureTurn;
  checkpoints: FixtureCheckpointSpec[];
  /** The path each turn would leave in a faithful summary (its heaviest evidence). */
  anchorOf(index: number): string;
}

/** The coverage threshold of every fixture checkpoint (core/evidence.ts's default). */
export const THRESHOLD = 1;
/** A phrase many turns share, found once near the start of every summary: light evidence. */
export const SHARED_PHRASE = 'refresh token';

interface BuiltCheckpoint {
  header: CheckpointHeader;
  spec: FixtureCheckpointSpec;
  summary: SummaryDetails;
  anchorAt: Map<number, number>;
  /** Where SHARED_PHRASE sits in the summary, and how many claimed turns hold it. */
  shared: { at: number; sharedBy: number };
}

export class FixtureDataset {
  readonly file: FileInfo;
  readonly checkpoints: BuiltCheckpoint[];

  constructor(readonly spec: FixtureSpec) {
    this.file = { path: `/fixtures/${spec.name}.jsonl`, name: `${spec.name}.jsonl`, format: 'canonical', turnCount: spec.turnCount };
    this.checkpoints = spec.checkpoints.map((checkpoint, index) => this.build(checkpoint, index));
  }

  headers(): CheckpointHeader[] {
    return this.checkpoints.map((checkpoint) => checkpoint.header);
  }

  status(checkpointIndex: number, index: number): RowStatus {
    if (checkpointIndex < 0) return 'uncovered'; // no checkpoint selected (a transcript without a compaction)
    const checkpoint = this.checkpoints[checkpointIndex].spec;
    return index >= checkpoint.turnsBefore ? 'after' : checkpoint.statusOf(index);
  }

  row(checkpointIndex: number, index: number): TimelineRow {
    const turn = this.spec.turnAt(index);
    return {
      index,
      id: turn.id,
      role: turn.role,
      label: turn.label,
      status: this.status(checkpointIndex, index),
      tokens: turn.tokens,
      line: index + 1,
      preview: turn.text.replace(/\s+/g, ' ').slice(0, 120),
    };
  }

  details(checkpointIndex: number, index: number): TurnDetails {
    const turn = this.spec.turnAt(index);
    const status = this.status(checkpointIndex, index);
    const anchor = this.spec.anchorOf(index);
    const weighed = status === 'covered' || status === 'claimed-missing';
    const evidence = weighed && checkpointIndex >= 0 ? this.evidence(checkpointIndex, index, status === 'covered') : [];
    const reasons: Record<RowStatus, string> = {
      covered: `Claimed, and its evidence ${anchor} is in the summary.`,
      'claimed-missing': `Claimed by the pointer set, but its evidence ${anchor} is not in the summary.`,
      uncovered: 'Not claimed: kept verbatim after the summary.',
      'nothing-to-check': 'Claimed, but it is an acknowledgement: nothing in it needs carrying.',
      unverifiable: 'Claimed, but the summary is encrypted: coverage cannot be checked.',
      after: `Comes after checkpoint S${checkpointIndex + 1}.`,
    };
    return {
      index,
      id: turn.id,
      role: turn.role,
      label: turn.label,
      status,
      tokens: turn.tokens,
      line: index + 1,
      endLine: index + 1,
      reason: reasons[status],
      evidence,
      ...(weighed
        ? { score: evidence.filter((piece) => piece.found).reduce((sum, piece) => sum + piece.weight, 0), threshold: THRESHOLD }
        : {}),
      text: turn.text,
      textTruncated: false,
    };
  }

  /**
   * A claimed turn's evidence, in no particular order (the pane sorts it): its path (weight 1, from its call
   * for a tool result; found when the turn is covered), an error code and an identifier its text holds (never
   * found), and the shared phrase (light, found: it is in every summary).
   */
  private evidence(checkpointIndex: number, index: number, covered: boolean): Evidence[] {
    const turn = this.spec.turnAt(index);
    const built = this.checkpoints[checkpointIndex];
    const at = covered ? built.anchorAt.get(index) : undefined;
    const evidence: Evidence[] = [];
    const identifier = `EXPIRY_${index}`;
    if (turn.text.includes(identifier)) evidence.push({ text: identifier, kind: 'identifier', found: false, weight: 0.4, sharedBy: 1 });
    evidence.push({
      text: this.spec.anchorOf(index),
      kind: 'path',
      found: covered,
      ...(at !== undefined ? { at } : {}),
      weight: 1,
      sharedBy: 1,
      ...(turn.role === 'tool' ? { fromCall: true } : {}),
    });
    const code = `E${1000 + index}`;
    if (turn.text.includes(`error ${code}`)) evidence.push({ text: code, kind: 'error-code', found: false, weight: 0.6, sharedBy: 1 });
    if (turn.text.includes(SHARED_PHRASE)) {
      evidence.push({ text: SHARED_PHRASE, kind: 'name', found: true, at: built.shared.at, weight: 0.1, sharedBy: built.shared.sharedBy });
    }
    return evidence;
  }

  private build(spec: FixtureCheckpointSpec, index: number): BuiltCheckpoint {
    const counts: Record<TurnStatus, number> = { covered: 0, 'claimed-missing': 0, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 };
    const claimedMissingIndexes: number[] = [];
    const anchorAt = new Map<number, number>();
    let summaryText = `<analysis>Summary of the first ${spec.turnsBefore} turns.</analysis>\n1. Primary request: fix the session handling (the `;
    const shared = { at: summaryText.length, sharedBy: 0 };
    summaryText += `${SHARED_PHRASE} expires early).\n2. Files touched: `;
    const foundAnchors: { anchor: string; at: number }[] = [{ anchor: SHARED_PHRASE, at: shared.at }];
    let prefixTokens = 0;
    let safeBoundaryIndex = -1;
    let runUnbroken = true;
    for (let turn = 0; turn < spec.turnsBefore; turn++) {
      const status = spec.statusOf(turn);
      counts[status]++;
      const { tokens, text } = this.spec.turnAt(turn);
      prefixTokens += tokens;
      if (text.includes(SHARED_PHRASE)) shared.sharedBy++;
      if (status === 'claimed-missing') claimedMissingIndexes.push(turn);
      if (status === 'covered') {
        const anchor = this.spec.anchorOf(turn);
        if (summaryText.length < 60_000) {
          anchorAt.set(turn, summaryText.length);
          foundAnchors.push({ anchor, at: summaryText.length });
          summaryText += `${anchor}, `;
        }
        if (runUnbroken) safeBoundaryIndex = turn;
      } else if (status === 'claimed-missing') {
        runUnbroken = false;
      }
    }
    summaryText += spec.truncated ? '\n3. Next step: the user asked to re' : '\n9. Please continue from here.';
    if (spec.opaque) {
      summaryText = 'gAAAAABn2x8k-encrypted-compaction-summary==';
      foundAnchors.length = 0;
    }
    const ratioFloor = 5;
    const ceiling = spec.summaryBudget === undefined ? undefined : spec.summaryBudget * ratioFloor;
    const header: CheckpointHeader = {
      index,
      summaryId: spec.summaryId,
      line: spec.turnsBefore + index + 1,
      turnsBefore: spec.turnsBefore,
      verdict: spec.verdict,
      reasons: spec.reasons,
      path: 'B',
      prefixTokens,
      prefixTokenSource: 'counted',
      summaryTokens: spec.summaryBudget === undefined ? 900 : spec.summaryBudget - 3,
      summaryBudget: spec.summaryBudget,
      budgetAssumed: spec.budgetAssumed,
      ceiling,
      ratioFloor,
      opaque: spec.opaque ?? false,
      truncation: spec.truncated
        ? {
            truncated: true,
            reasons: [
              'ends mid-clause ("the user asked to re")',
              'no closing section',
              `${(spec.summaryBudget ?? 0) - 3} of ${spec.summaryBudget} tokens`,
            ],
            cutAt: summaryText.length,
          }
        : { truncated: false, reasons: [] },
      counts,
      claimedMissingRanges: ranges(claimedMissingIndexes, (i) => this.spec.turnAt(i).id),
      claimedMissingIndexes,
      safeBoundaryIndex,
      safeCoveredCount: counts.covered,
      notes: spec.notes ?? [],
      ...spec.header,
    };
    const summary: SummaryDetails = {
      checkpointIndex: index,
      summaryId: spec.summaryId,
      text: summaryText,
      foundAnchors,
      cutAt: header.truncation.cutAt,
    };
    return { header, spec, summary, anchorAt, shared };
  }
}

function ranges(indexes: number[], idOf: (index: number) => string | number) {
  const result: { from: string | number; to: string | number; count: number }[] = [];
  let start = -1;
  for (let i = 0; i < indexes.length; i++) {
    if (start < 0) start = i;
    if (i === indexes.length - 1 || indexes[i + 1] !== indexes[i] + 1) {
      result.push({ from: idOf(indexes[start]), to: idOf(indexes[i]), count: i - start + 1 });
      start = -1;
    }
  }
  return result;
}

const tools = ['Read', 'Bash', 'Edit', 'Grep'];

function ordinaryTurn(index: number): FixtureTurn {
  const kind = index % 4;
  const path = `src/session/mod${index}.ts`;
  if (kind === 0)
    return {
      id: index,
      role: 'user',
      text: `Please look at ${path} and tell me why the refresh token expires early.`,
      tokens: 40 + (index % 7) * 3,
    };
  if (kind === 1)
    return {
      id: index,
      role: 'assistant',
      text: `I'll read ${path} first, then check the expiry constant.`,
      tokens: 60 + (index % 5) * 11,
    };
  if (kind === 2) {
    return {
      id: index,
      role: 'tool',
      label: tools[index % tools.length],
      text: `${tools[index % tools.length]} ${path}\nexport const EXPIRY_${index} = ${index * 60}; // seconds\nerror E${1000 + index}: token rejected`,
      tokens: 220 + (index % 13) * 17,
    };
  }
  return {
    id: index,
    role: 'assistant',
    text: `Found it: ${path} sets EXPIRY_${index} too low; the fix is to read it from config.`,
    tokens: 90 + (index % 3) * 20,
  };
}

/** The design note's incident: 420 turns before the checkpoint (380 covered, 40 claimed-missing), then 6 more. */
export function incidentSpec(): FixtureSpec {
  return {
    name: 'incident',
    turnCount: 426,
    turnAt: ordinaryTurn,
    anchorOf: (index) => `src/session/mod${index}.ts`,
    checkpoints: [
      {
        summaryId: 'S1-compact-0419',
        turnsBefore: 420,
        statusOf: (index) => (index < 380 ? 'covered' : 'claimed-missing'),
        verdict: 'fail-closed',
        reasons: [
          'the prefix exceeds the ceiling of 20,480 tokens (4,096 × 5) and the summariser reported no coverage',
          '40 claimed turns (380–419) have no anchor in the summary',
        ],
        summaryBudget: 4096,
        budgetAssumed: true,
        truncated: true,
        notes: ['The summary budget is the canonical format default (4,096 tokens).'],
      },
    ],
  };
}

/** Two checkpoints: S1 reversible after turn 99, S2 (the incident's shape) after turn 419. */
export function twoCheckpointSpec(): FixtureSpec {
  const incident = incidentSpec();
  return {
    ...incident,
    name: 'two-checkpoints',
    checkpoints: [
      {
        summaryId: 'S1-early',
        turnsBefore: 100,
        statusOf: (index) => (index < 90 ? 'covered' : 'uncovered'),
        verdict: 'reversible',
        reasons: ['every claimed turn has its anchor in the summary'],
        summaryBudget: 4096,
        budgetAssumed: false,
        truncated: false,
      },
      incident.checkpoints[0],
    ],
  };
}

/** A large transcript: 100,000 turns, a checkpoint after turn 98,999, some claimed-missing and uncovered turns. */
export function largeSpec(): FixtureSpec {
  return {
    name: 'large',
    turnCount: 100_000,
    turnAt: ordinaryTurn,
    anchorOf: (index) => `src/session/mod${index}.ts`,
    checkpoints: [
      {
        summaryId: 'S1-large',
        turnsBefore: 99_000,
        statusOf: (index) => (index % 37 === 36 ? 'claimed-missing' : index % 11 === 10 ? 'uncovered' : 'covered'),
        verdict: 'conditional',
        reasons: ['the pointer set must be narrowed to the turns the summary shows'],
        summaryBudget: undefined,
        budgetAssumed: false,
        truncated: false,
      },
    ],
  };
}

/**
 * Every status: S1 after turn 23 covers turns 0–9, finds nothing to check in the acknowledgements 10–13,
 * misses 14–17 and does not claim 18–23; S2 after turn 27 has an encrypted summary, so every turn it claims
 * is unverifiable.
 */
export function everyStatusSpec(): FixtureSpec {
  return {
    name: 'every-status',
    turnCount: 30,
    turnAt: (index) =>
      index >= 10 && index <= 13 ? { id: index, role: 'user', text: 'OK, thanks — go ahead.', tokens: 8 } : ordinaryTurn(index),
    anchorOf: (index) => `src/session/mod${index}.ts`,
    checkpoints: [
      {
        summaryId: 'S1-mixed',
        turnsBefore: 24,
        statusOf: (index) => (index < 10 ? 'covered' : index < 14 ? 'nothing-to-check' : index < 18 ? 'claimed-missing' : 'uncovered'),
        verdict: 'conditional',
        reasons: ['4 claimed turns (14–17) have too little evidence in the summary'],
        summaryBudget: 4096,
        budgetAssumed: false,
        truncated: false,
      },
      {
        summaryId: 'S2-encrypted',
        turnsBefore: 28,
        statusOf: () => 'unverifiable',
        verdict: 'fail-closed',
        reasons: ['the summary is encrypted: no coverage can be shown'],
        summaryBudget: 20000,
        budgetAssumed: true,
        truncated: false,
        opaque: true,
      },
    ],
  };
}

/** Five turns and no compaction: the list shows them, and nothing waits for a summary. */
export function noCompactionSpec(): FixtureSpec {
  return {
    name: 'no-compaction',
    turnCount: 5,
    turnAt: ordinaryTurn,
    anchorOf: (index) => `src/session/mod${index}.ts`,
    checkpoints: [],
  };
}

/**
 * A Codex-like checkpoint: an encrypted summary, a counted prefix (16,125) well within the ceiling, and the
 * agent's recorded context (212,134) much larger; the host's reasons repeat the size facts and the notes, as
 * src/core/analyze.ts builds them.
 */
export function codexLikeSpec(): FixtureSpec {
  const incident = incidentSpec();
  const notes = [
    'summary is encrypted (remote compaction): coverage cannot be verified',
    '38 of the 888 items since the start are kept verbatim in replacement_history (matched by content) and are not claimed',
    'recorded prefix: last_token_usage.total_tokens 212,134 of the token_count at line 1785, model_context_window 258,400',
    'its context_compacted event is at line 1789',
  ];
  return {
    ...incident,
    name: 'codex-like',
    checkpoints: [
      {
        summaryId: 'compaction-1789',
        turnsBefore: 420,
        statusOf: () => 'unverifiable',
        verdict: 'fail-closed',
        reasons: [
          'the summary is encrypted: whether it carries its 420 claimed turns cannot be checked, so none may be counted as covered (fail closed)',
          'prefix 16,125 tokens (counted) ≤ ceiling 100,000 (20,000 × 5) (assumed budget)',
          'the agent recorded 212,134 tokens of context at compaction',
          ...notes,
        ],
        summaryBudget: 20000,
        budgetAssumed: true,
        truncated: false,
        opaque: true,
        notes,
        header: { prefixTokens: 16_125, recordedPrefixTokens: 212_134, safeBoundaryIndex: -1, safeCoveredCount: 0 },
      },
    ],
  };
}

/**
 * A Claude-Code-like checkpoint whose summary is cut off: the host's reasons repeat the truncation tells (one
 * of them the raw summariser's), the ceiling comparison, preTokens and the trigger.
 */
export function claudeLikeSpec(): FixtureSpec {
  const incident = incidentSpec();
  const notes = ['preTokens 167,094 (recorded by Claude Code)', 'trigger: auto'];
  const truncation = ['ends mid-clause: “…the user asked to re”', 'raw summariser output has no closing </summary>'];
  return {
    ...incident,
    name: 'claude-like',
    checkpoints: [
      {
        ...incident.checkpoints[0],
        summaryId: 'b1c2-compact',
        reasons: [
          'the prefix is over the ceiling and the summariser reported no coverage: fail closed — the pointer set may not advance past the last turn whose evidence is in the summary (40 claimed turns are not carried by it)',
          'prefix 111,292 tokens (partly counted) > ceiling 100,000 (20,000 × 5) (assumed budget)',
          'the agent recorded 167,094 tokens of context at compaction',
          `summary appears truncated: ${truncation.join('; ')}`,
          ...notes,
        ],
        summaryBudget: 20000,
        notes,
        header: {
          prefixTokens: 111_292,
          prefixTokenSource: 'mixed',
          recordedPrefixTokens: 167_094,
          truncation: { truncated: true, reasons: truncation, cutAt: 100 },
        },
      },
    ],
  };
}

/** Turns and a summary whose text is hostile HTML/JS: it must show up as literal text and run nothing. */
export const HOSTILE = {
  img: '<img src=x onerror="window.__pwned=\'img\'">',
  script: "<script>window.__pwned='script'</script>",
  link: '<a href="javascript:window.__pwned=\'link\'">click me</a>',
  svg: '<svg onload="window.__pwned=\'svg\'"></svg>',
  style: '<style>body{display:none}</style><b style="color:red">bold</b>',
};

export function hostileSpec(): FixtureSpec {
  const hostile = Object.values(HOSTILE);
  return {
    name: '<img src=x onerror=alert(1)>',
    turnCount: 12,
    turnAt: (index) => ({
      id: index === 3 ? '<b>id</b>' : index,
      role: index % 2 === 0 ? 'user' : '<i>assistant</i>',
      label: index === 1 ? HOSTILE.img : undefined,
      text: `turn ${index}: ${hostile[index % hostile.length]} and ${HOSTILE.link}`,
      tokens: 30,
    }),
    anchorOf: (index) => (index % 2 === 0 ? HOSTILE.img : `${HOSTILE.script}#${index}`),
    checkpoints: [
      {
        summaryId: '<script>alert(1)</script>',
        turnsBefore: 10,
        statusOf: (index) => (index < 6 ? 'covered' : 'claimed-missing'),
        verdict: 'fail-closed',
        reasons: [`reason with ${HOSTILE.img}`],
        summaryBudget: 100,
        budgetAssumed: false,
        truncated: true,
        notes: [HOSTILE.link],
      },
    ],
  };
}

/**
 * The fake host's answers, one per request type: typed by the protocol's `Requests` map like the extension's
 * (a missing type or a wrong response does not compile), and run through the same validation, stale check and
 * error replies (src/view/requests.ts's answerWith).
 */
const fixtureHandlers = {
  getRows: ({ checkpointIndex, start, count }, data) => {
    const end = Math.min(data.file.turnCount, start + count);
    const rows: TimelineRow[] = [];
    for (let index = start; index < end; index++) rows.push(data.row(checkpointIndex, index));
    return { checkpointIndex, start, rows };
  },
  getTurnDetails: ({ checkpointIndex, turnIndex }, data) => ({ checkpointIndex, details: data.details(checkpointIndex, turnIndex) }),
  getSummary: ({ checkpointIndex }, data) => ({ details: data.checkpoints[checkpointIndex].summary }),
} satisfies RequestHandlers<FixtureDataset>;

/** What the fake host recorded and how it answers; `respond` sends a message into the page. */
export class FakeHost {
  readonly received: WebviewMessage[] = [];
  /** Every answer to a request, in order (replies and errors). */
  readonly answers: HostMessage[] = [];
  /** The problems sent with init. */
  problems: Problem[] = [{ line: 7, severity: 'warning', message: 'record has no timestamp' }];
  restore: ViewState | undefined;
  /** When set, getRows for this start fails with an error answer. */
  failRowsAt: number | undefined;
  /** The analysis version sent with init / updated; requests asked against another are answered as stale. */
  version = 0;
  /** Bounds to check requests against instead of the dataset's (to make a valid-looking request invalid). */
  boundsOverride: { checkpointCount: number; turnCount: number } | undefined;

  constructor(
    public dataset: FixtureDataset,
    private readonly respond: (message: HostMessage) => void,
  ) {}

  handle(message: WebviewMessage): void {
    this.received.push(message);
    const data = this.dataset;
    if (message.type === 'getRows' && message.start === this.failRowsAt) {
      this.answer({ type: 'error', requestId: message.requestId, reason: 'failed', message: 'the transcript changed while reading' });
      return;
    }
    const bounds = this.boundsOverride ?? { checkpointCount: data.checkpoints.length, turnCount: data.file.turnCount };
    const answer = answerWith(message, fixtureHandlers, data, bounds, { file: data.file.path, version: this.version });
    if (answer) {
      this.answer(answer);
      return;
    }
    if (message.type === 'ready') {
      this.respond({
        type: 'init',
        file: data.file,
        checkpoints: data.headers(),
        problems: this.problems,
        version: this.version,
        ...(this.restore ? { restore: this.restore } : {}),
      });
    }
  }

  /** Sends `updated` with the current dataset (swap `dataset` first to simulate a grown transcript). */
  sendUpdated(): void {
    this.version++;
    this.respond({ type: 'updated', file: this.dataset.file, checkpoints: this.dataset.headers(), problems: [], version: this.version });
  }

  ofType<T extends WebviewMessage['type']>(type: T): Extract<WebviewMessage, { type: T }>[] {
    return this.received.filter((message): message is Extract<WebviewMessage, { type: T }> => message.type === type);
  }

  private answer(message: HostMessage): void {
    this.answers.push(message);
    this.respond(message);
  }
}

/**
 * Transcript text that tries visual trickery: a right-to-left override left open (`1\u202E 99-05` reads
 * "1 50-99", `src/\u202Etxt.exe` reads "src/exe.txt"), zero-width and invisible characters, tag characters
 * spelling hidden text, an emoji joined by zero width joiners (legitimate: kept), and a 4,000-character word.
 */
export const TRICKY = {
  date: '1\u202E 99-05',
  anchor: 'src/\u202Etxt.exe',
  zeroWidth: 'pass\u200Bword\u200C\u2060\uFEFFok\u00ADay',
  tags: 'see \u{E0068}\u{E0069} here',
  family: '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
  long: 'Q'.repeat(4000),
};

/** Six turns before S1 (id `1\u202E 99-05`, turns 0–2 covered, 3–4 claimed-missing), then S2; turn 1 is the tricky one. */
export function trickySpec(): FixtureSpec {
  return {
    name: 'report\u202Etxt.exe',
    turnCount: 8,
    turnAt: (index) => {
      if (index === 1) {
        return {
          id: TRICKY.date,
          role: 'assistant',
          label: `Read\u200B`,
          text: `the date ${TRICKY.date} and ${TRICKY.anchor}; ${TRICKY.zeroWidth}; ${TRICKY.tags}; ${TRICKY.family} family`,
          tokens: 30,
        };
      }
      if (index === 2) return { id: 2, role: '\u202Etool', label: TRICKY.long, text: `long ${TRICKY.long} end`, tokens: 40 };
      return { id: index, role: index % 2 ? 'assistant' : 'user', text: `turn ${index} says nothing odd`, tokens: 20 };
    },
    anchorOf: (index) => (index === 1 ? TRICKY.anchor : index === 2 ? TRICKY.long : `src/t${index}.ts`),
    checkpoints: [
      {
        summaryId: TRICKY.date,
        turnsBefore: 6,
        statusOf: (index) => (index < 3 ? 'covered' : index < 5 ? 'claimed-missing' : 'uncovered'),
        verdict: 'fail-closed',
        reasons: [`turn ${TRICKY.date} is claimed but missing`, `a long word: ${TRICKY.long}`],
        summaryBudget: 100,
        budgetAssumed: false,
        truncated: true,
        notes: [`a note with ${TRICKY.zeroWidth}`],
      },
      {
        summaryId: 'S2',
        turnsBefore: 8,
        statusOf: () => 'covered',
        verdict: 'reversible',
        reasons: ['every claimed turn has its anchor in the summary'],
        summaryBudget: 100,
        budgetAssumed: false,
        truncated: false,
      },
    ],
  };
}
