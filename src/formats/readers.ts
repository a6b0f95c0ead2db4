// The registry of transcript readers: which formats exist, how to name them, and how to make a reader.
import type { FormatId, ReaderContext, TranscriptReader } from '../core/model';
import { CanonicalReader } from './canonical';
import { ClaudeCodeReader } from './claudeCode';
import { CodexReader } from './codex';
import { LangChainReader } from './langchain';
import { LettaReader } from './letta';
import { MessageArrayReader } from './messageArray';
import { OpenHandsReader } from './openHands';
import { PiReader } from './pi';

export interface FormatInfo {
  id: FormatId;
  name: string;
}

/** Every format a user can open, in the order error messages list them. */
export const FORMATS: readonly FormatInfo[] = [
  { id: 'canonical', name: 'Compaction Lens canonical JSONL' },
  { id: 'claude-code', name: 'Claude Code session JSONL' },
  { id: 'codex', name: 'Codex CLI rollout JSONL' },
  { id: 'openhands', name: 'OpenHands events (JSON or JSONL)' },
  { id: 'langchain', name: 'LangMem / LangChain state or messages, or a Letta message list' },
  { id: 'letta', name: 'Letta agent file (.af, or the agent export JSON)' },
  { id: 'pi', name: 'pi coding-agent session JSONL' },
  { id: 'message-array', name: 'OpenAI / Anthropic message array (JSON or JSONL)' },
];

export function isFormatId(value: string): value is FormatId {
  return FORMATS.some((format) => format.id === value);
}

export function createReader(format: FormatId, context: ReaderContext): TranscriptReader {
  switch (format) {
    case 'canonical':
      return new CanonicalReader(context);
    case 'claude-code':
      return new ClaudeCodeReader(context);
    case 'codex':
      return new CodexReader(context);
    case 'openhands':
      return new OpenHandsReader(context);
    case 'langchain':
      return new LangChainReader(context);
    case 'letta':
      return new LettaReader(context);
    case 'pi':
      return new PiReader(context);
    case 'message-array':
      return new MessageArrayReader(context);
    default:
      throw new Error(`no reader for format ${format} yet`);
  }
}
