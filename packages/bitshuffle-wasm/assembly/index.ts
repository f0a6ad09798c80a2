// Bitshuffle bit transposition in AssemblyScript, compiled twice (scripts/build.mjs): with 128-bit
// SIMD (`ASC_FEATURE_SIMD` true) and without. Same output as kiyo-masui/bitshuffle's
// bitshuffle_core.c `bshuf_trans_bit_elem` / `bshuf_untrans_bit_elem` and `bshuf_blocked_wrap_fun`
// (blocks of `blockSize` elements, then the last block rounded down to a multiple of 8 elements,
// then the < 8 leftover elements copied unchanged). Written from the format, not from that code.
//
// Layout of one transposed block of n elements (n % 8 == 0) of s bytes, nb = n / 8:
// out[(j * 8 + k) * nb + b] bit m == bit k of byte j of element 8 * b + m.
// The caller (src/wasm.ts) owns the linear memory: it passes pointers to input, output and a
// scratch area of at least one block.

import { lz4CompressBlock, lz4DecompressBlock, lz4ErrorAt, lz4ErrorValue, LZ4_TABLE_BYTES } from './lz4';
// The LZ4 block codec (assembly/lz4.ts) and the fused bitshuffle+LZ4 entries at the end of this file.
export { lz4CompressBlock, lz4DecompressBlock, lz4ErrorAt, lz4ErrorValue, LZ4_TABLE_BYTES };

/** Transposes the 8×8 bit matrix held in x (byte r, bit c) ↔ (byte c, bit r). */
// @ts-ignore: decorator
@inline function transBit8x8(x: u64): u64 {
  let t = (x ^ (x >> 7)) & 0x00aa00aa00aa00aa;
  x = x ^ t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000cccc0000cccc;
  x = x ^ t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0;
  x = x ^ t ^ (t << 28);
  return x;
}

