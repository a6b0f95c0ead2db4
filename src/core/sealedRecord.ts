// Records a reader hands back unchanged from one snapshot to the next (a checkpoint whose claimed ids do not move
// when turns are appended after it), sealed: deep-frozen, so nothing can change them, and known as such, so the
// checkpoint memo (core/checkpointMemo.ts) may tell the same object again by identity instead of comparing it
// field by field (a Claude Code checkpoint claims one id per turn before it: 100k ids to compare on every append).
// Pure: no I/O.

/** A record nested deeper than this is not sealed (left as it is), as the memo compares no deeper. */
const MAX_SEAL_DEPTH = 6;

const sealedRecords = new WeakSet<object>();

/**
 * Freezes `record` and everything in it (arrays, nested objects), and marks it sealed: from now on it cannot
 * change, and isSealed says so. A record nested too deeply, or holding other than plain data, is frozen as far as
 * it goes but not marked. Returns it.
 */
export function sealRecord<T extends object>(record: T): T {
  if (freezeDeep(record, 0)) sealedRecords.add(record);
  return record;
}

/** True when `value` was sealed by sealRecord: the same object is the same record, now and later. */
export function isSealed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && sealedRecords.has(value);
}

/**
 * Freezes `value` and what it holds; false when something lies deeper than MAX_SEAL_DEPTH or is not plain data (a
 * Map or a Date keeps its contents changeable however frozen).
 */
function freezeDeep(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_SEAL_DEPTH) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  let whole = true;
  // An array by index: Object.values would copy it first (a Claude Code checkpoint claims 100k ids and more). Its
  // strings and numbers are frozen already: no call for each.
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const item: unknown = value[k];
      if (typeof item === 'object' && item !== null && !freezeDeep(item, depth + 1)) whole = false;
    }
  } else {
    for (const item of Object.values(value)) if (!freezeDeep(item, depth + 1)) whole = false;
  }
  Object.freeze(value);
  return whole;
}
