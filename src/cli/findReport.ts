// The output of `compaction-lens find`: text (one block per matching turn, one line per checkpoint that compacted
// it, colour only when asked) or one JSON document (snake_case keys, as check's --json). Everything quoted from
// the transcript (ids, excerpts, reasons) goes through terminalText, so its control characters show escaped.
import { countOf, groupDigits, shortTurnId } from '../core/displayText';
import type { FactAnswer, FactMatch, FactRoute, FormatId, SummaryMention } from '../core/model';
import { jsonText, terminalText as safe } from './terminalText';

/** Matching turns shown in text; --json lists all the core kept. */
const MAX_SHOWN = 20;

const FALSE_NEGATIVE = 'flagged: the pointer set alone would have said this fact never existed';

interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
}

function painter(color: boolean): Paint {
  const wrap = (code: string) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { bold: wrap('1'), dim: wrap('2'), red: wrap('31'), green: wrap('32') };
}

export function findText(path: string, format: FormatId, answer: FactAnswer, options: { color: boolean }): string {
  const paint = painter(options.color);
  const total = answer.matches.length + answer.omitted;
  const query = `“${safe(answer.query)}”`;
  if (total === 0) {
    const lines = [`${paint.bold(safe(path))}  (${format}): no turn holds ${query}`];
    lines.push(...mentionLines(answer.summaryMentions, paint));
    return lines.join('\n');
  }
  const flagged = answer.flagged > 0 ? paint.red(` · ${groupDigits(answer.flagged)} flagged`) : '';
  const lines = [`${paint.bold(safe(path))}  (${format}): ${countOf(total, 'turn')} ${total === 1 ? 'holds' : 'hold'} ${query}${flagged}`];
  for (const match of answer.matches.slice(0, MAX_SHOWN)) lines.push('', ...matchLines(match, paint));
  const hidden = total - Math.min(answer.matches.length, MAX_SHOWN);
  if (hidden > 0)
    lines.push(
      '',
      `… ${countOf(hidden, 'more turn')} ${hidden === 1 ? 'holds' : 'hold'} it (--json lists up to ${groupDigits(answer.matches.length)})`,
    );
  const mentions = mentionLines(answer.summaryMentions, paint);
  if (mentions.length > 0) lines.push('', ...mentions);
  return lines.join('\n');
}

function matchLines(match: FactMatch, paint: Paint): string[] {
  const lines: string[] = [];
  const times = match.occurrences > 1 ? `, ${groupDigits(match.occurrences)}${match.more ? '+' : ''} times` : '';
  const lineText = match.line === match.endLine ? `line ${match.line}` : `lines ${match.line}–${match.endLine}`;
  lines.push(`${paint.bold(`turn ${safe(shortTurnId(match.turnId))}`)} (${match.role}, ${lineText}${times})`);
  const { before, match: text, after } = match.excerpt;
  lines.push(`  ${paint.dim('“')}${safe(before)}${paint.bold(safe(text))}${safe(after)}${paint.dim('”')}`);
  if (match.externalSource !== undefined) lines.push(`  its raw text lives in ${safe(match.externalSource)}`);
  const later = match.routes.filter((route) => !route.compacted);
  for (const route of match.routes) if (route.compacted) lines.push(`  ${routeLine(route, paint)}`);
  if (match.routes.length === 0) lines.push(paint.dim('  the transcript has no checkpoint: the turn is in the context as written'));
  else if (later.length > 0) {
    const names = later.map((route) => safe(shortTurnId(route.summaryId))).join(', ');
    lines.push(paint.dim(`  comes after ${names}: not compacted by ${later.length === 1 ? 'it' : 'them'}`));
  }
  return lines;
}

function routeLine(route: FactRoute, paint: Paint): string {
  const sentence = `${safe(route.why)}; ${safe(route.says)}`;
  if (route.flagged) return `${paint.red(sentence)} — ${paint.red(FALSE_NEGATIVE)}`;
  return route.route === 'summary' ? paint.green(sentence) : sentence;
}

function mentionLines(mentions: readonly SummaryMention[], paint: Paint): string[] {
  if (mentions.length === 0) return [];
  const lines = ['summaries that hold it themselves:'];
  for (const mention of mentions) {
    const { before, match, after } = mention.excerpt;
    lines.push(
      `  ${paint.bold(safe(shortTurnId(mention.summaryId)))} (line ${mention.line}): “${safe(before)}${paint.bold(safe(match))}${safe(after)}”`,
    );
  }
  return lines;
}

function routeJson(route: FactRoute) {
  return {
    summary_id: route.summaryId,
    checkpoint_line: route.checkpointLine,
    compacted: route.compacted,
    claimed: route.claimed,
    status: route.status ?? null,
    summary_has_text: route.summaryHasText,
    evidence_found: route.evidenceFound,
    evidence_weighed: route.evidenceWeighed,
    route: route.route,
    line: route.line ?? null,
    flagged: route.flagged,
    why: route.why,
    says: route.says,
  };
}

export function findJson(path: string, format: FormatId, answer: FactAnswer): string {
  const document = {
    path,
    format,
    query: answer.query,
    turns_matching: answer.matches.length + answer.omitted,
    flagged: answer.flagged,
    omitted: answer.omitted,
    matches: answer.matches.map((match) => ({
      turn_id: match.turnId,
      role: match.role,
      line: match.line,
      end_line: match.endLine,
      external_source: match.externalSource ?? null,
      occurrences: match.occurrences,
      more: match.more,
      matched: match.matched,
      excerpt: match.excerpt,
      routes: match.routes.map(routeJson),
    })),
    summary_mentions: answer.summaryMentions.map((mention) => ({
      summary_id: mention.summaryId,
      line: mention.line,
      excerpt: mention.excerpt,
    })),
  };
  return jsonText(JSON.stringify(document, null, 2));
}
