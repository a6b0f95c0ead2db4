// One Evidence object for the evidence many turns of a checkpoint hold alike. A piece that several claimed
// turns name (a file, a function, a term) is weighed the same way for most of them: same kind, same match in
// the summary, same weight and sharing. Their results can then hold one object rather than one each, since
// evidence is never modified once made. This keeps a large analysis's results several times smaller in objects
// (at 100k generated turns, 909k evidence objects were 397k distinct ones), which the garbage collector no
// longer has to copy and mark. Only pieces that two or more units name are looked up here (no other piece can
// repeat across turns), so the table holds at most the checkpoint's shared forms; and a text keeps at most
// MAX_VARIANTS objects, so a lookup is a few comparisons whatever the input.
import type { Evidence, EvidenceKind } from './model';

/** The fields of one piece of evidence, as judge weighs it. */
export interface EvidenceFields {
  text: string;
  kind: EvidenceKind;
  found: boolean;
  weight: number;
  sharedBy: number;
  /** Where it was found in the summary (both set when found, neither otherwise). */
  at?: number;
  length?: number;
  matched?: string;
  fromCall: boolean;
  fromReasoning: boolean;
}

/** Objects kept per text at most: past this, a text's further variants are made each time. */
export const MAX_VARIANTS = 8;

/** A new Evidence with these fields, its properties in the order JSON shows them. */
export function makeEvidence(f: EvidenceFields): Evidence {
  const e: Evidence = { text: f.text, kind: f.kind, found: f.found, weight: f.weight, sharedBy: f.sharedBy };
  if (f.at !== undefined) e.at = f.at;
  if (f.length !== undefined) e.length = f.length;
  if (f.matched !== undefined) e.matched = f.matched;
  if (f.fromCall) e.fromCall = true;
  if (f.fromReasoning) e.fromReasoning = true;
  return e;
}

/** Whether `e` has exactly these fields (its text is the table's key). */
function sameAs(e: Evidence, f: EvidenceFields): boolean {
  return (
    e.kind === f.kind &&
    e.found === f.found &&
    e.weight === f.weight &&
    e.sharedBy === f.sharedBy &&
    e.at === f.at &&
    e.length === f.length &&
    e.matched === f.matched &&
    (e.fromCall === true) === f.fromCall &&
    (e.fromReasoning === true) === f.fromReasoning
  );
}

/** The evidence objects of one checkpoint's judging, shared between its turns. Lives as long as that judging. */
export class EvidenceShare {
  private readonly byText = new Map<string, Evidence[]>();

  /** An Evidence with these fields: the one made before, or a new one (kept for the next turn). */
  evidence(f: EvidenceFields): Evidence {
    const variants = this.byText.get(f.text);
    if (variants === undefined) {
      const e = makeEvidence(f);
      this.byText.set(f.text, [e]);
      return e;
    }
    for (let k = 0; k < variants.length; k++) if (sameAs(variants[k], f)) return variants[k];
    const e = makeEvidence(f);
    if (variants.length < MAX_VARIANTS) variants.push(e);
    return e;
  }
}
