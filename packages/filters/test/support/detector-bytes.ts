/**
 * Test helper: `n` bytes of a detector-like uint16 frame (small counts in the low bytes, zero high
 * bytes), different for each `seed`.
 * @module
 */
export function detectorBytes(n: number, seed: number): Uint8Array {
  const v = new Uint8Array(n);
  for (let i = 0, x = seed; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    v[i] = i % 2 ? 0 : (x >>> 27) & 15;
  }
  return v;
}
