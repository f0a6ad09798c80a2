/**
 * @packageDocumentation
 * `@chunkform/bitshuffle-wasm`: bitshuffle's bit transposition (kiyo-masui/bitshuffle,
 * `bshuf_bitshuffle` / `bshuf_bitunshuffle`) compiled from AssemblyScript (assembly/index.ts) to
 * WebAssembly, with a 128-bit SIMD build used when the runtime supports it and a plain-JS fallback.
 * Output is byte-identical to the reference for every element size and block size: blocks of
 * `blockSize` elements, the last block rounded down to a multiple of 8 elements, and the
 * `size % 8` leftover elements copied unchanged.
 */
import { runJs } from './js.js';
import { scalarKernel, simdKernel, simdSupported, WASM_MAX_BYTES } from './wasm.js';

export { simdSupported } from './wasm.js';

/** Implementation used: WASM with SIMD, WASM without SIMD, or plain JS. */
export type BitshuffleBackend = 'simd' | 'wasm' | 'js';

/** Block sizes must be a multiple of this many elements (BSHUF_BLOCKED_MULT). */
export const BLOCKED_MULT = 8;

/**
 * The reference default block size for `elemSize`-byte elements (bshuf_default_block_size):
 * 8192 bytes' worth of elements rounded down to a multiple of 8, at least 128.
 */
export function defaultBlockSize(elemSize: number): number {
  const b = Math.floor(Math.floor(8192 / elemSize) / BLOCKED_MULT) * BLOCKED_MULT;
  return Math.max(b, 128);
}

/** Backends usable in this runtime, fastest first (`'js'` is always last). */
export function availableBackends(): BitshuffleBackend[] {
  const out: BitshuffleBackend[] = [];
  if (simdKernel()) out.push('simd');
  if (scalarKernel()) out.push('wasm');
  out.push('js');
  return out;
}

function transform(data: Uint8Array, elemSize: number, blockSize: number, reverse: boolean, backend?: BitshuffleBackend, out?: Uint8Array): Uint8Array {
  if (!Number.isInteger(elemSize) || elemSize < 1) throw new RangeError(`bitshuffle: element size ${elemSize} is not a positive integer`);
  if (data.length % elemSize !== 0) {
    throw new RangeError(`bitshuffle: ${data.length} bytes is not a whole number of ${elemSize}-byte elements`);
  }
  const bs = blockSize === 0 ? defaultBlockSize(elemSize) : blockSize;
  if (!Number.isInteger(bs) || bs < 0 || bs % BLOCKED_MULT !== 0) {
    throw new RangeError(`bitshuffle: block size ${blockSize} is not a multiple of ${BLOCKED_MULT} elements`);
  }
  if (out && (out.length !== data.length || (out.buffer === data.buffer && out.byteOffset < data.byteOffset + data.length && data.byteOffset < out.byteOffset + out.length))) {
    throw new RangeError(`bitshuffle: the output must be ${data.length} bytes and not overlap the input`);
  }
  const size = data.length / elemSize;
  const fits = 2 * data.length + bs * elemSize < WASM_MAX_BYTES;
  const kernel =
    !fits || backend === 'js' ? null : backend === 'wasm' ? scalarKernel() : backend === 'simd' ? simdKernel() : (simdKernel() ?? scalarKernel());
  if (backend !== undefined && backend !== 'js' && fits && kernel === null) {
    throw new RangeError(`bitshuffle: backend '${backend}' is not available in this runtime`);
  }
  if (kernel) return kernel.run(data, size, elemSize, bs, reverse, out);
  const dst = out ?? new Uint8Array(data.length);
  runJs(data, dst, size, elemSize, bs, reverse);
  return dst;
}

/**
 * Bitshuffles `data` (a whole number of `elemSize`-byte elements) in blocks of `blockSize`
 * elements (0: {@link defaultBlockSize}; otherwise a multiple of 8). Returns a new array of the
 * same length, or `out` (same length, not overlapping `data`) when given. `backend` forces an
 * implementation (default: the fastest available).
 * @throws RangeError for an invalid element size, block size or length.
 */
export function bitshuffle(data: Uint8Array, elemSize: number, blockSize = 0, backend?: BitshuffleBackend, out?: Uint8Array): Uint8Array {
  return transform(data, elemSize, blockSize, false, backend, out);
}

/** Inverse of {@link bitshuffle} with the same element and block size. */
export function bitunshuffle(data: Uint8Array, elemSize: number, blockSize = 0, backend?: BitshuffleBackend, out?: Uint8Array): Uint8Array {
  return transform(data, elemSize, blockSize, true, backend, out);
}
