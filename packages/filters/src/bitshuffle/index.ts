/**
 * Bitshuffle filter (registered HDF5 filter 32008), as kiyo-masui/bitshuffle's bshuf_h5filter.c
 * (also HDFGroup/hdf5_plugins BSHUF). Client data `[major, minor, elemSize, blockSize,
 * compression, zstdLevel]`: `setLocal` puts the plugin version and element size first and moves the
 * user's values (`[blockSize?, compression?, zstdLevel?]`) behind them, as bshuf_h5_set_local does.
 * Block size in elements (0: bshuf_default_block_size; else a multiple of 8). Compression 0: plain
 * bitshuffle, same length, no header; 2: LZ4 and 3: zstd, framed by ./frame.ts after a 12-byte
 * big-endian header. Other compression values are treated as 0, as the reference does.
 * The transposition is `@chunkform/bitshuffle-wasm` (WASM SIMD / WASM / JS).
 * @module
 */
import { bitshuffle, bitunshuffle, defaultBlockSize } from '@chunkform/bitshuffle-wasm';
import { FilterError, UnsupportedError, type Filter, type FilterContext } from '@chunkform/core/plugin';
import { decodeLimit } from '../deflate/index.js';
import { defaultLz4Codec, lz4CompressBound, type Lz4BlockCodec } from '../lz4/index.js';
import { defaultZstdCodec, ZSTD_DEFAULT_LEVEL, type ZstdCodec } from '../zstd/index.js';
import { blockLengths, decodeFramed, encodeFramed, readHeader, writeHeader, type BlockCompressor } from './frame.js';

const ID = 32008;
const NAME = 'bitshuffle';
const INFO = { filterId: ID, filterName: NAME };

/** BSHUF_VERSION_MAJOR / MINOR written by {@link bitshuffleFilter}'s setLocal (bitshuffle 0.4). */
export const BSHUF_VERSION: readonly [number, number] = [0, 4];
/** Compression codes of client data slot 4 (BSHUF_H5_COMPRESS_LZ4 / _ZSTD). */
export const BSHUF_COMPRESS_NONE = 0;
export const BSHUF_COMPRESS_LZ4 = 2;
export const BSHUF_COMPRESS_ZSTD = 3;

/** The block codecs of the compressed sub-modes; `null` makes that sub-mode an UnsupportedError. */
export interface BitshuffleCodecs {
  lz4?: Lz4BlockCodec | null;
  zstd?: ZstdCodec | null;
}

/** Parameters of a chunk, from client data. */
export interface BitshuffleParams {
  elemSize: number;
  /** Block size in elements (0 resolved to the default). */
  blockSize: number;
  compression: number;
  zstdLevel: number;
}

/**
 * The built-in codecs: the default LZ4 codec (../lz4: WebAssembly when available — then bitshuffle
 * and LZ4 run fused over the whole chunk in one WebAssembly call — else TypeScript) and the default
 * zstd codec (../zstd).
 */
export const DEFAULT_BITSHUFFLE_CODECS: Readonly<BitshuffleCodecs> = { lz4: defaultLz4Codec, zstd: defaultZstdCodec };

function fail(message: string): FilterError {
  return new FilterError(`bitshuffle: ${message}`, INFO);
}

/** Reads the client data as bshuf_h5_filter does. @throws FilterError fewer than 3 values, bad element or block size. */
export function bitshuffleParams(cd: readonly number[]): BitshuffleParams {
  if (cd.length < 3) throw fail(`client data [${cd.join(', ')}] has fewer than the 3 values [major, minor, elemSize] needed`);
  const elemSize = cd[2]!;
  if (!Number.isInteger(elemSize) || elemSize < 1) throw fail(`invalid element size ${elemSize} in client data`);
  let blockSize = cd.length > 3 ? cd[3]! : 0;
  if (blockSize === 0) blockSize = defaultBlockSize(elemSize);
  if (!Number.isInteger(blockSize) || blockSize < 0 || blockSize % 8 !== 0) throw fail(`invalid block size ${blockSize} (a multiple of 8 elements expected)`);
  const compression = cd.length > 4 ? cd[4]! : 0;
  const level = cd.length > 5 ? cd[5]! | 0 : 0;
  return { elemSize, blockSize, compression, zstdLevel: level === 0 ? ZSTD_DEFAULT_LEVEL : level };
}

