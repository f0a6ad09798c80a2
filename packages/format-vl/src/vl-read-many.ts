/**
 * Whole reads of many stored VL chunks at once (core's `fileReadMany`, docs/format-vl.md §5.3), for
 * layouts without filters: chunks next to each other in the file (at most {@link GAP_BYTES} apart)
 * are read with one I/O into one buffer, each chunk is decoded from its view of that buffer (both
 * section checksums verified, entries checked against the heap, as a chunk read alone) and its
 * values copied out at once. When the values leave as copies (strings), one buffer serves every
 * group of the read: no buffer per chunk.
 * @module
 */
import type { ChunkRecord, ChunkRequest, RawIO } from '@chunkform/core';
import type { VlChunk } from './vl-chunk.js';

/** Most bytes read with one I/O (groups of adjacent chunks up to this size; larger chunks alone). */
export const GROUP_BYTES = 8 << 20;

/** Most bytes between chunks read along with them (file space allocation aligns chunks: a few bytes apart). */
export const GAP_BYTES = 4096;

/** One stored chunk of a batched read and the part of the request it serves. */
export interface ReadItem {
  rec: ChunkRecord;
  req: ChunkRequest;
}

/** How the format decodes a chunk and moves its values into the request buffer. */
export interface ChunkReading {
  decode(image: Uint8Array, rec: ChunkRecord): Promise<VlChunk>;
  read(mem: VlChunk, req: ChunkRequest, out: Uint8Array): void;
  /** The values read leave no view of the chunk's bytes behind (the read buffer may be reused). */
  copies: boolean;
}

/**
 * Reads `items` into `out`: in file order, runs of chunks stored (nearly) back to back (together at most
 * `group` bytes) with one `readInto` each. Errors are the decoder's, naming the chunk.
 */
export async function readMany(items: readonly ReadItem[], out: Uint8Array, io: RawIO, how: ChunkReading, group = GROUP_BYTES): Promise<void> {
  const order = [...items].sort((a, b) => a.rec.address - b.rec.address);
  let scratch: Uint8Array | null = null;
  for (let i = 0; i < order.length; ) {
    const first = order[i]!.rec;
    if (first.size > group) {
      // alone, the ordinary way (its size is checked against the file before any allocation)
      how.read(await how.decode(await io.read(first.address, first.size), first), order[i]!.req, out);
      i++;
      continue;
    }
    let j = i + 1;
    let end = first.address + first.size;
    for (; j < order.length; j++) {
      const r = order[j]!.rec;
      if (r.address < end || r.address - end > GAP_BYTES || r.address + r.size - first.address > group) break;
      end = r.address + r.size;
    }
    const total = end - first.address;
    let buf: Uint8Array;
    if (how.copies) {
      if (scratch === null || scratch.length < total) scratch = new Uint8Array(j - i === order.length - i ? total : group);
      buf = scratch.subarray(0, total);
    } else buf = new Uint8Array(total);
    await io.readInto(first.address, buf);
    for (let k = i; k < j; k++) {
      const { rec, req } = order[k]!;
      const at = rec.address - first.address;
      how.read(await how.decode(buf.subarray(at, at + rec.size), rec), req, out);
    }
    i = j;
  }
}
