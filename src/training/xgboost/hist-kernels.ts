// The kernels of tree_method hist/approx over the team's shared arena (./hist-team.ts): the
// histogram builds (./hist-build-kernel.ts), the sibling's subtraction, the partition of a node's
// rows, a memmove and the split scans (./hist-scan.ts), hand-written WebAssembly compiled into one
// module per thread; a matrix's own build kernels (LayoutCache); and the same kernels in
// JavaScript for when WebAssembly is not available (one 128-bit load, f64x2.add and store per cell
// in WebAssembly, where JavaScript needs two of each plus bounds checks), adding the same doubles
// in the same order.

import { type ScanFn, scanKernel } from './hist-scan.js';
import { type BinLayout, type BuildFn, buildKernel, type GatherBuildFn, LAYOUT_MAX_COLS } from './hist-build-kernel.js';
import { type Bytes, encodeModule, type Func, op, whileBelow } from './wasm.js';

/** How the row-major bins are stored (BinMatrix): bytes per cell and whether they are feature-local. */
export interface BinFormat {
  /** 1: feature-local byte bins (dense, ≤ 256 bins a feature) plus per-feature offsets; 2 or 4: global bins */
  width: 1 | 2 | 4;
  /** global bins only: some cells hold the missing marker (all ones) */
  sparse: boolean;
}

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

/** Every bin format a matrix can have (byte bins are dense). */
const FORMATS: readonly BinFormat[] = [
  { width: 1, sparse: false },
  { width: 2, sparse: false },
  { width: 4, sparse: false },
  { width: 2, sparse: true },
  { width: 4, sparse: true },
];

/** A format's kernel name suffix: 1, 2, 4, 2s, 4s. */
const suffix = (f: BinFormat): string => `${f.width}${f.sparse ? 's' : ''}`;

/** A format's index among small integers (1..5), for a lookup without building a name. */
const formatIndex = (f: BinFormat): number => f.width + (f.sparse ? 1 : 0);

export interface Kernels {
  build(f: BinFormat): BuildFn;
  /** dense byte bins (WebAssembly only): kernels for this matrix's layout, every feature at once, once it is worth compiling them */
  layout?(numCols: number, ptr: Int32Array): { build: BuildFn; gather: GatherBuildFn } | undefined;
  /** rows scattered over the matrix (WebAssembly only): the gathered build of ./hist-build-kernel.ts */
  gather?(f: BinFormat): GatherBuildFn;
  /** dst -= src over `bytes` bytes of doubles (a multiple of 16): the sibling from the parent */
  sub(dst: number, src: number, bytes: number): void;
  partition(width: 1 | 2 | 4, dense: boolean): PartitionFn;
  /** memmove of `bytes` bytes */
  copy(dst: number, src: number, bytes: number): void;
  /** the split scans of plain gains (./hist-scan.ts), when in WebAssembly */
  scan?: { forward: ScanFn; backward: ScanFn };
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
      ...whileBelow(P, N, [
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
      ]),
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
      ...whileBelow(IX, E, [
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
      ]),
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
          ...FORMATS.map((f) => buildKernel(`b${suffix(f)}`, f.width, f.sparse)),
          ...FORMATS.map((f) => buildKernel(`g${suffix(f)}`, f.width, f.sparse, true)),
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

/**
 * The build kernels of one matrix (BinLayout): dense byte bins, every feature. They cost about 60 %
 * of the general kernel's time per cell (profiled: ~0.6 against ~1.0 ns at 200k × 28), which spends
 * the difference on the feature loop, the offset table and address arithmetic; compiling them
 * takes a few milliseconds.
 */
export function layoutKernels(
  memory: WebAssembly.Memory,
  layout: BinLayout,
): { build: BuildFn; gather: GatherBuildFn } {
  const module = new WebAssembly.Module(
    encodeModule([buildKernel('b', 1, false, false, layout), buildKernel('g', 1, false, true, layout)], WASM_MAX_PAGES),
  );
  const e = new WebAssembly.Instance(module, { e: { m: memory } }).exports as { b: BuildFn; g: GatherBuildFn };
  return { build: e.b, gather: e.g };
}

/**
 * A thread's kernels for the matrix it builds, once its layout (bins per feature: the kernels bake
 * in offsets, not cut values) has served `after` builds in a row. Approx bins anew each tree, but
 * its layout mostly stays (every feature with max_bin bins), and then its kernels are reused;
 * a layout that changes before serving `after` builds never pays for compiling.
 */
export class LayoutCache {
  private ptr = new Int32Array(0);
  private seen = 0;
  private kernels: { build: BuildFn; gather: GatherBuildFn } | undefined;

  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly after = 32,
  ) {}

  of(numCols: number, ptr: Int32Array): { build: BuildFn; gather: GatherBuildFn } | undefined {
    if (numCols > LAYOUT_MAX_COLS) return undefined;
    if (!sameInts(ptr, this.ptr)) {
      this.ptr = ptr.slice();
      this.seen = 0;
      this.kernels = undefined;
    }
    if (this.kernels === undefined && ++this.seen >= this.after)
      this.kernels = layoutKernels(this.memory, { numCols, ptr: this.ptr });
    return this.kernels;
  }
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The WebAssembly kernels bound to a shared memory. */
export function wasmKernels(module: WebAssembly.Module, memory: WebAssembly.Memory): Kernels {
  const layouts = new LayoutCache(memory);
  const e = new WebAssembly.Instance(module, { e: { m: memory } }).exports as Record<string, BuildFn> &
    Record<string, PartitionFn> &
    Record<string, ScanFn> &
    Record<string, GatherBuildFn> & {
      sub(dst: number, src: number, bytes: number): void;
      copy(dst: number, src: number, bytes: number): void;
    };
  // by formatIndex, looked up on every build
  const builds: BuildFn[] = [];
  const gathers: GatherBuildFn[] = [];
  for (const f of FORMATS) {
    builds[formatIndex(f)] = e[`b${suffix(f)}`];
    gathers[formatIndex(f)] = e[`g${suffix(f)}`];
  }
  return {
    build: (f) => builds[formatIndex(f)],
    gather: (f) => gathers[formatIndex(f)],
    layout: (numCols, ptr) => layouts.of(numCols, ptr),
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
