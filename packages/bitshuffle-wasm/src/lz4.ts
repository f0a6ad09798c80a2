/**
 * `@chunkform/bitshuffle-wasm/lz4`: the LZ4 block codec of assembly/lz4.ts (compiled into the same
 * WebAssembly modules as the bit transposition) behind the `Lz4BlockCodec` shape of
 * `@chunkform/filters` (structurally; this package does not depend on it), plus bitshuffle+LZ4
 * fused over a whole chunk (kiyo-masui/bitshuffle `bshuf_compress_lz4` / `bshuf_decompress_lz4`)
 * in one WebAssembly call. The compressor makes the same parsing decisions as liblz4's
 * `LZ4_compress_fast` (and as the TypeScript codec of `@chunkform/filters`), so its blocks are
 * byte-identical; the decompressor validates every length and offset and throws
 * {@link Lz4BlockError}, never a WebAssembly trap.
 * @module
 */
import { startBshufLz4Worker, type BshufLz4Worker } from '#threads';
import { defaultBlockSize } from './index.js';
import { scalarKernel, simdKernel, WASM_MAX_BYTES, type WasmKernel } from './wasm.js';

/** A malformed LZ4 block (or bitshuffle+LZ4 framing) found by the WebAssembly decompressor. */
export class Lz4BlockError extends Error {
  override name = 'Lz4BlockError';
}

/** Largest block / chunk (bytes) handed to WebAssembly; callers fall back to JS above it. */
export const LZ4_WASM_MAX_INPUT = 2 ** 29;

/** Worst-case compressed size of `n` input bytes (liblz4's LZ4_COMPRESSBOUND). */
function bound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

const TABLE_BYTES = 16384;
/** Input slice handed to the fused bitshuffle+LZ4 kernel per call (whole blocks). */
const SLICE_BYTES = 1 << 20;
/** Slack after every buffer: the kernels read/write up to 32 bytes past the ends. */
const SLACK = 64;
const align = (n: number): number => (n + 15) & ~15;

const LZ4_MESSAGES: Record<number, (at: number, v: number) => string> = {
  [-1]: (at) => `block ends before its last sequence (at byte ${at})`,
  [-2]: (at) => `literal length runs past the end of the block (at byte ${at})`,
  [-3]: (at, v) => `${v} literals run past the end of the block (at byte ${at})`,
  [-4]: (at, v) => `${v} literals overflow the output (at byte ${at})`,
  [-5]: (at) => `match offset truncated (at byte ${at})`,
  [-6]: (at, v) => `match offset ${v} points before the start of the output (at byte ${at})`,
  [-7]: (at) => `match length runs past the end of the block (at byte ${at})`,
  [-8]: (at, v) => `match of ${v} bytes overflows the output (at byte ${at})`,
  [-9]: (at, v) => `block decodes to ${v} bytes, fewer than expected (at byte ${at})`,
};

function lz4Message(code: number, at: number, value: number): string {
  const f = LZ4_MESSAGES[code];
  return f ? f(at, value) : `LZ4 decoder error ${code} at byte ${at}`;
}

