// Evidence alike, one object. A piece that several claimed turns name (a file, a function, a term) is weighed the
// same way for most of them: same kind, same match in the summary, same weight and sharing. Their results can then
// hold one Evidence object rather than one each (an AlikeTable per checkpoint's judging), since evidence is never
// modified once made: at 100k generated turns, 909k evidence objects were 397k distinct ones. judge looks up only
// pieces that two or more units name, since no other piece can repeat across turns.
import { AlikeTable, type AlikeLimits } from './alikeTable';
import type { Evidence } from './model';

/**
 * Every field Evidence may have. `satisfies` makes the compiler ask for a field added to Evidence here, and the
 * tests change each field listed and expect the evidence told apart, so sameEvidence cannot fall behind.
 */
export const EVIDENCE_FIELDS = {
  text: true,
  kind: true,
  found: true,
  at: true,
  length: true,
  matched: true,
  weight: true,
  sharedBy: true,
  fromCall: true,
  fromReasoning: true,
} as const satisfies Record<keyof Evidence, true>;

/** Whether two pieces of evidence have the same value in every field of EVIDENCE_FIELDS (absent as undefined). */
export function sameEvidence(a: Evidence, b: Evidence): boolean {
  return (
    a.text === b.text &&
    a.kind === b.kind &&
    a.found === b.found &&
    a.at === b.at &&
    a.length === b.length &&
    a.matched === b.matched &&
    a.weight === b.weight &&
    a.sharedBy === b.sharedBy &&
    a.fromCall === b.fromCall &&
    a.fromReasoning === b.fromReasoning
  );
}

/** Variants kept per text, and objects kept in all. */
export const EVIDENCE_LIMITS: AlikeLimits = { variants: 8, values: 1 << 19 };

/** A table of the evidence one checkpoint's turns hold alike, keyed by its text. */
export type EvidenceTable = AlikeTable<Evidence>;

/** A new, empty EvidenceTable: one per checkpoint's judging. */
export function evidenceTable(): EvidenceTable {
  return new AlikeTable(sameEvidence, EVIDENCE_LIMITS);
}
