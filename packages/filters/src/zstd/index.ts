/**
 * Zstandard filter (registered HDF5 filter 32015), framed as HDFGroup/hdf5_plugins
 * ZSTD/src/H5Zzstd.c frames it: the chunk is one zstd frame (`ZSTD_compress`, which records the
 * content size); decoding sizes the output by the first frame's content size and rejects frames
 * without one. Client data: `[level]` (int32 stored as uint32; default 3, clamped to
 * [-131072, 22]). The codec is pluggable ({@link createZstdFilter}); the default is zstd compiled
 * to WebAssembly (`@bokuweb/zstd-wasm`, loaded on first use), with `fzstd` (pure JavaScript) as
 * the decoding fallback.
 * @module
 */
import { decompress as fzstdDecompress } from 'fzstd';
import { FilterError, type Filter, type FilterContext } from '@chunkform/core/plugin';
import { decodeLimit } from '../deflate/index.js';
import { zstdFrameContentSize } from './frame.js';

const ID = 32015;
const NAME = 'zstd';
const INFO = { filterId: ID, filterName: NAME };
/** zstd's ZSTD_CLEVEL_DEFAULT, used when a pipeline gives no level. */
export const ZSTD_DEFAULT_LEVEL = 3;
/** ZSTD_minCLevel() / ZSTD_maxCLevel() of zstd 1.5. */
export const ZSTD_MIN_LEVEL = -131072;
export const ZSTD_MAX_LEVEL = 22;
/** A zstd block of ≥ 3 bytes decodes to at most 128 KiB (an RLE block). */
const MAX_RATIO = 43691;
/** Largest chunk HDF5 stores (chunk sizes are 32-bit). */
const MAX_CHUNK = 0xffffffff;

/** A Zstandard implementation: a browser bundle may supply another one to {@link createZstdFilter}. */
export interface ZstdCodec {
  /** Name shown in benchmarks. */
  readonly name: string;
  /** One zstd frame holding `data` and its content size (`ZSTD_compress` semantics). */
  compress(data: Uint8Array, level: number): Uint8Array | Promise<Uint8Array>;
  /**
   * Decodes the frame(s) in `data` whose content size is `out.length` (already checked), into
   * `out` or a buffer of its own; returns the decoded bytes.
   */
  decompress(data: Uint8Array, out: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

interface ZstdWasm {
  init(path?: string): Promise<void>;
  compress(buf: Uint8Array, level?: number): Uint8Array;
  decompress(buf: Uint8Array): Uint8Array;
}

/** How the zstd WebAssembly module is loaded ({@link configureZstdWasm}). */
export interface ZstdWasmOptions {
  /**
   * Browsers: URL of `zstd.wasm` (from `@bokuweb/zstd-wasm/dist/web/zstd.wasm`, served by your app). Without
   * it the module looks for `zstd.wasm` beside the script, which a bundle usually does not ship.
   */
  url?: string;
  /**
   * Stop waiting for the module after this many milliseconds (default 5 000): decoding then uses `fzstd`, and
   * compression fails until the module arrives (a module that loads late is still taken).
   */
  timeoutMs?: number;
}

/** Default time limit of loading the WebAssembly module (ms). */
const DEFAULT_WASM_TIMEOUT_MS = 5_000;

let wasmOptions: ZstdWasmOptions = {};
let wasm: ZstdWasm | undefined;
let wasmLoading: Promise<ZstdWasm> | undefined;
let wasmFailed = false;

/**
 * Sets where and how long the zstd WebAssembly module is loaded. Call it before the first zstd chunk is
 * read or written; later calls do not reload a module that loaded.
 */
export function configureZstdWasm(opts: ZstdWasmOptions): void {
  wasmOptions = { ...opts };
  if (!wasm) {
    wasmLoading = undefined;
    wasmFailed = false;
  }
}

/** `p`, or a rejection after `ms` milliseconds (the timer does not keep Node alive). */
function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    (t as { unref?: () => void }).unref?.();
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e)),
    );
  });
}

/**
 * Loads `@bokuweb/zstd-wasm` once (zstd compiled to WebAssembly), within the time limit of
 * {@link configureZstdWasm}; a failure or time-out is remembered, and decoding falls back to `fzstd`.
 */
export function loadZstdWasm(): Promise<ZstdWasm> {
  if (wasmLoading) return wasmLoading;
  const loading = import('./wasm-module.js').then(async (mod: ZstdWasm) => {
    await (wasmOptions.url ? mod.init(wasmOptions.url) : mod.init());
    return mod;
  });
  // A module that finishes loading after the time limit is still taken (compression works again).
  loading.then(
    (mod) => {
      wasm = mod;
      wasmFailed = false;
    },
    () => undefined,
  );
  wasmLoading = withTimeout(loading, wasmOptions.timeoutMs ?? DEFAULT_WASM_TIMEOUT_MS, 'loading the zstd WebAssembly module').catch((e: unknown) => {
    if (!wasm) wasmFailed = true;
    throw e;
  });
  return wasmLoading;
}

/** Pure JavaScript decoding (`fzstd`), no WebAssembly; it cannot encode. */
export const fzstdCodec: ZstdCodec = {
  name: 'fzstd',
  compress() {
    throw new Error('fzstd cannot compress');
  },
  decompress: (data, out) => fzstdDecompress(data, out),
};

