// Tests for src/view/problemsModel.ts, what the Problems panel, the end-of-line marks and the status bar say:
// runs of claimed-missing turns (bridging turns with nothing to check, split by any other turn, severities per
// kind and `off`), their messages by line (never by record id), the one problem per checkpoint, truncation on the
// summary line, the runs flagged one by one bounded (the most severe first, the rest counted in one), floods of
// alike reader problems collapsed and bounded, the marks, the worst checkpoint, and each
// turn's note with the reason its result says (made when asked for a weighed turn).
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/core/analyze';
import type { CheckpointAnalysis, Problem, Role, Transcript, TurnResult, TurnStatus } from '../../../src/core/model';
import {
  DEFAULT_KIND_SEVERITIES,
  checkpointName,
  checkpointProblem,
  claimedMissingRuns,
  collapseProblems,
  listedMissingRuns,
  FLAGS_KEPT_PER_FILE,
  MAX_MISSING_RUNS,
  MAX_PROBLEM_RUNS,
  missingRunsPerCheckpoint,
  missingRunMessage,
  missingTurnMarks,
  missingTurnNote,
  truncationProblem,
  unlistedRunsMessage,
  worstCheckpoint,
  type KindSeverities,
} from '../../../src/view/problemsModel';
import { incident, span } from '../core/transcripts';

const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;

/** Turns with UUID ids, two lines each from line 11 on, and a checkpoint at line 500 giving them `statuses`. */
function build(
  statuses: TurnStatus[],
  roles: Role[],
  extra: Partial<CheckpointAnalysis> = {},
): { transcript: Pick<Transcript, 'turns'>; checkpoint: CheckpointAnalysis } {
  const turns = statuses.map((_, index) => ({
    id: `0111e7ef-0ff5-4c1b-9d4e-${String(index).padStart(12, '0')}`,
    role: roles[index % roles.length],
    text: '',
    span: span(11 + 2 * index, 12 + 2 * index),
  }));
  const results: TurnResult[] = statuses.map((status, index) => ({
    id: turns[index].id,
    index,
    status,
    claimed: status !== 'uncovered',
    evidence: [],
    reason: status === 'claimed-missing' ? 'claimed, but its anchor “X” is not in the summary' : '',
    line: turns[index].span.startLine,
    endLine: turns[index].span.endLine,
  }));
  const counts = { covered: 0, 'claimed-missing': 0, uncovered: 0, 'nothing-to-check': 0, unverifiable: 0 };
  for (const status of statuses) counts[status]++;
  const checkpoint = {
    summaryId: 'S1',
    index: 0,
    line: 500,
    endLine: 500,
    verdict: 'fail-closed',
    reasons: ['the prefix is over the ceiling: fail closed — the pointer set may not advance'],
    path: 'B',
    claimedIds: [],
    prefixTokens: 0,
    prefixTokenSource: 'counted',
    summaryTokens: 10,
    budgetAssumed: false,
    ratioFloor: 5,
    overCeiling: true,
    opaque: false,
    truncation: { truncated: false, reasons: [] },
    turns: results,
    counts,
    safeCovered: [],
    claimedMissingRanges: [],
    foundAnchors: [],
    notes: [],
    ...extra,
  } as CheckpointAnalysis;
  return { transcript: { turns }, checkpoint };
}

const M: TurnStatus = 'claimed-missing';
const N: TurnStatus = 'nothing-to-check';
const C: TurnStatus = 'covered';

