/**
 * The LZ4 block format (lz4/doc/lz4_Block_format.md), pure TypeScript: a compressor that makes
 * liblz4's `LZ4_compress_fast` parsing decisions (so its blocks equal the C library's and honour its
 * limits: MINMATCH 4, last 5 bytes literal, last match ≥ 12 bytes before the end, offsets ≤ 65535),
 * and a bounds-checked decompressor that rejects any malformed block.
 * @module
 */

const MINMATCH = 4;
const LASTLITERALS = 5;
const MFLIMIT = 12;
const MAX_DISTANCE = 65535;
const SKIP_TRIGGER = 6;
/** Inputs shorter than this use 16-bit positions and a 13-bit hash of 4 bytes (LZ4_64Klimit). */
const LIMIT_64K = 65536 + MFLIMIT - 1;
/** Inputs shorter than this are stored as literals only (LZ4_minLength). */
const MIN_LENGTH = MFLIMIT + 1;

/** Worst-case compressed size of `n` input bytes (liblz4's LZ4_COMPRESSBOUND). */
export function lz4CompressBound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

import { Lz4BlockError } from '@chunkform/bitshuffle-wasm/lz4';

/** Why {@link lz4DecompressBlock} (or the WebAssembly codec) rejected a block — one class for both codecs. */
export { Lz4BlockError };

/** Reusable compressor state (liblz4's two hash-table layouts, LZ4_MEMORY_USAGE = 14). */
export interface Lz4Scratch {
  /** byU16: 8192 16-bit positions, for inputs < 64 KiB + 11. */
  u16: Uint16Array;
  /** byU32: 4096 32-bit positions. */
  u32: Uint32Array;
}

/** A fresh compressor state. */
export function lz4Scratch(): Lz4Scratch {
  return { u16: new Uint16Array(1 << 13), u32: new Uint32Array(1 << 12) };
}

function read32(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
}

/** LZ4_hash4 for byU16 tables: (seq × 2654435761) >> (32 − 13). */
function hash4(b: Uint8Array, i: number): number {
  return Math.imul(read32(b, i), 2654435761) >>> 19;
}

const P5_LO = 0x1bbcdcbb; // 889523592379 = 0xCF_1BBCDCBB
const P5_HI = 0xcf;
/**
 * LZ4_hash5 for byU32 tables on 64-bit little-endian machines: ((read64 << 24) × 889523592379) >> 52,
 * i.e. bits 28..39 of (low 5 bytes × prime) — computed exactly in 32-bit pieces.
 */
function hash5(b: Uint8Array, i: number): number {
  const a = read32(b, i) >>> 0;
  const hiByte = b[i + 4]!;
  const aLo = a & 0xffff;
  const aHi = a >>> 16;
  const t = aLo * (P5_LO & 0xffff);
  const mid = aHi * (P5_LO & 0xffff) + aLo * (P5_LO >>> 16) + (t >>> 16);
  const hi32 = aHi * (P5_LO >>> 16) + Math.floor(mid / 65536);
  const high8 = (hi32 + Math.imul(a, P5_HI) + Math.imul(hiByte, P5_LO)) & 0xff;
  return ((high8 << 4) | (Math.imul(a, P5_LO) >>> 28)) & 0xfff;
}

function writeLength(dst: Uint8Array, d: number, n: number): number {
  for (; n >= 255; n -= 255) dst[d++] = 255;
  dst[d++] = n;
  return d;
}

function copyBytes(dst: Uint8Array, d: number, src: Uint8Array, s: number, n: number): void {
  if (n < 32) for (let k = 0; k < n; k++) dst[d + k] = src[s + k]!;
  else dst.set(src.subarray(s, s + n), d);
}

/**
 * Compresses `src[start, end)` as one independent LZ4 block into `dst` at `dPos` (which must hold
 * {@link lz4CompressBound}(end − start) bytes), making the same parsing decisions as liblz4's
 * `LZ4_compress_fast` (single segment, no dictionary, 64-bit little-endian hashing), so the output
 * equals the HDF5 LZ4 plugin's byte for byte. Returns the position after the block.
 */
