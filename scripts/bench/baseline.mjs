// `npm run bench -- --save FILE` keeps a run's figures; `--baseline FILE` compares a later run with them, so drift
// between commits shows (a figure that doubled, a step that became linear in the turns). Each timing is compared
// as a multiple of its own run's floor (read + JSON.parse of the same file), which cancels most of a machine's
// load between the two runs; a figure is flagged when that multiple grew by more than the tolerance. It reports,
// never fails: a bench is a measurement, not a test.

/** The timings compared: the row's field, and how the report names it. */
export const COMPARED = [
  ['firstVerdict', 'first verdict'],
  ['full', 'full analysis'],
  ['reanalysis', 'again'],
  ['reopen', 'read anew'],
  ['threshold', 'another threshold'],
  ['cli', 'check --json'],
  ['append', 'appended turn'],
  ['appendAnalyse', 'appended turn, analysis'],
];

/** A figure is flagged when its multiple of the floor grew by more than this (1.25: 25% slower). */
export const DEFAULT_TOLERANCE = 1.25;

/** What --save writes: the rows as the bench made them, with where and when. */
export function savedRun(rows, now = new Date()) {
  return { version: 1, node: process.version, date: now.toISOString(), rows };
}

/** The rows of a saved run, or an Error saying why the file cannot be used. */
export function rowsOf(saved) {
  if (saved === null || typeof saved !== 'object' || saved.version !== 1 || !Array.isArray(saved.rows)) {
    return new Error('not a run saved by `npm run bench -- --save` (version 1)');
  }
  return saved.rows.filter((row) => row !== null && typeof row === 'object' && typeof row.label === 'string');
}

/**
 * The comparison as lines: per transcript both runs measured, each compared figure's multiple of the floor
 * before and now, its change, and "slower" past the tolerance. Rows only one run has are listed apart.
 */
export function compareRuns(before, now, tolerance = DEFAULT_TOLERANCE) {
  const lines = [];
  const flagged = [];
  const earlier = new Map(before.map((row) => [row.label, row]));
  for (const row of now) {
    const old = earlier.get(row.label);
    if (old === undefined) {
      lines.push(`${row.label}: not in the baseline`);
      continue;
    }
    const parts = [];
    for (const [field, name] of COMPARED) {
      const a = multiple(old[field], old.floor);
      const b = multiple(row[field], row.floor);
      if (a === undefined || b === undefined) continue;
      const change = b / a;
      const slower = change > tolerance;
      if (slower) flagged.push(`${row.label}: ${name}`);
      parts.push(`${name} ${a.toFixed(1)}× → ${b.toFixed(1)}× the floor (${percent(change)})${slower ? ' SLOWER' : ''}`);
    }
    lines.push(`${row.label}: ${parts.length > 0 ? parts.join('; ') : 'nothing comparable'}`);
  }
  const labels = new Set(now.map((row) => row.label));
  for (const row of before) if (!labels.has(row.label)) lines.push(`${row.label}: in the baseline only`);
  lines.push(
    flagged.length === 0
      ? `no figure grew by more than ${percent(tolerance)} against its floor`
      : `${flagged.length} figure(s) grew by more than ${percent(tolerance)} against their floor: ${flagged.join(', ')}`,
  );
  return { lines, flagged };
}

function multiple(ms, floor) {
  return typeof ms === 'number' && Number.isFinite(ms) && typeof floor === 'number' && floor > 0 ? ms / floor : undefined;
}

function percent(ratio) {
  const change = Math.round((ratio - 1) * 100);
  return `${change >= 0 ? '+' : ''}${change}%`;
}
