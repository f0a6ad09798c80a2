/**
 * A literal JS transcription of the reference algorithm (bitshuffle_core.c scalar path, little
 * endian): bshuf_trans_byte_elem_scal → bshuf_trans_bit_byte_scal (TRANS_BIT_8X8 on 64-bit words)
 * → bshuf_trans_bitrow_eight, and for the inverse bshuf_trans_byte_bitrow_scal →
 * bshuf_shuffle_bit_eightelem_scal; wrapped as bshuf_blocked_wrap_fun. BigInt, slow, for tests.
 */
function transBit8x8(x: bigint): bigint {
  const M = (1n << 64n) - 1n;
  let t = (x ^ (x >> 7n)) & 0x00aa00aa00aa00aan;
  x = (x ^ t ^ (t << 7n)) & M;
  t = (x ^ (x >> 14n)) & 0x0000cccc0000ccccn;
  x = (x ^ t ^ (t << 14n)) & M;
  t = (x ^ (x >> 28n)) & 0x00000000f0f0f0f0n;
  x = (x ^ t ^ (t << 28n)) & M;
  return x;
}
const load64 = (b: Uint8Array, o: number): bigint => new DataView(b.buffer, b.byteOffset + o, 8).getBigUint64(0, true);

function transBitElem(inp: Uint8Array, size: number, es: number): Uint8Array {
  const nbyte = size * es;
  const a = new Uint8Array(nbyte);
  for (let ii = 0; ii < size; ii++) for (let jj = 0; jj < es; jj++) a[jj * size + ii] = inp[ii * es + jj]!;
  const b = new Uint8Array(nbyte);
  const nbr = nbyte / 8;
  for (let ii = 0; ii < nbr; ii++) {
    let x = transBit8x8(load64(a, ii * 8));
    for (let kk = 0; kk < 8; kk++) {
      b[kk * nbr + ii] = Number(x & 0xffn);
      x >>= 8n;
    }
  }
  // bshuf_trans_elem(b, out, lda = 8, ldb = es, elem = size / 8)
  const out = new Uint8Array(nbyte);
  const e = size / 8;
  for (let ii = 0; ii < 8; ii++) for (let jj = 0; jj < es; jj++) out.set(b.subarray((ii * es + jj) * e, (ii * es + jj + 1) * e), (jj * 8 + ii) * e);
  return out;
}

function untransBitElem(inp: Uint8Array, size: number, es: number): Uint8Array {
  const nbyte = size * es;
  const nrow = size / 8;
  const a = new Uint8Array(nbyte);
  for (let jj = 0; jj < es; jj++)
    for (let ii = 0; ii < nrow; ii++) for (let kk = 0; kk < 8; kk++) a[ii * 8 * es + jj * 8 + kk] = inp[(jj * 8 + kk) * nrow + ii]!;
  const out = new Uint8Array(nbyte);
  for (let jj = 0; jj < 8 * es; jj += 8) {
    for (let ii = 0; ii + 8 * es - 1 < nbyte; ii += 8 * es) {
      let x = transBit8x8(load64(a, ii + jj));
      for (let kk = 0; kk < 8; kk++) {
        out[ii + jj / 8 + kk * es] = Number(x & 0xffn);
        x >>= 8n;
      }
    }
  }
  return out;
}

/** bshuf_bitshuffle / bshuf_bitunshuffle (block size 0 = default). */
export function referenceBitshuffle(inp: Uint8Array, es: number, blockSize: number, reverse: boolean): Uint8Array {
  const size = inp.length / es;
  const bs = blockSize || Math.max(Math.floor(8192 / es / 8) * 8, 128);
  const out = new Uint8Array(inp.length);
  const fn = reverse ? untransBitElem : transBitElem;
  let off = 0;
  for (let b = 0; b < Math.floor(size / bs); b++, off += bs * es) out.set(fn(inp.subarray(off, off + bs * es), bs, es), off);
  const last = (size % bs) - ((size % bs) % 8);
  if (last) {
    out.set(fn(inp.subarray(off, off + last * es), last, es), off);
    off += last * es;
  }
  out.set(inp.subarray(off, off + (size % 8) * es), off);
  return out;
}
