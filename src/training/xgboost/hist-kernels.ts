// The histogram kernels of tree_method hist/approx over the shared arena (./hist-arena.ts): for
// rows rowIdx[begin..end), add each row's gradient pair (two floats, as doubles) to the bin of each
// feature c0..c1-1 (xgboost's RowsWiseBuildHistKernel). Rows go four at a time feature by
// feature, so a bin still receives its rows in row order: the same sequence of double additions as
// xgboost's, whatever the unrolling or the thread that runs a feature.
//
// Hand-written WebAssembly, encoded by ./wasm.ts: one 128-bit load, f64x2.add and store per cell
// (a JavaScript kernel needs two of each plus bounds checks). The JavaScript kernels below do the
// same additions for when WebAssembly is not available.

import { type ScanFn, scanKernel } from './hist-scan.js';
import { type Bytes, encodeModule, type Func, op } from './wasm.js';

/** How the row-major bins are stored (BinMatrix): bytes per cell and whether they are feature-local. */
export interface BinFormat {
  /** 1: feature-local byte bins (dense, ≤ 256 bins a feature) plus per-feature offsets; 2 or 4: global bins */
  width: 1 | 2 | 4;
  /** global bins only: some cells hold the missing marker (all ones) */
  sparse: boolean;
}

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

/**
 * Rows rows[s..e) (Int32 at byte address rows) by their bin in column-major feature-local bins
 * (cols + base, width per the kernel): those at or below `bin` (and, sparse, those equal to `miss`
 * when dl is 1) to left[lpos..], the others to right[rpos..], each side in row order. Returns how
 * many went left.
 */
export type PartitionFn = (
  cols: number,
  base: number,
  bin: number,
  miss: number,
  dl: number,
  rows: number,
  s: number,
  e: number,
  left: number,
  lpos: number,
  right: number,
  rpos: number,
) => number;

/** A BuildFn over byte bins that first copies each chunk of rows to `scratch` (gatherScratchBytes). */
export type GatherBuildFn = (...args: [...Parameters<BuildFn>, scratch: number]) => void;

export interface Kernels {
  build(f: BinFormat): BuildFn;
  /** byte bins of rows scattered over the matrix (WebAssembly only): see gatherBuildKernel */
  gather?: GatherBuildFn;
  /** dst -= src over `bytes` bytes of doubles (a multiple of 16): the sibling from the parent */
  sub(dst: number, src: number, bytes: number): void;
  partition(width: 1 | 2 | 4, dense: boolean): PartitionFn;
  /** memmove of `bytes` bytes */
  copy(dst: number, src: number, bytes: number): void;
  /** the split scans of plain gains (./hist-scan.ts), when in WebAssembly */
  scan?: { forward: ScanFn; backward: ScanFn };
}

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

/** Rows a gathered build copies before it adds them up (see gatherBuildKernel). */
export const GATHER_ROWS = 64;

/** Bytes of a thread's scratch for gathered builds of numCols byte bins a row. */
export function gatherScratchBytes(numCols: number): number {
  return GATHER_ROWS * (((numCols + 15) & ~15) + 16);
}

/**
 * A build kernel. `gathered` (width 1 only): the rows come from a scratch the kernel fills itself,
 * see gatherBuildKernel; the row loops and the cells are the same.
 */
