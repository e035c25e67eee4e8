// Split enumeration over one feature's histogram (xgboost 1.7's HistEvaluator::EnumerateSplit,
// src/tree/hist/evaluate_splits.h): a forward scan (missing values right), a backward one (missing
// values left) when some rows miss the feature, the first best gain of each. Without alpha and
// max_delta_step the gain is two rounded quotients (split.ts), which a WebAssembly scan computes
// with float operations (f32.div of two floats is the rounded quotient of their doubles, as
// Math.fround(a / b) is); otherwise the JavaScript scan calls calcSplitGain.

import { calcSplitGain, type SplitEntry, type SplitParams } from './split.js';
import { type Bytes, type Func, op, t } from './wasm.js';

const f = Math.fround;

/**
 * A WebAssembly scan: (hist, from, to, ng, nh, rootGain, floor, mcw, lambda, out) → bin or -1;
 * out: five doubles as scanBest below.
 */
export type ScanFn = (
  hist: number,
  from: number,
  to: number,
  ng: number,
  nh: number,
  rootGain: number,
  floor: number,
  mcw: number,
  lambda: number,
  out: number,
) => number;

/** What the scans of one thread in one task share. */
export interface ScanContext {
  hist: Float64Array;
  /** the histogram's byte address, for the WebAssembly scans */
  histAddr: number;
  p: SplitParams;
  plain: boolean;
  /** WebAssembly forward and backward scans (plain gains only), and their 5 doubles of output */
  forward?: ScanFn;
  backward?: ScanFn;
  outAddr: number;
  out: Float64Array;
}

/**
 * scan's results: the best loss, the scan's final grad and hess sums, then its sums at the best bin
 * (a skipped bin adds nothing, so these are the bins' sums in the scan's order up to that bin)
 */
const scanBest = new Float64Array(5);

/**
 * One direction of a feature's split enumeration over bins from..to (exclusive, step ±1): the bins
 * summed so far go to the left (forward) or right (backward) child. Returns the bin of the first
 * best gain above `floor` (or -1), the gain in scanBest[0]. A bin that adds nothing leaves the sums,
 * so the gain, as they were: it cannot beat its predecessor, and is skipped.
 */
function scan(
  hist: Float64Array,
  from: number,
  to: number,
  step: number,
  ng: number,
  nh: number,
  rootGain: number,
  floor: number,
  p: SplitParams,
  plain: boolean,
): number {
  const mcw = p.minChildWeight;
  const lambda = p.lambda;
  let bestLoss = floor;
  let at = -1;
  let sg = 0;
  let sh = 0;
  let bg = 0;
  let bh = 0;
  for (let i = from; i !== to; i += step) {
    const dg = hist[2 * i];
    const dh = hist[2 * i + 1];
    if (dg === 0 && dh === 0 && i !== from) continue;
    sg += dg;
    sh += dh;
    const os = nh - sh;
    if (sh >= mcw && os >= mcw) {
      const og = ng - sg;
      // the scanned side is the left child forward, the right child backward
      const gl = step > 0 ? sg : og;
      const hl = step > 0 ? sh : os;
      const gr = step > 0 ? og : sg;
      const hr = step > 0 ? os : sh;
      let gain: number;
      if (plain) {
        // calcSplitGain without alpha and max_delta_step, operation by operation
        const tl = gl > 0 || gl < 0 ? gl : 0;
        const tr = gr > 0 || gr < 0 ? gr : 0;
        const a = hl <= 0 ? 0 : f(f(tl * tl) / f(hl + lambda));
        const b = hr <= 0 ? 0 : f(f(tr * tr) / f(hr + lambda));
        gain = f(a + b);
      } else gain = calcSplitGain(p, gl, hl, gr, hr);
      const loss = f(gain - rootGain);
      if (loss > bestLoss && loss !== Number.POSITIVE_INFINITY) {
        bestLoss = loss;
        at = i;
        bg = sg;
        bh = sh;
      }
    }
  }
  scanBest[0] = bestLoss;
  scanBest[1] = sg;
  scanBest[2] = sh;
  scanBest[3] = bg;
  scanBest[4] = bh;
  return at;
}

function scanEither(
  s: ScanContext,
  from: number,
  to: number,
  step: number,
  ng: number,
  nh: number,
  rootGain: number,
  floor: number,
): number {
  const fn = step > 0 ? s.forward : s.backward;
  if (fn === undefined || !s.plain) return scan(s.hist, from, to, step, ng, nh, rootGain, floor, s.p, s.plain);
  const at = fn(s.histAddr, from, to, ng, nh, rootGain, floor, s.p.minChildWeight, s.p.lambda, s.outAddr);
  scanBest.set(s.out);
  return at;
}

/**
 * The best split of one feature: scans forward (missing right), then backward (missing left);
 * within a feature a candidate replaces the best only with a larger finite gain (NeedReplace).
 * Offers it to `best` (bin: the global bin; defaultLeft: backward; lg/lh: the scanned sums);
 * returns whether it was taken.
 */
export function enumerateFeature(
  s: ScanContext,
  ptr: Int32Array,
  fid: number,
  ng: number,
  nh: number,
  rootGain: number,
  best: SplitEntry,
): boolean {
  const b0 = ptr[fid];
  const b1 = ptr[fid + 1];
  let at = scanEither(s, b0, b1, 1, ng, nh, rootGain, 0);
  let bestLoss = scanBest[0];
  // the winner's sums, the bins' sums in the scan's order up to it
  let sg = scanBest[3];
  let sh = scanBest[4];
  let back = false;
  // SplitContainsMissingValues: the backward scan only when some rows miss this feature
  if (scanBest[1] !== ng || scanBest[2] !== nh) {
    const b = scanEither(s, b1 - 1, b0 - 1, -1, ng, nh, rootGain, bestLoss);
    if (b >= 0) {
      at = b;
      bestLoss = scanBest[0];
      sg = scanBest[3];
      sh = scanBest[4];
      back = true;
    }
  }
  if (at < 0) return false;
  return best.update(bestLoss, fid, 0, back, sg, sh, 0, 0, at);
}

