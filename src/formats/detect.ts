// Picks the reader for a file from its first lines (by content), using the file name only to break ties.
// JSONL records are classified one by one; a document spread over many lines (pretty-printed JSON) is recognised
// by the keys that appear in its first lines. Unknown content gives undefined ("not a transcript I know").
import type { FormatId } from '../core/model';
import { isObject, type JsonObject } from './jsonLines';

const CLAUDE_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'progress', 'file-history-snapshot', 'queue-operation']);
const CODEX_WRAPPERS = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const V1_KINDS =
  /"kind"\s*:\s*"(MessageEvent|ActionEvent|ObservationEvent|SystemPromptEvent|Condensation|CondensationRequest|AgentErrorEvent|PauseEvent|ConversationStateUpdateEvent)"/;
const LC_CLASSES = /"(HumanMessage|AIMessage|SystemMessage|ToolMessage)"/;

function isMessageLike(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.role === 'string' && ('content' in value || 'tool_calls' in value);
}

function isLangChainMessage(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.lc === 1 && Array.isArray(value.id) && LC_CLASSES.test(JSON.stringify(value.id))) return true;
  if (typeof value.type === 'string' && ['human', 'ai', 'tool', 'system', 'remove'].includes(value.type) && 'content' in value) return true;
  if (typeof value.message_type === 'string' && /_message$/.test(value.message_type)) return true; // Letta
  return false;
}

/** Letta messages: ids "message-…", or a system_alert summary inside the content. */
function isLettaMessage(value: unknown): boolean {
  if (!isMessageLike(value)) return false;
  return (typeof value.id === 'string' && value.id.startsWith('message-')) || /system_alert/.test(JSON.stringify(value.content ?? ''));
}

function isOpenHandsEvent(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (typeof value.kind === 'string' && V1_KINDS.test(`"kind":"${value.kind}"`)) return true;
  return (typeof value.action === 'string' || typeof value.observation === 'string') && 'source' in value;
}

/**
 * A pi coding-agent session entry (badlogic/pi-mono): its `session` header, a `message` entry wrapping a message
 * with a role, a `compaction` naming its first kept entry, or a model / thinking-level change.
 */
function isPiEntry(value: JsonObject): boolean {
  switch (value.type) {
    case 'session':
      return typeof value.id === 'string' && ('cwd' in value || 'version' in value);
    case 'message':
      return isObject(value.message) && typeof value.message.role === 'string';
    case 'compaction':
      return typeof value.summary === 'string' && ('firstKeptEntryIndex' in value || 'firstKeptEntryId' in value);
    case 'model_change':
      return 'modelId' in value;
    case 'thinking_level_change':
      return 'thinkingLevel' in value;
    default:
      return false;
  }
}

/** A Letta agent as an agent file holds it: its `in_context_message_ids`, or `messages` beside agent settings. */
function isLettaAgent(value: unknown): boolean {
  return (
    isObject(value) &&
    (Array.isArray(value.in_context_message_ids) || (Array.isArray(value.messages) && ('agent_type' in value || 'llm_config' in value)))
  );
}

/** A Letta agent file (.af, or the agent export API's JSON): `agents` holding such agents, or one agent alone. */
function isLettaAgentFile(value: JsonObject): boolean {
  return (Array.isArray(value.agents) && value.agents.some(isLettaAgent)) || isLettaAgent(value);
}

