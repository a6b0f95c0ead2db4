// Renders message content as the plain text a turn contributes to the context: strings as they are, content
// blocks (Anthropic, OpenAI chat and Responses, LangChain) joined line by line, tool calls as "[tool call NAME] ARGS".
// Thinking blocks are left out of the text: the APIs drop earlier turns' thinking from the context, so it is never
// counted; thinkingOf gives it separately (Turn.reasoning), as evidence of what a lookup was for.

import { isObject } from './jsonLines';

/**
 * A JSON value as text, for a label or a key: a string as it is, null or undefined as String gives it, any other
 * value as its JSON (argsText). It never calls a method of the value: String() of an object whose "toString" is not
 * a function, as a record may hold ({"role": {"toString": "x"}}), throws.
 */
export function valueText(value: unknown): string {
  return value === null || value === undefined ? String(value) : argsText(value);
}

/** Compact JSON of a tool's input; strings are kept as they are (OpenAI passes arguments as a JSON string). */
export function argsText(args: unknown): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return args;
  try {
    return JSON.stringify(args) ?? '';
  } catch {
    return ''; // not JSON (a cycle, a BigInt): nothing to show, and String() could throw as well
  }
}

export function toolCallText(name: unknown, args: unknown): string {
  const label = typeof name === 'string' && name !== '' ? name : 'tool';
  const rendered = argsText(args);
  return rendered === '' ? `[tool call ${label}]` : `[tool call ${label}] ${rendered}`;
}

/** The text of the thinking blocks in message content ('' when there are none). */
export function thinkingOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim() !== '') {
      parts.push(block.thinking.trim());
    }
  }
  return parts.join('\n');
}

function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!isObject(block)) return '';
  switch (block.type) {
    case 'thinking':
    case 'redacted_thinking':
    case 'reasoning':
      return '';
    case 'tool_use':
    case 'server_tool_use':
      return toolCallText(block.name, block.input);
    case 'function_call':
      return toolCallText(block.name, block.arguments);
    case 'tool_result':
    case 'web_search_tool_result':
      return textOf(block.content);
    case 'function_call_output':
      return textOf(block.output);
    case 'image':
    case 'image_url':
    case 'input_image':
      return '[image]';
    case 'document':
    case 'input_file':
      return '[document]';
    case 'compaction':
      return textOf(block.content);
    default:
      break;
  }
  if (typeof block.text === 'string') return block.text;
  if (isObject(block.text) && typeof block.text.value === 'string') return block.text.value;
  if (typeof block.content === 'string') return block.content;
  return '';
}

/** The text of a content value: a string, a block, or an array of blocks. */
export function textOf(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (typeof content === 'number' || typeof content === 'boolean') return String(content);
  if (Array.isArray(content)) {
    return content
      .map(blockText)
      .filter((text) => text !== '')
      .join('\n');
  }
  return blockText(content);
}

/** One entry of OpenAI chat `tool_calls` ({function:{name, arguments}}) or LangChain `tool_calls` ({name, args}) as text. */
export function toolCallEntryText(call: unknown): string {
  if (!isObject(call)) return '';
  if (isObject(call.function)) return toolCallText(call.function.name, call.function.arguments);
  return toolCallText(call.name, call.args ?? call.arguments ?? call.input);
}

/** OpenAI chat or LangChain `tool_calls` as text, one call a line. */
export function toolCallsText(toolCalls: unknown): string {
  if (!Array.isArray(toolCalls)) return '';
  return toolCalls
    .map(toolCallEntryText)
    .filter((text) => text !== '')
    .join('\n');
}

/** Names of the tools a list of blocks calls, for a turn's label. */
export function toolNames(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const names: string[] = [];
  for (const block of content) {
    if (isObject(block) && (block.type === 'tool_use' || block.type === 'server_tool_use') && typeof block.name === 'string') {
      if (!names.includes(block.name)) names.push(block.name);
    }
  }
  return names;
}

/** First `max` characters of a text on one line, for messages. */
export function preview(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
