// The build kernel of tree_method hist/approx, in hand-written WebAssembly (encoded by ./wasm.ts):
// for rows rowIdx[begin..end), add each row's gradient pair (two floats, as doubles) to the bin of
// each feature c0..c1-1 (xgboost's RowsWiseBuildHistKernel). Rows go four at a time feature by
// feature, so a bin still receives its rows in row order: the same sequence of double additions as
// xgboost's, whatever the unrolling, the thread that runs a feature or the variant:
//   - the plain kernel, one per bin format (./hist-kernels.ts, BinFormat);
//   - the gathered kernel, one per bin format: rows scattered over the matrix are first copied to a scratch
//     in chunks, so the processor has many rows' cache misses in flight, then added up from there;
//   - a matrix's own kernels (byte bins, BinLayout): every feature of a row in straight-line code
//     with its offsets as constants.

import { type Bytes, type Func, op, whileBelow } from './wasm.js';

/**
 * Byte addresses in the arena a build reads: bins, offsets (Int32 per feature, width 1 only),
 * rows (Int32 row indices), grad and hess (Float32, row r's at r × stride bytes); hist is the
 * output histogram.
 */
export type BuildFn = (
  bins: number,
  offsets: number,
  numCols: number,
  c0: number,
  c1: number,
  rows: number,
  begin: number,
  end: number,
  grad: number,
  hess: number,
  stride: number,
  hist: number,
) => void;

/** A BuildFn that first copies each chunk of GATHER_ROWS rows to `scratch` (gatherScratchBytes). */
export type GatherBuildFn = (...args: [...Parameters<BuildFn>, scratch: number]) => void;

// parameters of a build kernel, then its locals
const BINS = 0;
const OFFS = 1;
const NC = 2;
const C0 = 3;
const C1 = 4;
const ROWS = 5;
const BEGIN = 6;
const END = 7;
const GRAD = 8;
const HESS = 9;
const STRIDE = 10;
const HIST = 11;
/** the gathered build's thirteenth parameter: its scratch (GATHER_ROWS × (row bytes rounded up to 16 + 16)) */
const SCR = 12;

/** Rows a gathered build copies before it adds them up (buildKernel, `gathered`). */
export const GATHER_ROWS = 64;

/** Bytes of a thread's scratch for gathered builds of numCols bins of `width` bytes a row. */
export function gatherScratchBytes(numCols: number, width: 1 | 2 | 4): number {
  return GATHER_ROWS * (((numCols * width + 15) & ~15) + 16);
}

/**
 * The byte bins of one matrix, for kernels made for it (layoutKernels): how many features a row
 * has and where each feature's bins start in a histogram (HistogramCuts::Ptrs, numCols + 1).
 */
export interface BinLayout {
  numCols: number;
  ptr: Int32Array;
}

/** Features up to which a matrix gets kernels of its own (their code grows with the count). */
export const LAYOUT_MAX_COLS = 128;

/**
 * A build kernel. `gathered`: the rows come from a scratch the kernel fills itself
 * (chunks of GATHER_ROWS, see below); the row loops and the cells are the same. `layout` (width 1
 * only): a kernel for that matrix alone, every feature of a row added in straight-line code with
 * the feature's bin offset and histogram offset as constants (its `numCols`, `offsets`, `c0` and
 * `c1` parameters are not read: it always builds every feature).
 */