describe('view/problemsModel: runs of claimed-missing turns', () => {
  it('one run per stretch of claimed-missing turns, going on across nothing-to-check and ended by any other turn', () => {
    const { transcript, checkpoint } = build([M, M, N, M, C, M, N, N], ['user']);
    const runs = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    assert.deepEqual(
      runs.map((run) => [run.startLine, run.endLine, run.turnIndexes]),
      [
        [11, 18, [0, 1, 3]],
        [21, 22, [5]],
      ],
    );
  });

  it('takes the severity per kind, the more severe for a mixed run, and drops a kind that is off', () => {
    const { transcript, checkpoint } = build([M, M, C, M, C, M], ['assistant', 'tool']);
    // turns 0 assistant, 1 tool, 3 tool, 5 tool
    const runs = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    assert.deepEqual(
      runs.map((run) => [run.severity, run.byKind]),
      [
        ['warning', { conversation: 1, 'tool-output': 1 }],
        ['information', { conversation: 0, 'tool-output': 1 }],
        ['information', { conversation: 0, 'tool-output': 1 }],
      ],
    );
    const toolsOff: KindSeverities = { conversation: 'error', 'tool-output': 'off' };
    const quiet = claimedMissingRuns(checkpoint, transcript, toolsOff);
    assert.deepEqual(
      quiet.map((run) => [run.severity, run.turnIndexes, run.startLine, run.endLine]),
      [['error', [0], 11, 12]],
      'tool output off: only the assistant turn, its own lines',
    );
    assert.deepEqual(claimedMissingRuns(checkpoint, transcript, { conversation: 'off', 'tool-output': 'off' }), []);
  });

  it('names lines and kinds in its message, never the turns’ record ids', () => {
    const { transcript, checkpoint } = build([M, M, M], ['user', 'tool', 'assistant']);
    const [run] = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    const message = missingRunMessage(run, checkpoint);
    assert.equal(
      message,
      'lines 11–16: 3 claimed turns (1 tool output, 2 conversation turns) missing from the summary (checkpoint at line 500); read them from the raw log',
    );
    assert.doesNotMatch(message, /0111e7ef/);
    const single = build([M], ['tool']);
    const [one] = claimedMissingRuns(single.checkpoint, single.transcript, DEFAULT_KIND_SEVERITIES);
    assert.equal(
      missingRunMessage(one, single.checkpoint),
      'lines 11–12: 1 claimed tool output missing from the summary (checkpoint at line 500); read it from the raw log',
    );
  });

  it('gives each turn of a run the reason its result says, made when asked for a weighed turn', () => {
    const turn = { role: 'tool' as Role, span: span(381, 382) };
    const weighed: TurnResult = {
      id: 380,
      index: 380,
      status: 'claimed-missing',
      claimed: true,
      evidence: [{ text: 'LEDGER_4107', kind: 'error-code', found: false, weight: 1, sharedBy: 1 }],
      reason: undefined,
      line: 381,
      endLine: 382,
      score: 0,
      threshold: 1,
    };
    assert.equal(
      missingTurnNote(weighed, turn),
      'lines 381–382, tool output: claimed, but the summary lacks “LEDGER_4107” (score 0.00 of 1.00 needed)',
    );
    assert.equal(
      missingTurnNote({ ...weighed, reason: 'claimed, but its anchor “X” is not in the summary' }, turn),
      'lines 381–382, tool output: claimed, but its anchor “X” is not in the summary',
    );
  });
});

