/**
 * zstd decoding straight into a chunk's place (`Filter.decodeInto`, HDF5 filter 32015 reverse) for the
 * filter workers: the frame is decoded in the WebAssembly heap of `@bokuweb/zstd-wasm` and copied once,
 * from there into `out` (a read's result in shared memory). The package's own `decompress` returns a
 * copy of the heap's bytes (a new 2 MiB buffer per 1024² uint16 chunk) that the worker then copied
 * again into the result: per chunk one allocation, its first touches and its freeing, and one copy
 * more. Node only (the module of the package's Node build, the instance `loadZstdWasm()` initialised):
 * ../workers/worker.ts is its sole importer, so no browser bundle reaches it.
 * @module
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FilterContext } from '@chunkform/core/plugin';
import { decodeLimit } from '../deflate/index.js';
import { loadZstdWasm, zstdContentSize, zstdDecode, zstdError } from './index.js';

/** The parts of the package's Emscripten module used here. */
interface ZstdModule {
  _malloc(n: number): number;
  _free(p: number): void;
  _ZSTD_decompress(dst: number, capacity: number, src: number, n: number): number;
  _ZSTD_isError(code: number): number;
  HEAPU8: Uint8Array;
}

/** The module once loaded (null: its exports are not what this file expects; undefined: not looked at yet). */
let mod: ZstdModule | null | undefined;

/** The initialised module, or null when it did not load or does not look as expected (then the package's `decompress` path runs). */
async function loaded(): Promise<ZstdModule | null> {
  if (mod !== undefined) return mod;
  try {
    await loadZstdWasm();
  } catch {
    return null; // (not remembered: a module that loads late is taken then)
  }
  try {
    // (the package exports only its root: its module file is found beside the root's Node build — the same
    // file, so the same instance, that the root loaded)
    const require = createRequire(import.meta.url);
    const m = (require(join(dirname(require.resolve('@bokuweb/zstd-wasm')), 'module.js')) as { Module?: Partial<ZstdModule> }).Module;
    const ok = !!m && typeof m._malloc === 'function' && typeof m._free === 'function' && typeof m._ZSTD_decompress === 'function' && typeof m._ZSTD_isError === 'function' && m.HEAPU8 instanceof Uint8Array;
    mod = ok ? (m as ZstdModule) : null;
  } catch {
    mod = null;
  }
  return mod;
}

/**
 * Decodes the zstd frame `data` into `out`, whose length must be the frame's content size (the
 * chunk's bytes); `ctx` gives the chunk's size limit as for the filter's `decode`.
 * @throws FilterError as `zstdDecode` (not a frame, no content size, an oversized claim, corrupt data), and when `out` has another length than the frame's content.
 */
export async function zstdDecodeInto(data: Uint8Array, ctx: Pick<FilterContext, 'chunkDims' | 'elementSize'>, out: Uint8Array): Promise<void> {
  const limit = decodeLimit(ctx);
  const size = zstdContentSize(data, limit);
  if (size !== out.length) throw zstdError(`the frame claims ${size} bytes, ${out.length} expected`);
  const m = await loaded();
  const src = m ? m._malloc(data.length) : 0;
  const dst = m && src ? m._malloc(size) : 0;
  try {
    if (!m || !src || !dst) {
      // (no module, or its heap cannot hold the frame: the package's own path, or fzstd)
      out.set(await zstdDecode(data, limit));
      return;
    }
    m.HEAPU8.set(data, src); // (HEAPU8 read after the allocations: a heap that grew has a new view)
    const n = m._ZSTD_decompress(dst, size, src, data.length);
    if (m._ZSTD_isError(n)) throw zstdError(`corrupt zstd data (zstd error ${-n >>> 0})`);
    if (n !== size) throw zstdError(`the data decodes to ${n} bytes, the frame header says ${size}`);
    out.set(m.HEAPU8.subarray(dst, dst + size));
  } finally {
    if (m) (m._free(dst), m._free(src));
  }
}
