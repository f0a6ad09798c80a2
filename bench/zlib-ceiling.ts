/**
 * Ceilings of this machine for issue #3's targets, measured in the same run: Node's native zlib
 * alone (level 1, the same bytes cut into chunk-sized pieces, 8 calls in flight on libuv's thread
 * pool as the chunk engine keeps them), and the copy of chunk rows into frame order alone — no
 * HDF5, no file. What a dataset write or read can reach is bounded by these figures.
 * @module
 */
import { deflate, deflateSync, inflate } from 'node:zlib';
import { bestSeconds as best } from './timing.js';

const IN_FLIGHT = 8;

/** Runs `fn` over piece indexes 0..n-1 with IN_FLIGHT promises in flight. */
async function pool(n: number, fn: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
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

/**
 * Seconds to copy `bytes` (frames of `h × w` elements of `es` bytes) from chunk order into frame
 * order for chunks of `ch × cw`, one `subarray` + `set` per chunk row, warm buffers, no file: the
 * floor of any read of such chunks into a frame-shaped array in JavaScript (one copy per row is
 * unavoidable; each costs a call, not just its bytes).
 */
export async function rowCopyFloor(bytes: Uint8Array, h: number, w: number, ch: number, cw: number, es: number, repeat: number): Promise<number> {
  const out = new Uint8Array(bytes.length);
  out.fill(1);
  const frame = h * w * es;
  const row = cw * es;
  const line = w * es;
  const chunk = ch * row;
  return best(repeat, async () => {
    for (let f = 0; f + frame <= bytes.length; f += frame) {
      let c = f;
      for (let ty = 0; ty < h; ty += ch) {
        for (let tx = 0; tx < w * es; tx += row) {
          for (let r = 0; r < ch; r++) out.set(bytes.subarray(c + r * row, c + (r + 1) * row), f + (ty + r) * line + tx);
          c += chunk;
        }
      }
    }
  });
}
