/**
 * LZ4 filter (registered HDF5 filter 32004), framed as HDFGroup/hdf5_plugins LZ4/src/H5Zlz4.c
 * frames it: a 12-byte big-endian header (original size as 8 bytes, block size as 4 bytes), then
 * per block a 4-byte big-endian compressed size and the block — an LZ4 block, or the raw bytes
 * when compression did not shrink the block (compressed size = block size). Client data:
 * `[blockSize]` in bytes (0 or absent: 1 GiB, i.e. one block per chunk) and optionally an encoder
 * parameter (negative: fast mode with acceleration 1 − p; HC levels are written in fast mode, which
 * every reader decodes alike). The block codec is pluggable ({@link createLz4Filter}): the default
 * is the WebAssembly codec of `@chunkform/bitshuffle-wasm/lz4` when the runtime has WebAssembly, else
 * the TypeScript codec {@link jsLz4Codec}; both write the same bytes.
 * @module
 */
import { LZ4_WASM_MAX_INPUT, wasmLz4Codec } from '@chunkform/bitshuffle-wasm/lz4';
import { FilterError, type Filter, type FilterContext } from '@chunkform/core/plugin';
import { decodeLimit } from '../deflate/index.js';
import { Lz4BlockError, lz4CompressBlock, lz4CompressBound, lz4DecompressBlock, lz4Scratch, type Lz4Scratch } from './block.js';

const ID = 32004;
const NAME = 'lz4';
const INFO = { filterId: ID, filterName: NAME };
/** H5Zlz4.c's DEFAULT_BLOCK_SIZE (1 GiB). */
export const LZ4_DEFAULT_BLOCK_SIZE = 1 << 30;
/** Bytes of the frame header (original size u64 BE + block size u32 BE). */
export const LZ4_HEADER_SIZE = 12;
/** Largest chunk the plugin compresses (INT32_MAX). */
const MAX_INPUT = 0x7fffffff;
/** An LZ4 block expands at most ~255-fold (one literal/match length byte per 255 output bytes). */
const MAX_RATIO = 255;

/**
 * An LZ4 block codec (the raw block format, no frame): a browser bundle or a benchmark can swap
 * in another implementation (e.g. a WebAssembly build of liblz4) with {@link createLz4Filter}.
 */
export interface Lz4BlockCodec {
  /** Name shown in benchmarks. */
  readonly name: string;
  /**
   * Compresses `src[start, end)` into `dst` at `dPos` (room for {@link lz4CompressBound} bytes);
   * returns the end position.
   */
  compress(src: Uint8Array, start: number, end: number, dst: Uint8Array, dPos: number, acceleration: number): number;
  /** Decompresses `src[sPos, sEnd)` into exactly `dst[dPos, dEnd)`; throws on malformed input. */
  decompress(src: Uint8Array, sPos: number, sEnd: number, dst: Uint8Array, dPos: number, dEnd: number): void;
  /**
   * Optional fused bitshuffle+LZ4 over a whole chunk (bitshuffle.c `bshuf_compress_lz4`): the framed
   * blocks after `headerBytes` bytes left for the caller (possibly computed in part on another
   * thread: then a Promise), or null to use the per-block path.
   */
  bitshuffleCompress?(
    data: Uint8Array,
    elemSize: number,
    blockSize: number,
    headerBytes: number,
    /** Memory to build the result in (as {@link Lz4EncodeOptions.into}); a codec may ignore it. */
    into?: (cap: number) => Uint8Array | undefined,
  ): Uint8Array | Promise<Uint8Array> | null;
  /**
   * Optional inverse of {@link bitshuffleCompress} (blocks start at `data[offset]`; into `into` of
   * `total` bytes when given), or null to use the per-block path.
   */
  bitshuffleDecompress?(data: Uint8Array, offset: number, total: number, elemSize: number, blockSize: number, into?: Uint8Array): Uint8Array | null;
}

let scratch: Lz4Scratch | undefined;

/** The built-in pure TypeScript LZ4 block codec (./block.ts). */
export const jsLz4Codec: Lz4BlockCodec = {
  name: 'chunkform-js',
  compress: (src, start, end, dst, dPos, acceleration) => lz4CompressBlock(src, start, end, dst, dPos, (scratch ??= lz4Scratch()), acceleration),
  decompress: lz4DecompressBlock,
};

/** The WebAssembly LZ4 codec (`@chunkform/bitshuffle-wasm/lz4`), or null when WebAssembly is unavailable. */
export function wasmLz4BlockCodec(): Lz4BlockCodec | null {
  return wasmLz4Codec();
}

let resolved: Lz4BlockCodec | undefined;
function pick(): Lz4BlockCodec {
  if (resolved === undefined) {
    try {
      resolved = wasmLz4Codec() ?? jsLz4Codec;
    } catch {
      resolved = jsLz4Codec;
    }
  }
  return resolved;
}

/**
 * The default LZ4 block codec: the WebAssembly codec when available (chosen on first use), else
 * {@link jsLz4Codec}. Blocks too large for the WebAssembly memory go to the TypeScript codec.
 */
