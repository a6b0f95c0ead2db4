// A column of 32-bit integers by index, grown by doubling as it is written (copied then, so amortised); an index
// never written reads as 0. For indexes kept per turn or per record in typed arrays rather than in objects or Maps
// (issue 13). Pure: no I/O.

export class IntColumn {
  private values: Int32Array;

  constructor(firstLength = 64) {
    this.values = new Int32Array(firstLength);
  }

  get(at: number): number {
    return at < this.values.length ? this.values[at] : 0;
  }

  set(at: number, value: number): void {
    if (at >= this.values.length) {
      let length = this.values.length * 2;
      while (length <= at) length *= 2;
      const grown = new Int32Array(length);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[at] = value;
  }
}