/** The WebAssembly LZ4 codec: an `Lz4BlockCodec` of `@chunkform/filters` plus fused bitshuffle+LZ4. */
export interface WasmLz4Codec {
  /** Name shown in benchmarks. */
  readonly name: string;
  /** Compresses `src[start, end)` into `dst` at `dPos` (room for the LZ4 bound); returns the end position. */
  compress(src: Uint8Array, start: number, end: number, dst: Uint8Array, dPos: number, acceleration: number): number;
  /** Decompresses `src[sPos, sEnd)` into exactly `dst[dPos, dEnd)`. @throws Lz4BlockError malformed block. */
  decompress(src: Uint8Array, sPos: number, sEnd: number, dst: Uint8Array, dPos: number, dEnd: number): void;
  /**
   * Bitshuffles `data` (whole `elemSize`-byte elements) in blocks of `blockSize` elements (0: the
   * default) and LZ4-compresses each block as bshuf_compress_lz4 frames it (u32 BE size + block;
   * leftover elements raw), after `headerBytes` zero bytes left for the caller. Returns null when the
   * chunk is too large for the WebAssembly memory (use the JS path). In Node with
   * {@link setLz4Parallel}(true), a chunk of at least {@link PARALLEL_MIN_BYTES} is split at a block
   * boundary and its second half compressed on a worker thread at the same time (same bytes): then
   * a Promise. `into` (on this thread only): called with the worst-case size of the result, it returns
   * memory of at least that many bytes (or undefined) that the result is then built in — a view of it,
   * no buffer of the result's own.
   */
  bitshuffleCompress(
    data: Uint8Array,
    elemSize: number,
    blockSize: number,
    headerBytes: number,
    into?: (cap: number) => Uint8Array | undefined,
  ): Uint8Array | Promise<Uint8Array> | null;
  /**
   * Inverse of {@link bitshuffleCompress}: decodes the blocks starting at `data[offset]` into
   * `total` bytes — a new buffer, or `into` (of `total` bytes) when given. Returns null when too
   * large for the WebAssembly memory.
   * @throws Lz4BlockError corrupt framing or block (the message names the block and byte).
   */
  bitshuffleDecompress(data: Uint8Array, offset: number, total: number, elemSize: number, blockSize: number, into?: Uint8Array): Uint8Array | null;
}

class Codec implements WasmLz4Codec {
  readonly name: string;
  constructor(
    private readonly k: WasmKernel,
    simd: boolean,
  ) {
    this.name = simd ? 'chunkform-wasm-simd' : 'chunkform-wasm';
  }

  compress(src: Uint8Array, start: number, end: number, dst: Uint8Array, dPos: number, acceleration: number): number {
    const n = end - start;
    if (!(n >= 0) || end > src.length) throw new RangeError(`lz4: invalid input range [${start}, ${end})`);
    if (n > LZ4_WASM_MAX_INPUT) throw new RangeError(`lz4: ${n} bytes exceed the WebAssembly codec's limit`);
    const k = this.k;
    const table = k.base;
    const inPtr = table + TABLE_BYTES;
    const outPtr = align(inPtr + n + SLACK);
    const buf = k.reserve(outPtr + bound(n) + SLACK);
    new Uint8Array(buf, inPtr, n).set(src.subarray(start, end));
    const len = k.ex.lz4CompressBlock(inPtr, n, outPtr, table, acceleration | 0) - outPtr;
    dst.set(new Uint8Array(buf, outPtr, len), dPos);
    return dPos + len;
  }

  decompress(src: Uint8Array, sPos: number, sEnd: number, dst: Uint8Array, dPos: number, dEnd: number): void {
    const sLen = sEnd - sPos;
    const dLen = dEnd - dPos;
    if (!(sLen >= 0) || sEnd > src.length || !(dLen >= 0) || dEnd > dst.length) throw new RangeError('lz4: invalid buffer ranges');
    if (sLen + dLen > 2 * LZ4_WASM_MAX_INPUT) throw new RangeError(`lz4: ${sLen} + ${dLen} bytes exceed the WebAssembly codec's limit`);
    const k = this.k;
    const inPtr = k.base;
    const outPtr = align(inPtr + sLen + SLACK);
    const buf = k.reserve(outPtr + dLen + SLACK);
    new Uint8Array(buf, inPtr, sLen).set(src.subarray(sPos, sEnd));
    const r = k.ex.lz4DecompressBlock(inPtr, sLen, outPtr, dLen);
    if (r < 0) throw new Lz4BlockError(lz4Message(r, k.ex.lz4ErrorAt(), k.ex.lz4ErrorValue()));
    dst.set(new Uint8Array(buf, outPtr, dLen), dPos);
  }

