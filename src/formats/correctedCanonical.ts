// The corrected copy of a canonical transcript (docs/corrected-checkpoint.md): the same lines, byte for byte,
// except each analysed checkpoint's record, whose "covered" becomes its safe pointer set (an array of ids) and
// which gains a "compaction_lens" object holding the claimed "covered" and the turns moved to uncovered. The
// copy is itself a canonical transcript: read back, each checkpoint claims exactly its safe pointer set.
// Pure: takes the transcript's text, returns the new text or the problems that stop it (never a partial copy).
import type { CorrectedCheckpoints, Problem } from '../core/model';
import { SIDECAR_SCHEMA, SIDECAR_VERSION } from './correctedSidecar';

/** The key a corrected checkpoint record carries its history under. */
export const CORRECTION_KEY = 'compaction_lens';

/** Whitespace, NUL padding and a byte-order mark around a record: kept as they are, left out of the parse. */
function isPadding(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x00 || code === 0xfeff || code === 0x0b || code === 0x0c;
}

/** The line split into what precedes the record, the record's text and what follows it (linear, no regex). */
function splitPadding(line: string): { before: string; record: string; after: string } {
  let start = 0;
  let end = line.length;
  while (start < end && isPadding(line.charCodeAt(start))) start++;
  while (end > start && isPadding(line.charCodeAt(end - 1))) end--;
  return { before: line.slice(0, start), record: line.slice(start, end), after: line.slice(end) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The corrected canonical JSONL of `text` (the transcript the analysis behind `document` read). Fails, with a
 * problem on the checkpoint's line, when a checkpoint's line is no longer that checkpoint's record (the file
 * changed since it was analysed) or when the document is not of a canonical transcript.
 */
export function correctedCanonicalText(text: string, document: CorrectedCheckpoints): { text?: string; problems: Problem[] } {
  if (document.format !== 'canonical') {
    return {
      problems: [
        { line: 0, severity: 'error', message: `a corrected JSONL can only be made of a canonical transcript, not ${document.format}.` },
      ],
    };
  }
  const lines = text.split('\n');
  const problems: Problem[] = [];
  const changed = (line: number, what: string) =>
    problems.push({
      line,
      severity: 'error',
      message: `line ${line} ${what}: the transcript changed since it was analysed. Analyse it again, then export.`,
    });
  for (const checkpoint of document.checkpoints) {
    const index = checkpoint.line - 1;
    const line = lines[index];
    if (line === undefined) {
      changed(checkpoint.line, `is past the end of the file, where checkpoint ${checkpoint.summaryId} was`);
      continue;
    }
    const { before, record: recordText, after } = splitPadding(line);
    let record: unknown;
    try {
      record = JSON.parse(recordText);
    } catch {
      record = undefined;
    }
    const summaryId = isObject(record) ? record.summary_id : undefined;
    if (
      !isObject(record) ||
      record.type !== 'checkpoint' ||
      (typeof summaryId === 'string' && summaryId !== '' && summaryId !== checkpoint.summaryId)
    ) {
      changed(checkpoint.line, `is no longer the record of checkpoint ${checkpoint.summaryId}`);
      continue;
    }
    const corrected: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key === CORRECTION_KEY) continue;
      corrected[key] = key === 'covered' ? checkpoint.safeIds : value;
    }
    corrected[CORRECTION_KEY] = {
      schema: SIDECAR_SCHEMA,
      version: SIDECAR_VERSION,
      source: document.source,
      verdict: checkpoint.verdict,
      claimed_covered: record.covered,
      moved_to_uncovered: checkpoint.moved.map((turn) => ({ id: turn.id, status: turn.status, line: turn.line, reason: turn.reason })),
    };
    lines[index] = `${before}${JSON.stringify(corrected)}${after}`;
  }
  if (problems.length > 0) return { problems };
  return { text: lines.join('\n'), problems };
}
