/**
 * Loads the WebAssembly builds of assembly/index.ts (embedded by scripts/build.mjs in
 * binaries.ts): the 128-bit SIMD build when the runtime validates it, else the scalar build.
 * @module
 */
import { SCALAR_WASM, SIMD_WASM } from './binaries.js';

interface Exports {
  memory: WebAssembly.Memory;
  run(src: number, dst: number, tmp: number, size: number, elemSize: number, blockSize: number, reverse: number): number;
  heapBase(): number;
}

/** Largest working set (input + output + scratch) handed to a 32-bit WASM memory. */
export const WASM_MAX_BYTES = 2 ** 31;

function decodeBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** One instantiated build with its linear memory. */
export class WasmKernel {
  private readonly ex: Exports;
  private readonly base: number;

  constructor(bytes: BufferSource) {
    const module = new WebAssembly.Module(bytes);
    this.ex = new WebAssembly.Instance(module, {}).exports as unknown as Exports;
    this.base = this.ex.heapBase();
  }

  /** Transposes (or untransposes) `src` into `out` or a new array; `src.length` is size * elemSize. */
  run(src: Uint8Array, size: number, elemSize: number, blockSize: number, reverse: boolean, out?: Uint8Array): Uint8Array {
    const len = size * elemSize;
    const align = (n: number): number => (n + 15) & ~15;
    const inPtr = this.base;
    const outPtr = align(inPtr + len);
    const tmpPtr = align(outPtr + len);
    const end = tmpPtr + Math.min(blockSize, size) * elemSize + 16;
    const mem = this.ex.memory;
    if (end > mem.buffer.byteLength) mem.grow(Math.ceil((end - mem.buffer.byteLength) / 65536));
    new Uint8Array(mem.buffer, inPtr, len).set(src.subarray(0, len));
    this.ex.run(inPtr, outPtr, tmpPtr, size, elemSize, blockSize, reverse ? 1 : 0);
    const result = new Uint8Array(mem.buffer, outPtr, len);
    if (!out) return result.slice();
    out.set(result);
    return out;
  }
}

let simd: WasmKernel | null | undefined;
let scalar: WasmKernel | null | undefined;

/** True when the runtime accepts WASM 128-bit SIMD (probed with WebAssembly.validate). */
export function simdSupported(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(decodeBase64(SIMD_WASM));
}

/** The SIMD kernel, or null when unsupported. */
export function simdKernel(): WasmKernel | null {
  if (simd === undefined) {
    try {
      simd = simdSupported() ? new WasmKernel(decodeBase64(SIMD_WASM)) : null;
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
      scalar = typeof WebAssembly === 'object' ? new WasmKernel(decodeBase64(SCALAR_WASM)) : null;
    } catch {
      scalar = null;
    }
  }
  return scalar;
}
