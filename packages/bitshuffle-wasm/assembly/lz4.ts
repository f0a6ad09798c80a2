// LZ4 block format (lz4/doc/lz4_Block_format.md) in AssemblyScript: a compressor that makes exactly
// the parsing decisions of packages/filters/src/lz4/block.ts (which mirrors liblz4's
// LZ4_compress_fast: single segment, no dictionary, byU16 tables with a 13-bit hash of 4 bytes for
// inputs < 64 KiB + 11, byU32 tables with a 12-bit hash of 5 bytes above, acceleration, skip
// trigger 6, MINMATCH 4, MFLIMIT 12, LASTLITERALS 5, offsets ≤ 65535), so its blocks are byte-identical,
// and a decompressor that checks every length and offset and reports failure as a negative return
// code (never a trap). Written from the format description, not from liblz4's code.
//
// Memory contract (the caller, src/lz4.ts, lays the buffers out): the compressor may write up to 16
// bytes past the end of its output and the decompressor up to 32 bytes past the end of its output;
// both may read up to 16 bytes past the end of their input. Every buffer is followed by that slack.

const MINMATCH: usize = 4;
const LASTLITERALS: usize = 5;
const MFLIMIT: usize = 12;
const MAX_DISTANCE: u32 = 65535;
const SKIP_TRIGGER: u32 = 6;
/** Inputs shorter than this use 16-bit positions and hash4 (LZ4_64Klimit). */
const LIMIT_64K: usize = 65536 + MFLIMIT - 1;
/** Inputs shorter than this are stored as literals only (LZ4_minLength). */
const MIN_LENGTH: usize = MFLIMIT + 1;
/** Bytes of the hash table scratch (both layouts: 8192 × u16 or 4096 × u32). */
export const LZ4_TABLE_BYTES: usize = 16384;

/** Error codes of lz4Decompress (negative); the failing input offset is in lz4ErrorAt(). */
export const E_NO_LAST_SEQUENCE: i32 = -1;
export const E_LITERAL_LENGTH: i32 = -2;
export const E_LITERALS_PAST_INPUT: i32 = -3;
export const E_LITERALS_PAST_OUTPUT: i32 = -4;
export const E_OFFSET_TRUNCATED: i32 = -5;
export const E_OFFSET: i32 = -6;
export const E_MATCH_LENGTH: i32 = -7;
export const E_MATCH_PAST_OUTPUT: i32 = -8;
export const E_SIZE: i32 = -9;

let errorAt: usize = 0;
let errorValue: usize = 0;

/** Input offset of the last decompression error. */
export function lz4ErrorAt(): usize {
  return errorAt;
}

/** The length, offset or size involved in the last decompression error. */
export function lz4ErrorValue(): usize {
  return errorValue;
}

// @ts-ignore: decorator
@inline function fail(code: i32, at: usize, value: usize): i32 {
  errorAt = at;
  errorValue = value;
  return code;
}

/** LZ4_hash4 (byU16 tables): (seq × 2654435761) >> (32 − 13). */
// @ts-ignore: decorator
@inline function hash4(p: usize): usize {
  return <usize>((load<u32>(p) * <u32>2654435761) >> 19);
}

/** LZ4_hash5 (byU32 tables, 64-bit little-endian): ((read64 << 24) × 889523592379) >> (64 − 12). */
// @ts-ignore: decorator
@inline function hash5(p: usize): usize {
  return <usize>(((load<u64>(p) << 24) * <u64>889523592379) >> 52);
}

// @ts-ignore: decorator
@inline function writeLength(d: usize, n: usize): usize {
  if (n >= 255) {
    const k = n / 255;
    memory.fill(d, 255, k);
    d += k;
    n -= k * 255;
  }
  store<u8>(d, <u8>n);
  return d + 1;
}

/** Position of the first byte in [e, limit) where e and r differ (limit if none); r < e. */
// @ts-ignore: decorator
@inline function matchEnd(e: usize, r: usize, limit: usize): usize {
  if (ASC_FEATURE_SIMD) {
    while (e + 16 <= limit) {
      const m = i8x16.bitmask(i8x16.ne(v128.load(e), v128.load(r)));
      if (m != 0) return e + <usize>ctz<i32>(m);
      e += 16;
      r += 16;
    }
  }
  while (e + 8 <= limit) {
    const x = load<u64>(e) ^ load<u64>(r);
    if (x != 0) return e + <usize>(ctz<u64>(x) >> 3);
    e += 8;
    r += 8;
  }
  while (e < limit && load<u8>(e) == load<u8>(r)) {
    e++;
    r++;
  }
  return e;
}

/** Copies 16 bytes. */
// @ts-ignore: decorator
@inline function copy16(d: usize, s: usize): void {
  if (ASC_FEATURE_SIMD) {
    v128.store(d, v128.load(s));
  } else {
    store<u64>(d, load<u64>(s));
    store<u64>(d + 8, load<u64>(s + 8));
  }
}

