/**
 * Plain-JS bit transposition, the fallback when WebAssembly is unavailable. Same output as the
 * WASM builds (bitshuffle_core.c `bshuf_trans_bit_elem` / `bshuf_untrans_bit_elem`), one block at
 * a time; the 64-bit 8×8 bit transpose is done on two 32-bit halves.
 * @module
 */

/** Writes the 8×8 bit transpose of the 64-bit word (lo, hi) into `out[o + k * stride]`, k = 0..7. */
function scatterTransposed(lo: number, hi: number, out: Uint8Array, o: number, stride: number): void {
  let t = (lo ^ (lo >>> 7)) & 0x00aa00aa;
  lo = lo ^ t ^ (t << 7);
  t = (hi ^ (hi >>> 7)) & 0x00aa00aa;
  hi = hi ^ t ^ (t << 7);
  t = (lo ^ (lo >>> 14)) & 0x0000cccc;
  lo = lo ^ t ^ (t << 14);
  t = (hi ^ (hi >>> 14)) & 0x0000cccc;
  hi = hi ^ t ^ (t << 14);
  t = (lo ^ ((lo >>> 28) | (hi << 4))) & 0xf0f0f0f0;
  lo ^= t;
  hi ^= t >>> 4;
  out[o] = lo;
  out[o + stride] = lo >>> 8;
  out[o + 2 * stride] = lo >>> 16;
  out[o + 3 * stride] = lo >>> 24;
  out[o + 4 * stride] = hi;
  out[o + 5 * stride] = hi >>> 8;
  out[o + 6 * stride] = hi >>> 16;
  out[o + 7 * stride] = hi >>> 24;
}

/**
 * Bitshuffles one block: `n` elements (n % 8 == 0) of `s` bytes from `src[so..]` to `dst[do_..]`;
 * `tmp` has at least n * s bytes.
 */
export function transBitElemJs(src: Uint8Array, so: number, dst: Uint8Array, do_: number, tmp: Uint8Array, n: number, s: number): void {
  let rows = src;
  let ro = so;
  if (s !== 1) {
    for (let i = 0, p = so; i < n; i++, p += s) for (let j = 0; j < s; j++) tmp[j * n + i] = src[p + j]!;
    rows = tmp;
    ro = 0;
  }
  const nb = n >>> 3;
  for (let j = 0; j < s; j++) {
    const r = ro + j * n;
    const base = do_ + j * 8 * nb;
    for (let i = 0; i < n; i += 8) {
      const p = r + i;
      const lo = rows[p]! | (rows[p + 1]! << 8) | (rows[p + 2]! << 16) | (rows[p + 3]! << 24);
      const hi = rows[p + 4]! | (rows[p + 5]! << 8) | (rows[p + 6]! << 16) | (rows[p + 7]! << 24);
      scatterTransposed(lo, hi, dst, base + (i >>> 3), nb);
    }
  }
}

/** Inverse of {@link transBitElemJs} for one block. */
export function untransBitElemJs(src: Uint8Array, so: number, dst: Uint8Array, do_: number, tmp: Uint8Array, n: number, s: number): void {
  const nb = n >>> 3;
  const rows = s === 1 ? dst : tmp;
  const ro = s === 1 ? do_ : 0;
  for (let j = 0; j < s; j++) {
    const base = so + j * 8 * nb;
    const r = ro + j * n;
    for (let c = 0; c < nb; c++) {
      const p = base + c;
      const lo = src[p]! | (src[p + nb]! << 8) | (src[p + 2 * nb]! << 16) | (src[p + 3 * nb]! << 24);
      const hi = src[p + 4 * nb]! | (src[p + 5 * nb]! << 8) | (src[p + 6 * nb]! << 16) | (src[p + 7 * nb]! << 24);
      scatterTransposed(lo, hi, rows, r + 8 * c, 1);
    }
  }
  if (s !== 1) {
    for (let i = 0, p = do_; i < n; i++, p += s) for (let j = 0; j < s; j++) dst[p + j] = tmp[j * n + i]!;
  }
}

/**
 * Whole buffer, as bshuf_blocked_wrap_fun: full blocks, then the last block rounded down to a
 * multiple of 8 elements, then the `size % 8` leftover elements copied unchanged.
 */
export function runJs(src: Uint8Array, dst: Uint8Array, size: number, s: number, blockSize: number, reverse: boolean): void {
  const tmp = new Uint8Array(Math.min(blockSize, size) * s);
  const fn = reverse ? untransBitElemJs : transBitElemJs;
  let off = 0;
  const full = Math.floor(size / blockSize);
  for (let b = 0; b < full; b++, off += blockSize * s) fn(src, off, dst, off, tmp, blockSize, s);
  const last = (size % blockSize) - ((size % blockSize) % 8);
  if (last > 0) {
    fn(src, off, dst, off, tmp, last, s);
    off += last * s;
  }
  dst.set(src.subarray(off, off + (size % 8) * s), off);
}
