// Builders of Claude Code session lines (a prompt, and a compaction: its compact_boundary record and the summary
// after it), shared by the tests of what is read and said while a file is read (transcriptFile, tokenBounds).

/** A user prompt record, a line of JSON, in session `s`. */
export function claudeCodePrompt(uuid: string, parentUuid: string | null, content: string): string {
  return JSON.stringify({ type: 'user', uuid, parentUuid, sessionId: 's', message: { role: 'user', content } });
}

/**
 * A compaction's two lines: boundary `b${k}` claiming back from `logicalParentUuid`, and summary record `s${k}`
 * (the next record's parent).
 */
export function claudeCodeCompaction(k: number, logicalParentUuid: string | null, summary: string): string[] {
  return [
    JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: `b${k}`, parentUuid: null, logicalParentUuid, sessionId: 's' }),
    JSON.stringify({
      type: 'user',
      uuid: `s${k}`,
      parentUuid: `b${k}`,
      sessionId: 's',
      isCompactSummary: true,
      message: { role: 'user', content: summary },
    }),
  ];
}