/** Copies n literal bytes; may write up to 16 bytes past d + n. */
// @ts-ignore: decorator
@inline function copyLiterals(d: usize, s: usize, n: usize): void {
  if (n <= 16) copy16(d, s);
  else memory.copy(d, s, n);
}

/** One block with table entries of type T (u16: byU16 + hash4, u32: byU32 + hash5). */
function compressWith<T>(src: usize, n: usize, dst: usize, table: usize, acceleration: u32): usize {
  const small = sizeof<T>() == 2;
  const shift: usize = sizeof<T>() == 2 ? 1 : 2;
  const end = src + n;
  let d = dst;
  let anchor = src;
  memory.fill(table, 0, LZ4_TABLE_BYTES); // an empty slot reads as position 0, as in liblz4
  const mflimitPlusOne = end - MFLIMIT + 1;
  const matchLimit = end - LASTLITERALS;
  store<T>(table + ((small ? hash4(src) : hash5(src)) << shift), 0);
  let ip = src + 1;
  let forwardH = small ? hash4(ip) : hash5(ip);
  let match: usize = 0;
  while (true) {
    // find a match
    let forwardIp = ip;
    let step: u32 = 1;
    let searches: u32 = acceleration << SKIP_TRIGGER;
    let found = false;
    while (true) {
      const h = forwardH;
      const current = <u32>(forwardIp - src);
      const slot = table + (h << shift);
      const matchIndex = <u32>load<T>(slot);
      ip = forwardIp;
      forwardIp += step;
      step = searches++ >> SKIP_TRIGGER;
      if (forwardIp > mflimitPlusOne) break;
      match = src + matchIndex;
      forwardH = small ? hash4(forwardIp) : hash5(forwardIp);
      store<T>(slot, <T>current);
      if (!small && matchIndex + MAX_DISTANCE < current) continue;
      if (load<u32>(match) == load<u32>(ip)) {
        found = true;
        break;
      }
    }
    if (!found) break;
    // catch up
    while (ip > anchor && match > src && load<u8>(ip - 1) == load<u8>(match - 1)) {
      ip--;
      match--;
    }
    // literals
    const lit = ip - anchor;
    let token = d++;
    if (lit >= 15) {
      store<u8>(token, 0xf0);
      d = writeLength(d, lit - 15);
    } else store<u8>(token, <u8>(lit << 4));
    copyLiterals(d, anchor, lit);
    d += lit;
    let last = false;
    while (true) {
      // offset and match length
      store<u16>(d, <u16>(ip - match));
      d += 2;
      const e = matchEnd(ip + MINMATCH, match + MINMATCH, matchLimit);
      const ml = e - ip - MINMATCH;
      if (ml >= 15) {
        store<u8>(token, load<u8>(token) + 15);
        d = writeLength(d, ml - 15);
      } else store<u8>(token, load<u8>(token) + <u8>ml);
      ip = e;
      anchor = ip;
      if (ip >= mflimitPlusOne) {
        last = true;
        break;
      }
      store<T>(table + ((small ? hash4(ip - 2) : hash5(ip - 2)) << shift), <T>(ip - 2 - src));
      // test the next position for an immediate match
      const slot = table + ((small ? hash4(ip) : hash5(ip)) << shift);
      const current = <u32>(ip - src);
      const matchIndex = <u32>load<T>(slot);
      store<T>(slot, <T>current);
      match = src + matchIndex;
      if ((small || matchIndex + MAX_DISTANCE >= current) && load<u32>(match) == load<u32>(ip)) {
        token = d++;
        store<u8>(token, 0);
        continue;
      }
      break;
    }
    if (last) break;
    ip++;
    forwardH = small ? hash4(ip) : hash5(ip);
  }
  return finish(d, anchor, end);
}

/** The last literals run. */
function finish(d: usize, anchor: usize, end: usize): usize {
  const lit = end - anchor;
  if (lit >= 15) {
    store<u8>(d++, 0xf0);
    d = writeLength(d, lit - 15);
  } else store<u8>(d++, <u8>(lit << 4));
  memory.copy(d, anchor, lit);
  return d + lit;
}

/**
 * Compresses src[0, n) as one independent LZ4 block at dst (room for n + n / 255 + 16 bytes plus
 * 16 bytes of slack); `table` is LZ4_TABLE_BYTES of scratch. Returns the end of the block.
 */
export function lz4CompressBlock(src: usize, n: usize, dst: usize, table: usize, acceleration: u32): usize {
  if (n < MIN_LENGTH) return finish(dst, src, src + n);
  if (acceleration < 1) acceleration = 1;
  if (acceleration > 65537) acceleration = 65537;
  return n < LIMIT_64K ? compressWith<u16>(src, n, dst, table, acceleration) : compressWith<u32>(src, n, dst, table, acceleration);
}