/**
 * The default codec: zstd compiled to WebAssembly (`@bokuweb/zstd-wasm`, loaded on first use)
 * for both directions; decoding falls back to `fzstd` if the WebAssembly module cannot load.
 */
export const defaultZstdCodec: ZstdCodec = {
  name: 'zstd-wasm',
  compress(data, level) {
    if (wasm) return wasm.compress(data, level);
    return loadZstdWasm().then((w) => w.compress(data, level));
  },
  decompress(data, out) {
    if (wasm) return wasm.decompress(data);
    if (wasmFailed) return fzstdCodec.decompress(data, out);
    return loadZstdWasm().then(
      (w) => w.decompress(data),
      () => fzstdCodec.decompress(data, out),
    );
  },
};

/** The zstd filter's error (`zstd: ` + `message`). */
export function zstdError(message: string, cause?: unknown): FilterError {
  return new FilterError(`zstd: ${message}`, cause === undefined ? INFO : { ...INFO, cause });
}

function why(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The compression level of a pipeline's client data (H5Zzstd.c: int, clamped). */
export function zstdLevel(clientData: readonly number[]): number {
  if (clientData.length === 0) return ZSTD_DEFAULT_LEVEL;
  const l = clientData[0]! | 0;
  return Math.min(ZSTD_MAX_LEVEL, Math.max(ZSTD_MIN_LEVEL, l));
}

/** Spec IV.A.2.l, filter 32015 (H5Zzstd.c, forward): one zstd frame (synchronous once the codec is loaded). */
export function zstdEncode(data: Uint8Array, level = ZSTD_DEFAULT_LEVEL, codec: ZstdCodec = defaultZstdCodec): Uint8Array | Promise<Uint8Array> {
  let r: Uint8Array | Promise<Uint8Array>;
  try {
    r = codec.compress(data, level);
  } catch (e) {
    throw zstdError(`compression failed: ${why(e)}`, e);
  }
  if (r instanceof Uint8Array) return r;
  return r.catch((e: unknown) => {
    throw zstdError(`compression failed: ${why(e)}`, e);
  });
}

/**
 * Checks the frame header; returns the content size.
 * @throws FilterError not a zstd frame, no content size, an oversized claim (more than `limit` when > 0).
 */
export function zstdContentSize(data: Uint8Array, limit: number): number {
  const cs = zstdFrameContentSize(data);
  if (cs.kind === 'error') throw zstdError(`not a valid zstd frame (${cs.reason})`);
  if (cs.kind === 'unknown') throw zstdError('the zstd frame does not record its decompressed size (streaming API), which the HDF5 filter does not support');
  const size = cs.size;
  if (size === 0) throw zstdError('the zstd frame has zero decompressed size');
  if (size > MAX_CHUNK || size > data.length * MAX_RATIO) throw zstdError(`the frame claims ${size} bytes, more than ${data.length} compressed bytes can hold`);
  if (limit > 0 && size > limit) throw zstdError(`the frame claims ${size} bytes, more than the chunk's limit of ${limit}`);
  return size;
}

function finish(got: Uint8Array, size: number): Uint8Array {
  if (got.length !== size) throw zstdError(`the data decodes to ${got.length} bytes, the frame header says ${size}`);
  return got;
}

/**
 * Spec IV.A.2.l, filter 32015 (H5Zzstd.c, reverse): decodes one zstd frame; `limit` (> 0) caps
 * the content size the frame may claim.
 * @throws FilterError not a zstd frame, no content size, corrupt data, an oversized claim.
 */
export function zstdDecode(data: Uint8Array, limit = 0, codec: ZstdCodec = defaultZstdCodec): Uint8Array | Promise<Uint8Array> {
  const size = zstdContentSize(data, limit);
  let got: Uint8Array | Promise<Uint8Array>;
  try {
    // (the loaded WebAssembly decoder returns a buffer of its own: a zeroed `out` it would not use cost a
    // 2 MiB allocation per chunk and its freeing — 10–18 ms of V8's helper threads per 32 MiB read)
    got = codec === defaultZstdCodec && wasm ? wasm.decompress(data) : codec.decompress(data, new Uint8Array(size));
  } catch (e) {
    throw zstdError(`corrupt zstd data: ${why(e)}`, e);
  }
  if (got instanceof Uint8Array) return finish(got, size);
  return got.then(
    (g) => finish(g, size),
    (e: unknown) => {
      throw zstdError(`corrupt zstd data: ${why(e)}`, e);
    },
  );
}

/** A zstd filter (id 32015) using `codec`. */
export function createZstdFilter(codec: ZstdCodec = defaultZstdCodec): Filter {
  return {
    id: ID,
    name: NAME,
    encode: (data, ctx: FilterContext) => zstdEncode(data, zstdLevel(ctx.clientData), codec),
    decode: (data, ctx: FilterContext) => zstdDecode(data, decodeLimit(ctx), codec),
    setLocal(clientData) {
      if (clientData.length > 1 || clientData.some((v) => !Number.isInteger(v) || v < -0x80000000 || v > 0xffffffff)) {
        throw zstdError(`invalid client data [${clientData.join(', ')}] (expected [level])`);
      }
      return clientData.map((v) => v >>> 0);
    },
  };
}

/** The zstd filter (id 32015) with the default codec. */
export const zstdFilter: Filter = createZstdFilter();
