// Picks the reader for a file from its first lines and its name.
import type { FormatId } from '../core/model';

/** Returns the format of a transcript, or undefined when it is not one we know. */
export function detectFormat(firstLines: string[], fileName: string): FormatId | undefined {
  void fileName;
  for (const text of firstLines) {
    const trimmed = text.trim();
    if (trimmed === '') continue;
    try {
      const record = JSON.parse(trimmed) as { type?: unknown };
      if (record && (record.type === 'turn' || record.type === 'checkpoint')) return 'canonical';
    } catch {
      // not JSON: try the next line
    }
  }
  return undefined;
}
