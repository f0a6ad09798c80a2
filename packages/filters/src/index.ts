/**
 * @packageDocumentation
 * `@chunkform/filters`: the HDF5 filters deflate (1), shuffle (2), fletcher32 (3), n-bit (5),
 * scale-offset (6), LZ4 (32004), zstd (32015) and bitshuffle (32008) for `@chunkform/core`. Importing this package registers nothing (it is free of
 * side effects); call {@link registerFilters} once, or register single filters with core's
 * `registerFilter`.
 */
import { defaultContainer, registerFilter, type Container } from '@chunkform/core/internal/di/container';
import { ALL_FILTERS } from './builtin.js';
import { installWorkerPool } from './workers/pool.js';

export { deflateFilter, deflateBackend, decodeLimit, DEFAULT_DEFLATE_LEVEL } from './deflate/index.js';
export { shuffleFilter, shuffle, unshuffle } from './shuffle/index.js';
export { fletcher32Filter, fletcher32, appendFletcher32, verifyFletcher32 } from './fletcher32/index.js';
export { scaleOffsetFilter, scaleOffsetDecode, scaleOffsetEncode, scaleOffsetSetLocal, SO_FLOAT_DSCALE, SO_INT, type FillValueContext } from './scaleoffset/index.js';
export { nbitFilter, nbitDecode, nbitEncode, nbitSetLocal } from './nbit/index.js';
export { lz4Filter, createLz4Filter, lz4Encode, lz4Decode, lz4CompressBound, jsLz4Codec, defaultLz4Codec, wasmLz4BlockCodec, LZ4_DEFAULT_BLOCK_SIZE, LZ4_HEADER_SIZE, type Lz4BlockCodec, type Lz4EncodeOptions } from './lz4/index.js';
export { zstdFilter, createZstdFilter, configureZstdWasm, type ZstdWasmOptions, zstdEncode, zstdDecode, zstdLevel, defaultZstdCodec, fzstdCodec, loadZstdWasm, ZSTD_DEFAULT_LEVEL, ZSTD_MIN_LEVEL, ZSTD_MAX_LEVEL, type ZstdCodec } from './zstd/index.js';
export { zstdFrameContentSize, ZSTD_MAGIC, type ZstdContentSize } from './zstd/frame.js';
export { bitshuffleFilter, createBitshuffleFilter, bitshuffleEncode, bitshuffleDecode, bitshuffleParams, bitshuffleSetLocal, DEFAULT_BITSHUFFLE_CODECS, BSHUF_VERSION, BSHUF_COMPRESS_NONE, BSHUF_COMPRESS_LZ4, BSHUF_COMPRESS_ZSTD, type BitshuffleCodecs, type BitshuffleParams } from './bitshuffle/index.js';

export { ALL_FILTERS } from './builtin.js';
export { configureWorkers, workerPoolSize, workerStats, startWorkers, stopWorkers, DEFAULT_WORKER_MIN_BYTES, type WorkerOptions } from './workers/pool.js';

/**
 * Registers every filter of this package in `container` (default: the process-wide one), and
 * lets large chunks run their pipelines on the worker pool (see {@link configureWorkers}) unless
 * that was configured already.
 */
export function registerFilters(container: Container = defaultContainer): void {
  for (const f of ALL_FILTERS) registerFilter(f, container);
  installWorkerPool();
}
