/**
 * The run-length byte format of one chunk (the chunk's only section): a little-endian u32 run
 * count R, then R runs of (u32 run length, one element of `elementSize` bytes). The runs cover the
 * chunk's elements in C order; their lengths add up to the chunk's element count. Pure functions.
 * @module
 */
import { FormatError } from '@chunkform/core';

/** Bytes of the run count. */
const HEADER = 4;

/** Encodes `chunk` (`chunk.length / es` elements) as runs of equal elements. */
export function rleEncode(chunk: Uint8Array, es: number): Uint8Array {
  const n = chunk.length / es;
  // Worst case: every element its own run.
  const out = new Uint8Array(HEADER + n * (4 + es));
  const view = new DataView(out.buffer);
  let at = HEADER;
  let runs = 0;
  let start = 0;
  while (start < n) {
    let end = start + 1;
    const a = start * es;
    while (end < n && sameElement(chunk, a, end * es, es)) end++;
    view.setUint32(at, end - start, true);
    out.set(chunk.subarray(a, a + es), at + 4);
    at += 4 + es;
    runs++;
    start = end;
  }
  view.setUint32(0, runs, true);
  return out.slice(0, at);
}

function sameElement(b: Uint8Array, i: number, j: number, es: number): boolean {
  for (let k = 0; k < es; k++) if (b[i + k] !== b[j + k]) return false;
  return true;
}

/**
 * Decodes runs into a chunk of `elements` elements of `es` bytes.
 * @throws FormatError when the runs do not fit the stored bytes or do not cover the chunk exactly.
 */
export function rleDecode(stored: Uint8Array, elements: number, es: number, path: string): Uint8Array {
  const bad = (what: string): FormatError => new FormatError(`run-length chunk: ${what}`, { path, structure: 'rle chunk' });
  if (stored.length < HEADER) throw bad(`${stored.length} bytes, too short for the run count`);
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  const runs = view.getUint32(0, true);
  // Checked against the bytes present before anything is sized by it.
  if (HEADER + runs * (4 + es) !== stored.length) throw bad(`${runs} runs do not fill the ${stored.length} stored bytes`);
  const out = new Uint8Array(elements * es);
  let filled = 0;
  for (let r = 0, at = HEADER; r < runs; r++, at += 4 + es) {
    const len = view.getUint32(at, true);
    if (len === 0 || filled + len > elements) throw bad(`run ${r} of ${len} elements overruns the chunk of ${elements}`);
    const value = stored.subarray(at + 4, at + 4 + es);
    if (es === 1) out.fill(value[0]!, filled, filled + len);
    else {
      // Doubling copy: one element, then 1, 2, 4 … elements at a time.
      const base = filled * es;
      out.set(value, base);
      for (let have = 1; have < len; have *= 2) out.copyWithin(base + have * es, base, base + Math.min(have, len - have) * es);
    }
    filled += len;
  }
  if (filled !== elements) throw bad(`runs cover ${filled} of the chunk's ${elements} elements`);
  return out;
}
