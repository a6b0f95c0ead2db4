// A binary search over ascending numbers: where a reader keeps line numbers, or a sink turn indexes, in order and
// asks whether one is among them. Pure.

/** The index of `value` in the ascending `values`, or undefined when it is not among them. */
export function indexInSorted(values: ArrayLike<number>, value: number): number | undefined {
  let low = 0;
  let high = values.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (values[middle] === value) return middle;
    if (values[middle] < value) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}
