// Transcript text on screen. Every place in the webview that shows text taken from a transcript (ids, roles,
// labels, previews, turn text, evidence, summaries, the reasons and notes that quote them, file names, host
// errors) goes through this file, so that trickery stays visible:
//  - bidi controls (U+202A–202E, U+2066–2069, U+200E/F, U+061C), zero-width and other invisible characters
//    (U+200B–200D, U+2060–2064, U+FEFF, U+00AD, other format characters, control characters, tag characters,
//    runs of variation selectors) never reach the DOM: each is drawn as a small bordered chip naming its code
//    point ("U+202E"), the way VS Code's unicode highlighting does, so an override left open reverses nothing
//    and nothing hides;
//  - the text sits in a <bdi> (unicode-bidi: isolate), so right-to-left text cannot reorder our own labels
//    around it, and long unbroken words wrap (overflow-wrap: anywhere; both in timeline.css).
// Text nodes and spans whose text we set, never markup. One pass over the string, no regular expression.

/** A run of hidden characters: one code point (repeated `count` times), or a run of tag characters. */
interface Hidden {
  kind: 'bidi' | 'invisible' | 'control' | 'tags' | 'selectors';
  codePoint: number;
  count: number;
  /** The ASCII a run of tag characters spells. */
  spelled?: string;
}

const NAMES: Record<number, string> = {
  0x00ad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (BOM)',
};

const between = (cp: number, low: number, high: number): boolean => cp >= low && cp <= high;

