/**
 * Jenkins lookup3 `hashlittle` (HDF5 file format spec, "Appendix C: Jenkins' lookup3 Hash
 * Function"): the checksum of every version-2+ metadata structure.
 * @module
 */

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function rot(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** lookup3 `hashlittle` of `bytes` with `initval` (HDF5 always uses 0). Returns an unsigned 32-bit value. */
export function lookup3(bytes: Uint8Array, initval = 0): number {
  let length = bytes.length;
  let a = (0xdeadbeef + length + initval) | 0;
  let b = a;
  let c = a;
  let k = 0;
  const u = bytes;
  if (LITTLE_ENDIAN && (u.byteOffset & 3) === 0 && length > 12) {
    // Aligned input on a little-endian host: the same words, read 4 bytes at a time (a loop of its
    // own, signed words: no conversion in the adds).
    const w = new Int32Array(u.buffer, u.byteOffset, (length - 1) >>> 2);
    let j = 0;
    for (; length > 12; length -= 12, j += 3) {
      a = (a + w[j]!) | 0;
      b = (b + w[j + 1]!) | 0;
      c = (c + w[j + 2]!) | 0;
      // mix(a, b, c), rotations written out
      a = (a - c) | 0; a ^= (c << 4) | (c >>> 28); c = (c + b) | 0;
      b = (b - a) | 0; b ^= (a << 6) | (a >>> 26); a = (a + c) | 0;
      c = (c - b) | 0; c ^= (b << 8) | (b >>> 24); b = (b + a) | 0;
      a = (a - c) | 0; a ^= (c << 16) | (c >>> 16); c = (c + b) | 0;
      b = (b - a) | 0; b ^= (a << 19) | (a >>> 13); a = (a + c) | 0;
      c = (c - b) | 0; c ^= (b << 4) | (b >>> 28); b = (b + a) | 0;
    }
    k = j * 4;
  }
  while (length > 12) {
    a = (a + (u[k]! | (u[k + 1]! << 8) | (u[k + 2]! << 16) | (u[k + 3]! << 24))) | 0;
    b = (b + (u[k + 4]! | (u[k + 5]! << 8) | (u[k + 6]! << 16) | (u[k + 7]! << 24))) | 0;
    c = (c + (u[k + 8]! | (u[k + 9]! << 8) | (u[k + 10]! << 16) | (u[k + 11]! << 24))) | 0;
    a = (a - c) | 0; a ^= rot(c, 4); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rot(a, 6); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rot(b, 8); b = (b + a) | 0;
    a = (a - c) | 0; a ^= rot(c, 16); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rot(a, 19); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rot(b, 4); b = (b + a) | 0;
    length -= 12;
    k += 12;
  }
  if (length === 0) return c >>> 0;
  // Tail: zero-padded little-endian words; only words holding data are added.
  let w0 = 0, w1 = 0, w2 = 0;
  for (let i = 0; i < length; i++) {
    const v = u[k + i]! << ((i & 3) * 8);
    if (i < 4) w0 |= v; else if (i < 8) w1 |= v; else w2 |= v;
  }
  a = (a + w0) | 0;
  if (length > 4) b = (b + w1) | 0;
  if (length > 8) c = (c + w2) | 0;
  c ^= b; c = (c - rot(b, 14)) | 0;
  a ^= c; a = (a - rot(c, 11)) | 0;
  b ^= a; b = (b - rot(a, 25)) | 0;
  c ^= b; c = (c - rot(b, 16)) | 0;
  a ^= c; a = (a - rot(c, 4)) | 0;
  b ^= a; b = (b - rot(a, 14)) | 0;
  c ^= b; c = (c - rot(b, 24)) | 0;
  return c >>> 0;
}
