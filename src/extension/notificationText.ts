// Text for VS Code's notifications and dialogs: a message that quotes a transcript (a summary id, a file name, a
// find's query) must not turn into a link, and a sentence that starts with a lower-case phrase gets its capital.
/** A notification renders [text](target) as a link: text from a transcript must not make one. */
export function noLinks(text: string): string {
  return text.replace(/\]\(/g, ']\u200b(');
}

/** The text with its first character in upper case ("could not write…" → "Could not write…"). */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
