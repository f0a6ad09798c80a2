/**
 * Fletcher-32 checksum filter (HDF5 filter id 3, H5Zfletcher32.c + H5checksum.c; spec IV.A.2.l):
 * appends a 4-byte checksum to each chunk on write and verifies/strips it on read.
 * @module
 */
import { ChecksumError, FilterError, type Filter } from '@chunkform/core/plugin';

const ID = 3;
const NAME = 'fletcher32';
/** Bytes of the stored checksum. */
const FLETCHER_LEN = 4;

/**
 * HDF5's Fletcher-32 (H5_checksum_fletcher32): sums of big-endian 16-bit words with both sums
 * starting at 0, reduced every 360 words; an odd last byte counts as the high byte of a word.
 * The arithmetic mirrors the library's 32-bit unsigned sums exactly (including their wrap-around).
 */
export function fletcher32(data: Uint8Array): number {
  const len = data.length;
  let words = len >>> 1;
  let sum1 = 0;
  let sum2 = 0;
  let p = 0;
  while (words) {
    const t = words > 360 ? 360 : words;
    words -= t;
    const end = p + 2 * t;
    // At most 360 additions per block: both sums stay exact in a double (< 2^53).
    for (; p < end; p += 2) {
      sum1 += (data[p]! << 8) | data[p + 1]!;
      sum2 += sum1;
    }
    sum1 >>>= 0; // (never wraps: < 2^25)
    sum2 = sum2 % 0x100000000; // uint32_t wrap-around, as the C sums do
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  if (len & 1) {
    sum1 += data[len - 1]! << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  return ((sum2 << 16) | sum1) >>> 0;
}

/** The checksum as HDF5 before 1.6.3 computed it on little-endian machines (bytes of each half swapped). */
function legacyFletcher32(sum: number): number {
  return (((sum & 0x00ff00ff) << 8) | ((sum >>> 8) & 0x00ff00ff)) >>> 0;
}

function readLE32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** Spec IV.A.2.l, filter 3: appends the checksum (little-endian, as UINT32ENCODE stores it) to a copy of `data`. */
export function appendFletcher32(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + FLETCHER_LEN);
  out.set(data);
  const sum = fletcher32(data);
  const at = data.length;
  out[at] = sum & 0xff;
  out[at + 1] = (sum >>> 8) & 0xff;
  out[at + 2] = (sum >>> 16) & 0xff;
  out[at + 3] = sum >>> 24;
  return out;
}

/**
 * Spec IV.A.2.l, filter 3: verifies and strips the trailing checksum; accepts the pre-1.6.3 byte-swapped checksum as HDF5
 * does. Returns a view of `data` without the checksum.
 * @throws ChecksumError on mismatch.
 */
export function verifyFletcher32(data: Uint8Array): Uint8Array {
  if (data.length < FLETCHER_LEN) {
    throw new FilterError(`chunk of ${data.length} bytes is too short to hold a fletcher32 checksum`, { filterId: ID, filterName: NAME });
  }
  const body = data.subarray(0, data.length - FLETCHER_LEN);
  const stored = readLE32(data, body.length);
  const sum = fletcher32(body);
  if (stored !== sum && stored !== legacyFletcher32(sum)) throw new ChecksumError('fletcher32 checksum', -1, stored, sum);
  return body;
}

/** The Fletcher-32 checksum filter (id 3). No client data. */
export const fletcher32Filter: Filter = {
  id: ID,
  name: NAME,
  encode: (data) => appendFletcher32(data),
  decode: (data) => verifyFletcher32(data),
};
