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
 * Counting the pieces apart differs from counting the whole by at most a token per cut. A text with nothing to
 * cut (most texts) is returned whole after one scan, without the regular expression's split.
 */
export function chunkText(text: string): string[] {
  if (text.length <= RUN_CHARS || (text.length <= CHUNK_CHARS && longestRun(text) <= RUN_CHARS)) return [text];
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

/** The length of the longest run of characters that are not whitespace (as the regular expression \s means it). */
function longestRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      run = 0;
    } else if (++run > longest) {
      longest = run;
    }
  }
  return longest;
}

/** Whether a UTF-16 code unit is whitespace as \s matches it (ECMAScript's WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 160 ||
    c === 5760 ||
    (c >= 8192 && c <= 8202) ||
    c === 8232 ||
    c === 8233 ||
    c === 8239 ||
    c === 8287 ||
    c === 12288 ||
    c === 65279
  );
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
