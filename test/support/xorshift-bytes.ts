/**
 * Test data: `length` bytes below 0x80 from an xorshift generator seeded with `seed` (they do not
 * deflate much, so chunks keep their size through gzip).
 * @module
 */
export function xorshiftBytes(seed: number, length: number): Uint8Array {
  const d = new Uint8Array(length);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < d.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    d[i] = x & 0x7f;
  }
  return d;
}
