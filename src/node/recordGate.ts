// Keeps a JSON Lines transcript that turns into junk from costing a problem object per line in its reader.
// Every record of a JSON Lines transcript is a JSON object on one line. Once MAX_KEPT_PROBLEMS lines have been
// seen that cannot be one (their text does not start with "{" and end with "}", or one line in SAMPLE_EVERY of
// those that do is not JSON, counted for SAMPLE_EVERY), the gate withholds every line that cannot be a record
// from the reader; the caller counts it into the problem summary instead. Until then every line goes through,
// at the cost of one extra check in SAMPLE_EVERY lines. Lines are checked by isJsonText, a linear validator
// that agrees with JSON.parse but costs no exception (a failing JSON.parse costs about 10 µs).

import type { RawLine } from '../core/model';
import { MAX_KEPT_PROBLEMS } from '../formats/problemCap';

/** One line in this many that looks like a record is checked, to notice junk shaped like records. */
const SAMPLE_EVERY = 64;
/** Deeper nesting than this is left to JSON.parse. */
const MAX_CHECKED_DEPTH = 256;

const TOO_DEEP = Symbol('too deep');

/**
 * Whether `text` is exactly one JSON value (with optional whitespace around it), as JSON.parse would say,
 * without building it. Linear in the length of the text.
 */
export function isJsonText(text: string): boolean {
  const n = text.length;
  let i = 0;
  const space = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else return;
    }
  };
  const digits = (): boolean => {
    const start = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    return i > start;
  };
  const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
  const string = (): boolean => {
    i++; // the opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text.charCodeAt(i + 1);
        if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
        else if (
          e === 0x75 &&
          isHex(text.charCodeAt(i + 2)) &&
          isHex(text.charCodeAt(i + 3)) &&
          isHex(text.charCodeAt(i + 4)) &&
          isHex(text.charCodeAt(i + 5))
        )
          i += 6;
        else return false;
      } else {
        i++;
      }
    }
    return false;
  };
  const number = (): boolean => {
    if (text.charCodeAt(i) === 0x2d) i++;
    if (text.charCodeAt(i) === 0x30) i++;
    else if (!digits()) return false;
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      if (!digits()) return false;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!digits()) return false;
    }
    return true;
  };
  const literal = (word: string): boolean => {
    if (!text.startsWith(word, i)) return false;
    i += word.length;
    return true;
  };
  const value = (depth: number): boolean => {
    if (depth > MAX_CHECKED_DEPTH) throw TOO_DEEP;
    space();
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      space();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return true;
      }
      for (;;) {
        space();
        if (text.charCodeAt(i) !== 0x22 || !string()) return false;
        space();
        if (text.charCodeAt(i) !== 0x3a) return false;
        i++;
        if (!value(depth + 1)) return false;
        space();
        const next = text.charCodeAt(i);
        i++;
        if (next === 0x7d) return true;
        if (next !== 0x2c) return false;
      }
    }
    if (c === 0x5b) {
      i++;
      space();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return true;
      }
      for (;;) {
        if (!value(depth + 1)) return false;
        space();
        const next = text.charCodeAt(i);
        i++;
        if (next === 0x5d) return true;
        if (next !== 0x2c) return false;
      }
    }
    if (c === 0x22) return string();
    if (c === 0x74) return literal('true');
    if (c === 0x66) return literal('false');
    if (c === 0x6e) return literal('null');
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number();
    return false;
  };
  try {
    if (!value(0)) return false;
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  }
  space();
  return i === n;
}

export class RecordGate {
  /** Lines seen that cannot be records (estimated from the sample for lines shaped like records). */
  private suspects = 0;
  private shaped = 0;

  constructor(private readonly threshold: number = MAX_KEPT_PROBLEMS) {}

  /** True once lines that cannot be records are withheld. */
  get closed(): boolean {
    return this.suspects >= this.threshold;
  }

  /** True when the line goes to the reader; false when it cannot be a record and is to be counted only. */
  admits(line: RawLine): boolean {
    const text = line.text.trim();
    if (text === '') return true;
    const shaped = text.startsWith('{') && text.endsWith('}');
    if (!this.closed) {
      if (!shaped) this.suspects++;
      else if (++this.shaped % SAMPLE_EVERY === 0 && !isJsonText(text)) this.suspects += SAMPLE_EVERY;
      return true;
    }
    return shaped && isJsonText(text);
  }

  reset(): void {
    this.suspects = 0;
    this.shaped = 0;
  }
}