/** dst[j * n + i] = src[i * s + j] (group the bytes of n elements by byte position). */
function byteTranspose(src: usize, dst: usize, n: usize, s: usize): void {
  let i: usize = 0;
  if (ASC_FEATURE_SIMD) {
    if (s == 2) {
      for (; i + 16 <= n; i += 16) {
        const a = v128.load(src + 2 * i);
        const b = v128.load(src + 2 * i + 16);
        v128.store(dst + i, i8x16.shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
        v128.store(dst + n + i, i8x16.shuffle(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
      }
    } else if (s == 4) {
      for (; i + 16 <= n; i += 16) {
        const p = src + 4 * i;
        const a = v128.load(p);
        const b = v128.load(p + 16);
        const c = v128.load(p + 32);
        const d = v128.load(p + 48);
        const t0 = i8x16.shuffle(a, b, 0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
        const t1 = i8x16.shuffle(a, b, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
        const u0 = i8x16.shuffle(c, d, 0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
        const u1 = i8x16.shuffle(c, d, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
        v128.store(dst + i, i8x16.shuffle(t0, u0, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
        v128.store(dst + n + i, i8x16.shuffle(t0, u0, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
        v128.store(dst + 2 * n + i, i8x16.shuffle(t1, u1, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
        v128.store(dst + 3 * n + i, i8x16.shuffle(t1, u1, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
      }
    }
  }
  for (; i < n; i++) {
    const p = src + i * s;
    for (let j: usize = 0; j < s; j++) store<u8>(dst + j * n + i, load<u8>(p + j));
  }
}

/** dst[i * s + j] = src[j * n + i] (inverse of byteTranspose). */
function byteUntranspose(src: usize, dst: usize, n: usize, s: usize): void {
  let i: usize = 0;
  if (ASC_FEATURE_SIMD) {
    if (s == 2) {
      for (; i + 16 <= n; i += 16) {
        const lo = v128.load(src + i);
        const hi = v128.load(src + n + i);
        v128.store(dst + 2 * i, i8x16.shuffle(lo, hi, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
        v128.store(dst + 2 * i + 16, i8x16.shuffle(lo, hi, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31));
      }
    } else if (s == 4) {
      for (; i + 16 <= n; i += 16) {
        const r0 = v128.load(src + i);
        const r1 = v128.load(src + n + i);
        const r2 = v128.load(src + 2 * n + i);
        const r3 = v128.load(src + 3 * n + i);
        const t0 = i8x16.shuffle(r0, r1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const t1 = i8x16.shuffle(r0, r1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        const u0 = i8x16.shuffle(r2, r3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const u1 = i8x16.shuffle(r2, r3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        const p = dst + 4 * i;
        v128.store(p, i8x16.shuffle(t0, u0, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
        v128.store(p + 16, i8x16.shuffle(t0, u0, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
        v128.store(p + 32, i8x16.shuffle(t1, u1, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
        v128.store(p + 48, i8x16.shuffle(t1, u1, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
      }
    }
  }
  for (; i < n; i++) {
    const p = dst + i * s;
    for (let j: usize = 0; j < s; j++) store<u8>(p + j, load<u8>(src + j * n + i));
  }
}

/** Writes the 8 bit rows of 16 bytes v (bit k of byte m → bit m of the 2 bytes at o + k * nb). */
// @ts-ignore: decorator
@inline function bitRows16(v: v128, o: usize, nb: usize): void {
  store<u16>(o + 7 * nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o + 6 * nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o + 5 * nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o + 4 * nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o + 3 * nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o + 2 * nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o + nb, i8x16.bitmask(v)); v = i8x16.add(v, v);
  store<u16>(o, i8x16.bitmask(v));
}

/** One block: n elements (n % 8 == 0) of s bytes from src to dst; tmp holds n * s bytes. */
function transBitElem(src: usize, dst: usize, tmp: usize, n: usize, s: usize): void {
  if (ASC_FEATURE_SIMD) {
    if (s == 2 && (n & 15) == 0) {
      // 2-byte elements: split low/high bytes in registers, no scratch pass.
      const nb = n >> 3;
      const hiBase = dst + 8 * nb;
      for (let i: usize = 0; i < n; i += 16) {
        const a = v128.load(src + 2 * i);
        const b = v128.load(src + 2 * i + 16);
        bitRows16(i8x16.shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), dst + (i >> 3), nb);
        bitRows16(i8x16.shuffle(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), hiBase + (i >> 3), nb);
      }
      return;
    }
  }
  let rows = src;
  if (s != 1) {
    byteTranspose(src, tmp, n, s);
    rows = tmp;
  }
  const nb = n >> 3;
  for (let j: usize = 0; j < s; j++) {
    const row = rows + j * n;
    const base = dst + j * 8 * nb;
    let i: usize = 0;
    if (ASC_FEATURE_SIMD) {
      for (; i + 16 <= n; i += 16) bitRows16(v128.load(row + i), base + (i >> 3), nb);
    }
    for (; i < n; i += 8) {
      const x = transBit8x8(load<u64>(row + i));
      const o = base + (i >> 3);
      store<u8>(o, <u8>x);
      store<u8>(o + nb, <u8>(x >> 8));
      store<u8>(o + 2 * nb, <u8>(x >> 16));
      store<u8>(o + 3 * nb, <u8>(x >> 24));
      store<u8>(o + 4 * nb, <u8>(x >> 32));
      store<u8>(o + 5 * nb, <u8>(x >> 40));
      store<u8>(o + 6 * nb, <u8>(x >> 48));
      store<u8>(o + 7 * nb, <u8>(x >> 56));
    }
  }
}

// @ts-ignore: decorator
@inline function transBit8x8x2(x: v128): v128 {
  let t = v128.and(v128.xor(x, i64x2.shr_u(x, 7)), i64x2.splat(0x00aa00aa00aa00aa));
  x = v128.xor(v128.xor(x, t), i64x2.shl(t, 7));
  t = v128.and(v128.xor(x, i64x2.shr_u(x, 14)), i64x2.splat(0x0000cccc0000cccc));
  x = v128.xor(v128.xor(x, t), i64x2.shl(t, 14));
  t = v128.and(v128.xor(x, i64x2.shr_u(x, 28)), i64x2.splat(0x00000000f0f0f0f0));
  x = v128.xor(v128.xor(x, t), i64x2.shl(t, 28));
  return x;
}

/** Inverse of transBitElem for one block. */
function untransBitElem(src: usize, dst: usize, tmp: usize, n: usize, s: usize): void {
  const rows = s == 1 ? dst : tmp;
  const nb = n >> 3;
  for (let j: usize = 0; j < s; j++) {
    const base = src + j * 8 * nb;
    const row = rows + j * n;
    let c: usize = 0;
    if (ASC_FEATURE_SIMD) {
      for (; c + 16 <= nb; c += 16) {
        // 8 bit rows × 16 bytes → 16 little-endian words [r0[c] .. r7[c]], two per vector.
        const p = base + c;
        const r0 = v128.load(p);
        const r1 = v128.load(p + nb);
        const r2 = v128.load(p + 2 * nb);
        const r3 = v128.load(p + 3 * nb);
        const r4 = v128.load(p + 4 * nb);
        const r5 = v128.load(p + 5 * nb);
        const r6 = v128.load(p + 6 * nb);
        const r7 = v128.load(p + 7 * nb);
        const a01l = i8x16.shuffle(r0, r1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const a01h = i8x16.shuffle(r0, r1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        const a23l = i8x16.shuffle(r2, r3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const a23h = i8x16.shuffle(r2, r3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        const a45l = i8x16.shuffle(r4, r5, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const a45h = i8x16.shuffle(r4, r5, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        const a67l = i8x16.shuffle(r6, r7, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const a67h = i8x16.shuffle(r6, r7, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        const b0 = i8x16.shuffle(a01l, a23l, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        const b1 = i8x16.shuffle(a01l, a23l, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
        const b2 = i8x16.shuffle(a01h, a23h, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        const b3 = i8x16.shuffle(a01h, a23h, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
        const e0 = i8x16.shuffle(a45l, a67l, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        const e1 = i8x16.shuffle(a45l, a67l, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
        const e2 = i8x16.shuffle(a45h, a67h, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        const e3 = i8x16.shuffle(a45h, a67h, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
        const q = row + 8 * c;
        v128.store(q, transBit8x8x2(i8x16.shuffle(b0, e0, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23)));
        v128.store(q + 16, transBit8x8x2(i8x16.shuffle(b0, e0, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)));
        v128.store(q + 32, transBit8x8x2(i8x16.shuffle(b1, e1, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23)));
        v128.store(q + 48, transBit8x8x2(i8x16.shuffle(b1, e1, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)));
        v128.store(q + 64, transBit8x8x2(i8x16.shuffle(b2, e2, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23)));
        v128.store(q + 80, transBit8x8x2(i8x16.shuffle(b2, e2, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)));
        v128.store(q + 96, transBit8x8x2(i8x16.shuffle(b3, e3, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23)));
        v128.store(q + 112, transBit8x8x2(i8x16.shuffle(b3, e3, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)));
      }
    }
    for (; c < nb; c++) {
      const p = base + c;
      const x =
        <u64>load<u8>(p) |
        (<u64>load<u8>(p + nb) << 8) |
        (<u64>load<u8>(p + 2 * nb) << 16) |
        (<u64>load<u8>(p + 3 * nb) << 24) |
        (<u64>load<u8>(p + 4 * nb) << 32) |
        (<u64>load<u8>(p + 5 * nb) << 40) |
        (<u64>load<u8>(p + 6 * nb) << 48) |
        (<u64>load<u8>(p + 7 * nb) << 56);
      store<u64>(row + 8 * c, transBit8x8(x));
    }
  }
  if (s != 1) byteUntranspose(tmp, dst, n, s);
}

/**
 * Bitshuffles (reverse == 0) or unshuffles `size` elements of `elemSize` bytes from src to dst
 * in blocks of `blockSize` elements (a non-zero multiple of 8), as bshuf_blocked_wrap_fun.
 * `tmp` holds blockSize * elemSize bytes. Returns the number of bytes written.
 */
export function run(src: usize, dst: usize, tmp: usize, size: usize, elemSize: usize, blockSize: usize, reverse: i32): usize {
  const blockBytes = blockSize * elemSize;
  let off: usize = 0;
  const full = size / blockSize;
  for (let b: usize = 0; b < full; b++) {
    if (reverse) untransBitElem(src + off, dst + off, tmp, blockSize, elemSize);
    else transBitElem(src + off, dst + off, tmp, blockSize, elemSize);
    off += blockBytes;
  }
  const last = (size % blockSize) & ~(<usize>7);
  if (last) {
    if (reverse) untransBitElem(src + off, dst + off, tmp, last, elemSize);
    else transBitElem(src + off, dst + off, tmp, last, elemSize);
    off += last * elemSize;
  }
  const leftover = (size & 7) * elemSize;
  memory.copy(dst + off, src + off, leftover);
  return off + leftover;
}

/** First byte of linear memory free for the caller's buffers. */
export function heapBase(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

// ---- LZ4 (assembly/lz4.ts) and bitshuffle+LZ4 fused over a whole chunk -------------------------

/** Error codes of bshufLz4Decompress besides the lz4DecompressBlock codes (-1 .. -9). */
export const E_BLOCK_SIZE_TRUNCATED: i32 = -20;
export const E_BLOCK_PAST_INPUT: i32 = -21;
export const E_LEFTOVER_TRUNCATED: i32 = -22;

let bshufErrorBlock: usize = 0;
let bshufErrorAt: usize = 0;
let bshufErrorValue: usize = 0;

/** Block index of the last bshufLz4Decompress error. */
export function bshufLz4ErrorBlock(): usize {
  return bshufErrorBlock;
}
/** Input offset (from the start of the blocks) of the last bshufLz4Decompress error's block or field. */
export function bshufLz4ErrorAt(): usize {
  return bshufErrorAt;
}
/** Size involved in the last bshufLz4Decompress error. */
export function bshufLz4ErrorValue(): usize {
  return bshufErrorValue;
}

/** bshuf_compress_lz4_block: transposes n elements into `block`, then a u32 BE size and the LZ4 block at d. */
// @ts-ignore: decorator
@inline function packBlock(src: usize, n: usize, s: usize, d: usize, block: usize, tmp: usize, table: usize): usize {
  transBitElem(src, block, tmp, n, s);
  const e = lz4CompressBlock(block, n * s, d + 4, table, 1);
  store<u32>(d, bswap<u32>(<u32>(e - d - 4)));
  return e;
}

/**
 * bshuf_compress_lz4 (kiyo-masui/bitshuffle bitshuffle.c, without the HDF5 header): for each block
 * of `blockSize` elements (then the last block rounded down to 8 elements) transposes it and writes
 * a 4-byte big-endian compressed size and its LZ4 block (acceleration 1); the size % 8 leftover
 * elements follow raw. `block` and `tmp` hold blockSize * elemSize bytes (+ 16), `table`
 * LZ4_TABLE_BYTES; dst has room for the bound. Returns the bytes written at dst.
 */
export function bshufLz4Compress(src: usize, size: usize, elemSize: usize, blockSize: usize, dst: usize, block: usize, tmp: usize, table: usize): usize {
  const blockBytes = blockSize * elemSize;
  let off: usize = 0;
  let d = dst;
  const full = size / blockSize;
  for (let b: usize = 0; b < full; b++) {
    d = packBlock(src + off, blockSize, elemSize, d, block, tmp, table);
    off += blockBytes;
  }
  const last = (size % blockSize) & ~(<usize>7);
  if (last) {
    d = packBlock(src + off, last, elemSize, d, block, tmp, table);
    off += last * elemSize;
  }
  const leftover = (size & 7) * elemSize;
  memory.copy(d, src + off, leftover);
  return d + leftover - dst;
}

// @ts-ignore: decorator
@inline function bshufFail(code: i32, block: usize, at: usize, value: usize): i32 {
  bshufErrorBlock = block;
  bshufErrorAt = at;
  bshufErrorValue = value;
  return code;
}

/** One block of bshufLz4Decompress: LZ4 into `block`, untranspose into dst. Returns the next s or a code. */
// @ts-ignore: decorator
@inline function unpackBlock(src: usize, sEnd: usize, s: usize, index: usize, n: usize, es: usize, dst: usize, block: usize, tmp: usize): i64 {
  if (sEnd - s < 4) return bshufFail(E_BLOCK_SIZE_TRUNCATED, index, s - src, 0);
  const c = <usize>bswap<u32>(load<u32>(s));
  if (c > sEnd - s - 4) return bshufFail(E_BLOCK_PAST_INPUT, index, s - src, c);
  const r = lz4DecompressBlock(s + 4, c, block, n * es);
  if (r < 0) return bshufFail(r, index, s - src, lz4ErrorAt());
  untransBitElem(block, dst, tmp, n, es);
  return <i64>(s + 4 + c);
}

/**
 * bshuf_decompress_lz4 (without the HDF5 header): the inverse of bshufLz4Compress for `size`
 * elements from src[0, sLen) into dst. Returns 0 or a negative code (E_* of lz4.ts or above) with
 * bshufLz4ErrorBlock/At/Value set; lz4ErrorAt()/lz4ErrorValue() hold an LZ4 error's details.
 */
export function bshufLz4Decompress(src: usize, sLen: usize, size: usize, elemSize: usize, blockSize: usize, dst: usize, block: usize, tmp: usize): i32 {
  const sEnd = src + sLen;
  const blockBytes = blockSize * elemSize;
  let s = src;
  let off: usize = 0;
  const full = size / blockSize;
  let index: usize = 0;
  for (; index < full; index++) {
    const r = unpackBlock(src, sEnd, s, index, blockSize, elemSize, dst + off, block, tmp);
    if (r < 0) return <i32>r;
    s = <usize>r;
    off += blockBytes;
  }
  const last = (size % blockSize) & ~(<usize>7);
  if (last) {
    const r = unpackBlock(src, sEnd, s, index, last, elemSize, dst + off, block, tmp);
    if (r < 0) return <i32>r;
    s = <usize>r;
    off += last * elemSize;
  }
  const leftover = (size & 7) * elemSize;
  if (sEnd - s < leftover) return bshufFail(E_LEFTOVER_TRUNCATED, index, s - src, leftover);
  memory.copy(dst + off, s, leftover);
  return 0;
}
