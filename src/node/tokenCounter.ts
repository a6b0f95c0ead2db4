// Exact token counts with tiktoken, loaded lazily on the first count (never at activation or start-up).
// Long texts are counted in chunks: tiktoken's BPE is quadratic on long unbroken runs (base64, "-----").

import type { TokenCounter } from '../core/model';

export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];
export const DEFAULT_ENCODING: EncodingName = 'o200k_base';

/** Texts longer than this are split (at whitespace when there is some) before counting. */
const CHUNK_CHARS = 8000;

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

/** Splits text into pieces of at most CHUNK_CHARS, cutting after whitespace where possible. */
export function chunkText(text: string): string[] {
  if (text.length <= CHUNK_CHARS) return [text];
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + CHUNK_CHARS, text.length);
    if (end < text.length) {
      const window = text.slice(start, end);
      const cut = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'));
      if (cut > CHUNK_CHARS / 2) end = start + cut + 1;
    }
    chunks.push(text.slice(start, end));
    start = end;
  }
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
