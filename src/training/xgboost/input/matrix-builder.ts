// Accumulates parsed rows into the trainer's dense float32 DMatrix without knowing the row count
// or the width in advance, and without copying: every growing array lives in a resizable
// ArrayBuffer (ES2024; V8 reserves the address range and commits pages as it grows, so growing
// never copies and the final matrix is the buffer itself, shrunk to size). Peak memory is the
// matrix plus one growth step for CSV; for libsvm the (column, value) pairs until they are
// scattered into the matrix. A wider CSV row re-lays the rows out in place, from the last one back.

import type { DMatrix } from '../types.js';
import { TrainingInputError } from './errors.js';

/** V8's limit for a resizable ArrayBuffer's maxByteLength (Node 20): 4 GiB. */
const MAX_BYTES = 2 ** 32;
const MIN_STEP = 1 << 20;

function tooLarge(what: string): never {
  throw new TrainingInputError(
    `the ${what} would exceed 4 GiB, the largest array this trainer holds; split the data or use fewer features`,
  );
}

// ES2024's resizable ArrayBuffer and growable SharedArrayBuffer (in Node 20), typed here because
// the project compiles with ES2023 libs.
interface ResizableArrayBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}
const Resizable = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;
const GrowableShared = SharedArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => SharedArrayBuffer & { grow(byteLength: number): void };

/**
 * A typed array that grows in place, never copied. `shared`: in a SharedArrayBuffer, so the
 * training's threads read it where it is (a growable one cannot shrink: the unused tail of the last
 * growth step stays reserved address space, never touched).
 */
class Growable<T extends Float32Array | Uint32Array> {
  private readonly buffer: ArrayBufferLike;
  /** grows (or, not shared, shrinks) the buffer to `bytes` */
  private readonly resize: (bytes: number) => void;
  data: T;
  length = 0;
  constructor(
    private readonly make: (b: ArrayBufferLike, n?: number) => T,
    shared = false,
  ) {
    if (shared) {
      const sab = new GrowableShared(0, { maxByteLength: MAX_BYTES });
      this.buffer = sab;
      this.resize = (bytes) => {
        if (bytes > sab.byteLength) sab.grow(bytes);
      };
    } else {
      const ab = new Resizable(0, { maxByteLength: MAX_BYTES });
      this.buffer = ab;
      this.resize = (bytes) => ab.resize(bytes);
    }
    this.data = make(this.buffer);
  }
  get capacity(): number {
    return this.buffer.byteLength / 4;
  }
  /** Make room for `n` elements in total. */
  reserve(n: number, what: string): void {
    if (n <= this.capacity) return;
    const bytes = Math.min(
      MAX_BYTES,
      Math.max(n * 4, this.buffer.byteLength + Math.max(MIN_STEP, this.buffer.byteLength >>> 2)),
    );
    if (n * 4 > MAX_BYTES) tooLarge(what);
    this.resize(bytes); // length-tracking views see the new length
  }
  push(v: number, what: string): void {
    if (this.length === this.capacity) this.reserve(this.length + 1, what);
    this.data[this.length++] = v;
  }
  /** The first `length` elements, the buffer shrunk to them. */
  result(): T {
    this.resize(this.length * 4);
    return this.make(this.buffer, this.length);
  }
}

const f32 = (b: ArrayBufferLike, n?: number): Float32Array =>
  n === undefined ? new Float32Array(b) : new Float32Array(b, 0, n);
const u32 = (b: ArrayBufferLike, n?: number): Uint32Array =>
  n === undefined ? new Uint32Array(b) : new Uint32Array(b, 0, n);

/** Labels and optional weights, one per row, shared by both builders. */
class RowMeta {
  readonly labels = new Growable(f32);
  weights: Growable<Float32Array> | undefined;
  get numRows(): number {
    return this.labels.length;
  }
  add(label: number, weight: number | undefined): void {
    this.labels.push(label, 'label vector');
    if (weight !== undefined) {
      this.weights ??= new Growable(f32);
      this.weights.push(weight, 'weight vector');
    }
  }
}

/**
 * Dense rows of varying width (CSV): shorter rows are padded with NaN (missing). The matrix is in
 * shared memory, where the trainer's threads read it (hist-team.ts).
 */
export class DenseBuilder {
  private readonly meta = new RowMeta();
  private readonly cells = new Growable(f32, true);
  private width = 0;

  get numRows(): number {
    return this.meta.numRows;
  }

  /** Append one row: `width` values from values[0..width), NaN = missing. */
  addRow(values: Float32Array, width: number, label: number, weight: number | undefined): void {
    if (width > this.width) this.widen(width);
    const w = this.width;
    const at = this.meta.numRows * w;
    this.cells.reserve(at + w, 'feature matrix');
    const data = this.cells.data;
    data.set(values.subarray(0, width), at);
    if (width < w) data.fill(Number.NaN, at + width, at + w);
    this.cells.length = at + w;
    this.meta.add(label, weight);
  }

  /** Re-lay the rows out `to` wide, in place: the last row moves first, so nothing is overwritten. */
  private widen(to: number): void {
    const from = this.width;
    const rows = this.meta.numRows;
    this.cells.reserve(rows * to, 'feature matrix');
    const data = this.cells.data;
    for (let r = rows - 1; r >= 0; r--) {
      data.copyWithin(r * to, r * from, r * from + from);
      data.fill(Number.NaN, r * to + from, (r + 1) * to);
    }
    this.cells.length = rows * to;
    this.width = to;
  }

  /** The matrix, `minWidth` columns at least (a validation matrix takes the train width). */
  build(minWidth = 0): DMatrix {
    if (minWidth > this.width) this.widen(minWidth);
    return finish(this.meta.numRows, this.width, this.cells.result(), this.meta);
  }
}

/** Sparse rows (libsvm): (column, value) pairs, densified once the width is known. */
export class SparseBuilder {
  private readonly meta = new RowMeta();
  private readonly cols = new Growable(u32);
  private readonly vals = new Growable(f32);
  private readonly rowEnds = new Growable(u32);
  private maxCol = -1;

  get numRows(): number {
    return this.meta.numRows;
  }

  addEntry(col: number, value: number): void {
    this.cols.push(col, 'libsvm entries');
    this.vals.push(value, 'libsvm entries');
    if (col > this.maxCol) this.maxCol = col;
  }

  endRow(label: number, weight: number | undefined): void {
    this.rowEnds.push(this.cols.length, 'row index');
    this.meta.add(label, weight);
  }

  build(minWidth = 0): DMatrix {
    const width = Math.max(this.maxCol + 1, minWidth);
    const numRows = this.meta.numRows;
    if (numRows * width * 4 > MAX_BYTES) tooLarge('feature matrix');
    // in shared memory, where the trainer's threads read it (hist-team.ts)
    const data = new Float32Array(new SharedArrayBuffer(numRows * width * 4)).fill(Number.NaN);
    const cols = this.cols.data;
    const vals = this.vals.data;
    const ends = this.rowEnds.data;
    let k = 0;
    for (let r = 0; r < numRows; r++) {
      const base = r * width;
      for (const end = ends[r]; k < end; k++) data[base + cols[k]] = vals[k];
    }
    this.cols.result();
    this.vals.result();
    return finish(numRows, width, data, this.meta);
  }
}

function finish(numRows: number, numCols: number, data: Float32Array, meta: RowMeta): DMatrix {
  const labels = meta.labels.result();
  const weights = meta.weights?.result();
  return weights ? { numRows, numCols, data, labels, weights } : { numRows, numCols, data, labels };
}
