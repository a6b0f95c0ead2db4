// Text from a transcript (or a path, or a message quoting either) made safe to print on a terminal. Transcripts
// are untrusted: an ESC, BEL or CR in a summary id or a summary's end could set the terminal title, move the
// cursor, erase lines (overwrite FAIL-CLOSED with REVERSIBLE) or write the clipboard (OSC 52). Every C0
// control (tab and newline too: a field stays on its line), DEL and every C1 control is shown escaped as
// \xHH (ESC as \x1b), and so are the bidi controls and line separators that reorder or break a line (\u202e).
// The report's own colours are added around escaped text, so they are the only escape sequences printed.

/** Characters shown escaped: C0, DEL, C1, the bidi marks, embeddings, overrides and isolates, U+2028/2029. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function escapeOf(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character shown escaped (ESC as \x1b, U+202E as \u202e). */
export function terminalText(text: string): string {
  return String(text).replace(UNSAFE, escapeOf);
}

/**
 * A JSON document with the characters JSON.stringify leaves raw (DEL, C1, bidi controls, U+2028/2029) written as
 * \uXXXX escapes: the same document once parsed, and safe when printed on a terminal.
 */
export function jsonText(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