function buildKernel(name: string, width: 1 | 2 | 4, sparse: boolean, gathered = false): Func {
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
          ...op.tee(K),
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
          ...op.set(G + u),
          ...op.get(K),
          ...op.get(NC),
          ...op.mul,
          ...(shift > 0 ? [...op.i32(shift), ...op.shl] : []),
          ...op.get(BINS),
          ...op.add,
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
  /** the feature loop for `rows` rows already set up */
  const features = (rows: number): Bytes => {
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
      ...op.block,
      ...op.loop,
      ...op.get(C),
      ...op.get(C1),
      ...op.geS,
      ...op.brIf(1),
      ...body,
      ...op.get(C),
      ...op.i32(width === 1 ? 1 : width),
      ...op.add,
      ...op.set(C),
      ...op.br(0),
      ...op.end,
      ...op.end,
    ];
  };
  const rowLoop = (rows: number, stop: number): Bytes => [
    ...op.block,
    ...op.loop,
    ...op.get(I),
    ...op.get(stop),
    ...op.geS,
    ...op.brIf(1),
    ...Array.from({ length: rows }, (_, u) => row(u)).flat(),
    ...features(rows),
    ...op.get(I),
    ...op.i32(rows),
    ...op.add,
    ...op.set(I),
    ...op.br(0),
    ...op.end,
    ...op.end,
  ];
  const body: Bytes = [
    // global bins: C counts bytes of the row
    ...(width === 1
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
        ]),
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
    ...op.block,
    ...op.loop,
    ...op.get(U),
    ...op.get(M),
    ...op.geS,
    ...op.brIf(1),
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
    ...op.block,
    ...op.loop,
    ...op.get(Q),
    ...op.get(RS),
    ...op.geS,
    ...op.brIf(1),
    ...op.get(SCR),
    ...op.get(U),
    ...op.get(RS),
    ...op.mul,
    ...op.add,
    ...op.get(Q),
    ...op.add,
    ...op.get(BINS),
    ...op.get(K),
    ...op.get(NC),
    ...op.mul,
    ...op.add,
    ...op.get(Q),
    ...op.add,
    ...op.v128load(),
    ...op.v128store(),
    ...op.get(Q),
    ...op.i32(16),
    ...op.add,
    ...op.set(Q),
    ...op.br(0),
    ...op.end,
    ...op.end,
    // the gradient pair, as the plain kernel makes it
    ...op.get(SCRG),
    ...op.get(U),
    ...op.i32(4),
    ...op.shl,
    ...op.add,
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
    ...op.v128store(),
    ...op.get(U),
    ...op.i32(1),
    ...op.add,
    ...op.set(U),
    ...op.br(0),
    ...op.end,
    ...op.end,
  ];
  const chunks: Bytes = [
    // RS: a row's bytes rounded up to 16; the pairs after GATHER_ROWS such rows
    ...op.get(NC),
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
    ...op.block,
    ...op.loop,
    ...op.get(OUT),
    ...op.get(END),
    ...op.geS,
    ...op.brIf(1),
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
    ...op.br(0),
    ...op.end,
    ...op.end,
  ];
  return { name, params, i32Locals, v128Locals: 4, body: chunks };
}

function subKernel(): Func {
  const DST = 0;
  const SRC = 1;
  const N = 2;
  const P = 3;
  return {
    name: 'sub',
    params: 3,
    i32Locals: 1,
    v128Locals: 0,
    body: [
      ...op.i32(0),
      ...op.set(P),
      ...op.block,
      ...op.loop,
      ...op.get(P),
      ...op.get(N),
      ...op.geS,
      ...op.brIf(1),
      ...op.get(DST),
      ...op.get(P),
      ...op.add,
      ...op.get(DST),
      ...op.get(P),
      ...op.add,
      ...op.v128load(),
      ...op.get(SRC),
      ...op.get(P),
      ...op.add,
      ...op.v128load(),
      ...op.f64x2sub,
      ...op.v128store(),
      ...op.get(P),
      ...op.i32(16),
      ...op.add,
      ...op.set(P),
      ...op.br(0),
      ...op.end,
      ...op.end,
    ],
  };
}

