/**
 * Whole reads of many stored VL chunks at once (core's `fileReadMany`, docs/format-vl.md §5.3), for
 * layouts without filters: chunks next to each other in the file (at most {@link GAP_BYTES} apart)
 * are read with one I/O into one buffer, each chunk is decoded from its view of that buffer (both
 * section checksums verified, entries checked against the heap, as a chunk read alone) and its
 * values copied out at once. The I/O of the next group is under way while a group is decoded (two
 * reads' buffers in turn). When the values leave as copies (strings), those two buffers serve every
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
  /**
   * Optional, for a read whose values are copied, in file order, into one buffer from its start: that
   * buffer (a column read's staging buffer, vl-column.ts `ColumnRead.stageInPlace`), as large as the
   * values of every chunk may be, or null when that is more than `most` bytes or the read has none.
   * Groups are then read into it, one after another, as far as they fit (the others into the two
   * read buffers): each chunk's values move down to where the values before them end.
   */
  stage?(most: number): Uint8Array | null;
}

/** Items `[i, j)` of the file-ordered list, read with one I/O of `total` bytes from the first one's address (`alone`: one chunk larger than a group). */
interface Group {
  i: number;
  j: number;
  total: number;
  alone: boolean;
}

/** Runs of items stored (nearly) back to back, together at most `group` bytes; larger chunks alone. */
function groupsOf(order: readonly ReadItem[], group: number): Group[] {
  const out: Group[] = [];
  for (let i = 0; i < order.length; ) {
    const first = order[i]!.rec;
    if (first.size > group) {
      out.push({ i, j: i + 1, total: first.size, alone: true });
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
    out.push({ i, j, total: end - first.address, alone: false });
    i = j;
  }
  return out;
}

/** Groups are placed at multiples of this in an in-place buffer (chunks keep the alignment of their file addresses). */
const PLACE_ALIGN = 8;

/**
 * Where the groups that fit go in the buffer of an in-place read (`how.stage`): one after another,
 * each at a multiple of {@link PLACE_ALIGN} (-1: in the read buffers); null when the read has no
 * such buffer. The file is checked to hold every chunk before the buffer is allocated (a range
 * past its end is the I/O's typed error): it is never larger than their span.
 */
async function inPlace(order: readonly ReadItem[], groups: readonly Group[], io: RawIO, how: ChunkReading): Promise<{ buf: Uint8Array; at: number[] } | null> {
  if (!how.stage || !how.copies || groups.length === 0) return null;
  let end = 0;
  for (const g of groups) {
    const last = order[g.j - 1]!.rec;
    end = Math.max(end, last.address + last.size);
  }
  const first = order[0]!.rec.address;
  if (end <= first) return null;
  await io.readInto(end - 1, new Uint8Array(1));
  const buf = how.stage(end - first);
  if (!buf) return null;
  const at: number[] = [];
  let next = 0;
  for (const g of groups) {
    const fits = next + g.total <= buf.length;
    at.push(fits ? next : -1);
    if (fits) next += Math.ceil(g.total / PLACE_ALIGN) * PLACE_ALIGN;
    else next = Infinity; // (later groups would land where earlier values go)
  }
  return { buf, at };
}

/**
 * Reads `items` into `out`: in file order, runs of chunks stored (nearly) back to back (together at most
 * `group` bytes) with one `readInto` each, the next run's I/O started before this one's chunks are
 * decoded. Errors are the decoder's, naming the chunk; no I/O of this call is left running when it returns.
 */
export async function readMany(items: readonly ReadItem[], out: Uint8Array, io: RawIO, how: ChunkReading, group = GROUP_BYTES): Promise<void> {
  const order = [...items].sort((a, b) => a.rec.address - b.rec.address);
  const groups = groupsOf(order, group);
  const place = await inPlace(order, groups, io, how);
  // the two buffers reads take in turn when values leave as copies (each as large as the groups it serves)
  const scratch: (Uint8Array | null)[] = [null, null];
  const largest = groups.reduce((m, g) => (g.alone ? m : Math.max(m, g.total)), 0);
  const start = (g: number): Promise<Uint8Array> => {
    const { i, total, alone } = groups[g]!;
    const first = order[i]!.rec;
    let buf: Uint8Array;
    if (place && place.at[g]! >= 0) buf = place.buf.subarray(place.at[g]!, place.at[g]! + total);
    // (a chunk alone is read the ordinary way: its size is checked against the file before any allocation)
    else if (alone) return io.read(first.address, first.size);
    else if (how.copies) {
      const s = g & 1;
      scratch[s] ??= new Uint8Array(largest);
      buf = scratch[s]!.subarray(0, total);
    } else buf = new Uint8Array(total);
    return io.readInto(first.address, buf).then(() => buf);
  };
  // (a read that fails while the group before it is decoded is reported when its turn comes)
  const started = (g: number): Promise<Uint8Array> => {
    const p = start(g);
    p.catch(() => undefined);
    return p;
  };
  let next: Promise<Uint8Array> | null = groups.length > 0 ? started(0) : null;
  try {
    for (let g = 0; g < groups.length; g++) {
      const buf = await next!;
      next = g + 1 < groups.length ? started(g + 1) : null;
      const { i, j } = groups[g]!;
      const base = order[i]!.rec.address;
      for (let k = i; k < j; k++) {
        const { rec, req } = order[k]!;
        const at = rec.address - base;
        how.read(await how.decode(buf.subarray(at, at + rec.size), rec), req, out);
      }
    }
  } finally {
    // (a failure: the read under way finishes before the call returns, its outcome not reported)
    if (next) await next.catch(() => undefined);
  }
}
