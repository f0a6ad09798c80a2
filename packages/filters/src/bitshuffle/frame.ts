/**
 * Bitshuffle's compressed framing (kiyo-masui/bitshuffle bitshuffle.c `bshuf_compress_lz4` /
 * `bshuf_compress_zstd`, inside the 12-byte HDF5 header of bshuf_h5filter.c): per block of
 * `blockSize` elements (then one last block rounded down to a multiple of 8 elements) a 4-byte
 * big-endian compressed size and the compressed bitshuffled block; the `size % 8` leftover elements
 * follow raw. The block compressor is pluggable: an LZ4 raw block or a zstd frame.
 * @module
 */
import { FilterError } from '@chunkform/core/plugin';

const INFO = { filterId: 32008, filterName: 'bitshuffle' };

/** Compresses/decompresses one bitshuffled block (may be asynchronous, e.g. a lazily loaded WASM codec). */
export interface BlockCompressor {
  /** Compressed bytes of `block`. */
  compress(block: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Decompresses `src` into exactly `dst` (its whole length); throws when it does not fit exactly. */
  decompress(src: Uint8Array, dst: Uint8Array): void | Promise<void>;
}

/** Block lengths in bytes of `size` elements: full blocks, then the last block (rounded down to 8 elements). */
export function blockLengths(size: number, elemSize: number, blockSize: number): number[] {
  const out: number[] = [];
  const full = Math.floor(size / blockSize);
  for (let i = 0; i < full; i++) out.push(blockSize * elemSize);
  const last = (size % blockSize) - ((size % blockSize) % 8);
  if (last > 0) out.push(last * elemSize);
  return out;
}

function fail(message: string, cause?: unknown): FilterError {
  return new FilterError(`bitshuffle: ${message}`, cause === undefined ? INFO : { ...INFO, cause });
}

function why(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Writes bshuf_h5filter.c's 12-byte header (uncompressed bytes u64 BE, block bytes u32 BE) at out[0]. */
export function writeHeader(out: Uint8Array, totalBytes: number, blockBytes: number): void {
  const view = new DataView(out.buffer, out.byteOffset, 12);
  view.setUint32(0, Math.floor(totalBytes / 0x100000000));
  view.setUint32(4, totalBytes >>> 0);
  view.setUint32(8, blockBytes >>> 0);
}

/**
 * bshuf_h5filter.c (forward, compressed): the 12-byte header (uncompressed bytes u64 BE, block
 * bytes u32 BE) and the blocks of `shuffled` (already bitshuffled with the same block size).
 */
export function encodeFramed(shuffled: Uint8Array, elemSize: number, blockSize: number, codec: BlockCompressor): Uint8Array | Promise<Uint8Array> {
  const size = shuffled.length / elemSize;
  const lengths = blockLengths(size, elemSize, blockSize);
  const parts: (Uint8Array | Promise<Uint8Array>)[] = [];
  let off = 0;
  for (const n of lengths) {
    parts.push(codec.compress(shuffled.subarray(off, off + n)));
    off += n;
  }
  const leftover = shuffled.subarray(off);
  const assemble = (blocks: Uint8Array[]): Uint8Array => {
    let total = 12 + leftover.length;
    for (const b of blocks) total += 4 + b.length;
    const out = new Uint8Array(total);
    const view = new DataView(out.buffer);
    writeHeader(out, shuffled.length, blockSize * elemSize);
    let p = 12;
    for (const b of blocks) {
      view.setUint32(p, b.length);
      out.set(b, p + 4);
      p += 4 + b.length;
    }
    out.set(leftover, p);
    return out;
  };
  if (parts.some((x) => x instanceof Promise)) return Promise.all(parts).then(assemble);
  return assemble(parts as Uint8Array[]);
}

/** The header of a compressed chunk. */
export interface FrameHeader {
  /** Uncompressed bytes. */
  total: number;
  /** Block size in elements (header bytes / element size; 0 stays 0 = the default). */
  blockElements: number;
}

/** Reads and checks the 12-byte header against the chunk length and `limit` (> 0: most bytes allowed). */
export function readHeader(data: Uint8Array, elemSize: number, limit: number): FrameHeader {
  if (data.length < 12) throw fail(`chunk of ${data.length} bytes is shorter than the 12-byte header`);
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const hi = view.getUint32(0);
  const total = hi * 0x100000000 + view.getUint32(4);
  if (hi >= 0x200000 || total > 0xffffffff) throw fail(`header claims ${total} uncompressed bytes, more than a chunk can hold`);
  if (limit > 0 && total > limit) throw fail(`header claims ${total} uncompressed bytes, more than the chunk's limit of ${limit}`);
  if (total % elemSize !== 0) throw fail(`header claims ${total} bytes, not a whole number of ${elemSize}-byte elements`);
  return { total, blockElements: Math.floor(view.getUint32(8) / elemSize) };
}

/**
 * bshuf_h5filter.c (reverse, compressed): decompresses the blocks of `data` (after the header)
 * into a buffer of `total` bytes that the caller then bitunshuffles with the same block size.
 */
export function decodeFramed(data: Uint8Array, total: number, elemSize: number, blockSize: number, codec: BlockCompressor): Uint8Array | Promise<Uint8Array> {
  const size = total / elemSize;
  const lengths = blockLengths(size, elemSize, blockSize);
  if (lengths.length * 4 > data.length - 12) throw fail(`${lengths.length} blocks do not fit in a chunk of ${data.length} bytes`);
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const out = new Uint8Array(total);
  const pending: Promise<void>[] = [];
  let s = 12;
  let d = 0;
  for (let i = 0; i < lengths.length; i++) {
    const n = lengths[i]!;
    if (data.length - s < 4) throw fail(`block ${i} size at byte ${s} is truncated`);
    const c = view.getUint32(s);
    s += 4;
    if (c > data.length - s) throw fail(`block ${i} claims ${c} bytes at byte ${s}, only ${data.length - s} remain`);
    const at = s - 4;
    const onError = (e: unknown): never => {
      throw e instanceof FilterError ? e : fail(`corrupt block ${i} at byte ${at}: ${why(e)}`, e);
    };
    try {
      const r = codec.decompress(data.subarray(s, s + c), out.subarray(d, d + n));
      if (r instanceof Promise) pending.push(r.catch(onError));
    } catch (e) {
      onError(e);
    }
    s += c;
    d += n;
  }
  const rest = total - d;
  if (data.length - s < rest) throw fail(`${rest} leftover bytes at byte ${s} are truncated (${data.length - s} remain)`);
  out.set(data.subarray(s, s + rest), d);
  if (pending.length > 0) return Promise.all(pending).then(() => out);
  return out;
}