export function buildKernel(
  name: string,
  width: 1 | 2 | 4,
  sparse: boolean,
  gathered = false,
  layout?: BinLayout,
): Func {
  const params = gathered ? 13 : 12;
  // locals: I, STOP, C, HB, K, J..J+3, then (gathered) OUT, M, U, Q, RS, SCRG; then G..G+3 (v128)
  const I = params;
  const STOP = I + 1;
  const C = I + 2;
  const HB = I + 3;
  const K = I + 4;
  const J = I + 5; // J..J+3: the rows' first bin addresses
  const OUT = I + 9;
  const M = I + 10;
  const U = I + 11;
  const Q = I + 12;
  const RS = I + 13;
  const SCRG = I + 14;
  const i32Locals = gathered ? 15 : 9;
  const G = I + i32Locals; // G..G+3: the rows' gradient pairs (v128)
  const shift = width === 1 ? 0 : width === 2 ? 1 : 2;
  const load = width === 1 ? op.load8() : width === 2 ? op.load16() : op.load32();
  const missing = width === 2 ? 0xffff : -1;
  /** row K's gradient pair (two floats as doubles) left on the stack; HB is scratch */
  const pairOfK: Bytes = [
    ...op.get(K),
    ...op.get(STRIDE),
    ...op.mul,
    ...op.tee(HB),
    ...op.get(GRAD),
    ...op.add,
    ...op.f32load(),
    ...op.f64promote,
    ...op.f64x2splat,
    ...op.get(HB),
    ...op.get(HESS),
    ...op.add,
    ...op.f32load(),
    ...op.f64promote,
    ...op.f64x2replaceLane(1),
  ];
  /** the address of row K's first bin, left on the stack */
  const binsOfK: Bytes = [
    ...op.get(K),
    ...op.get(NC),
    ...op.mul,
    ...(shift > 0 ? [...op.i32(shift), ...op.shl] : []),
    ...op.get(BINS),
    ...op.add,
  ];
  /** gathered: row u of the group is scratch row I + u, its pair and bins already copied there */
  const scratchRow = (u: number): Bytes => [
    ...op.get(SCRG),
    ...op.get(I),
    ...op.i32(4),
    ...op.shl,
    ...op.add,
    ...op.v128load(u * 16),
    ...op.set(G + u),
    ...op.get(I),
    ...op.i32(u),
    ...op.add,
    ...op.get(RS),
    ...op.mul,
    ...op.get(SCR),
    ...op.add,
    ...op.set(J + u),
  ];
  /** row u of the group: its gradient pair (two floats as doubles) and the address of its first bin */
  const row = (u: number): Bytes =>
    gathered
      ? scratchRow(u)
      : [
          ...op.get(ROWS),
          ...op.get(I),
          ...op.i32(2),
          ...op.shl,
          ...op.add,
          ...op.load32(u * 4),
          ...op.set(K),
          ...pairOfK,
          ...op.set(G + u),
          ...binsOfK,
          ...op.set(J + u),
        ];
  /** hist[bin] += the gradient pair of row u, bin read at J+u + C (C counts bytes for global bins) */
  const cell = (u: number): Bytes => {
    const add: Bytes = [
      ...op.tee(K),
      ...op.get(K),
      ...op.v128load(),
      ...op.get(G + u),
      ...op.f64x2add,
      ...op.v128store(),
    ];
    if (width === 1) {
      return [
        ...op.get(HB),
        ...op.get(J + u),
        ...op.get(C),
        ...op.add,
        ...load,
        ...op.i32(4),
        ...op.shl,
        ...op.add,
        ...add,
      ];
    }
    const addr = [...op.get(HIST), ...op.get(K), ...op.i32(4), ...op.shl, ...op.add, ...add];
    if (!sparse) return [...op.get(J + u), ...op.get(C), ...op.add, ...load, ...op.set(K), ...addr];
    return [
      ...op.get(J + u),
      ...op.get(C),
      ...op.add,
      ...load,
      ...op.tee(K),
      ...op.i32(missing),
      ...op.ne,
      ...op.if,
      ...addr,
      ...op.end,
    ];
  };
  /** the layout's feature c of row u: no loop, no offset table, no feature counter */
  const layoutCell = (u: number, c: number, histAt: number): Bytes => [
    ...op.get(J + u),
    ...op.load8(c),
    ...op.i32(4),
    ...op.shl,
    ...op.get(HIST),
    ...op.add,
    ...op.tee(K),
    ...op.get(K),
    ...op.v128load(histAt),
    ...op.get(G + u),
    ...op.f64x2add,
    ...op.v128store(histAt),
  ];
  /** the features of `rows` rows already set up (J, G): a loop over C0..C1, or the layout's straight line */
  const features = (rows: number): Bytes => {
    if (layout !== undefined) {
      const body: Bytes = [];
      for (let c = 0; c < layout.numCols; c++)
        for (let u = 0; u < rows; u++) body.push(...layoutCell(u, c, layout.ptr[c] * 16));
      return body;
    }
    const body: Bytes = [];
    if (width === 1) {
      // HB: the histogram address of this feature's first bin
      body.push(
        ...op.get(HIST),
        ...op.get(OFFS),
        ...op.get(C),
        ...op.i32(2),
        ...op.shl,
        ...op.add,
        ...op.load32(),
        ...op.i32(4),
        ...op.shl,
        ...op.add,
        ...op.set(HB),
      );
    }
    for (let u = 0; u < rows; u++) body.push(...cell(u));
    return [
      ...op.get(C0),
      ...op.set(C),
      ...whileBelow(C, C1, [...body, ...op.get(C), ...op.i32(width === 1 ? 1 : width), ...op.add, ...op.set(C)]),
    ];
  };
  const rowLoop = (rows: number, stop: number): Bytes =>
    whileBelow(I, stop, [
      ...Array.from({ length: rows }, (_, u) => row(u)).flat(),
      ...features(rows),
      ...op.get(I),
      ...op.i32(rows),
      ...op.add,
      ...op.set(I),
    ]);
  // global bins: C counts bytes of the row
  const byteColumns: Bytes =
    width === 1
      ? []
      : [
          ...op.get(C0),
          ...op.i32(shift),
          ...op.shl,
          ...op.set(C0),
          ...op.get(C1),
          ...op.i32(shift),
          ...op.shl,
          ...op.set(C1),
        ];
  const body: Bytes = [
    ...byteColumns,
    ...op.get(END),
    ...op.i32(3),
    ...op.sub,
    ...op.set(STOP),
    ...op.get(BEGIN),
    ...op.set(I),
    ...rowLoop(4, STOP),
    ...rowLoop(1, END),
  ];
  if (!gathered) return { name, params, i32Locals, v128Locals: 4, body };
  // Chunks of GATHER_ROWS rows: first each row's bins (RS bytes, 16 at a time) and gradient pair
  // copied to the scratch, then the chunk's rows 0..M added up from there, four at a time.
  const gather: Bytes = [
    ...op.i32(0),
    ...op.set(U),
    ...whileBelow(U, M, [
      ...op.get(ROWS),
      ...op.get(OUT),
      ...op.get(U),
      ...op.add,
      ...op.i32(2),
      ...op.shl,
      ...op.add,
      ...op.load32(),
      ...op.set(K),
      // bins: scratch row U ← row K's RS bytes (a row's last chunk may read past it: the bins are allocated with 16 spare bytes)
      ...op.i32(0),
      ...op.set(Q),
      ...whileBelow(Q, RS, [
        ...op.get(SCR),
        ...op.get(U),
        ...op.get(RS),
        ...op.mul,
        ...op.add,
        ...op.get(Q),
        ...op.add,
        ...binsOfK,
        ...op.get(Q),
        ...op.add,
        ...op.v128load(),
        ...op.v128store(),
        ...op.get(Q),
        ...op.i32(16),
        ...op.add,
        ...op.set(Q),
      ]),
      // the gradient pair, to the chunk's pairs
      ...op.get(SCRG),
      ...op.get(U),
      ...op.i32(4),
      ...op.shl,
      ...op.add,
      ...pairOfK,
      ...op.v128store(),
      ...op.get(U),
      ...op.i32(1),
      ...op.add,
      ...op.set(U),
    ]),
  ];
  const chunks: Bytes = [
    ...byteColumns,
    // RS: a row's bytes rounded up to 16; the pairs after GATHER_ROWS such rows
    ...op.get(NC),
    ...(shift > 0 ? [...op.i32(shift), ...op.shl] : []),
    ...op.i32(15),
    ...op.add,
    ...op.i32(-16),
    ...op.and,
    ...op.tee(RS),
    ...op.i32(GATHER_ROWS),
    ...op.mul,
    ...op.get(SCR),
    ...op.add,
    ...op.set(SCRG),
    ...op.get(BEGIN),
    ...op.set(OUT),
    ...whileBelow(OUT, END, [
      // M = min(END - OUT, GATHER_ROWS)
      ...op.get(END),
      ...op.get(OUT),
      ...op.sub,
      ...op.tee(M),
      ...op.i32(GATHER_ROWS),
      ...op.get(M),
      ...op.i32(GATHER_ROWS),
      ...op.leS,
      ...op.select,
      ...op.set(M),
      ...gather,
      ...op.get(M),
      ...op.i32(3),
      ...op.sub,
      ...op.set(STOP),
      ...op.i32(0),
      ...op.set(I),
      ...rowLoop(4, STOP),
      ...rowLoop(1, M),
      ...op.get(OUT),
      ...op.get(M),
      ...op.add,
      ...op.set(OUT),
    ]),
  ];
  return { name, params, i32Locals, v128Locals: 4, body: chunks };
}
