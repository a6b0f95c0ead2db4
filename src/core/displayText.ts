// How numbers, sizes, counts and file names are written for people, the same in every shell (CLI, extension,
// webview, readers' messages): digits grouped by commas without Intl (no ICU start-up), binary sizes, a count
// with its noun, and the last segment of a path.

/** 42000 → "42,000"; fractions and non-finite numbers are kept as they are ("1,234.5", "Infinity"). */
export function groupDigits(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const text = String(n);
  const negative = text.startsWith('-');
  const [int, frac] = (negative ? text.slice(1) : text).split('.');
  if (int.includes('e')) return text; // 1e21 and beyond: String() already chose exponent notation
  let grouped = '';
  for (let end = int.length; end > 0; end -= 3) grouped = int.slice(Math.max(0, end - 3), end) + (grouped === '' ? '' : `,${grouped}`);
  return `${negative ? '-' : ''}${grouped}${frac === undefined ? '' : `.${frac}`}`;
}

/** "1 message", "1,204 messages": the count grouped, the noun plural unless the count is one. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${groupDigits(n)} ${n === 1 ? noun : plural}`;
}

/** 512 → "512 bytes", 5000 → "4.9 KB", 3 × 2^20 → "3 MB": binary units, one decimal below ten. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 && value !== Math.floor(value) ? 1 : 0)} ${units[unit]}`;
}

/** The last segment of a path or URI path, with either separator: "/a/b/c.jsonl" → "c.jsonl". */
export function fileNameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}
