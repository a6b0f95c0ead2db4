// Diagnostics on a transcript in a real extension host, few and readable: on the incident, exactly one for the
// checkpoint (line 421, fail-closed, its counts in words), one for the claimed-missing run on the turns' own
// lines 381–420 (named by lines, with related information on each turn) and one for the truncated summary; the
// run's severity follows the problems.* settings; appending records updates them live; a checkpoint with more
// runs than MAX_MISSING_RUNS gets that many and one flag counting the rest (fewer in a file of several
// checkpoints); and on a real Claude
// Code session the count stays at one per checkpoint, one per run and the truncation, with no record UUIDs.
import * as assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionLensApi } from '../../src/extension/extension';
import { claimedMissingRuns, collapseProblems, MAX_MISSING_RUNS, missingRunsPerCheckpoint } from '../../src/view/problemsModel';
import { readSettings } from '../../src/extension/settings';
import { skipWithoutShared } from '../sharedFolder';
import { MAX_RELATED_PER_CHECKPOINT } from '../../src/extension/diagnostics';
import { closeAllEditors, copySample, extensionApi, extensionPath, ourDiagnostics, waitFor, writeTranscript } from './helpers';

const config = () => vscode.workspace.getConfiguration('compactionLens');

async function setSeverity(kind: 'conversationSeverity' | 'toolOutputSeverity', value: string | undefined): Promise<void> {
  await config().update(`problems.${kind}`, value, vscode.ConfigurationTarget.Global);
  await waitFor(() => config().inspect(`problems.${kind}`)?.globalValue === value, `problems.${kind} = ${value}`);
}

/**
 * 1,200 canonical turns and a summary that carries one of every three: claimed whole, 400 runs of two
 * claimed-missing turns each (turns 3k+1 and 3k+2, on lines 3k+2 and 3k+3).
 */
function everyThirdKept(): { turns: object[]; summary: string } {
  const kept = (id: number): boolean => id % 3 === 0;
  const turns = Array.from({ length: 1200 }, (_, id) => ({
    type: 'turn',
    id,
    role: 'assistant',
    content: `Step ${id}: recorded ${kept(id) ? 'KEEP' : 'LOST'}_${id} in the ledger.`,
    tokens: 20,
    anchor: `${kept(id) ? 'KEEP' : 'LOST'}_${id}`,
  }));
  const summary = `# Session summary\n\n${turns
    .filter((turn) => kept(turn.id))
    .map((turn) => `- ${turn.anchor} recorded`)
    .join('\n')}\n`;
  return { turns, summary };
}