/** Classifies one parsed record; undefined when it says nothing. */
function classify(value: unknown, fileName: string): FormatId | undefined {
  if (Array.isArray(value)) {
    const first = value.find((v) => isObject(v));
    if (first === undefined) return undefined;
    if (isOpenHandsEvent(first)) return 'openhands';
    if (isLangChainMessage(first) || value.some(isLettaMessage)) return 'langchain';
    if (isMessageLike(first)) return 'message-array';
    const itemType = (first as JsonObject).type;
    if (typeof itemType === 'string' && ['message', 'function_call', 'compaction'].includes(itemType)) return 'message-array';
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const type = value.type;
  if (type === 'turn' || type === 'checkpoint') return 'canonical';
  if (typeof type === 'string' && CODEX_WRAPPERS.has(type) && 'payload' in value) return 'codex';
  if (
    typeof type === 'string' &&
    CLAUDE_TYPES.has(type) &&
    ('sessionId' in value || 'uuid' in value || 'leafUuid' in value || 'messageId' in value)
  )
    return 'claude-code';
  if (isPiEntry(value)) return 'pi';
  if (isLettaAgentFile(value)) return 'letta';
  if (isOpenHandsEvent(value)) return 'openhands';
  if (Array.isArray(value.history) && ('instance_id' in value || value.history.some(isOpenHandsEvent))) return 'openhands';
  if ('running_summary' in value) return 'langchain';
  if (isLangChainMessage(value)) return 'langchain';
  if (Array.isArray(value.messages)) {
    const first = value.messages.find((m) => isObject(m));
    if (isLangChainMessage(first)) return 'langchain';
    if (isMessageLike(first)) return 'message-array';
  }
  if (isObject(value.values) || isObject(value.channel_values)) {
    return classify(isObject(value.values) ? value.values : value.channel_values, fileName);
  }
  // Older Codex rollouts: a header {id, timestamp, instructions}, then bare response items.
  if (type === undefined && 'instructions' in value && 'timestamp' in value && /rollout-/.test(fileName)) return 'codex';
  if (typeof value.record_type === 'string' && /rollout-/.test(fileName)) return 'codex';
  if (isMessageLike(value)) return isLettaMessage(value) ? 'langchain' : 'message-array';
  if (typeof type === 'string' && ['message', 'function_call', 'function_call_output', 'reasoning'].includes(type)) {
    return /rollout-/.test(fileName) ? 'codex' : 'message-array';
  }
  return undefined;
}

/** A Letta agent file's opening, and keys only its agents have (the file name's `.af` may stand in for them). */
const LETTA_FILE = /^\s*\{\s*"agents"\s*:\s*\[/;
const LETTA_AGENT_KEYS = /"(in_context_message_ids|memory_blocks|agent_type|llm_config|tool_rules)"\s*:/;

/** Recognises a pretty-printed JSON document from the keys in its first lines. */
function classifyText(text: string, fileName: string): FormatId | undefined {
  if (LETTA_FILE.test(text) && (LETTA_AGENT_KEYS.test(text) || /\.af$/i.test(fileName))) return 'letta';
  if (/"running_summary"\s*:/.test(text) || /"lc_source"\s*:\s*"summarization"/.test(text) || /"lc"\s*:\s*1\b/.test(text))
    return 'langchain';
  if (V1_KINDS.test(text)) return 'openhands';
  if (/"(action|observation)"\s*:\s*"/.test(text) && /"source"\s*:/.test(text)) return 'openhands';
  if (/"instance_id"\s*:/.test(text) && /"history"\s*:/.test(text)) return 'openhands';
  if (/"type"\s*:\s*"(human|ai)"/.test(text) || /"message_type"\s*:\s*"\w+_message"/.test(text)) return 'langchain';
  if (/"role"\s*:\s*"(user|assistant|system|tool|developer)"/.test(text)) return 'message-array';
  if (/"type"\s*:\s*"(compaction|function_call)"/.test(text)) return 'message-array';
  if (/\.(json|jsonl)$/i.test(fileName) && /openhands|trajectory|trajs?\b/i.test(fileName)) return 'openhands';
  return undefined;
}

/**
 * The order formats are tried in: a file is read by the first whose records it holds. Formats whose records are
 * conclusive come first; a LangChain or Letta message is also message-like, and a pi `message` entry looks like a
 * Responses message item, so they outrank the generic message array.
 */
export const DETECTION_ORDER: readonly FormatId[] = [
  'canonical',
  'codex',
  'claude-code',
  'openhands',
  'letta',
  'langchain',
  'pi',
  'message-array',
];

/** What a file must hold in its first lines to be read as each format, for the error that lists them all. */
const WHAT_IT_NEEDS: Record<FormatId, string> = {
  canonical: 'a record with "type": "turn" or "checkpoint"',
  codex: 'a {type, payload} record of type session_meta, response_item, event_msg, turn_context or compacted',
  'claude-code': 'a record of type user, assistant, system, summary or progress with a sessionId or uuid',
  openhands: 'an event with "action" or "observation" and "source", a V1 event kind, or a "history" of events',
  letta: 'an "agents" list whose agents have messages or in_context_message_ids',
  langchain: 'a LangChain message ("lc": 1, or "type": "human"/"ai"), a Letta message, or a "running_summary"',
  pi: 'a pi "session" header, or a "message" or "compaction" entry',
  'message-array': 'a message with a "role" and "content" (or an array of them)',
};

export interface FormatDetection {
  /** The format the file is read as; undefined when none matched. */
  format?: FormatId;
  /** When none matched: what the first lines hold, in one sentence. */
  why?: string;
  /** One line per format tried and rejected, in order: what it needed and did not find. */
  rejected: string[];
}

/** The format of a transcript from its first lines, or why no format matched. */
export function detectFormatWhy(firstLines: string[], fileName: string): FormatDetection {
  const found = new Set<FormatId>();
  let records = 0;
  for (const line of firstLines) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      continue; // a fragment of a pretty-printed document, or a truncated line
    }
    records += 1;
    const format = classify(value, fileName);
    if (format !== undefined) found.add(format);
  }
  const format = DETECTION_ORDER.find((id) => found.has(id)) ?? classifyText(firstLines.join('\n'), fileName);
  if (format !== undefined) return { format, rejected: [] };
  const lines = firstLines.filter((line) => line.trim() !== '').length;
  const why =
    records > 0
      ? `none of the ${records} JSON record${records === 1 ? '' : 's'} in its first ${lines} line${lines === 1 ? '' : 's'} belongs to a format I read (${DETECTION_ORDER.length} tried).`
      : `its first ${lines} line${lines === 1 ? '' : 's'} hold no complete JSON record, nor a key a format I read uses (${DETECTION_ORDER.length} tried).`;
  return { why, rejected: DETECTION_ORDER.map((id) => `${id}: needs ${WHAT_IT_NEEDS[id]}`) };
}

/** Returns the format of a transcript, or undefined when it is not one we know. */
export function detectFormat(firstLines: string[], fileName: string): FormatId | undefined {
  return detectFormatWhy(firstLines, fileName).format;
}