export const defaultLz4Codec: Lz4BlockCodec = {
  get name() {
    return pick().name;
  },
  compress(src, start, end, dst, dPos, acceleration) {
    const c = end - start > LZ4_WASM_MAX_INPUT ? jsLz4Codec : pick();
    return c.compress(src, start, end, dst, dPos, acceleration);
  },
  decompress(src, sPos, sEnd, dst, dPos, dEnd) {
    const c = dEnd - dPos > LZ4_WASM_MAX_INPUT || sEnd - sPos > LZ4_WASM_MAX_INPUT ? jsLz4Codec : pick();
    c.decompress(src, sPos, sEnd, dst, dPos, dEnd);
  },
  bitshuffleCompress(data, elemSize, blockSize, headerBytes, into) {
    return pick().bitshuffleCompress?.(data, elemSize, blockSize, headerBytes, into) ?? null;
  },
  bitshuffleDecompress(data, offset, total, elemSize, blockSize, into) {
    return pick().bitshuffleDecompress?.(data, offset, total, elemSize, blockSize, into) ?? null;
  },
};

function fail(message: string, cause?: unknown): FilterError {
  return new FilterError(`lz4: ${message}`, cause === undefined ? INFO : { ...INFO, cause });
}

function toInt32(v: number | undefined): number {
  return v === undefined ? 0 : v | 0;
}

/** Options of {@link lz4Encode}. */
export interface Lz4EncodeOptions {
  /** Bytes per block (0: {@link LZ4_DEFAULT_BLOCK_SIZE}). */
  blockSize?: number;
  /** H5Zlz4.c's encoder parameter (< 0: acceleration 1 − p; otherwise the default fast mode). */
  encoderParam?: number;
  /** Block codec (default {@link defaultLz4Codec}). */
  codec?: Lz4BlockCodec;
  /**
   * Memory to build the frame in: called with the worst-case frame size, it returns a buffer of at
   * least that many bytes (or undefined: a buffer of the encoder's own), and the frame is returned
   * as a view of it — no copy of the frame into a buffer of its own size. The caller owns it.
   */
  into?: (cap: number) => Uint8Array | undefined;
}

/** Spec IV.A.2.l, filter 32004 (H5Zlz4.c, forward): frames `data` as header + blocks. */
export function lz4Encode(data: Uint8Array, options: Lz4EncodeOptions = {}): Uint8Array {
  const codec = options.codec ?? defaultLz4Codec;
  const nbytes = data.length;
  if (nbytes > MAX_INPUT) throw fail(`a chunk of ${nbytes} bytes exceeds the 2 GiB the LZ4 filter can compress`);
  let blockSize = options.blockSize !== undefined && options.blockSize > 0 ? options.blockSize : LZ4_DEFAULT_BLOCK_SIZE;
  if (blockSize > nbytes) blockSize = nbytes;
  const p = options.encoderParam ?? 0;
  const acceleration = p < 0 ? Math.min(65537, 1 - p) : 1;
  const nBlocks = nbytes === 0 ? 0 : Math.ceil(nbytes / blockSize);
  const cap = LZ4_HEADER_SIZE + nBlocks * 4 + nbytes + Math.floor(nbytes / 255) + 16 * nBlocks;
  const given = options.into?.(cap);
  const out = given && given.length >= cap ? given.subarray(0, cap) : frameBuffer(cap);
  const view = new DataView(out.buffer, out.byteOffset, cap);
  view.setUint32(0, Math.floor(nbytes / 0x100000000));
  view.setUint32(4, nbytes >>> 0);
  view.setUint32(8, blockSize);
  let d = LZ4_HEADER_SIZE;
  for (let s = 0; s < nbytes; s += blockSize) {
    const n = Math.min(blockSize, nbytes - s);
    const end = codec.compress(data, s, s + n, out, d + 4, acceleration);
    let size = end - d - 4;
    if (size >= n) {
      // compression did not save space: store the block raw (the reader recognises size = block size)
      out.set(data.subarray(s, s + n), d + 4);
      size = n;
    }
    view.setUint32(d, size);
    d += 4 + size;
  }
  // built in the caller's memory: a view of it; else the frame leaves in a buffer of its own, of
  // its size (the kept one is the next chunk's)
  if (given && out.buffer === given.buffer) return out.subarray(0, d);
  return out.buffer === kept?.buffer ? out.slice(0, d) : d * 4 >= cap * 3 ? out.subarray(0, d) : out.slice(0, d);
}

/**
 * The worst-case frame buffer, kept for the next chunk: a fresh one per chunk cost its page faults
 * and the unmapping (~10 % of compressing a 2 MiB chunk on a filter worker).
 */
let kept: Uint8Array | undefined;
/** Largest frame buffer kept. */
const KEPT_MAX_BYTES = 16 << 20;

/** `cap` bytes to compress into: the kept buffer when it is large enough (contents undefined). */
function frameBuffer(cap: number): Uint8Array {
  if (cap > KEPT_MAX_BYTES) return new Uint8Array(cap);
  if (!kept || kept.length < cap) kept = new Uint8Array(cap);
  return kept.subarray(0, cap);
}