/**
 * Decompresses the block src[0, sLen) into exactly dst[0, dLen) (as LZ4_decompress_safe with a
 * known size). Returns 0, or a negative E_* code with lz4ErrorAt() = the offending input offset.
 */
export function lz4DecompressBlock(src: usize, sLen: usize, dst: usize, dLen: usize): i32 {
  let s = src;
  const sEnd = src + sLen;
  let d = dst;
  const dEnd = dst + dLen;
  // Positions up to which a sequence with ≤ 14 literals and a match ≤ 18 bytes cannot reach either
  // end: ≥ 18 input bytes after the token (so it is not the last sequence) and ≥ 32 output bytes
  // (0 when the buffers are shorter: pointers are never 0, so the fast loop is skipped).
  const sFast: usize = sLen >= 19 ? sEnd - 19 : 0;
  const dFast: usize = dLen >= 32 ? dEnd - 32 : 0;
  while (true) {
    // fast loop: no length bytes, offset ≥ 8, far from both ends
    while (s <= sFast && d <= dFast) {
      const token = <usize>load<u8>(s);
      if (token >= 0xf0 || (token & 15) == 15) break;
      const lit = token >> 4;
      copy16(d, s + 1);
      const off = <usize>load<u16>(s + 1 + lit);
      if (off < 8 || off > d + lit - dst) break; // the general path redoes this sequence
      s += 3 + lit;
      d += lit;
      const from = d - off;
      const ml = (token & 15) + MINMATCH;
      if (off >= 16) {
        copy16(d, from);
        if (ml > 16) store<u16>(d + 16, load<u16>(from + 16));
      } else {
        store<u64>(d, load<u64>(from));
        store<u64>(d + 8, load<u64>(from + 8));
        store<u16>(d + 16, load<u16>(from + 16));
      }
      d += ml;
    }
    if (s >= sEnd) return fail(E_NO_LAST_SEQUENCE, s - src, 0);
    const token = <usize>load<u8>(s++);
    let lit = token >> 4;
    if (lit == 15) {
      let b: usize;
      do {
        if (s >= sEnd) return fail(E_LITERAL_LENGTH, s - src, 0);
        b = <usize>load<u8>(s++);
        lit += b;
        if (lit > dLen) return fail(E_LITERALS_PAST_OUTPUT, s - src, lit);
      } while (b == 255);
    }
    if (lit > sEnd - s) return fail(E_LITERALS_PAST_INPUT, s - src, lit);
    if (lit > dEnd - d) return fail(E_LITERALS_PAST_OUTPUT, s - src, lit);
    copyLiterals(d, s, lit);
    s += lit;
    d += lit;
    if (s == sEnd) break;
    if (sEnd - s < 2) return fail(E_OFFSET_TRUNCATED, s - src, 0);
    const off = <usize>load<u16>(s);
    s += 2;
    if (off == 0 || off > d - dst) return fail(E_OFFSET, s - 2 - src, off);
    let ml = token & 15;
    if (ml == 15) {
      let b: usize;
      do {
        if (s >= sEnd) return fail(E_MATCH_LENGTH, s - src, 0);
        b = <usize>load<u8>(s++);
        ml += b;
        if (ml > dLen) return fail(E_MATCH_PAST_OUTPUT, s - src, ml + MINMATCH);
      } while (b == 255);
    }
    ml += MINMATCH;
    if (ml > dEnd - d) return fail(E_MATCH_PAST_OUTPUT, s - src, ml);
    copyMatch(d, off, ml);
    d += ml;
  }
  if (d != dEnd) return fail(E_SIZE, s - src, d - dst);
  return 0;
}

/** Copies an ml-byte match from d − off to d (1 ≤ off ≤ bytes written); may write 16 bytes past d + ml. */
// @ts-ignore: decorator
@inline function copyMatch(d: usize, off: usize, ml: usize): void {
  let from = d - off;
  const stop = d + ml;
  if (off >= 16) {
    if (ml > 64 && off >= ml) {
      memory.copy(d, from, ml);
      return;
    }
    do {
      if (ASC_FEATURE_SIMD) {
        v128.store(d, v128.load(from));
      } else {
        store<u64>(d, load<u64>(from));
        store<u64>(d + 8, load<u64>(from + 8));
      }
      d += 16;
      from += 16;
    } while (d < stop);
  } else if (off >= 8) {
    do {
      store<u64>(d, load<u64>(from));
      d += 8;
      from += 8;
    } while (d < stop);
  } else if (off == 1) {
    memory.fill(d, load<u8>(from), ml);
  } else {
    // period off < 8: write one whole period multiple ≥ 8 bytewise, then copy 8 bytes at a time
    const span = off * ((8 + off - 1) / off);
    const head = d + (ml < span ? ml : span);
    while (d < head) store<u8>(d++, load<u8>(from++));
    from = d - span;
    while (d < stop) {
      store<u64>(d, load<u64>(from));
      d += 8;
      from += 8;
    }
  }
}
