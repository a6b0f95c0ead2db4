// Builders of Letta agent-file records (an agent file, its agents, their messages, a system_alert), shared by the
// Letta reader's tests and the fuzz seeds so both write the same shapes.

export type Rec = Record<string, unknown>;

export const lettaMessage = (id: string, role: string, text: string, extra: Rec = {}): Rec => ({
  type: 'message',
  role,
  content: [{ type: 'text', text }],
  id,
  tool_calls: null,
  tool_call_id: null,
  tool_returns: [],
  ...extra,
});

/** An agent holding `messages`; `inContext` defaults to all of them. */
export const lettaAgent = (name: string, messages: unknown[], inContext = messages.map((m) => (m as { id: string }).id)): Rec => ({
  name,
  agent_type: 'letta_v1_agent',
  llm_config: { context_window: 180000 },
  id: `agent-${name}`,
  in_context_message_ids: inContext,
  messages,
});

/** A system_alert summary as Letta writes it into a user message's text: a pretty-printed JSON string. */
export const lettaAlert = (message: string, extra: Rec = {}): string =>
  JSON.stringify({ type: 'system_alert', message, ...extra }, null, 2);

/** The whole agent file (`.af`, or the export API's JSON) around `agents`. */
export const lettaFile = (agents: unknown[]): Rec => ({
  agents,
  groups: [],
  blocks: [],
  files: [],
  sources: [],
  tools: [],
  mcp_servers: [],
  skills: [],
  metadata: {},
  created_at: '2026-02-12T00:00:00Z',
});
