// A set of 64-bit fingerprints of strings in two typed arrays, for the bulk loader's check that
// the edge ids of a load are new. A JS Set of the ids themselves cost 0.75 s per million (string
// hashing, rehashing, and every id kept alive); this costs about a tenth of that and 16-32 bytes an
// id. Two different ids can share a fingerprint (about one chance in 10^7 for a million ids), so
// `addAllNew` answers "new" or "maybe seen": the loader treats "maybe seen" as a repeated id and falls
// back to its exact path, never the other way round.

export class IdFingerprints {
  /** Slot i is entries [2i, 2i + 1]: both halves of a fingerprint on one cache line. */
  #slots: Uint32Array;
  #mask: number;
  #size = 0;
  /** addAllNew's hashes of a batch (a, b of each id). */
  #hashes = new Uint32Array(0);

  constructor(capacity = 1 << 16) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.#slots = new Uint32Array(n * 2);
    this.#mask = n - 1;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Adds the fingerprints of `list[start]`, `list[start + stride]`, ... (strings); false when one
   * was (maybe) there already, or is twice among them. All hashes first, then all probes: the
   * probes' cache misses (one each, in a table of megabytes) then overlap instead of waiting one
   * after another behind the hashing (a million ids: ~90 ms instead of ~190 ms).
   */
  addAllNew(list: readonly unknown[], start: number, stride: number): boolean {
    const n = Math.ceil((list.length - start) / stride);
    if (n <= 0) return true;
    while ((this.#size + n) * 2 > this.#mask) this.#grow();
    if (this.#hashes.length < 2 * n) this.#hashes = new Uint32Array(2 * n);
    const h = this.#hashes;
    for (let k = 0, j = start; k < n; k++, j += stride) hashInto(list[j] as string, h, 2 * k);
    const slots = this.#slots;
    const mask = this.#mask;
    let allNew = true;
    for (let k = 0; k < n; k++) {
      if (this.#insert(slots, mask, h[2 * k]!, h[2 * k + 1]!)) this.#size++;
      else allNew = false;
    }
    return allNew;
  }

  #insert(slots: Uint32Array, mask: number, a: number, b: number): boolean {
    // The slot comes from the second hash (mixed), so slot and stored `a` are not the same bits.
    let i = Math.imul(b ^ (a >>> 7), 0x27d4eb2d) & mask;
    for (;;) {
      const x = slots[2 * i]!;
      const y = slots[2 * i + 1]!;
      if (x === 0 && y === 0) {
        slots[2 * i] = a;
        slots[2 * i + 1] = b;
        return true;
      }
      if (x === a && y === b) return false;
      i = (i + 1) & mask;
    }
  }

  #grow(): void {
    const old = this.#slots;
    const slots = new Uint32Array(old.length * 2);
    const mask = slots.length / 2 - 1;
    for (let i = 0; i < old.length; i += 2) {
      const a = old[i]!;
      const b = old[i + 1]!;
      if (a !== 0 || b !== 0) this.#insert(slots, mask, a, b);
    }
    this.#slots = slots;
    this.#mask = mask;
  }
}

/**
 * Two independent 32-bit hashes of `id`, FNV-1a and a multiply-xorshift one, into h[at] and
 * h[at + 1]; (0, 0) marks an empty slot, so it is never one.
 */
function hashInto(id: string, h: Uint32Array, at: number): void {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a >>>= 0;
  b = (b ^ (b >>> 13)) >>> 0;
  h[at] = a;
  h[at + 1] = a === 0 && b === 0 ? 1 : b;
}