function lz4Blocks(codec: Lz4BlockCodec): BlockCompressor {
  return {
    compress(block) {
      const dst = new Uint8Array(lz4CompressBound(block.length));
      return dst.subarray(0, codec.compress(block, 0, block.length, dst, 0, 1));
    },
    decompress(src, dst) {
      codec.decompress(src, 0, src.length, dst, 0, dst.length);
    },
  };
}

function zstdBlocks(codec: ZstdCodec, level: number): BlockCompressor {
  const place = (got: Uint8Array, dst: Uint8Array): void => {
    if (got.length !== dst.length) throw new Error(`block decoded to ${got.length} bytes, expected ${dst.length}`);
    if (got.buffer !== dst.buffer || got.byteOffset !== dst.byteOffset) dst.set(got);
  };
  return {
    compress: (block) => codec.compress(block, level),
    decompress(src, dst) {
      const got = codec.decompress(src, dst);
      if (got instanceof Promise) return got.then((g) => place(g, dst));
      place(got, dst);
    },
  };
}

function compressor(p: BitshuffleParams, codecs: BitshuffleCodecs): BlockCompressor | null {
  if (p.compression === BSHUF_COMPRESS_LZ4) {
    if (!codecs.lz4) throw new UnsupportedError('bitshuffle: the LZ4 sub-mode (compression 2) has no LZ4 codec in this build');
    return lz4Blocks(codecs.lz4);
  }
  if (p.compression === BSHUF_COMPRESS_ZSTD) {
    if (!codecs.zstd) throw new UnsupportedError('bitshuffle: the zstd sub-mode (compression 3) has no zstd codec in this build');
    return zstdBlocks(codecs.zstd, p.zstdLevel);
  }
  return null;
}

function wholeElements(data: Uint8Array, elemSize: number): void {
  if (data.length % elemSize !== 0) throw fail(`chunk of ${data.length} bytes is not a whole number of ${elemSize}-byte elements`);
}

/**
 * Spec IV.A.2.l, filter 32008 (bshuf_h5_filter, forward): bitshuffles and optionally compresses a chunk.
 * `into`: memory the fused bitshuffle + LZ4 path may build its result in (see lz4's `Lz4EncodeOptions.into`).
 */
export function bitshuffleEncode(
  data: Uint8Array,
  clientData: readonly number[],
  codecs: BitshuffleCodecs = DEFAULT_BITSHUFFLE_CODECS,
  into?: (cap: number) => Uint8Array | undefined,
): Uint8Array | Promise<Uint8Array> {
  const p = bitshuffleParams(clientData);
  wholeElements(data, p.elemSize);
  if (p.compression === BSHUF_COMPRESS_LZ4 && codecs.lz4?.bitshuffleCompress) {
    // fused bitshuffle + LZ4 over the whole chunk (bitshuffle.c bshuf_compress_lz4) in one call
    const out = codecs.lz4.bitshuffleCompress(data, p.elemSize, p.blockSize, 12, into);
    const header = (o: Uint8Array): Uint8Array => {
      writeHeader(o, data.length, p.blockSize * p.elemSize);
      return o;
    };
    if (out instanceof Promise) return out.then(header);
    if (out) return header(out);
  }
  const c = compressor(p, codecs);
  const shuffled = bitshuffle(data, p.elemSize, p.blockSize);
  return c ? encodeFramed(shuffled, p.elemSize, p.blockSize, c) : shuffled;
}

/**
 * Spec IV.A.2.l, filter 32008 (bshuf_h5_filter, reverse). `limit` (> 0) caps the uncompressed size
 * a header may claim. With `into`, the chunk is decoded there (the fused WebAssembly bitshuffle+LZ4
 * path writes it in place; the others copy) and `into` is returned.
 * @throws FilterError corrupt framing or blocks, or an `into` of another size; UnsupportedError missing codec.
 */