describe('diagnostics', () => {
  let api: CompactionLensApi;

  before(async () => {
    api = await extensionApi();
  });

  afterEach(closeAllEditors);

  after(async () => {
    await setSeverity('conversationSeverity', undefined);
    await setSeverity('toolOutputSeverity', undefined);
  });

  it('gives the incident three: the checkpoint, the claimed-missing run on its own lines, the truncated summary', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const diagnostics = await waitFor(() => {
      const current = ourDiagnostics(uri);
      return current.length > 0 ? current : undefined;
    }, 'the diagnostics of the incident');
    assert.deepEqual(
      diagnostics.map((diagnostic) => diagnostic.code).sort(),
      ['claimed-missing', 'fail-closed', 'truncated-summary'],
      diagnostics.map((d) => d.message).join('\n'),
    );

    const verdict = diagnostics.find((diagnostic) => diagnostic.code === 'fail-closed')!;
    assert.equal(verdict.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(verdict.range.start.line, 420, 'on the checkpoint record, line 421');
    assert.equal(verdict.range.end.line, 420);
    assert.match(verdict.message, /^Checkpoint S1 is not safe to rely on \(fail-closed\)/);
    assert.match(verdict.message, /40 of 420 claimed turns are missing from the summary \(380 covered\)/);

    const missing = diagnostics.find((diagnostic) => diagnostic.code === 'claimed-missing')!;
    assert.equal(missing.range.start.line, 380, 'turn 380 sits on line 381');
    assert.equal(missing.range.end.line, 419);
    assert.equal(missing.severity, vscode.DiagnosticSeverity.Warning, 'conversation turns: warning by default');
    assert.match(
      missing.message,
      /^lines 381–420: 40 claimed turns \(10 tool outputs, 30 conversation turns\) missing from the summary \(checkpoint at line 421\)/,
    );
    const related = missing.relatedInformation ?? [];
    assert.equal(related.length, 40);
    assert.deepEqual(
      related.map((info) => info.location.range.start.line),
      Array.from({ length: 40 }, (_, index) => 380 + index),
      'turn n sits on line n+1',
    );
    assert.ok(related.every((info) => info.location.uri.toString() === uri.toString()));
    assert.match(related[0].message, /^line 381, user turn: claimed, but its anchor “[A-Z]+_\d+” is not in the summary$/);

    const truncated = diagnostics.find((diagnostic) => diagnostic.code === 'truncated-summary')!;
    assert.equal(truncated.range.start.line, 420, 'on the summary record, line 421');
    assert.equal(truncated.range.end.line, 420);
    assert.equal(truncated.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(truncated.message, /^The summary of checkpoint S1 appears cut off: /);
    assert.match(truncated.message, /\d+ of 4096 tokens/);
  });

  it('takes the claimed-missing severity from problems.conversationSeverity and problems.toolOutputSeverity', async () => {
    const uri = copySample();
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const missingRuns = () => ourDiagnostics(uri).filter((diagnostic) => diagnostic.code === 'claimed-missing');
    await waitFor(() => missingRuns().length === 1, 'the claimed-missing run');

    await setSeverity('conversationSeverity', 'error');
    await waitFor(() => missingRuns()[0]?.severity === vscode.DiagnosticSeverity.Error, 'the run to become an error');

    // Conversation off: only the 10 tool outputs are flagged, as one run from the first to the last, a hint.
    await setSeverity('conversationSeverity', 'off');
    await setSeverity('toolOutputSeverity', 'hint');
    const [tools] = await waitFor(() => {
      const runs = missingRuns();
      return runs.length === 1 && runs[0].severity === vscode.DiagnosticSeverity.Hint ? runs : undefined;
    }, 'the run to hold the tool output only, as a hint');
    assert.match(tools.message, /: 10 claimed tool outputs missing from the summary/);
    assert.equal(tools.relatedInformation?.length, 10);

    await setSeverity('toolOutputSeverity', 'off');
    await waitFor(() => missingRuns().length === 0, 'no claimed-missing flags with both kinds off');
    assert.equal(ourDiagnostics(uri).length, 2, 'the checkpoint and the truncation stay');

    await setSeverity('conversationSeverity', undefined);
    await setSeverity('toolOutputSeverity', undefined);
    await waitFor(() => missingRuns()[0]?.severity === vscode.DiagnosticSeverity.Warning, 'the defaults again');
  });

  it('updates the diagnostics when records are appended to an open transcript', async () => {
    const uri = copySample();
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    await waitFor(() => api.store.get(uri), 'the transcript to be analysed');
    const before = ourDiagnostics(uri);
    assert.ok(before.length > 0);
    const version = api.store.get(uri)!.version;
    const endsWithNewline = readFileSync(uri.fsPath, 'utf8').endsWith('\n');
    // Lines 423-426: two turns with explicit anchors, a broken line; line 427 a checkpoint whose summary lacks them.
    const appended = [
      JSON.stringify({
        type: 'turn',
        id: 422,
        role: 'tool',
        content: 'reconcile.log: RECONCILE_9001 timeout',
        tokens: 40,
        anchor: 'RECONCILE_9001',
      }),
      JSON.stringify({
        type: 'turn',
        id: 423,
        role: 'assistant',
        content: 'Raised the reconcile timeout (RECONCILE_9002).',
        tokens: 30,
        anchor: 'RECONCILE_9002',
      }),
      '{"type":"turn", this line is broken',
      JSON.stringify({
        type: 'checkpoint',
        summary_id: 'S2',
        summary: '# Session summary\n\n1. The nightly reconcile was investigated and the',
        summary_budget: 4096,
        covered: { from: 420, to: 423 },
      }),
    ];
    appendFileSync(uri.fsPath, `${endsWithNewline ? '' : '\n'}${appended.join('\n')}\n`);
    await waitFor(() => api.store.get(uri)!.version > version, 'the transcript to be re-analysed', 20000);
    const after = await waitFor(() => {
      const current = ourDiagnostics(uri);
      return current.some((diagnostic) => diagnostic.range.start.line === 426) ? current : undefined;
    }, 'diagnostics on the appended checkpoint (line 427)');
    const parse = after.find((diagnostic) => diagnostic.code === 'transcript-problem' && diagnostic.range.start.line === 425);
    assert.ok(parse, 'the broken line 426 is flagged');
    assert.equal(parse.severity, vscode.DiagnosticSeverity.Error);
    // The runs S2 claims sit on the turns' lines and name S2's line; how the prose turns 420–421 are judged may split them.
    const missing = after.filter(
      (diagnostic) => diagnostic.code === 'claimed-missing' && /checkpoint at line 427/.test(diagnostic.message),
    );
    assert.ok(missing.length > 0, 'S2 claims turns its summary lacks');
    assert.ok(
      missing.some((diagnostic) => diagnostic.range.start.line <= 424 && diagnostic.range.end.line >= 424),
      'turn 423 (line 425) is in a flagged run',
    );
    assert.equal(
      after.filter((diagnostic) => diagnostic.code === 'truncated-summary' && diagnostic.range.start.line === 420).length,
      1,
      'S1 is still flagged once',
    );
    assert.equal(
      after.filter((diagnostic) => diagnostic.range.start.line === 426 && diagnostic.code !== 'truncated-summary').length,
      1,
      'one flag for S2 itself',
    );
    assert.equal(api.store.get(uri)!.transcript.turns.length, 424);
  });

  it('flags at most MAX_MISSING_RUNS runs per checkpoint and counts the rest in one; MAX_RELATED_PER_CHECKPOINT related turns', async () => {
    const { turns, summary } = everyThirdKept();
    const uri = writeTranscript('many-runs.jsonl', [
      ...turns,
      { type: 'checkpoint', summary_id: 'S1', summary, summary_budget: 100000, covered: { from: 0, to: 1199 } },
    ]);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const flags = await waitFor(() => {
      const current = ourDiagnostics(uri);
      return current.some((diagnostic) => diagnostic.code === 'claimed-missing') ? current : undefined;
    }, 'the claimed-missing flags');
    const runs = flags.filter((diagnostic) => diagnostic.code === 'claimed-missing');
    assert.equal(runs.length, MAX_MISSING_RUNS, 'one flag per run, up to the bound');
    const rest = flags.filter((diagnostic) => diagnostic.code === 'claimed-missing-unlisted');
    assert.equal(rest.length, 1, 'one flag for the rest');
    // The 251st run is turns 751–752, on lines 752–753 (0-based 751).
    assert.equal(rest[0].range.start.line, 751);
    assert.equal(rest[0].severity, vscode.DiagnosticSeverity.Warning);
    assert.match(
      rest[0].message,
      /^150 more runs of claimed-missing turns \(300 turns, the first on lines 752–753\) of the checkpoint at line 1201 are not listed here;/,
    );
    const related = runs.map((diagnostic) => diagnostic.relatedInformation?.length ?? 0);
    assert.equal(
      related.reduce((sum, n) => sum + n, 0),
      MAX_RELATED_PER_CHECKPOINT,
    );
    assert.ok(
      related.slice(0, MAX_RELATED_PER_CHECKPOINT / 2).every((n) => n === 2),
      'the first runs list their two turns',
    );
    assert.ok(
      related.slice(MAX_RELATED_PER_CHECKPOINT / 2).every((n) => n === 0),
      'the later ones none',
    );
    for (const diagnostic of runs) assert.match(diagnostic.message, /\blines \d+–\d+/, 'each run still names its lines');
  });

  it('flags fewer runs per checkpoint in a file of several, so that VS Code keeps every flag', async () => {
    // The same 400 runs, claimed by four checkpoints: 196 runs flagged for each, and one flag each for the rest.
    const { turns, summary } = everyThirdKept();
    const checkpoints = ['S1', 'S2', 'S3', 'S4'].map((id) => ({
      type: 'checkpoint',
      summary_id: id,
      summary,
      summary_budget: 100000,
      covered: { from: 0, to: 1199 },
    }));
    const uri = writeTranscript('many-checkpoints.jsonl', [...turns, ...checkpoints]);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const flags = await waitFor(() => {
      const current = ourDiagnostics(uri);
      return current.filter((diagnostic) => diagnostic.code === 'claimed-missing-unlisted').length === 4 ? current : undefined;
    }, 'the four checkpoints’ flags');
    const perCheckpoint = missingRunsPerCheckpoint(4);
    assert.equal(perCheckpoint, 196);
    for (const line of [1201, 1202, 1203, 1204]) {
      const ofIt = flags.filter((diagnostic) => diagnostic.message.includes(`checkpoint at line ${line}`));
      assert.equal(ofIt.filter((diagnostic) => diagnostic.code === 'claimed-missing').length, perCheckpoint, `line ${line}`);
      const rest = ofIt.filter((diagnostic) => diagnostic.code === 'claimed-missing-unlisted');
      assert.equal(rest.length, 1);
      assert.match(rest[0].message, /^204 more runs of claimed-missing turns \(408 turns, /);
    }
    assert.ok(flags.length <= 1000, `${flags.length} flags`);
  });

  it('keeps a real Claude Code session quiet: one per checkpoint, one per run, the truncation; no record ids', async function () {
    const session = '258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz';
    const corpus = path.resolve(
      process.env.COMPACTION_LENS_REPO_ROOT ?? path.resolve(extensionPath()),
      '..',
      'shared',
      'corpus',
      'claude-code',
    );
    const file = path.join(corpus, session);
    skipWithoutShared(this, existsSync(file), `the corpus session ${file}`);
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('compactionLens.openTimeline', uri);
    const entry = await waitFor(() => api.store.get(uri), 'the session to be analysed', 60000);
    const severities = readSettings().problemSeverities;
    let expected = collapseProblems(entry.analysis.problems).length;
    let claimedMissing = 0;
    let ranges = 0;
    for (const checkpoint of entry.analysis.checkpoints) {
      expected += 1 + claimedMissingRuns(checkpoint, entry.transcript, severities).length + (checkpoint.truncation.truncated ? 1 : 0);
      claimedMissing += checkpoint.counts['claimed-missing'];
      ranges += checkpoint.claimedMissingRanges.length;
    }
    const diagnostics = await waitFor(() => {
      const current = ourDiagnostics(entry.documentUri);
      return current.length > 0 ? current : undefined;
    }, 'diagnostics on the decompressed view');
    assert.deepEqual(ourDiagnostics(uri), [], 'none on the .gz, which VS Code cannot show as text');
    assert.ok(diagnostics.length <= expected, `${diagnostics.length} diagnostics, expected at most ${expected}`);
    const runs = diagnostics.filter((diagnostic) => diagnostic.code === 'claimed-missing').length;
    assert.ok(runs <= ranges, `${runs} claimed-missing flags for ${ranges} ranges of ${claimedMissing} turns`);
    assert.ok(diagnostics.length < claimedMissing, `${diagnostics.length} diagnostics for ${claimedMissing} claimed-missing turns`);
    const onCheckpoint = entry.analysis.checkpoints.map(
      (checkpoint) =>
        diagnostics.filter((diagnostic) => diagnostic.range.start.line === checkpoint.line - 1 && diagnostic.code !== 'transcript-problem')
          .length,
    );
    assert.ok(
      onCheckpoint.every((count) => count === 1),
      `flags on each checkpoint line: ${onCheckpoint.join(', ')}`,
    );
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|msg_[A-Za-z0-9]{8,}/;
    for (const diagnostic of diagnostics.filter((d) => d.code !== 'transcript-problem')) {
      assert.doesNotMatch(diagnostic.message, uuid, diagnostic.message);
      for (const info of diagnostic.relatedInformation ?? []) assert.match(info.message, /^lines? \d+/);
    }
  });
});
