/**
 * The deflate ceiling of this machine for issue #3's "≥ 3× h5wasm with deflate" target: Node's
 * native zlib alone, level 1, on the same bytes cut into chunk-sized pieces, with 8 calls in flight
 * on libuv's thread pool (as the chunk engine keeps them) — no HDF5, no file. What a dataset write
 * or read can reach is bounded by these figures.
 * @module
 */
import { deflate, deflateSync, inflate } from 'node:zlib';

const IN_FLIGHT = 8;

/** Runs `fn` over piece indexes 0..n-1 with IN_FLIGHT promises in flight. */
async function pool(n: number, fn: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Best seconds of `repeat` runs. */
async function best(repeat: number, fn: () => Promise<void>): Promise<number> {
  let t = Infinity;
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    await fn();
    t = Math.min(t, performance.now() - t0);
  }
  return t / 1000;
}

/**
 * Seconds to deflate (level 1) `bytes` in pieces of `piece` bytes, and to inflate the pieces and
 * copy them into a new array (as `Dataset.read()` returns one).
 */
export async function zlibCeiling(bytes: Uint8Array, piece: number, repeat: number): Promise<{ deflate: number; inflate: number }> {
  const n = Math.ceil(bytes.length / piece);
  const part = (k: number): Uint8Array => bytes.subarray(k * piece, Math.min(bytes.length, (k + 1) * piece));
  const tDeflate = await best(repeat, () =>
    pool(n, (k) => new Promise<void>((resolve, reject) => deflate(part(k).slice(), { level: 1 }, (e) => (e ? reject(e) : resolve())))),
  );
  const packed = Array.from({ length: n }, (_, k) => deflateSync(part(k), { level: 1 }));
  const tInflate = await best(repeat, async () => {
    const out = new Uint8Array(bytes.length);
    await pool(
      n,
      (k) =>
        new Promise<void>((resolve, reject) =>
          inflate(packed[k]!, { chunkSize: piece + 1 }, (e, d) => {
            if (e) return reject(e);
            out.set(d, k * piece);
            resolve();
          }),
        ),
    );
  });
  return { deflate: tDeflate, inflate: tInflate };
}
