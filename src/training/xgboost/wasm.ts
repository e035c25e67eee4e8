// A minimal WebAssembly binary encoder, enough for the trainer's hand-written kernels
// (./hist-kernels.ts): numeric and v128 locals, one imported shared memory.
// https://webassembly.github.io/spec/core/binary/index.html

export type Bytes = number[];

function uleb(n: number): Bytes {
  const out: Bytes = [];
  let v = n >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

function sleb(n: number): Bytes {
  const out: Bytes = [];
  let v = n | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const name = (s: string): Bytes => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
const vec = (items: Bytes[]): Bytes => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: Bytes): Bytes => [id, ...uleb(body.length), ...body];

const I32 = 0x7f;
const F32 = 0x7d;
const F64 = 0x7c;
const V128 = 0x7b;

/** value types of parameters and results */
export const t = { i32: I32, f32: F32, f64: F64 } as const;

function f64Bytes(x: number): Bytes {
  return [...new Uint8Array(new Float64Array([x]).buffer)];
}

function f32Bytes(x: number): Bytes {
  return [...new Uint8Array(new Float32Array([x]).buffer)];
}

/** The instructions the kernels use; each returns its encoding. */
export const op = {
  get: (i: number): Bytes => [0x20, ...uleb(i)],
  set: (i: number): Bytes => [0x21, ...uleb(i)],
  tee: (i: number): Bytes => [0x22, ...uleb(i)],
  i32: (v: number): Bytes => [0x41, ...sleb(v)],
  add: [0x6a] as Bytes,
  sub: [0x6b] as Bytes,
  mul: [0x6c] as Bytes,
  shl: [0x74] as Bytes,
  xor: [0x73] as Bytes,
  eq: [0x46] as Bytes,
  ne: [0x47] as Bytes,
  geS: [0x4e] as Bytes,
  leS: [0x4c] as Bytes,
  select: [0x1b] as Bytes,
  store32: (offset = 0): Bytes => [0x36, 2, ...uleb(offset)],
  /** memory.copy (dst, src, bytes) */
  copy: [0xfc, 0x0a, 0, 0] as Bytes,
  /** i32.load / load8_u / load16_u with a constant byte offset */
  load32: (offset = 0): Bytes => [0x28, 2, ...uleb(offset)],
  load8: (offset = 0): Bytes => [0x2d, 0, ...uleb(offset)],
  load16: (offset = 0): Bytes => [0x2f, 1, ...uleb(offset)],
  f32load: (offset = 0): Bytes => [0x2a, 2, ...uleb(offset)],
  f64promote: [0xbb] as Bytes,
  f64x2splat: [0xfd, 0x14] as Bytes,
  f64x2replaceLane: (lane: number): Bytes => [0xfd, 0x22, lane],
  v128load: (offset = 0): Bytes => [0xfd, 0x00, 4, ...uleb(offset)],
  v128store: (offset = 0): Bytes => [0xfd, 0x0b, 4, ...uleb(offset)],
  f64x2add: [0xfd, ...uleb(240)] as Bytes,
  f64x2sub: [0xfd, ...uleb(241)] as Bytes,
  or: [0x72] as Bytes,
  and: [0x71] as Bytes,
  f64: (x: number): Bytes => [0x44, ...f64Bytes(x)],
  f32: (x: number): Bytes => [0x43, ...f32Bytes(x)],
  f64load: (offset = 0): Bytes => [0x2b, 3, ...uleb(offset)],
  f64store: (offset = 0): Bytes => [0x39, 3, ...uleb(offset)],
  f64add: [0xa0] as Bytes,
  f64sub: [0xa1] as Bytes,
  f64mul: [0xa2] as Bytes,
  f64eq: [0x61] as Bytes,
  f64lt: [0x63] as Bytes,
  f64gt: [0x64] as Bytes,
  f64le: [0x65] as Bytes,
  f64ge: [0x66] as Bytes,
  f32add: [0x92] as Bytes,
  f32sub: [0x93] as Bytes,
  f32div: [0x95] as Bytes,
  f32ne: [0x5c] as Bytes,
  f32gt: [0x5e] as Bytes,
  f32demote: [0xb6] as Bytes,
  block: [0x02, 0x40] as Bytes,
  loop: [0x03, 0x40] as Bytes,
  if: [0x04, 0x40] as Bytes,
  /** an if whose branches leave an f32 */
  ifF32: [0x04, F32] as Bytes,
  else: [0x05] as Bytes,
  end: [0x0b] as Bytes,
  br: (depth: number): Bytes => [0x0c, depth],
  brIf: (depth: number): Bytes => [0x0d, depth],
  // the CSV reader's kernel (input/csv-kernel.ts)
  eqz: [0x45] as Bytes,
  gtU: [0x4b] as Bytes,
  f32store: (offset = 0): Bytes => [0x38, 2, ...uleb(offset)],
  f32neg: [0x8c] as Bytes,
  f64div: [0xa3] as Bytes,
  f64convertI32U: [0xb8] as Bytes,
};

/**
 * `body` repeated while i32 local `i` is below local `limit` (signed), tested before each turn: the
 * loop the kernels are made of. `body` advances `i` itself.
 */
export function whileBelow(i: number, limit: number, body: Bytes): Bytes {
  return [
    ...op.block,
    ...op.loop,
    ...op.get(i),
    ...op.get(limit),
    ...op.geS,
    ...op.brIf(1),
    ...body,
    ...op.br(0),
    ...op.end,
    ...op.end,
  ];
}

export interface Func {
  name: string;
  /** the parameters' types, or how many i32 parameters */
  params: number | number[];
  /** whether it returns an i32 (the value left on the stack) */
  result?: boolean;
  /** extra locals, numbered after the parameters: i32, then f32, f64, v128 */
  i32Locals: number;
  f32Locals?: number;
  f64Locals?: number;
  v128Locals: number;
  body: Bytes;
}

/**
 * A module of exported functions (i32 parameters, at most an i32 result) over one imported shared memory
 * `e.m` of up to maxPages 64 KiB pages.
 */
export function encodeModule(funcs: Func[], maxPages: number): Uint8Array {
  const types = funcs.map((f) => [
    0x60,
    ...vec((typeof f.params === 'number' ? Array.from({ length: f.params }, () => I32) : f.params).map((v) => [v])),
    ...(f.result ? [1, I32] : [0]),
  ]);
  const memory = [...name('e'), ...name('m'), 0x02, 0x03, ...uleb(1), ...uleb(maxPages)];
  const bodies = funcs.map((f) => {
    const locals: Bytes[] = [];
    if (f.i32Locals > 0) locals.push([...uleb(f.i32Locals), I32]);
    if (f.f32Locals) locals.push([...uleb(f.f32Locals), F32]);
    if (f.f64Locals) locals.push([...uleb(f.f64Locals), F64]);
    if (f.v128Locals > 0) locals.push([...uleb(f.v128Locals), V128]);
    const code = [...vec(locals), ...f.body, ...op.end];
    return [...uleb(code.length), ...code];
  });
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, vec(types)),
    ...section(2, vec([memory])),
    ...section(3, vec(funcs.map((_, i) => uleb(i)))),
    ...section(7, vec(funcs.map((f, i) => [...name(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vec(bodies)),
  ]);
}
