// The part of the WebAssembly JavaScript API the trainer's kernels use (./hist-kernels.ts): the
// project's TypeScript libraries (ES2023, Node) do not declare it, only lib.dom does.
// https://webassembly.github.io/spec/js-api/

declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(pages: number): number;
  }
}
