/**
 * Loads the WebAssembly builds of assembly/index.ts (embedded by scripts/build.mjs in
 * binaries.ts): the 128-bit SIMD build when the runtime validates it, else the scalar build.
 * @module
 */
import { inflateSync } from 'fflate';
import { SIMD_BYTES, WASM_DEFLATED } from './binaries.js';

/** The functions of assembly/index.ts (and assembly/lz4.ts) seen from JS; pointers are byte offsets. */
export interface KernelExports {
  memory: WebAssembly.Memory;
  run(src: number, dst: number, tmp: number, size: number, elemSize: number, blockSize: number, reverse: number): number;
  heapBase(): number;
  lz4CompressBlock(src: number, n: number, dst: number, table: number, acceleration: number): number;
  lz4DecompressBlock(src: number, sLen: number, dst: number, dLen: number): number;
  lz4ErrorAt(): number;
  lz4ErrorValue(): number;
  bshufLz4Compress(src: number, size: number, elemSize: number, blockSize: number, dst: number, block: number, tmp: number, table: number): number;
  bshufLz4Decompress(src: number, sLen: number, size: number, elemSize: number, blockSize: number, dst: number, block: number, tmp: number): number;
  bshufLz4ErrorBlock(): number;
  bshufLz4ErrorAt(): number;
  bshufLz4ErrorValue(): number;
}

/** Largest working set (input + output + scratch) handed to a 32-bit WASM memory. */
export const WASM_MAX_BYTES = 2 ** 31;

/** Both embedded builds, inflated on first use (see scripts/build.mjs). */
let builds: Uint8Array<ArrayBuffer> | undefined;

/** The bytes of an embedded build: the 128-bit SIMD build or the scalar one. */
function embedded(simd: boolean): Uint8Array<ArrayBuffer> {
  builds ??= inflateSync(Uint8Array.from(atob(WASM_DEFLATED), (c) => c.charCodeAt(0))) as Uint8Array<ArrayBuffer>;
  return simd ? builds.subarray(0, SIMD_BYTES) : builds.subarray(SIMD_BYTES);
}

/** One instantiated build with its linear memory. */
export class WasmKernel {
  /** The instance's exports (functions and linear memory). */
  readonly ex: KernelExports;
  /** First byte of linear memory free for buffers (16-byte aligned). */
  readonly base: number;

  /** The compiled module (worker threads instantiate it again). */
  readonly module: WebAssembly.Module;

  constructor(bytes: BufferSource) {
    const module = new WebAssembly.Module(bytes);
    this.module = module;
    this.ex = new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    this.base = this.ex.heapBase();
  }

  /** Grows the linear memory so that it holds at least `end` bytes; returns its current buffer. */
  reserve(end: number): ArrayBuffer {
    const mem = this.ex.memory;
    if (end > mem.buffer.byteLength) mem.grow(Math.ceil((end - mem.buffer.byteLength) / 65536));
    return mem.buffer;
  }

  /** Transposes (or untransposes) `src` into `out` or a new array; `src.length` is size * elemSize. */
  run(src: Uint8Array, size: number, elemSize: number, blockSize: number, reverse: boolean, out?: Uint8Array): Uint8Array {
    const len = size * elemSize;
    const align = (n: number): number => (n + 15) & ~15;
    const inPtr = this.base;
    const outPtr = align(inPtr + len);
    const tmpPtr = align(outPtr + len);
    const end = tmpPtr + Math.min(blockSize, size) * elemSize + 16;
    const buf = this.reserve(end);
    new Uint8Array(buf, inPtr, len).set(src.subarray(0, len));
    this.ex.run(inPtr, outPtr, tmpPtr, size, elemSize, blockSize, reverse ? 1 : 0);
    const result = new Uint8Array(buf, outPtr, len);
    if (!out) return result.slice();
    out.set(result);
    return out;
  }
}

let simd: WasmKernel | null | undefined;
let scalar: WasmKernel | null | undefined;

/** True when the runtime accepts WASM 128-bit SIMD (probed with WebAssembly.validate). */
export function simdSupported(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(embedded(true));
}

/** The SIMD kernel, or null when unsupported. */
export function simdKernel(): WasmKernel | null {
  if (simd === undefined) {
    try {
      simd = simdSupported() ? new WasmKernel(embedded(true)) : null;
    } catch {
      simd = null;
    }
  }
  return simd;
}

/** The scalar WASM kernel, or null when WebAssembly is unavailable. */
export function scalarKernel(): WasmKernel | null {
  if (scalar === undefined) {
    try {
      scalar = typeof WebAssembly === 'object' ? new WasmKernel(embedded(false)) : null;
    } catch {
      scalar = null;
    }
  }
  return scalar;
}
