/**
 * Warming a filter worker before it takes chunks: the codecs this process has already used are
 * loaded (the WebAssembly modules of LZ4, bitshuffle and zstd compiled and instantiated, the
 * JavaScript shuffle and Fletcher-32 run once), so a worker the pool starts later — when it grows, or after
 * `configureWorkers` — does not spend its first chunk on that while the others are busy.
 * @module
 */
import { defaultLz4Codec } from '../lz4/index.js';
import { loadZstdWasm } from '../zstd/index.js';
import { shuffle, unshuffle } from '../shuffle/index.js';
import { fletcher32 } from '../fletcher32/index.js';

/** Picks (compiles and instantiates) the WebAssembly LZ4 codec, whose module also holds bitshuffle and fused bitshuffle+LZ4. */
const lz4 = (): string => defaultLz4Codec.name;

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
 * Loads the codecs of the filters `ids` on this thread. Never throws: a codec that fails to load
 * here fails (or falls back) as it would have on first use.
 */
export async function warmFilters(ids: readonly number[]): Promise<void> {
  const done = new Set<() => unknown>();
  for (const id of ids) {
    const warm = WARM[id];
    if (!warm || done.has(warm)) continue;
    done.add(warm);
    try {
      await warm();
    } catch {
      // left to the first chunk, which reports it as before
    }
  }
}