/**
 * Spec IV.A.2.l, filter 32004 (H5Zlz4.c, reverse): decodes a framed LZ4 chunk. `limit` (> 0)
 * caps the original size the header may claim. With `into`, the chunk is decoded there (its
 * length must be the original size) and `into` is returned.
 * @throws FilterError truncated or inconsistent framing, a malformed block, an oversized claim, an `into` of another size.
 */
export function lz4Decode(data: Uint8Array, limit = 0, codec: Lz4BlockCodec = defaultLz4Codec, into?: Uint8Array): Uint8Array {
  const len = data.length;
  if (len < LZ4_HEADER_SIZE) throw fail(`chunk of ${len} bytes is shorter than the 12-byte LZ4 header`);
  const view = new DataView(data.buffer, data.byteOffset, len);
  const hi = view.getUint32(0);
  const origSize = hi * 0x100000000 + view.getUint32(4);
  let blockSize = view.getUint32(8);
  if (hi >= 0x200000 || origSize > (len - LZ4_HEADER_SIZE) * MAX_RATIO + 16) {
    throw fail(`header claims ${origSize} original bytes, more than ${len} compressed bytes can hold`);
  }
  if (origSize > MAX_INPUT) throw fail(`header claims ${origSize} original bytes, more than the 2 GiB the filter writes`);
  if (limit > 0 && origSize > limit) throw fail(`header claims ${origSize} original bytes, more than the chunk's limit of ${limit}`);
  if (blockSize > origSize) blockSize = origSize;
  if (blockSize === 0 && origSize > 0) throw fail('header has block size 0');
  const nBlocks = origSize === 0 ? 0 : Math.ceil(origSize / blockSize);
  if (nBlocks * 4 > len - LZ4_HEADER_SIZE) throw fail(`${nBlocks} blocks of ${blockSize} bytes do not fit in ${len} bytes`);
  if (into && into.length !== origSize) throw fail(`header claims ${origSize} original bytes, ${into.length} expected`);
  const out = into ?? new Uint8Array(origSize);
  let s = LZ4_HEADER_SIZE;
  for (let d = 0, block = 0; d < origSize; d += blockSize, block++) {
    const n = Math.min(blockSize, origSize - d);
    if (len - s < 4) throw fail(`block ${block} header at byte ${s} is truncated`);
    const size = view.getUint32(s);
    s += 4;
    if (size > len - s) throw fail(`block ${block} claims ${size} bytes at byte ${s}, only ${len - s} remain`);
    if (size === n) {
      out.set(data.subarray(s, s + n), d);
    } else {
      try {
        codec.decompress(data, s, s + size, out, d, d + n);
      } catch (e) {
        const why = e instanceof Lz4BlockError || e instanceof Error ? e.message : String(e);
        throw fail(`corrupt block ${block} at byte ${s - 4}: ${why}`, e);
      }
    }
    s += size;
  }
  return out;
}

function encodeOptions(ctx: Pick<FilterContext, 'clientData'>, codec: Lz4BlockCodec): Lz4EncodeOptions {
  const cd = ctx.clientData;
  return { blockSize: cd[0] ?? 0, encoderParam: toInt32(cd[1]), codec };
}

/** Worst-case size of the frame of a chunk of `nbytes` in one block (what {@link Lz4EncodeOptions.into} is asked for at most then). */
export function lz4FrameBound(nbytes: number): number {
  return LZ4_HEADER_SIZE + 4 + nbytes + Math.floor(nbytes / 255) + 16;
}

/** {@link lz4Filter}'s forward direction (client data from `ctx`), the frame built in `into`'s memory (see {@link Lz4EncodeOptions.into}). */
export function lz4EncodeInto(data: Uint8Array, ctx: Pick<FilterContext, 'clientData'>, into: (cap: number) => Uint8Array | undefined): Uint8Array {
  return lz4Encode(data, { ...encodeOptions(ctx, defaultLz4Codec), into });
}

/** An LZ4 filter (id 32004) using `codec` for the blocks. */
export function createLz4Filter(codec: Lz4BlockCodec = defaultLz4Codec): Filter {
  return {
    id: ID,
    name: NAME,
    encode: (data, ctx) => lz4Encode(data, encodeOptions(ctx, codec)),
    decode: (data, ctx) => lz4Decode(data, decodeLimit(ctx), codec),
    decodeInto: (data, ctx, out) => void lz4Decode(data, decodeLimit(ctx), codec, out),
    setLocal(clientData) {
      for (const v of clientData) {
        if (!Number.isInteger(v) || v < -0x80000000 || v > 0xffffffff) throw fail(`invalid client data [${clientData.join(', ')}] (32-bit integers expected)`);
      }
      if (clientData.length > 2) throw fail(`invalid client data [${clientData.join(', ')}] (expected [blockSize, encoderParam?])`);
      if ((clientData[0] ?? 0) < 0) throw fail(`invalid block size ${clientData[0]}`);
      return clientData.map((v) => v >>> 0);
    },
  };
}

/** The LZ4 filter (id 32004) with {@link defaultLz4Codec} (WebAssembly when available, else TypeScript). */
export const lz4Filter: Filter = createLz4Filter();

export { lz4CompressBound };