/** The plain scan (see scan above) in WebAssembly, forward or backward. */
export function scanKernel(name: string, forward: boolean): Func {
  const [HIST, FROM, TO, NG, NH, ROOT, FLOOR, MCW, LAMBDA, OUT] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [I, ADDR, AT] = [10, 11, 12];
  const [A, B, LOSS, BEST] = [13, 14, 15, 16];
  const [SG, SH, DG, DH, OS, OG, TL, TR, BG, BH] = [17, 18, 19, 20, 21, 22, 23, 24, 25, 26];
  const step = forward ? 1 : -1;
  const [GL, HL, GR, HR] = forward ? [SG, SH, OG, OS] : [OG, OS, SG, SH];
  /** x unless it is ±0 or NaN, then +0 (thresholdL1 without alpha) */
  const nonzero = (x: number, into: number): Bytes => [
    ...op.get(x),
    ...op.f64(0),
    ...op.get(x),
    ...op.f64(0),
    ...op.f64gt,
    ...op.get(x),
    ...op.f64(0),
    ...op.f64lt,
    ...op.or,
    ...op.select,
    ...op.set(into),
  ];
  /** h <= 0 ? 0 : f32(f32(t * t) / f32(h + lambda)) */
  const quotient = (tt: number, h: number, into: number): Bytes => [
    ...op.get(h),
    ...op.f64(0),
    ...op.f64le,
    ...op.ifF32,
    ...op.f32(0),
    ...op.else,
    ...op.get(tt),
    ...op.get(tt),
    ...op.f64mul,
    ...op.f32demote,
    ...op.get(h),
    ...op.get(LAMBDA),
    ...op.f64add,
    ...op.f32demote,
    ...op.f32div,
    ...op.end,
    ...op.set(into),
  ];
  const advance: Bytes = [...op.get(I), ...op.i32(step), ...op.add, ...op.set(I)];
  /** acc += d (doubles) */
  const addTo = (acc: number, d: number): Bytes => [...op.get(acc), ...op.get(d), ...op.f64add, ...op.set(acc)];
  return {
    name,
    params: [t.i32, t.i32, t.i32, t.f64, t.f64, t.f32, t.f32, t.f64, t.f64, t.i32],
    result: true,
    i32Locals: 3,
    f32Locals: 4,
    f64Locals: 10,
    v128Locals: 0,
    body: [
      ...op.get(FLOOR),
      ...op.set(BEST),
      ...op.i32(-1),
      ...op.set(AT),
      ...op.get(FROM),
      ...op.set(I),
      ...op.block,
      ...op.loop,
      ...op.get(I),
      ...op.get(TO),
      ...op.eq,
      ...op.brIf(1),
      ...op.get(HIST),
      ...op.get(I),
      ...op.i32(4),
      ...op.shl,
      ...op.add,
      ...op.tee(ADDR),
      ...op.f64load(),
      ...op.set(DG),
      ...op.get(ADDR),
      ...op.f64load(8),
      ...op.set(DH),
      // a bin that adds nothing (but the first) is skipped
      ...op.get(DG),
      ...op.f64(0),
      ...op.f64eq,
      ...op.get(DH),
      ...op.f64(0),
      ...op.f64eq,
      ...op.and,
      ...op.get(I),
      ...op.get(FROM),
      ...op.ne,
      ...op.and,
      ...op.if,
      ...advance,
      ...op.br(1),
      ...op.end,
      ...addTo(SG, DG),
      ...addTo(SH, DH),
      ...op.get(NH),
      ...op.get(SH),
      ...op.f64sub,
      ...op.set(OS),
      ...op.get(SH),
      ...op.get(MCW),
      ...op.f64ge,
      ...op.get(OS),
      ...op.get(MCW),
      ...op.f64ge,
      ...op.and,
      ...op.if,
      ...op.get(NG),
      ...op.get(SG),
      ...op.f64sub,
      ...op.set(OG),
      ...nonzero(GL, TL),
      ...nonzero(GR, TR),
      ...quotient(TL, HL, A),
      ...quotient(TR, HR, B),
      ...op.get(A),
      ...op.get(B),
      ...op.f32add,
      ...op.get(ROOT),
      ...op.f32sub,
      ...op.tee(LOSS),
      ...op.get(BEST),
      ...op.f32gt,
      ...op.get(LOSS),
      ...op.f32(Number.POSITIVE_INFINITY),
      ...op.f32ne,
      ...op.and,
      ...op.if,
      ...op.get(LOSS),
      ...op.set(BEST),
      ...op.get(I),
      ...op.set(AT),
      ...op.get(SG),
      ...op.set(BG),
      ...op.get(SH),
      ...op.set(BH),
      ...op.end,
      ...op.end,
      ...advance,
      ...op.br(0),
      ...op.end,
      ...op.end,
      // out: the best loss, the final sums, the sums at the best bin (scanBest's layout)
      ...op.get(OUT),
      ...op.get(BEST),
      ...op.f64promote,
      ...op.f64store(),
      ...[SG, SH, BG, BH].flatMap((v, k) => [...op.get(OUT), ...op.get(v), ...op.f64store(8 * (k + 1))]),
      ...op.get(AT),
    ],
  };
}
