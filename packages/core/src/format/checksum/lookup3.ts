/**
 * Jenkins lookup3 `hashlittle` (HDF5 file format spec, "Appendix C: Jenkins' lookup3 Hash
 * Function"): the checksum of every version-2+ metadata structure.
 *
 * Words are read with `DataView.getInt32(…, true)`: little-endian on any host and at any byte
 * offset. Each 12-byte block's mix waits on the one before (≈ 13 cycles per block), so one input's
 * hash runs at the latency of that chain with the CPU's units mostly idle, and the unaligned reads
 * cost nothing measurable (266 KB at byte offset 1: 79 µs, the same as aligned; byte by byte it
 * was 147 µs), nor does shared memory (a `SharedArrayBuffer`: 80 µs; through an `Int32Array` it
 * was 202 µs). BENCHMARKS.md "vlhash".
 * @module
 */

function rot(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** lookup3 `hashlittle` of `bytes` with `initval` (HDF5 always uses 0). Returns an unsigned 32-bit value. */
export function lookup3(bytes: Uint8Array, initval = 0): number {
  const a = (0xdeadbeef + bytes.length + initval) | 0;
  return hashFrom(bytes, 0, a, a, a);
}

/**
 * lookup3 `hashlittle` (initval 0) of `x` and of `y`, written to `out[0]` and `out[1]`: the same values
 * as two {@link lookup3} calls, in about the time of the longer one alone. The two inputs' chains are
 * mixed in one loop so the CPU runs them side by side; the longer input's chain sets the pace: while
 * it has at least twice the blocks left, each turn mixes two of its blocks and one of the shorter's
 * (both inputs' blocks then fit in the latency of the longer's chain), then one of each while both
 * have blocks, then each input's rest alone. A VL chunk image's two sections (131 KB of entries, a
 * 266 KB heap): 84 µs against 99 µs one-and-one and 79 µs for the heap's lookup3 alone
 * (docs/format-vl.md §5.2).
 */
export function lookup3Pair(x: Uint8Array, y: Uint8Array, out: Uint32Array): void {
  const swap = y.length < x.length;
  const s = swap ? y : x; // the shorter input (state s*) and the longer (l*)
  const l = swap ? x : y;
  let sa = (0xdeadbeef + s.length) | 0;
  let sb = sa;
  let sc = sa;
  let la = (0xdeadbeef + l.length) | 0;
  let lb = la;
  let lc = la;
  let i = 0;
  let j = 0;
  if (s.length > 12) {
    // blocks that are not the last block of their input (a last block of 1–12 bytes is the tail)
    const bs = Math.floor((s.length - 1) / 12);
    const bl = Math.floor((l.length - 1) / 12);
    // turns of one short and two long blocks until the long has as many left as the short (or the short none)
    const two = Math.min(bs, bl - bs);
    const one = Math.min(bs - two, bl - 2 * two);
    const p = new DataView(s.buffer, s.byteOffset, (two + one) * 12);
    const q = new DataView(l.buffer, l.byteOffset, (2 * two + one) * 12);
    for (let t = 0, turns = two + one; t < turns; t++, i += 12, j += 12) {
      la = (la + q.getInt32(j, true)) | 0; lb = (lb + q.getInt32(j + 4, true)) | 0; lc = (lc + q.getInt32(j + 8, true)) | 0;
      sa = (sa + p.getInt32(i, true)) | 0; sb = (sb + p.getInt32(i + 4, true)) | 0; sc = (sc + p.getInt32(i + 8, true)) | 0;
      // mix(a, b, c) of each, rotations written out
      la = (la - lc) | 0; la ^= (lc << 4) | (lc >>> 28); lc = (lc + lb) | 0;
      sa = (sa - sc) | 0; sa ^= (sc << 4) | (sc >>> 28); sc = (sc + sb) | 0;
      lb = (lb - la) | 0; lb ^= (la << 6) | (la >>> 26); la = (la + lc) | 0;
      sb = (sb - sa) | 0; sb ^= (sa << 6) | (sa >>> 26); sa = (sa + sc) | 0;
      lc = (lc - lb) | 0; lc ^= (lb << 8) | (lb >>> 24); lb = (lb + la) | 0;
      sc = (sc - sb) | 0; sc ^= (sb << 8) | (sb >>> 24); sb = (sb + sa) | 0;
      la = (la - lc) | 0; la ^= (lc << 16) | (lc >>> 16); lc = (lc + lb) | 0;
      sa = (sa - sc) | 0; sa ^= (sc << 16) | (sc >>> 16); sc = (sc + sb) | 0;
      lb = (lb - la) | 0; lb ^= (la << 19) | (la >>> 13); la = (la + lc) | 0;
      sb = (sb - sa) | 0; sb ^= (sa << 19) | (sa >>> 13); sa = (sa + sc) | 0;
      lc = (lc - lb) | 0; lc ^= (lb << 4) | (lb >>> 28); lb = (lb + la) | 0;
      sc = (sc - sb) | 0; sc ^= (sb << 4) | (sb >>> 28); sb = (sb + sa) | 0;
      if (t < two) {
        // the long input's second block of the turn
        j += 12;
        la = (la + q.getInt32(j, true)) | 0; lb = (lb + q.getInt32(j + 4, true)) | 0; lc = (lc + q.getInt32(j + 8, true)) | 0;
        la = (la - lc) | 0; la ^= (lc << 4) | (lc >>> 28); lc = (lc + lb) | 0;
        lb = (lb - la) | 0; lb ^= (la << 6) | (la >>> 26); la = (la + lc) | 0;
        lc = (lc - lb) | 0; lc ^= (lb << 8) | (lb >>> 24); lb = (lb + la) | 0;
        la = (la - lc) | 0; la ^= (lc << 16) | (lc >>> 16); lc = (lc + lb) | 0;
        lb = (lb - la) | 0; lb ^= (la << 19) | (la >>> 13); la = (la + lc) | 0;
        lc = (lc - lb) | 0; lc ^= (lb << 4) | (lb >>> 28); lb = (lb + la) | 0;
      }
    }
  }
  const hs = hashFrom(s, i, sa, sb, sc);
  const hl = hashFrom(l, j, la, lb, lc);
  out[0] = swap ? hl : hs;
  out[1] = swap ? hs : hl;
}

/** The rest of `hashlittle` over `u` from byte `k` (a multiple of 12) with the state `a`, `b`, `c`. */
function hashFrom(u: Uint8Array, k: number, a0: number, b0: number, c0: number): number {
  // (int32 locals: parameters reassigned in the loop made it ≈ 2× slower)
  let a = a0 | 0;
  let b = b0 | 0;
  let c = c0 | 0;
  let length = u.length - k;
  if (length > 12) {
    const w = new DataView(u.buffer, u.byteOffset + k, length);
    let j = 0;
    for (; length > 12; length -= 12, j += 12) {
      a = (a + w.getInt32(j, true)) | 0;
      b = (b + w.getInt32(j + 4, true)) | 0;
      c = (c + w.getInt32(j + 8, true)) | 0;
      // mix(a, b, c), rotations written out
      a = (a - c) | 0; a ^= (c << 4) | (c >>> 28); c = (c + b) | 0;
      b = (b - a) | 0; b ^= (a << 6) | (a >>> 26); a = (a + c) | 0;
      c = (c - b) | 0; c ^= (b << 8) | (b >>> 24); b = (b + a) | 0;
      a = (a - c) | 0; a ^= (c << 16) | (c >>> 16); c = (c + b) | 0;
      b = (b - a) | 0; b ^= (a << 19) | (a >>> 13); a = (a + c) | 0;
      c = (c - b) | 0; c ^= (b << 4) | (b >>> 28); b = (b + a) | 0;
    }
    k += j;
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