  bitshuffleCompress(
    data: Uint8Array,
    elemSize: number,
    blockSize: number,
    headerBytes: number,
    into?: (cap: number) => Uint8Array | undefined,
  ): Uint8Array | Promise<Uint8Array> | null {
    const bs = checkParams(data.length, elemSize, blockSize);
    const full = Math.floor(data.length / elemSize / bs);
    if (!into && data.length >= PARALLEL_MIN_BYTES && full >= 2 && fusedFits(data.length)) {
      const w = worker(this.k);
      if (w) {
        // blocks are independent: [first half of the blocks] + [the rest, incl. the last partial
        // block and the leftover elements] is exactly the whole chunk's framing
        const split = Math.ceil(full / 2) * bs * elemSize;
        const theirs = w.compress(data.slice(split), elemSize, bs);
        const ours = this.fused(data.subarray(0, split), elemSize, bs, headerBytes)!; // fits: a part of a chunk that fits
        return theirs.then(
          (rest) => {
            const out = new Uint8Array(ours.length + rest.length);
            out.set(ours);
            out.set(rest, ours.length);
            return out;
          },
          () => this.fused(data, elemSize, bs, headerBytes)!, // worker lost: do it here
        );
      }
    }
    return this.fused(data, elemSize, bs, headerBytes, into);
  }

  /** bshufLz4Compress on this thread (bs already resolved); the result in `into`'s memory when it gives enough. */
  private fused(data: Uint8Array, elemSize: number, bs: number, headerBytes: number, into?: (cap: number) => Uint8Array | undefined): Uint8Array | null {
    const len = data.length;
    if (!fusedFits(len)) return null;
    const size = len / elemSize;
    const blockBytes = Math.min(bs, size) * elemSize;
    const nBlocks = Math.ceil(size / bs);
    const cap = len + 4 * nBlocks + nBlocks * 16 + Math.floor(len / 255) + 16;
    // The input goes in in slices of whole blocks (≈ 1 MiB, cache-resident while the kernel reads
    // them); blocks are independent, so the slices' outputs concatenate to the chunk's framing.
    const sliceBytes = Math.max(1, Math.floor(SLICE_BYTES / (bs * elemSize))) * bs * elemSize;
    const k = this.k;
    const table = k.base;
    const block = table + TABLE_BYTES;
    const tmp = align(block + blockBytes + SLACK);
    const inPtr = align(tmp + blockBytes + SLACK);
    const outPtr = align(inPtr + Math.min(len, sliceBytes) + SLACK);
    const buf = k.reserve(outPtr + cap + SLACK);
    let n = 0;
    for (let s = 0; ; s += sliceBytes) {
      const e = len - s <= sliceBytes ? len : s + sliceBytes; // the last slice takes the partial block and leftover
      new Uint8Array(buf, inPtr, e - s).set(data.subarray(s, e));
      n += k.ex.bshufLz4Compress(inPtr, (e - s) / elemSize, elemSize, bs, outPtr + n, block, tmp, table);
      if (e === len) break;
    }
    const given = into?.(headerBytes + cap);
    const out = given && given.length >= headerBytes + cap ? given.subarray(0, headerBytes + n) : new Uint8Array(headerBytes + n);
    out.set(new Uint8Array(buf, outPtr, n), headerBytes);
    return out;
  }

  bitshuffleDecompress(data: Uint8Array, offset: number, total: number, elemSize: number, blockSize: number, into?: Uint8Array): Uint8Array | null {
    const bs = checkParams(total, elemSize, blockSize);
    if (into && into.length !== total) throw new RangeError(`bitshuffle: ${total} bytes cannot fill ${into.length}`);
    const sLen = data.length - offset;
    if (!(sLen >= 0)) throw new RangeError('bitshuffle: offset past the end of the chunk');
    if (sLen + 2 * total > WASM_MAX_BYTES / 2 || total > LZ4_WASM_MAX_INPUT) return null;
    const blockBytes = Math.min(bs, total / elemSize) * elemSize;
    const k = this.k;
    const block = k.base;
    const tmp = align(block + blockBytes + SLACK);
    const inPtr = align(tmp + blockBytes + SLACK);
    const outPtr = align(inPtr + sLen + SLACK);
    const buf = k.reserve(outPtr + total + SLACK);
    new Uint8Array(buf, inPtr, sLen).set(data.subarray(offset));
    const r = k.ex.bshufLz4Decompress(inPtr, sLen, total / elemSize, elemSize, bs, outPtr, block, tmp);
    if (r < 0) {
      const i = k.ex.bshufLz4ErrorBlock();
      const at = offset + k.ex.bshufLz4ErrorAt();
      const v = k.ex.bshufLz4ErrorValue();
      if (r === -20) throw new Lz4BlockError(`block ${i} size at byte ${at} is truncated`);
      if (r === -21) throw new Lz4BlockError(`block ${i} claims ${v} bytes at byte ${at + 4}, only ${data.length - at - 4} remain`);
      if (r === -22) throw new Lz4BlockError(`${v} leftover bytes at byte ${at} are truncated (${data.length - at} remain)`);
      throw new Lz4BlockError(`corrupt block ${i} at byte ${at}: ${lz4Message(r, k.ex.lz4ErrorAt(), k.ex.lz4ErrorValue())}`);
    }
    if (!into) return new Uint8Array(buf, outPtr, total).slice();
    into.set(new Uint8Array(buf, outPtr, total));
    return into;
  }
}

