/**
 * Worker side of bench/vl.ts's two-thread checksum ceiling: lookup3 of the section ranges it is
 * sent, over the chunk images in one `SharedArrayBuffer` (no copy), then a reply. Messages:
 * `{ sab, ranges: Float64Array (start, end pairs) }` -> `{ sum }` (the checksums xored, so the work
 * cannot be skipped); `null` ends the worker.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { lookup3 } from '../packages/core/src/index.js';

// (bench/vl.ts imports hashRanges on the main thread too: no port there)
const port = parentPort;
port?.on('message', (m: { sab: SharedArrayBuffer; ranges: Float64Array } | null) => {
  if (m === null) {
    port.close();
    return;
  }
  port.postMessage({ sum: hashRanges(new Uint8Array(m.sab), m.ranges) });
});

/** lookup3 of each `[start, end)` range of `bytes`, xored together. */
export function hashRanges(bytes: Uint8Array, ranges: Float64Array): number {
  let sum = 0;
  for (let r = 0; r < ranges.length; r += 2) sum ^= lookup3(bytes.subarray(ranges[r]!, ranges[r + 1]!));
  return sum;
}
