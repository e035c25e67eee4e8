// Accumulates parsed rows into the trainer's dense float32 DMatrix without knowing the row count
// or the width in advance. Dense rows (CSV) go into fixed-size blocks, each with the width it
// started with (a wider row starts a new block), and are copied once into the final matrix; sparse
// rows (libsvm) are kept as (column, value) pairs until the width is known. Growable arrays double.
// Peak memory is about twice the final matrix (blocks + result), never a copy of the input text.

import type { DMatrix } from '../types.js';

/** A Float32Array that grows by doubling. */
export class GrowableF32 {
  data: Float32Array;
  length = 0;
  constructor(initial = 1024) {
    this.data = new Float32Array(initial);
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  grow(min: number): void {
    let n = this.data.length * 2;
    while (n < min) n *= 2;
    const next = new Float32Array(n);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  /** The values, trimmed (a view when nothing is wasted, else a copy). */
  result(): Float32Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}

export class GrowableU32 {
  data: Uint32Array;
  length = 0;
  constructor(initial = 1024) {
    this.data = new Uint32Array(initial);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** Labels and optional weights, one per row, shared by both builders. */
class RowMeta {
  readonly labels = new GrowableF32();
  weights: GrowableF32 | undefined;
  get numRows(): number {
    return this.labels.length;
  }
  add(label: number, weight: number | undefined): void {
    this.labels.push(label);
    if (weight !== undefined) {
      this.weights ??= new GrowableF32();
      this.weights.push(weight);
    }
  }
}

const BLOCK_FLOATS = 1 << 20; // 4 MiB per block

interface Block {
  width: number;
  rows: number;
  data: Float32Array;
}

/** Dense rows of varying width (CSV): shorter rows are padded with NaN (missing). */
export class DenseBuilder {
  private readonly meta = new RowMeta();
  private blocks: Block[] = [];
  private current: Block | undefined;
  private maxWidth = 0;

  get numRows(): number {
    return this.meta.numRows;
  }
  get hasWeights(): boolean {
    return this.meta.weights !== undefined;
  }

  /** Append one row: `width` values from values[0..width), NaN = missing. */
  addRow(values: Float32Array, width: number, label: number, weight: number | undefined): void {
    let b = this.current;
    if (!b || width > b.width || (b.rows + 1) * b.width > b.data.length) {
      const w = Math.max(width, b?.width ?? 0, 1);
      const capacity = Math.max(1, Math.floor(BLOCK_FLOATS / w));
      b = { width: w, rows: 0, data: new Float32Array(capacity * w).fill(Number.NaN) };
      this.blocks.push(b);
      this.current = b;
    }
    b.data.set(values.subarray(0, width), b.rows * b.width);
    b.rows++;
    if (width > this.maxWidth) this.maxWidth = width;
    this.meta.add(label, weight);
  }

  /** The matrix, `minWidth` columns at least (a validation matrix takes the train width). */
  build(minWidth = 0): DMatrix {
    const width = Math.max(this.maxWidth, minWidth);
    const numRows = this.meta.numRows;
    const blocks = this.blocks;
    this.blocks = [];
    this.current = undefined;
    let data: Float32Array;
    if (blocks.length === 1 && blocks[0].width === width) {
      data = blocks[0].data.subarray(0, numRows * width);
    } else {
      data = new Float32Array(numRows * width);
      let row = 0;
      for (let i = 0; i < blocks.length; i++) {
        const b = blocks[i];
        if (b.width === width) data.set(b.data.subarray(0, b.rows * width), row * width);
        else {
          for (let r = 0; r < b.rows; r++) {
            const at = (row + r) * width;
            data.set(b.data.subarray(r * b.width, (r + 1) * b.width), at);
            data.fill(Number.NaN, at + b.width, at + width);
          }
        }
        row += b.rows;
        blocks[i] = undefined as unknown as Block; // let the block go as soon as it is copied
      }
    }
    return finish(numRows, width, data, this.meta);
  }
}

/** Sparse rows (libsvm): (column, value) pairs, densified once the width is known. */
export class SparseBuilder {
  private readonly meta = new RowMeta();
  private readonly cols = new GrowableU32();
  private readonly vals = new GrowableF32();
  private readonly rowEnds = new GrowableU32(); // entries < 2^32: a 1 GB file holds fewer pairs
  private maxCol = -1;

  get numRows(): number {
    return this.meta.numRows;
  }
  get hasWeights(): boolean {
    return this.meta.weights !== undefined;
  }

  addEntry(col: number, value: number): void {
    this.cols.push(col);
    this.vals.push(value);
    if (col > this.maxCol) this.maxCol = col;
  }

  endRow(label: number, weight: number | undefined): void {
    this.rowEnds.push(this.cols.length);
    this.meta.add(label, weight);
  }

  build(minWidth = 0): DMatrix {
    const width = Math.max(this.maxCol + 1, minWidth);
    const numRows = this.meta.numRows;
    const data = new Float32Array(numRows * width).fill(Number.NaN);
    const cols = this.cols.data;
    const vals = this.vals.data;
    const ends = this.rowEnds.data;
    let k = 0;
    for (let r = 0; r < numRows; r++) {
      const base = r * width;
      for (const end = ends[r]; k < end; k++) data[base + cols[k]] = vals[k];
    }
    return finish(numRows, width, data, this.meta);
  }
}

function finish(numRows: number, numCols: number, data: Float32Array, meta: RowMeta): DMatrix {
  const labels = meta.labels.result();
  const weights = meta.weights?.result();
  return weights ? { numRows, numCols, data, labels, weights } : { numRows, numCols, data, labels };
}