function partitionKernel(name: string, width: 1 | 2 | 4, dense: boolean): Func {
  const [COLS, BASE, BIN, MISS, DL, ROWS_, S, E, LEFT, LPOS, RIGHT, RPOS] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const [IX, NL, NR, ROW, L, COL] = [12, 13, 14, 15, 16, 17];
  const shift = width === 1 ? 0 : width === 2 ? 1 : 2;
  const load = width === 1 ? op.load8() : width === 2 ? op.load16() : op.load32();
  const side: Bytes = dense
    ? [...op.get(BIN), ...op.leS]
    : [
        ...op.set(COL),
        ...op.get(DL),
        ...op.get(COL),
        ...op.get(BIN),
        ...op.leS,
        ...op.get(COL),
        ...op.get(MISS),
        ...op.eq,
        ...op.select,
      ];
  return {
    name,
    params: 12,
    result: true,
    i32Locals: 6,
    v128Locals: 0,
    body: [
      ...op.get(LPOS),
      ...op.set(NL),
      ...op.get(RPOS),
      ...op.set(NR),
      ...op.get(S),
      ...op.set(IX),
      ...op.block,
      ...op.loop,
      ...op.get(IX),
      ...op.get(E),
      ...op.geS,
      ...op.brIf(1),
      ...op.get(ROWS_),
      ...op.get(IX),
      ...op.i32(2),
      ...op.shl,
      ...op.add,
      ...op.load32(),
      ...op.set(ROW),
      ...op.get(COLS),
      ...op.get(BASE),
      ...op.get(ROW),
      ...op.add,
      ...(shift > 0 ? [...op.i32(shift), ...op.shl] : []),
      ...op.add,
      ...load,
      ...side,
      ...op.set(L),
      ...op.get(LEFT),
      ...op.get(NL),
      ...op.i32(2),
      ...op.shl,
      ...op.add,
      ...op.get(ROW),
      ...op.store32(),
      ...op.get(RIGHT),
      ...op.get(NR),
      ...op.i32(2),
      ...op.shl,
      ...op.add,
      ...op.get(ROW),
      ...op.store32(),
      ...op.get(NL),
      ...op.get(L),
      ...op.add,
      ...op.set(NL),
      ...op.get(NR),
      ...op.get(L),
      ...op.i32(1),
      ...op.xor,
      ...op.add,
      ...op.set(NR),
      ...op.get(IX),
      ...op.i32(1),
      ...op.add,
      ...op.set(IX),
      ...op.br(0),
      ...op.end,
      ...op.end,
      ...op.get(NL),
      ...op.get(LPOS),
      ...op.sub,
    ],
  };
}

const copyKernel: Func = {
  name: 'copy',
  params: 3,
  i32Locals: 0,
  v128Locals: 0,
  body: [...op.get(0), ...op.get(1), ...op.get(2), ...op.copy],
};

/** The maximum arena WebAssembly addresses: 4 GiB. */
export const WASM_MAX_PAGES = 65536;

let compiled: WebAssembly.Module | null | undefined;

/** The kernels' module, compiled once per thread (undefined → null when WebAssembly is unavailable). */
export function kernelModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    compiled = new WebAssembly.Module(
      encodeModule(
        [
          buildKernel('b1', 1, false),
          buildKernel('b2', 2, false),
          buildKernel('b4', 4, false),
          buildKernel('b2s', 2, true),
          buildKernel('b4s', 4, true),
          buildKernel('g1', 1, false, true),
          subKernel(),
          partitionKernel('p1', 1, true),
          partitionKernel('p2', 2, true),
          partitionKernel('p4', 4, true),
          partitionKernel('p1s', 1, false),
          partitionKernel('p2s', 2, false),
          partitionKernel('p4s', 4, false),
          copyKernel,
          scanKernel('sf', true),
          scanKernel('sb', false),
        ],
        WASM_MAX_PAGES,
      ),
    );
  } catch {
    compiled = null;
  }
  return compiled;
}