describe('view/problemsModel: runs flagged one by one, at most MAX_MISSING_RUNS', () => {
  /** `count` runs of one claimed-missing turn each, split by covered turns, of the roles given in turn. */
  function manyRuns(count: number, roles: Role[]): ReturnType<typeof build> {
    const statuses: TurnStatus[] = [];
    for (let run = 0; run < count; run++) statuses.push(M, C);
    return build(
      statuses,
      roles.flatMap((role) => [role, 'assistant' as Role]),
    );
  }

  it('lists every run while there are no more than the bound', () => {
    const { transcript, checkpoint } = manyRuns(MAX_MISSING_RUNS, ['user']);
    const runs = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    const { listed, unlisted } = listedMissingRuns(runs);
    assert.equal(listed.length, MAX_MISSING_RUNS);
    assert.deepEqual(listed, runs);
    assert.equal(unlisted, undefined);
  });

  it('past the bound keeps the earliest runs, in log order, and counts the rest from where they start', () => {
    const { transcript, checkpoint } = manyRuns(MAX_MISSING_RUNS + 3, ['user']);
    const runs = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    const { listed, unlisted } = listedMissingRuns(runs);
    assert.deepEqual(listed, runs.slice(0, MAX_MISSING_RUNS));
    assert.deepEqual(unlisted, {
      runs: 3,
      turns: 3,
      listed: MAX_MISSING_RUNS,
      startLine: runs[MAX_MISSING_RUNS].startLine,
      endLine: runs[MAX_MISSING_RUNS].endLine,
      severity: 'warning',
    });
  });

  it('keeps the most severe runs first, wherever they are, and gives the count the most severe of the rest', () => {
    // Runs alternate tool output (information) and user turns (warning): 6 runs, 2 listed.
    const { transcript, checkpoint } = manyRuns(6, ['tool', 'user']);
    const runs = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    assert.deepEqual(
      runs.map((run) => run.severity),
      ['information', 'warning', 'information', 'warning', 'information', 'warning'],
    );
    const { listed, unlisted } = listedMissingRuns(runs, 2);
    assert.deepEqual(listed, [runs[1], runs[3]], 'the first two warnings, in log order');
    // The first run left out is the first run (a tool output); a warning among the rest makes the count one.
    const fromFirst = (count: number, listedCount: number) => ({
      runs: count,
      turns: count,
      listed: listedCount,
      startLine: runs[0].startLine,
      endLine: runs[0].endLine,
      severity: 'warning',
    });
    assert.deepEqual(unlisted, fromFirst(4, 2));
    const three = listedMissingRuns(runs, 3);
    assert.deepEqual(three.listed, [runs[1], runs[3], runs[5]]);
    assert.equal(three.unlisted?.severity, 'information', 'only tool outputs left out');
    const none = listedMissingRuns(runs, 0);
    assert.deepEqual(none.listed, []);
    assert.deepEqual(none.unlisted, fromFirst(6, 0));
  });

  it('says how many runs and turns are not listed, where the first is, and where to see them, by line only', () => {
    const { checkpoint } = build([M], ['user']);
    assert.equal(
      unlistedRunsMessage({ runs: 1550, turns: 3100, listed: 250, startLine: 2345, endLine: 2347, severity: 'warning' }, checkpoint),
      '1,550 more runs of claimed-missing turns (3,100 turns, the first on lines 2345–2347) of the checkpoint at line 500 ' +
        'are not listed here; the timeline shows every turn (n there jumps to the next claimed-missing one)',
    );
    assert.match(
      unlistedRunsMessage({ runs: 1, turns: 1, listed: 3, startLine: 7, endLine: 7, severity: 'information' }, checkpoint),
      /^1 more run of claimed-missing turns \(1 turn, the first on line 7\) of the checkpoint at line 500 is not listed here;/,
    );
    assert.match(
      unlistedRunsMessage({ runs: 40, turns: 90, listed: 0, startLine: 7, endLine: 9, severity: 'warning' }, checkpoint),
      /^40 runs of claimed-missing turns \(90 turns, the first on lines 7–9\) of the checkpoint at line 500 are not listed here;/,
      'not "more" when none is listed',
    );
  });

  it('flags fewer runs per checkpoint in a file of many, so that VS Code keeps every flag of the file', () => {
    assert.equal(missingRunsPerCheckpoint(0), MAX_MISSING_RUNS);
    assert.equal(missingRunsPerCheckpoint(1), MAX_MISSING_RUNS);
    assert.equal(missingRunsPerCheckpoint(3), MAX_MISSING_RUNS);
    assert.equal(missingRunsPerCheckpoint(4), 196);
    assert.equal(missingRunsPerCheckpoint(78), 7, 'an OpenHands file of 78 condensations');
    assert.equal(missingRunsPerCheckpoint(300), 0, 'past 266 checkpoints their own flags fill the file');
    for (let checkpoints = 1; checkpoints <= 266; checkpoints++) {
      const runs = missingRunsPerCheckpoint(checkpoints);
      // Per checkpoint: its verdict, its truncated summary, its runs and the one counting the rest; the readers' problems.
      const flags = checkpoints * (3 + runs) + MAX_PROBLEM_RUNS + 1;
      assert.ok(flags <= FLAGS_KEPT_PER_FILE, `${checkpoints} checkpoints: ${flags} flags`);
      assert.ok(runs === MAX_MISSING_RUNS || flags + checkpoints > FLAGS_KEPT_PER_FILE, `${checkpoints}: one more run each would fit`);
    }
  });
});

describe('view/problemsModel: the note’s incident', () => {
  const transcript = incident(true);
  const analysis = analyze(transcript, { countTokens: words });
  const [checkpoint] = analysis.checkpoints;

  it('one checkpoint problem with the verdict and the counts in words', () => {
    const problem = checkpointProblem(checkpoint);
    assert.ok(problem);
    assert.equal(problem.kind, 'fail-closed');
    assert.equal(problem.line, checkpoint.line);
    assert.match(problem.message, /^Checkpoint S1 is not safe to rely on \(fail-closed\)/);
    assert.match(problem.message, /40 of 420 claimed turns are missing from the summary \(380 covered\)/);
    assert.match(problem.message, /the summary appears cut off/);
  });

  it('one run, lines 381–420, and the truncation on the summary line', () => {
    const runs = claimedMissingRuns(checkpoint, transcript, DEFAULT_KIND_SEVERITIES);
    assert.equal(runs.length, 1);
    assert.match(
      missingRunMessage(runs[0], checkpoint),
      /^lines 381–420: 40 claimed conversation turns missing from the summary \(checkpoint at line 421\)/,
    );
    const truncation = truncationProblem(checkpoint);
    assert.ok(truncation);
    assert.equal(truncation.line, 421);
    assert.match(truncation.message, /^The summary of checkpoint S1 appears cut off: /);
  });

  it('marks the first line of each claimed-missing turn, in words built from line numbers only', () => {
    const marks = missingTurnMarks(analysis, transcript, DEFAULT_KIND_SEVERITIES);
    assert.deepEqual(
      marks.map((mark) => mark.line),
      Array.from({ length: 40 }, (_, index) => 381 + index),
    );
    assert.equal(marks[0].text, 'claimed, but missing from the summary (checkpoint at line 421)');
    assert.deepEqual(missingTurnMarks(analysis, transcript, { conversation: 'off', 'tool-output': 'warning' }), []);
  });
});

