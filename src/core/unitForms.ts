// The distinct forms one unit of sharing names (analyze.ts's sharing counts: a turn, or a call with its results),
// read straight from its turns' pieces: a key, a share key, a piece's alternatives and its parts are forms. The
// first pass of the counts adds each hash new to the unit to its filter (addNewHashes); the second counts by name
// each form the filter lets through that is new to the unit (visitFormsLetThrough). A table of what the unit under
// way has met (UnitForms) is kept from unit to unit and emptied by a new generation, so a unit makes no set, array
// or object of its own. Before, each turn's forms and hashes were made once and kept with its pieces in the evidence
// cache: 38 MB of the 177 MB it kept for 100k turns, where reading them again costs an analysis with the cache warm
// 18% more instructions and a first analysis 0.6% more (docs/performance-history.md, "Sharing's forms read from the
// pieces…").
// Pure: no I/O.
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
 * The forms met in one unit. `begin` starts a unit; then either `firstHash` or `firstForm` says whether a form is new
 * to it (a unit asks one of the two). Open addressing over the forms' hashes: a slot is taken when its generation is
 * the unit's. `firstForm` keeps the form beside its hash; `firstHash` keeps only the hash, so that the first pass
 * stores no reference to a form just made (a store the collector has to note, from this long-lived table to a
 * young string, cost the first pass more than its probing).
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

  /** Whether no form of hash `hash` was met yet in this unit (forms of one hash are one here). */
  firstHash(hash: number): boolean {
    const mask = this.hashes.length - 1;
    let slot = hash & mask;
    while (this.generations[slot] === this.generation) {
      if (this.hashes[slot] === hash) return false;
      slot = (slot + 1) & mask;
    }
    this.take(slot, hash);
    return true;
  }

  /** Whether `form` (whose formHash is `hash`) was not met yet in this unit; it is met from now on. */
  firstForm(form: string, hash: number): boolean {
    const mask = this.hashes.length - 1;
    let slot = hash & mask;
    while (this.generations[slot] === this.generation) {
      if (this.hashes[slot] === hash && this.forms[slot] === form) return false;
      slot = (slot + 1) & mask;
    }
    this.forms[slot] = form;
    this.take(slot, hash);
    return true;
  }

  private take(slot: number, hash: number): void {
    this.generations[slot] = this.generation;
    this.hashes[slot] = hash;
    if (++this.size * 2 > this.hashes.length) this.grow();
  }

  /** Twice the slots, with this unit's hashes (and forms) placed again. */
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
      this.generations[slot] = 1;
      this.hashes[slot] = hashes[k];
      this.forms[slot] = forms[k];
    }
  }
}

/**
 * Sharing's first pass over one turn of the unit under way in `met`: adds to `filter` the hash of each form `pieces`
 * name (each piece's key, its share key, its alternatives and its parts) that is new to the unit. Forms of one hash
 * count once: a form two units name is still added twice, which is all the filter is asked. The walk over the forms
 * is written out here and in visitFormsLetThrough, not shared through a callback: this pass meets every form.
 */
export function addNewHashes(pieces: readonly EvidencePiece[], met: UnitForms, filter: TwiceFilter): void {
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    addHash(p.key, met, filter);
    if (p.shareKey !== p.key) addHash(p.shareKey, met, filter);
    const alt = p.alt;
    if (alt) for (let a = 0; a < alt.length; a++) addHash(alt[a], met, filter);
    const parts = p.parts;
    if (parts) for (let a = 0; a < parts.length; a++) addHash(parts[a], met, filter);
  }
}

function addHash(form: string, met: UnitForms, filter: TwiceFilter): void {
  const hash = formHash(form);
  if (met.firstHash(hash)) filter.add(hash);
}

/**
 * Sharing's second pass over one turn of the unit under way in `met`: calls `visit(form)` for each form `pieces` name
 * that `filter` may have seen twice and that is new to the unit, in the order named (key, share key, alternatives,
 * parts). Most forms are named by one unit, and are passed over on their hash alone.
 */
export function visitFormsLetThrough(
  pieces: readonly EvidencePiece[],
  met: UnitForms,
  filter: TwiceFilter,
  visit: (form: string) => void,
): void {
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    visitForm(p.key, met, filter, visit);
    if (p.shareKey !== p.key) visitForm(p.shareKey, met, filter, visit);
    const alt = p.alt;
    if (alt) for (let a = 0; a < alt.length; a++) visitForm(alt[a], met, filter, visit);
    const parts = p.parts;
    if (parts) for (let a = 0; a < parts.length; a++) visitForm(parts[a], met, filter, visit);
  }
}

function visitForm(form: string, met: UnitForms, filter: TwiceFilter, visit: (form: string) => void): void {
  const hash = formHash(form);
  if (filter.maybeTwice(hash) && met.firstForm(form, hash)) visit(form);
}