/** The WebAssembly kernels bound to a shared memory. */
export function wasmKernels(module: WebAssembly.Module, memory: WebAssembly.Memory): Kernels {
  const e = new WebAssembly.Instance(module, { e: { m: memory } }).exports as Record<string, BuildFn> &
    Record<string, PartitionFn> &
    Record<string, ScanFn> & {
      g1: GatherBuildFn;
      sub(dst: number, src: number, bytes: number): void;
      copy(dst: number, src: number, bytes: number): void;
    };
  return {
    build: (f) => (f.width === 1 ? e.b1 : f.width === 2 ? (f.sparse ? e.b2s : e.b2) : f.sparse ? e.b4s : e.b4),
    gather: e.g1,
    sub: e.sub,
    partition: (w, dense) => e[`p${w}${dense ? '' : 's'}`],
    copy: e.copy,
    scan: { forward: e.sf, backward: e.sb },
  };
}

/** The same kernels in JavaScript over views of the arena's current buffer. */
export function jsKernels(buffer: () => ArrayBufferLike): Kernels {
  return {
    build: (f) => (bins, offsets, nc, c0, c1, rows, begin, end, grad, hess, stride, hist) => {
      const buf = buffer();
      const b =
        f.width === 1
          ? new Uint8Array(buf, bins)
          : f.width === 2
            ? new Uint16Array(buf, bins)
            : new Uint32Array(buf, bins);
      const o = f.width === 1 ? new Int32Array(buf, offsets, nc) : undefined;
      const missing = f.width === 2 ? 0xffff : 0xffffffff;
      jsBuild(
        b,
        o,
        missing,
        nc,
        c0,
        c1,
        new Int32Array(buf, rows),
        begin,
        end,
        new Float32Array(buf, grad),
        new Float32Array(buf, hess),
        stride / 4,
        new Float64Array(buf, hist),
      );
    },
    sub(dst, src, bytes) {
      const buf = buffer();
      const d = new Float64Array(buf, dst, bytes / 8);
      const s = new Float64Array(buf, src, bytes / 8);
      for (let i = 0; i < d.length; i++) d[i] -= s[i];
    },
    partition: (w, dense) => (cols, base, bin, miss, dl, rows, s, e, left, lpos, right, rpos) => {
      const buf = buffer();
      const c = w === 1 ? new Uint8Array(buf, cols) : w === 2 ? new Uint16Array(buf, cols) : new Uint32Array(buf, cols);
      const m = dense ? -1 : miss;
      return jsPartition(
        c,
        base,
        bin,
        m,
        dl,
        new Int32Array(buf, rows),
        s,
        e,
        new Int32Array(buf, left),
        lpos,
        new Int32Array(buf, right),
        rpos,
      );
    },
    copy(dst, src, bytes) {
      const buf = buffer();
      new Uint8Array(buf, dst, bytes).set(new Uint8Array(buf, src, bytes));
    },
  };
}

function jsPartition(
  cols: Uint8Array | Uint16Array | Uint32Array,
  base: number,
  bin: number,
  miss: number,
  dl: number,
  rows: Int32Array,
  s: number,
  e: number,
  left: Int32Array,
  lpos: number,
  right: Int32Array,
  rpos: number,
): number {
  let nl = lpos;
  let nr = rpos;
  for (let i = s; i < e; i++) {
    const r = rows[i];
    const b = cols[base + r];
    const l = b === miss ? dl : b <= bin ? 1 : 0;
    left[nl] = r;
    right[nr] = r;
    nl += l;
    nr += l ^ 1;
  }
  return nl - lpos;
}

function jsBuild(
  bins: Uint8Array | Uint16Array | Uint32Array,
  offsets: Int32Array | undefined,
  missing: number,
  nc: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hess: Float32Array,
  stride: number,
  hist: Float64Array,
): void {
  for (let i = begin; i < end; i++) {
    const r = rowIdx[i];
    const g = grad[r * stride];
    const h = hess[r * stride];
    const j = r * nc;
    for (let c = c0; c < c1; c++) {
      const b = bins[j + c];
      if (offsets === undefined && b === missing) continue;
      const k = ((offsets === undefined ? 0 : offsets[c]) + b) << 1;
      hist[k] += g;
      hist[k + 1] += h;
    }
  }
}