describe('view/problemsModel: checkpoints', () => {
  it('flags nothing on a reversible checkpoint whose coverage was checked', () => {
    const { checkpoint } = build([C, C, N], ['user'], { verdict: 'reversible', reasons: [] });
    assert.equal(checkpointProblem(checkpoint), undefined);
  });

  it('says a conditional checkpoint is safe only in part', () => {
    const { checkpoint } = build([C, M], ['user'], { verdict: 'conditional', reasons: ['the summariser did not report turn 1'] });
    const problem = checkpointProblem(checkpoint);
    assert.equal(problem?.kind, 'conditional');
    assert.match(
      problem?.message ?? '',
      /safe only in part \(conditional\).*1 of 2 claimed turns is missing from the summary \(1 covered\)\. Why: the summariser did not report turn 1\./,
    );
  });

  it('flags an unreadable summary once, saying coverage could not be checked and why', () => {
    const { checkpoint } = build(['unverifiable', 'unverifiable'], ['user'], { opaque: true });
    const problem = checkpointProblem(checkpoint);
    assert.equal(problem?.kind, 'unverifiable');
    assert.match(problem?.message ?? '', /coverage could not be checked for its 2 claimed turns: the summary is encrypted/);
  });

  it('shortens a long checkpoint id, and picks the worst checkpoint', () => {
    assert.equal(checkpointName({ summaryId: 'S2' }), 'S2');
    assert.equal(checkpointName({ summaryId: '0111e7ef-0ff5-4c1b-9d4e-000000000001' }), '0111e7ef…');
    const a = build([C, M], ['user'], { summaryId: 'A', verdict: 'conditional' }).checkpoint;
    const b = build([M, M], ['user'], { summaryId: 'B', verdict: 'fail-closed' }).checkpoint;
    const c = build([C, C], ['user'], { summaryId: 'C', verdict: 'reversible' }).checkpoint;
    assert.equal(worstCheckpoint([a, b, c])?.summaryId, 'B');
    assert.equal(worstCheckpoint([c, a])?.summaryId, 'A');
    assert.equal(worstCheckpoint([]), undefined);
  });

  it('puts the truncation on the summary record, the checkpoint’s last line', () => {
    const { checkpoint } = build([C], ['user'], {
      line: 1256,
      endLine: 1257,
      truncation: { truncated: true, reasons: ['ends mid-clause'] },
      summaryBudget: 20000,
      budgetAssumed: true,
      summaryTokens: 19990,
    });
    assert.deepEqual(truncationProblem(checkpoint), {
      line: 1257,
      message: 'The summary of checkpoint S1 appears cut off: ends mid-clause; 19990 of 20000 tokens (assumed budget)',
    });
  });
});

describe('view/problemsModel: reader problems', () => {
  it('collapses a run of alike problems into one, with a count and its lines', () => {
    const problems: Problem[] = [
      ...Array.from({ length: 41 }, (_, index): Problem => ({
        line: 10 + index,
        severity: 'error',
        message: `line ${10 + index}: not JSON (column ${index})`,
      })),
      { line: 60, severity: 'warning', message: 'line 60: a tool result answers no call' },
      { line: 70, severity: 'error', message: 'line 70: not JSON (column 3)' },
    ];
    const runs = collapseProblems(problems);
    assert.deepEqual(
      runs.map((run) => [run.severity, run.startLine, run.endLine, run.count]),
      [
        ['error', 10, 50, 41],
        ['warning', 60, 60, 1],
        ['error', 70, 70, 1],
      ],
    );
    assert.equal(runs[0].message, 'lines 10–50: 41 problems like this one: line 10: not JSON (column 0)');
    assert.equal(runs[1].message, 'line 60: a tool result answers no call');
  });

  it('stays bounded: at most the limit of runs, then one saying how many more', () => {
    const problems: Problem[] = Array.from({ length: 5000 }, (_, index) => ({
      line: index + 1,
      severity: 'warning',
      message: index % 2 ? `line ${index + 1}: odd thing` : `line ${index + 1}: even thing`,
    }));
    const runs = collapseProblems(problems, 100);
    assert.equal(runs.length, 101);
    assert.match(runs[100].message, /^4,900 more problems in this transcript are not listed \(from line 101 on\)\.$/);
  });
});
