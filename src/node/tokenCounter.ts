// Exact token counts with tiktoken, loaded lazily on the first count (never at activation or start-up).
// Long texts are counted in chunks: tiktoken's BPE is quadratic on long unbroken runs (base64, "-----").

import type { TokenCounter } from '../core/model';

export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];
export const DEFAULT_ENCODING: EncodingName = 'o200k_base';

/** Texts longer than this are counted in pieces of about this size, cut at whitespace. */
const CHUNK_CHARS = 8000;
/** Unbroken runs (no whitespace) are cut every this many characters: BPE time grows with a run's square. */
const RUN_CHARS = 100;

interface Encoder {
  encode_ordinary(text: string): Uint32Array;
}

const encoders = new Map<EncodingName, Encoder>();

function encoderFor(encoding: EncodingName): Encoder {
  let encoder = encoders.get(encoding);
  if (encoder === undefined) {
    // Required here, not at the top: loading the wasm and the ranks costs ~0.5 s.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tiktoken = require('tiktoken') as { get_encoding(name: EncodingName): Encoder };
    encoder = tiktoken.get_encoding(encoding);
    encoders.set(encoding, encoder);
  }
  return encoder;
}

export function isEncodingName(value: string): value is EncodingName {
  return (ENCODINGS as readonly string[]).includes(value);
}

/**
 * Splits text into pieces of at most CHUNK_CHARS, cut at whitespace, with unbroken runs cut every RUN_CHARS.
 * Counting the pieces apart differs from counting the whole by at most a token per cut.
 */
export function chunkText(text: string): string[] {
  if (text.length <= RUN_CHARS) return [text];
  const words = text.match(new RegExp(`\\s+|\\S{1,${RUN_CHARS}}`, 'g')) ?? [];
  const chunks: string[] = [];
  let current = '';
  for (const word of words) {
    // Two non-whitespace pieces side by side are one run that was cut: keep the cut.
    const continuesRun = current !== '' && !/\s/.test(word[0]) && !/\s/.test(current[current.length - 1]);
    if (continuesRun || current.length + word.length > CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
    current += word;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

export function createTokenCounter(encoding: EncodingName = DEFAULT_ENCODING): TokenCounter {
  return (text: string) => {
    if (text === '') return 0;
    const encoder = encoderFor(encoding);
    let total = 0;
    for (const chunk of chunkText(text)) total += encoder.encode_ordinary(chunk).length;
    return total;
  };
}
