// Builders of pi session records (badlogic/pi-mono: the session header, message entries and their parts), shared by
// the pi reader's tests and the fuzz seeds so both write the same shapes.

export type Rec = Record<string, unknown>;

/** The `session` header line; `extra` adds or overrides fields (e.g. `version: 3`). */
export const piHeader = (extra: Rec = {}): Rec => ({
  type: 'session',
  id: 'ffae836b',
  timestamp: '2025-12-09T00:53:29.825Z',
  cwd: '/work/ledger',
  provider: 'anthropic',
  modelId: 'claude-opus-4-5',
  thinkingLevel: 'off',
  ...extra,
});

/** A `message` entry wrapping `m`. */
export const piMessage = (m: Rec, extra: Rec = {}): Rec => ({
  type: 'message',
  timestamp: '2025-12-09T00:54:00.000Z',
  ...extra,
  message: m,
});

export const piUser = (text: string): Rec => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

/** An assistant message making one tool call, with a thinking part (never part of the turn's text) and optional prose. */
export const piCall = (id: string, name: string, args: Rec, text = ''): Rec => ({
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'SECRET_PLAN', thinkingSignature: 'sig' },
    ...(text ? [{ type: 'text', text }] : []),
    { type: 'toolCall', id, name, arguments: args },
  ],
  stopReason: 'toolUse',
});

export const piResult = (id: string, name: string, text: string, isError = false): Rec => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: name,
  content: [{ type: 'text', text }],
  isError,
});

export const piReply = (text: string): Rec => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop' });