/** Whether a chunk of `len` bytes (input + output + scratch) fits the WebAssembly memory budget. */
function fusedFits(len: number): boolean {
  return len <= LZ4_WASM_MAX_INPUT && 3.1 * len + (1 << 20) <= WASM_MAX_BYTES / 2;
}

/** Chunks from this many bytes are split between the calling thread and a worker (Node only). */
export const PARALLEL_MIN_BYTES = 1 << 20;

let parallel = false;
let pool: { worker: BshufLz4Worker | null; kernel: WasmKernel } | undefined;

/**
 * Enables or disables (default) compressing the second half of large bitshuffle+LZ4 chunks on a
 * worker thread (Node only; the output bytes are the same either way); disabling stops the worker.
 * Off by default: it pays only when a core is idle — on a loaded machine the calling thread ends
 * up waiting for the worker.
 */
export function setLz4Parallel(enabled: boolean): void {
  parallel = enabled;
  if (!enabled && pool) {
    pool.worker?.terminate(); // requests still pending fall back to this thread
    pool = undefined;
  }
}

/** The worker for `k`'s module once it is running (started on first use; null until ready or unavailable). */
function worker(k: WasmKernel): BshufLz4Worker | null {
  if (!parallel) return null;
  if (pool === undefined || pool.kernel !== k) {
    let w: BshufLz4Worker | null = null;
    try {
      w = startBshufLz4Worker(k.module);
    } catch {
      w = null;
    }
    pool = { worker: w, kernel: k };
  }
  return pool.worker?.ready ? pool.worker : null;
}

function checkParams(len: number, elemSize: number, blockSize: number): number {
  if (!Number.isInteger(elemSize) || elemSize < 1) throw new RangeError(`bitshuffle: element size ${elemSize} is not a positive integer`);
  if (len % elemSize !== 0) throw new RangeError(`bitshuffle: ${len} bytes is not a whole number of ${elemSize}-byte elements`);
  const bs = blockSize === 0 ? defaultBlockSize(elemSize) : blockSize;
  if (!Number.isInteger(bs) || bs <= 0 || bs % 8 !== 0) throw new RangeError(`bitshuffle: block size ${blockSize} is not a multiple of 8 elements`);
  return bs;
}

const codecs: { simd?: WasmLz4Codec | null; wasm?: WasmLz4Codec | null } = {};

/**
 * The WebAssembly LZ4 codec (`'simd'` build when the runtime has 128-bit SIMD, else the scalar
 * build; or the one named), instantiated on first use; null when WebAssembly (or that build) is
 * unavailable.
 */
export function wasmLz4Codec(backend?: 'simd' | 'wasm'): WasmLz4Codec | null {
  if (backend !== 'wasm') {
    if (codecs.simd === undefined) {
      const k = simdKernel();
      codecs.simd = k ? new Codec(k, true) : null;
    }
    if (codecs.simd || backend === 'simd') return codecs.simd;
  }
  if (codecs.wasm === undefined) {
    const k = scalarKernel();
    codecs.wasm = k ? new Codec(k, false) : null;
  }
  return codecs.wasm;
}
