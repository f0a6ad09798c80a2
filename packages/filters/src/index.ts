/**
 * @packageDocumentation
 * `@chunkform/filters`: the HDF5 filters deflate (1), shuffle (2), fletcher32 (3), n-bit (5),
 * scale-offset (6), LZ4 (32004), zstd (32015) and bitshuffle (32008) for `@chunkform/core`. Importing this package registers nothing (it is free of
 * side effects); call {@link registerFilters} once, or register single filters with core's
 * `registerFilter`.
 */
import { registerFilter, type Container, type RegisterOptions } from '@chunkform/core';
import { deflateFilter, inflateFilter } from './deflate/index.js';
import { fletcher32Filter } from './fletcher32/index.js';
import { nbitFilter } from './nbit/index.js';
import { scaleOffsetFilter } from './scaleoffset/index.js';
import { shuffleFilter } from './shuffle/index.js';
import { lz4Filter } from './lz4/index.js';
import { zstdFilter } from './zstd/index.js';
import { bitshuffleFilter } from './bitshuffle/index.js';
import { ALL_FILTERS } from './builtin.js';
import { installWorkerPool } from '#pool';

export { deflateFilter, inflateFilter, deflateBackend, decodeLimit, DEFAULT_DEFLATE_LEVEL } from './deflate/index.js';
export { shuffleFilter, shuffle, unshuffle, unshuffleInto } from './shuffle/index.js';
export { fletcher32Filter, fletcher32, appendFletcher32, verifyFletcher32 } from './fletcher32/index.js';
export { scaleOffsetFilter, scaleOffsetDecode, scaleOffsetEncode, scaleOffsetSetLocal, SO_FLOAT_DSCALE, SO_INT, type FillValueContext } from './scaleoffset/index.js';
export { nbitFilter, nbitDecode, nbitEncode, nbitSetLocal } from './nbit/index.js';
export { lz4Filter, createLz4Filter, lz4Encode, lz4Decode, lz4CompressBound, jsLz4Codec, defaultLz4Codec, wasmLz4BlockCodec, LZ4_DEFAULT_BLOCK_SIZE, LZ4_HEADER_SIZE, type Lz4BlockCodec, type Lz4EncodeOptions } from './lz4/index.js';
export { zstdFilter, createZstdFilter, configureZstdWasm, type ZstdWasmOptions, zstdEncode, zstdDecode, zstdLevel, defaultZstdCodec, fzstdCodec, loadZstdWasm, ZSTD_DEFAULT_LEVEL, ZSTD_MIN_LEVEL, ZSTD_MAX_LEVEL, type ZstdCodec } from './zstd/index.js';
export { zstdFrameContentSize, ZSTD_MAGIC, type ZstdContentSize } from './zstd/frame.js';
export { bitshuffleFilter, createBitshuffleFilter, bitshuffleEncode, bitshuffleDecode, bitshuffleParams, bitshuffleSetLocal, DEFAULT_BITSHUFFLE_CODECS, BSHUF_VERSION, BSHUF_COMPRESS_NONE, BSHUF_COMPRESS_LZ4, BSHUF_COMPRESS_ZSTD, type BitshuffleCodecs, type BitshuffleParams } from './bitshuffle/index.js';

export { ALL_FILTERS } from './builtin.js';
export { configureWorkers, workerPoolSize, workerStats, startWorkers, stopWorkers, DEFAULT_WORKER_MIN_BYTES, type WorkerOptions } from '#pool';

/**
 * Registers every filter of this package (default container: chunkform's own; calling it again does
 * nothing), and lets large chunks run their pipelines on the worker pool (see {@link configureWorkers})
 * unless that was configured already. The one-filter functions below do not start the pool.
 */
export function registerFilters(opts?: Container | RegisterOptions): void {
  for (const f of ALL_FILTERS) registerFilter(f, opts);
  installWorkerPool();
}

// One registration function per filter, so an app bundles only the codecs it registers.
// `opts`: the container (default: chunkform's own) or `{ container, replace }`; calling one again does nothing.

/** Registers deflate (filter 1). */
export function registerDeflate(opts?: Container | RegisterOptions): void {
  registerFilter(deflateFilter, opts);
}
/**
 * Registers deflate (filter 1) for reading only: chunks decode as with {@link registerDeflate}, and the
 * compressor stays out of the bundle (≈ 3 KB min+gzip in browsers); writing deflate chunks is a
 * `FilterError`. Use one of the two per container (registering the other then needs `{ replace: true }`).
 */
export function registerInflate(opts?: Container | RegisterOptions): void {
  registerFilter(inflateFilter, opts);
}
/** Registers shuffle (filter 2). */
export function registerShuffle(opts?: Container | RegisterOptions): void {
  registerFilter(shuffleFilter, opts);
}
/** Registers Fletcher-32 (filter 3). */
export function registerFletcher32(opts?: Container | RegisterOptions): void {
  registerFilter(fletcher32Filter, opts);
}
/** Registers n-bit (filter 5). */
export function registerNbit(opts?: Container | RegisterOptions): void {
  registerFilter(nbitFilter, opts);
}
/** Registers scale-offset (filter 6). */
export function registerScaleOffset(opts?: Container | RegisterOptions): void {
  registerFilter(scaleOffsetFilter, opts);
}
/** Registers LZ4 (filter 32004). */
export function registerLz4(opts?: Container | RegisterOptions): void {
  registerFilter(lz4Filter, opts);
}
/** Registers zstd (filter 32015). */
export function registerZstd(opts?: Container | RegisterOptions): void {
  registerFilter(zstdFilter, opts);
}
/** Registers bitshuffle (filter 32008). */
export function registerBitshuffle(opts?: Container | RegisterOptions): void {
  registerFilter(bitshuffleFilter, opts);
}
