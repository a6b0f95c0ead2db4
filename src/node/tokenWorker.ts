// The worker-thread entry of TokenPool (tokenPool.ts): counts the tokens of each text it is sent with
// createTokenCounter (tiktoken, loaded in this thread on the first request) and replies with the counts,
// or with the error's message. Bundled as dist/tokenWorker.js, beside tiktoken_bg.wasm.
import { parentPort } from 'node:worker_threads';
import type { TokenCounter } from '../core/model';
import { createTokenCounter, isEncodingName, type EncodingName } from './tokenCounter';

/** What the pool sends: texts to count with an encoding; `id` comes back in the reply. */
export interface TokenRequest {
  id: number;
  encoding: string;
  texts: string[];
}

/** What the worker replies: one count per text, in order, or why it could not count them. */
export type TokenReply = { id: number; counts: number[] } | { id: number; error: string };

const counters = new Map<EncodingName, TokenCounter>();

function counterFor(encoding: string): TokenCounter {
  if (!isEncodingName(encoding)) throw new Error(`unknown encoding ${JSON.stringify(encoding)}`);
  let counter = counters.get(encoding);
  if (!counter) {
    counter = createTokenCounter(encoding);
    counters.set(encoding, counter);
  }
  return counter;
}

function reply(request: TokenRequest): TokenReply {
  try {
    const count = counterFor(request.encoding);
    return { id: request.id, counts: request.texts.map((text) => count(text)) };
  } catch (error) {
    return { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (request: TokenRequest) => parentPort?.postMessage(reply(request)));
