/**
 * Warming a filter worker before it takes chunks: the codecs this process has already used are
 * loaded (the WebAssembly modules of LZ4, bitshuffle and zstd compiled and instantiated, the
 * JavaScript shuffle and Fletcher-32 run once), so a worker the pool starts later — when it grows, or after
 * `configureWorkers` — does not spend its first chunk on that while the others are busy. Given the
 * size of the chunks the pool has run, the WebAssembly codecs also run once over that many bytes:
 * their memory grows and is touched, and the kept buffers are allocated, here rather than during
 * the worker's first chunk (a cold LZ4 worker took twice as long over its first 2 MiB chunk).
 * @module
 */
import { defaultLz4Codec, lz4Decode, lz4Encode } from '../lz4/index.js';
import { loadZstdWasm, zstdDecode, zstdEncode } from '../zstd/index.js';
import { shuffle, unshuffle } from '../shuffle/index.js';
import { fletcher32 } from '../fletcher32/index.js';

/** Picks (compiles and instantiates) the WebAssembly LZ4 codec, whose module also holds bitshuffle and fused bitshuffle+LZ4. */
const lz4 = (): string => defaultLz4Codec.name;

/** Most bytes a codec runs over while warming (larger chunks grow the memory on their first one). */
export const WARM_MAX_BYTES = 4 << 20;

/** `n` bytes that compress about as well as detector data (small counts), so the codecs write much of their output space. */
function sample(n: number): Uint8Array {
  const d = new Uint8Array(n);
  for (let i = 0; i < n; i += 2) d[i] = (Math.imul(i, 0x9e3779b1) >>> 28) + 90;
  return d;
}

/** Runs a codec over `bytes` of data, forward and back (the size of the chunks the pool has run). */
const SIZED: Readonly<Record<number, (bytes: number) => unknown>> = {
  32004: (bytes) => lz4Decode(lz4Encode(sample(bytes))),
  32015: async (bytes) => zstdDecode(await zstdEncode(sample(bytes), 3)),
};

/** What loads each filter's codec (filters not listed need nothing: zlib is native, the rest are small). */
const WARM: Readonly<Record<number, () => unknown>> = {
  // JavaScript loops: run over 1 MiB, long enough for the optimizing compiler (a cold worker's first
  // 2 MiB shuffle took 16 ms instead of 2)
  2: () => {
    const d = new Uint8Array(1 << 20);
    for (const es of [2, 4]) unshuffle(shuffle(d, es), es); // 16- and 32-bit elements: the common ones
  },
  3: () => fletcher32(new Uint8Array(1 << 20)),
  32004: lz4,
  32008: lz4,
  32015: () => loadZstdWasm(),
};

/**
 * Loads the codecs of the filters `ids` on this thread and, with `bytes` (the size of the chunks the
 * pool has run; at most {@link WARM_MAX_BYTES} taken), runs the WebAssembly LZ4 and zstd codecs once
 * over that many bytes. Never throws: a codec that fails to load here fails (or falls back) as it
 * would have on first use.
 */
export async function warmFilters(ids: readonly number[], bytes = 0): Promise<void> {
  const done = new Set<unknown>();
  const n = Math.min(Math.max(0, Math.floor(bytes)), WARM_MAX_BYTES);
  for (const id of ids) {
    const warm = WARM[id];
    const sized = n > 0 ? SIZED[id] : undefined;
    try {
      if (warm && !done.has(warm)) {
        done.add(warm);
        await warm();
      }
      if (sized) await sized(n);
    } catch {
      // left to the first chunk, which reports it as before
    }
  }
}
