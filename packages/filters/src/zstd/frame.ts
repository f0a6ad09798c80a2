/**
 * The Zstandard frame header (RFC 8878 §3.1.1.1), read only as far as `ZSTD_getFrameContentSize`
 * reads it: the HDF5 zstd filter (H5Zzstd.c) sizes its output by the first frame's content size.
 * @module
 */

/** The zstd frame magic number (RFC 8878 §3.1.1), little-endian on disk. */
export const ZSTD_MAGIC = 0xfd2fb528;

/** What {@link zstdFrameContentSize} found. */
export type ZstdContentSize =
  | { kind: 'size'; size: number }
  | { kind: 'unknown' }
  | { kind: 'error'; reason: string };

const DID_BYTES = [0, 1, 2, 4] as const;
const FCS_BYTES = [0, 2, 4, 8] as const;

/** RFC 8878 §3.1.1.1: the Frame_Content_Size of the frame at the start of `data`. */
export function zstdFrameContentSize(data: Uint8Array): ZstdContentSize {
  if (data.length < 5) return { kind: 'error', reason: `${data.length} bytes are too few for a zstd frame header` };
  const magic = (data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24)) >>> 0;
  if (magic !== ZSTD_MAGIC) return { kind: 'error', reason: `no zstd frame magic (found 0x${magic.toString(16).padStart(8, '0')})` };
  const fhd = data[4]!;
  if (fhd & 0x08) return { kind: 'error', reason: 'reserved bit of the frame header descriptor is set' };
  const fcsFlag = fhd >>> 6;
  const single = (fhd >>> 5) & 1;
  const pos = 5 + (single ? 0 : 1) + DID_BYTES[fhd & 3]!;
  const fcsBytes = fcsFlag === 0 ? single : FCS_BYTES[fcsFlag]!;
  if (fcsBytes === 0) return { kind: 'unknown' };
  if (pos + fcsBytes > data.length) return { kind: 'error', reason: 'frame header is truncated' };
  let size = 0;
  for (let k = fcsBytes - 1; k >= 0; k--) size = size * 256 + data[pos + k]!;
  if (fcsBytes === 2) size += 256;
  if (!Number.isSafeInteger(size)) return { kind: 'error', reason: `content size beyond 2^53` };
  return { kind: 'size', size };
}
