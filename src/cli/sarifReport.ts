// The --sarif output: SARIF 2.1.0 for CI code-scanning gates. One result per finding, located on the
// transcript line it concerns: claimed-missing ranges, truncated summaries, non-reversible verdicts, checkpoints
// whose coverage could not be checked, bad lines. The neutral statuses (nothing-to-check, unverifiable) are
// never counted as claimed-missing. A file under the working directory is named relative to it, through the
// `SRCROOT` base (as code scanning expects: run the check from the repository's root); any other file by its
// absolute file:// URI.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ArtifactLocation, Log, Result } from 'sarif';
import type { CheckpointAnalysis } from '../core/model';
import { formatRanges } from '../core/idRanges';
import type { FileReport } from './checkFiles';
import { jsonText } from './terminalText';

declare const PACKAGE_VERSION: string | undefined;

const RULES = [
  { id: 'CL001', name: 'ClaimedMissingTurns', text: 'The pointer set claims turns the summary does not substantiate.' },
  { id: 'CL002', name: 'TruncatedSummary', text: 'The compaction summary appears cut off.' },
  { id: 'CL003', name: 'NotReversible', text: 'The checkpoint is not reversible as recorded (conditional or fail-closed).' },
  { id: 'CL004', name: 'TranscriptProblem', text: 'A transcript line could not be read or does not add up.' },
  { id: 'CL005', name: 'UnusableTranscript', text: 'The file could not be analysed at all.' },
  {
    id: 'CL006',
    name: 'CoverageUnverifiable',
    text: "The summary's coverage could not be checked (unreadable summary, or claimed turns not in this file); the checkpoint fails closed.",
  },
] as const;

type RuleId = (typeof RULES)[number]['id'];

type Level = 'error' | 'warning' | 'note';

/** The base every relative artifact URI is resolved against. */
const ROOT_BASE = 'SRCROOT';

/** Where a transcript is, relative to `root` when it lies under it. */
function artifactLocation(path: string, root: string): ArtifactLocation {
  const absolute = resolve(root, path);
  const inside = relative(root, absolute);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return { uri: pathToFileURL(absolute).href };
  return { uri: inside.split(sep).map(encodeURIComponent).join('/'), uriBaseId: ROOT_BASE };
}

function result(ruleId: RuleId, level: Level, text: string, artifact: ArtifactLocation, startLine: number, endLine?: number): Result {
  const region = startLine > 0 ? { startLine, ...(endLine !== undefined && endLine > startLine ? { endLine } : {}) } : undefined;
  return {
    ruleId,
    level,
    message: { text },
    locations: [{ physicalLocation: { artifactLocation: artifact, ...(region ? { region } : {}) } }],
  };
}

/** Why the checkpoint's coverage could not be checked, or undefined when it could. */
function unverifiableReason(cp: CheckpointAnalysis): string | undefined {
  if (cp.unverifiable !== undefined) return cp.unverifiable;
  if (cp.opaque) return 'the summary is encrypted or unreadable';
  const n = cp.counts.unverifiable ?? 0;
  if (n > 0) return `${n} claimed turn${n === 1 ? '' : 's'} could not be checked`;
  return undefined;
}

/** An unverifiable checkpoint gets CL006 instead of CL003: one result per cause. */
function checkpointResults(cp: CheckpointAnalysis, uri: ArtifactLocation): Result[] {
  const results: Result[] = [];
  const missing = cp.counts['claimed-missing'];
  if (missing > 0) {
    results.push(
      result(
        'CL001',
        'warning',
        `${cp.summaryId}: ${missing} claimed turn${missing === 1 ? '' : 's'} not substantiated by the summary: ${formatRanges(cp.claimedMissingRanges.slice(0, 20))}`,
        uri,
        cp.line,
        cp.endLine,
      ),
    );
  }
  if (cp.truncation.truncated) {
    results.push(
      result('CL002', 'warning', `${cp.summaryId}: summary appears cut off: ${cp.truncation.reasons.join('; ')}`, uri, cp.line, cp.endLine),
    );
  }
  const unverifiable = unverifiableReason(cp);
  if (unverifiable !== undefined) {
    results.push(
      result(
        'CL006',
        'warning',
        `${cp.summaryId}: coverage could not be checked (${cp.verdict}): ${unverifiable}`,
        uri,
        cp.line,
        cp.endLine,
      ),
    );
  } else if (cp.verdict !== 'reversible') {
    results.push(
      result(
        'CL003',
        cp.verdict === 'fail-closed' ? 'error' : 'warning',
        `${cp.summaryId}: ${cp.verdict}: ${cp.reasons[0] ?? ''}`,
        uri,
        cp.line,
        cp.endLine,
      ),
    );
  }
  return results;
}

/** The SARIF log of `reports`; `root` (the working directory unless given) is the SRCROOT base. */
export function sarifReport(reports: FileReport[], root = process.cwd()): string {
  const results: Result[] = [];
  for (const report of reports) {
    const uri = artifactLocation(report.path, root);
    if (report.analysis === undefined) {
      results.push(result('CL005', 'error', report.error ?? 'could not be analysed', uri, 0));
      continue;
    }
    for (const cp of report.analysis.checkpoints) results.push(...checkpointResults(cp, uri));
    for (const problem of report.analysis.problems) {
      const level: Level = problem.severity === 'error' ? 'error' : problem.severity === 'warning' ? 'warning' : 'note';
      results.push(result('CL004', level, problem.message, uri, problem.line));
    }
  }
  const sarif: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        originalUriBaseIds: { [ROOT_BASE]: { uri: pathToFileURL(root.endsWith(sep) ? root : root + sep).href } },
        tool: {
          driver: {
            name: 'Compaction Lens',
            version: typeof PACKAGE_VERSION === 'string' ? PACKAGE_VERSION : 'dev',
            rules: RULES.map((rule) => ({ id: rule.id, name: rule.name, shortDescription: { text: rule.text } })),
          },
        },
        results,
      },
    ],
  };
  return jsonText(JSON.stringify(sarif, null, 2));
}