export function lz4CompressBlock(src: Uint8Array, start: number, end: number, dst: Uint8Array, dPos: number, scratch: Lz4Scratch, acceleration = 1): number {
  const n = end - start;
  let d = dPos;
  let anchor = start;
  if (n >= MIN_LENGTH) {
    const small = n < LIMIT_64K;
    const table: Uint16Array | Uint32Array = small ? scratch.u16 : scratch.u32;
    table.fill(0); // an empty slot reads as position 0, as in liblz4
    const hash = small ? hash4 : hash5;
    const mflimitPlusOne = end - MFLIMIT + 1;
    const matchLimit = end - LASTLITERALS;
    table[hash(src, start)] = 0;
    let ip = start + 1;
    let forwardH = hash(src, ip);
    outer: for (;;) {
      // find a match
      let forwardIp = ip;
      let step = 1;
      let searches = acceleration << SKIP_TRIGGER;
      let match: number;
      for (;;) {
        const h = forwardH;
        const current = forwardIp - start;
        const matchIndex = table[h]!;
        ip = forwardIp;
        forwardIp += step;
        step = searches++ >> SKIP_TRIGGER;
        if (forwardIp > mflimitPlusOne) break outer;
        match = start + matchIndex;
        forwardH = hash(src, forwardIp);
        table[h] = current;
        if (!small && matchIndex + MAX_DISTANCE < current) continue;
        if (read32(src, match) === read32(src, ip)) break;
      }
      // catch up
      while (ip > anchor && match > start && src[ip - 1] === src[match - 1]) {
        ip--;
        match--;
      }
      // literals
      const lit = ip - anchor;
      let token = d++;
      if (lit >= 15) {
        dst[token] = 15 << 4;
        d = writeLength(dst, d, lit - 15);
      } else dst[token] = lit << 4;
      copyBytes(dst, d, src, anchor, lit);
      d += lit;
      for (;;) {
        // offset and match length
        const off = ip - match;
        dst[d++] = off & 0xff;
        dst[d++] = off >>> 8;
        let e = ip + MINMATCH;
        let r = match + MINMATCH;
        while (e < matchLimit && src[e] === src[r]) {
          e++;
          r++;
        }
        const ml = e - ip - MINMATCH;
        if (ml >= 15) {
          dst[token] += 15;
          d = writeLength(dst, d, ml - 15);
        } else dst[token] += ml;
        ip = e;
        anchor = ip;
        if (ip >= mflimitPlusOne) break outer;
        table[hash(src, ip - 2)] = ip - 2 - start;
        // test the next position for an immediate match
        const h = hash(src, ip);
        const current = ip - start;
        const matchIndex = table[h]!;
        table[h] = current;
        match = start + matchIndex;
        if ((small || matchIndex + MAX_DISTANCE >= current) && read32(src, match) === read32(src, ip)) {
          token = d++;
          dst[token] = 0;
          continue;
        }
        break;
      }
      forwardH = hash(src, ++ip);
    }
  }
  const lit = end - anchor;
  if (lit >= 15) {
    dst[d++] = 15 << 4;
    d = writeLength(dst, d, lit - 15);
  } else dst[d++] = lit << 4;
  copyBytes(dst, d, src, anchor, lit);
  return d + lit;
}

/**
 * Decompresses the LZ4 block `src[sPos, sEnd)` into `dst[dPos, dEnd)`, which it must fill exactly
 * (as `LZ4_decompress_safe` with a known size). Every length and offset is checked.
 * @throws Lz4BlockError the block is malformed or does not produce exactly `dEnd − dPos` bytes.
 */
export function lz4DecompressBlock(src: Uint8Array, sPos: number, sEnd: number, dst: Uint8Array, dPos: number, dEnd: number): void {
  const dStart = dPos;
  for (;;) {
    if (sPos >= sEnd) throw new Lz4BlockError(`block ends before its last sequence (at byte ${sPos})`);
    const token = src[sPos++]!;
    let lit = token >>> 4;
    if (lit !== 0) {
      if (lit === 15) {
        let b: number;
        do {
          if (sPos >= sEnd) throw new Lz4BlockError('literal length runs past the end of the block');
          b = src[sPos++]!;
          lit += b;
        } while (b === 255);
      }
      if (lit > sEnd - sPos) throw new Lz4BlockError(`${lit} literals run past the end of the block`);
      if (lit > dEnd - dPos) throw new Lz4BlockError(`${lit} literals overflow the output (${dEnd - dPos} bytes left)`);
      if (lit <= 16) {
        const stop = sPos + lit;
        while (sPos < stop) dst[dPos++] = src[sPos++]!;
      } else {
        dst.set(src.subarray(sPos, sPos + lit), dPos);
        sPos += lit;
        dPos += lit;
      }
    }
    if (sPos === sEnd) break;
    if (sEnd - sPos < 2) throw new Lz4BlockError('match offset truncated');
    const off = src[sPos]! | (src[sPos + 1]! << 8);
    sPos += 2;
    if (off === 0 || off > dPos - dStart) throw new Lz4BlockError(`match offset ${off} points before the start of the output`);
    let ml = token & 15;
    if (ml === 15) {
      let b: number;
      do {
        if (sPos >= sEnd) throw new Lz4BlockError('match length runs past the end of the block');
        b = src[sPos++]!;
        ml += b;
      } while (b === 255);
    }
    ml += MINMATCH;
    if (ml > dEnd - dPos) throw new Lz4BlockError(`match of ${ml} bytes overflows the output (${dEnd - dPos} bytes left)`);
    let from = dPos - off;
    if (ml <= 32) {
      const stop = dPos + ml;
      while (dPos < stop) dst[dPos++] = dst[from++]!;
    } else if (off >= ml) {
      dst.copyWithin(dPos, from, from + ml);
      dPos += ml;
    } else {
      // overlapping match: the output is periodic with period `off`; copy doubling spans
      for (let done = 0; done < ml; ) {
        const k = Math.min(ml - done, off + done); // `done` stays a multiple of `off`
        dst.copyWithin(dPos + done, from, from + k);
        done += k;
      }
      dPos += ml;
    }
  }
  if (dPos !== dEnd) throw new Lz4BlockError(`block decodes to ${dPos - dStart} bytes, expected ${dEnd - dStart}`);
}