function isBidiControl(cp: number): boolean {
  return between(cp, 0x202a, 0x202e) || between(cp, 0x2066, 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c;
}

function isVariationSelector(cp: number): boolean {
  return between(cp, 0xfe00, 0xfe0f) || between(cp, 0xe0100, 0xe01ef);
}

function isTag(cp: number): boolean {
  return between(cp, 0xe0000, 0xe007f);
}

/** Characters that draw nothing (or act on the text around them) but are not bidi controls. */
function isInvisible(cp: number): boolean {
  return (
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    between(cp, 0x180b, 0x180f) ||
    between(cp, 0x200b, 0x200d) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    between(cp, 0x2060, 0x2065) ||
    between(cp, 0x206a, 0x206f) ||
    cp === 0x3164 ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    between(cp, 0xfff0, 0xfffb) ||
    between(cp, 0x1bca0, 0x1bca3) ||
    between(cp, 0x1d173, 0x1d17a)
  );
}

/** C0 and C1 controls and DEL; tab, line feed and a CR before a line feed are layout, not trickery. */
function isControl(cp: number, next: number | undefined): boolean {
  if (cp === 0x09 || cp === 0x0a) return false;
  if (cp === 0x0d) return next !== 0x0a;
  return cp < 0x20 || between(cp, 0x7f, 0x9f);
}

const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** A zero width joiner inside an emoji sequence (man, ZWJ, woman, ZWJ, girl) joins pictures: it is kept. */
function joinsEmoji(previous: number | undefined, next: number | undefined): boolean {
  if (previous === undefined || next === undefined) return false;
  const before = previous === 0xfe0f || between(previous, 0x1f3fb, 0x1f3ff) || PICTOGRAPH.test(String.fromCodePoint(previous));
  return before && PICTOGRAPH.test(String.fromCodePoint(next));
}

/**
 * Calls `plain(from, to)` for each stretch of ordinary text and `hidden(run)` for each run of hidden
 * characters, in order. Linear in the length of `value`.
 */
function scan(value: string, plain: (from: number, to: number) => void, hidden: (run: Hidden) => void): void {
  let start = 0;
  let i = 0;
  let previous: number | undefined;
  while (i < value.length) {
    const cp = value.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const next = i + width < value.length ? value.codePointAt(i + width) : undefined;
    let kind: Hidden['kind'] | undefined;
    if (isBidiControl(cp)) kind = 'bidi';
    else if (isControl(cp, next)) kind = 'control';
    else if (isTag(cp)) kind = 'tags';
    else if (cp === 0x200d && joinsEmoji(previous, next)) kind = undefined;
    else if (isInvisible(cp)) kind = 'invisible';
    else if (isVariationSelector(cp) && next !== undefined && isVariationSelector(next)) kind = 'selectors';
    if (kind === undefined) {
      previous = cp;
      i += width;
      continue;
    }
    if (i > start) plain(start, i);
    // Gather the run: the same code point repeated, or any tag characters / variation selectors in a row.
    const run: Hidden = { kind, codePoint: cp, count: 0 };
    let spelled = '';
    while (i < value.length) {
      const here = value.codePointAt(i)!;
      const same = kind === 'tags' ? isTag(here) : kind === 'selectors' ? isVariationSelector(here) : here === cp;
      if (!same) break;
      if (kind === 'tags' && between(here, 0xe0020, 0xe007e) && spelled.length < 60) spelled += String.fromCharCode(here - 0xe0000);
      run.count++;
      i += here > 0xffff ? 2 : 1;
    }
    if (kind === 'tags') run.spelled = spelled;
    hidden(run);
    previous = undefined;
    start = i;
  }
  if (start < value.length) plain(start, value.length);
}

function codeOf(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What the chip says: "U+202E", "U+200B ×12", "tags “hi”". */
function chipText(run: Hidden): string {
  if (run.kind === 'tags') return `tags “${run.spelled ?? ''}”`;
  if (run.kind === 'selectors') return `${run.count} variation selectors`;
  return run.count > 1 ? `${codeOf(run.codePoint)} ×${run.count}` : codeOf(run.codePoint);
}

function chipTitle(run: Hidden): string {
  switch (run.kind) {
    case 'tags':
      return `${run.count} invisible tag characters (U+E0000–E007F) spelling “${run.spelled ?? ''}”: shown, not hidden`;
    case 'selectors':
      return `${run.count} variation selectors in a row (they can hide data): shown, not hidden`;
    case 'bidi':
      return `${codeOf(run.codePoint)} ${NAMES[run.codePoint] ?? ''}: a bidi control, shown here instead of reordering the text`;
    case 'control':
      return `${codeOf(run.codePoint)}: a control character, shown here instead of being hidden`;
    default:
      return `${codeOf(run.codePoint)} ${NAMES[run.codePoint] ?? 'invisible format character'}: shown here instead of being hidden`;
  }
}

function chip(run: Hidden): HTMLElement {
  const element = document.createElement('span');
  element.className = `tx-chip tx-${run.kind}`;
  element.dir = 'ltr';
  element.dataset.code = run.codePoint.toString(16).toUpperCase().padStart(4, '0');
  element.title = chipTitle(run);
  element.textContent = chipText(run);
  return element;
}

/** Appends `value` to `parent` as text nodes, with a chip for each run of hidden characters (no wrapper). */
export function appendTranscriptText(parent: Node, value: string): void {
  scan(
    value,
    (from, to) => parent.appendChild(document.createTextNode(value.slice(from, to))),
    (run) => parent.appendChild(chip(run)),
  );
}

/** `value` in an isolating <bdi class="tx">, hidden characters drawn as chips. */
export function transcriptText(value: string, className = ''): HTMLElement {
  const element = document.createElement('bdi');
  element.className = className ? `tx ${className}` : 'tx';
  appendTranscriptText(element, value);
  return element;
}

/**
 * For the few places that take a string only (a dropdown option, a tooltip, an aria-label): hidden characters
 * written out as "[U+202E]", the whole isolated between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL
 * ISOLATE so it cannot reorder the words around it.
 */
export function transcriptLabel(value: string): string {
  let out = '';
  scan(
    value,
    (from, to) => (out += value.slice(from, to)),
    (run) => (out += `[${chipText(run)}]`),
  );
  return `\u2068${out}\u2069`;
}