export function bitshuffleDecode(
  data: Uint8Array,
  clientData: readonly number[],
  limit = 0,
  codecs: BitshuffleCodecs = DEFAULT_BITSHUFFLE_CODECS,
  into?: Uint8Array,
): Uint8Array | Promise<Uint8Array> {
  const p = bitshuffleParams(clientData);
  const c = compressor(p, codecs);
  const place = (r: Uint8Array): Uint8Array => {
    if (!into || r === into) return r;
    if (r.length !== into.length) throw fail(`the chunk decodes to ${r.length} bytes, ${into.length} expected`);
    into.set(r);
    return into;
  };
  if (!c) {
    wholeElements(data, p.elemSize);
    return place(bitunshuffle(data, p.elemSize, p.blockSize));
  }
  const h = readHeader(data, p.elemSize, limit);
  if (into && h.total !== into.length) throw fail(`header claims ${h.total} original bytes, ${into.length} expected`);
  const block = h.blockElements === 0 ? defaultBlockSize(p.elemSize) : h.blockElements;
  if (block % 8 !== 0) throw fail(`header block size of ${h.blockElements} elements is not a multiple of 8`);
  if (p.compression === BSHUF_COMPRESS_LZ4 && codecs.lz4?.bitshuffleDecompress) {
    const n = blockLengths(h.total / p.elemSize, p.elemSize, block).length;
    if (n * 4 > data.length - 12) throw fail(`${n} blocks do not fit in a chunk of ${data.length} bytes`);
    let out: Uint8Array | null;
    try {
      out = codecs.lz4.bitshuffleDecompress(data, 12, h.total, p.elemSize, block, into);
    } catch (e) {
      throw new FilterError(`bitshuffle: ${e instanceof Error ? e.message : String(e)}`, { ...INFO, cause: e });
    }
    if (out) return out;
  }
  const raw = decodeFramed(data, h.total, p.elemSize, block, c);
  if (raw instanceof Promise) return raw.then((r) => place(bitunshuffle(r, p.elemSize, block)));
  return place(bitunshuffle(raw, p.elemSize, block));
}

/** bshuf_h5_set_local: `[major, minor, elementSize, ...user values]`, validated. */
export function bitshuffleSetLocal(clientData: readonly number[], elementSize: number): number[] {
  const v = [BSHUF_VERSION[0], BSHUF_VERSION[1], elementSize, ...clientData];
  for (const x of clientData) if (!Number.isInteger(x) || x < -0x80000000 || x > 0xffffffff) throw fail(`invalid client data [${clientData.join(', ')}]`);
  if (v.length > 8) throw fail(`too many client data values [${clientData.join(', ')}] (expected [blockSize?, compression?, zstdLevel?])`);
  if (v.length > 3 && (v[3]! < 0 || v[3]! % 8 !== 0)) throw fail(`invalid block size ${v[3]} (a multiple of 8 elements expected)`);
  if (v.length > 4 && ![0, 2, 3].includes(v[4]!)) throw fail(`invalid compression ${v[4]} (0 none, 2 LZ4, 3 zstd)`);
  return v.map((x) => x >>> 0);
}

/** A bitshuffle filter (id 32008) with the given block codecs. */
export function createBitshuffleFilter(codecs: BitshuffleCodecs = DEFAULT_BITSHUFFLE_CODECS): Filter {
  return {
    id: ID,
    name: NAME,
    encode: (data, ctx: FilterContext) => bitshuffleEncode(data, ctx.clientData, codecs),
    decode: (data, ctx: FilterContext) => bitshuffleDecode(data, ctx.clientData, decodeLimit(ctx), codecs),
    decodeInto: async (data, ctx: FilterContext, out) => void (await bitshuffleDecode(data, ctx.clientData, decodeLimit(ctx), codecs, out)),
    setLocal: (clientData, ctx) => bitshuffleSetLocal(clientData, ctx.elementSize),
  };
}

/** The bitshuffle filter (id 32008) with the built-in LZ4 and zstd codecs. */
export const bitshuffleFilter: Filter = createBitshuffleFilter();
