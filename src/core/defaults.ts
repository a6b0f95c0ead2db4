// Defaults shared by the CLI and the extension: R_low and the summary budgets assumed per format when a
// transcript records none. Every assumed budget is marked "assumed" wherever it is shown.
import type { FormatId } from './model';
import { COMPRESSION_RATIO_LOW } from './reference';

/** The note's conservative compression-ratio floor, R_low. */
export const DEFAULT_RATIO_FLOOR = COMPRESSION_RATIO_LOW;

/**
 * Budgets assumed when the format records none. Claude Code asks its summariser for a reply under its output
 * limit (the corpus summaries are ~3.5k tokens of a ~20k maximum); Codex records no summary size either.
 * Formats that record a budget (canonical) or whose summarisers have a documented default (LangMem's
 * max_summary_tokens = 256) use those instead. pi records none, but caps its summariser's reply at
 * floor(0.8 × reserveTokens) with reserveTokens 16384 by default (compaction.ts generateSummary): 13107.
 */
export const DEFAULT_SUMMARY_BUDGETS: Readonly<Partial<Record<FormatId, number>>> = {
  'claude-code': 20000,
  codex: 20000,
  openhands: 8192,
  langchain: 256,
  pi: 13107,
  'message-array': 8192,
};
