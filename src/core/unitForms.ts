// The distinct forms one unit of sharing names (analyze.ts's sharing counts: a turn, or a call with its results),
// read straight from its turns' pieces: a key, a share key, a piece's alternatives and its parts are forms. The
// first pass of the counts adds each distinct form's hash once per unit, the second counts each distinct form its
// filter lets through once per unit. A table of the forms met in the unit under way (hashes, with the forms beside
// them) is kept from unit to unit and emptied by a new generation, so a unit makes no set, array or object of its
// own. Before, each turn's forms and hashes were made once and kept with its pieces in the evidence cache: 38 MB
// of the 177 MB it kept for 100k turns, where reading them again costs an analysis with the cache warm about 0.3 s
// more and a first analysis nothing (docs/performance.md, "Sharing's forms read from the pieces…"). Pure: no I/O.
import type { EvidencePiece } from './evidence';
import type { TwiceFilter } from './twiceFilter';

/** FNV-1a over a form's code units, cut to 30 bits (a small integer, kept unboxed): the same for the same text. */
export function formHash(form: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < form.length; i++) h = Math.imul(h ^ form.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

/** Slots the table starts with: a power of two, more than most units' forms twice over. */
const FIRST_SLOTS = 256;

/**
 * The forms met in one unit. `begin` starts a unit; `firstTime` says whether a form is new to it. Open addressing
 * over the forms' hashes: a slot is taken when its generation is the unit's, and holds the hash and the form.
 */
export class UnitForms {
  private hashes = new Int32Array(FIRST_SLOTS);
  private forms: string[] = new Array<string>(FIRST_SLOTS).fill('');
  private generations = new Uint32Array(FIRST_SLOTS);
  private generation = 0;
  private size = 0;

  /** Starts a new unit: no form met yet. */
  begin(): void {
    this.size = 0;
    this.generation++;
    if (this.generation === 0xffffffff) {
      // After 4G units the generations start again, with every slot free.
      this.generations.fill(0);
      this.generation = 1;
    }
  }

  /** Whether `form` (whose formHash is `hash`) was not met yet in this unit; it is met from now on. */
  firstTime(form: string, hash: number): boolean {
    const mask = this.hashes.length - 1;
    let slot = hash & mask;
    while (this.generations[slot] === this.generation) {
      if (this.hashes[slot] === hash && this.forms[slot] === form) return false;
      slot = (slot + 1) & mask;
    }
    this.take(slot, form, hash);
    if (++this.size * 2 > this.hashes.length) this.grow();
    return true;
  }

  private take(slot: number, form: string, hash: number): void {
    this.generations[slot] = this.generation;
    this.hashes[slot] = hash;
    this.forms[slot] = form;
  }

  /** Twice the slots, with this unit's forms placed again. */
  private grow(): void {
    const { hashes, forms, generations, generation } = this;
    const length = hashes.length * 2;
    this.hashes = new Int32Array(length);
    this.forms = new Array<string>(length).fill('');
    this.generations = new Uint32Array(length);
    this.generation = 1;
    const mask = length - 1;
    for (let k = 0; k < hashes.length; k++) {
      if (generations[k] !== generation) continue;
      let slot = hashes[k] & mask;
      while (this.generations[slot] === 1) slot = (slot + 1) & mask;
      this.take(slot, forms[k], hashes[k]);
    }
  }
}

/**
 * Calls `visit(form, hash)` for each form `pieces` name that is new to the unit under way in `met`: each piece's
 * key, its share key, its alternatives and its parts, in that order. With `filter`, only the forms whose hash it
 * may have seen twice are looked at (sharing's second pass: most forms are named by one unit).
 */
export function visitNewForms(
  pieces: readonly EvidencePiece[],
  met: UnitForms,
  visit: (form: string, hash: number) => void,
  filter?: TwiceFilter,
): void {
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    visitForm(p.key, met, visit, filter);
    if (p.shareKey !== p.key) visitForm(p.shareKey, met, visit, filter);
    const alt = p.alt;
    if (alt) for (let a = 0; a < alt.length; a++) visitForm(alt[a], met, visit, filter);
    const parts = p.parts;
    if (parts) for (let a = 0; a < parts.length; a++) visitForm(parts[a], met, visit, filter);
  }
}

function visitForm(form: string, met: UnitForms, visit: (form: string, hash: number) => void, filter: TwiceFilter | undefined): void {
  const hash = formHash(form);
  if (filter !== undefined && !filter.maybeTwice(hash)) return;
  if (met.firstTime(form, hash)) visit(form, hash);
}
