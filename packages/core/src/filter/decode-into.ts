/**
 * Decoding a stored chunk straight into its place in a read's result (HDF5 spec IV.A.2.l, reverse
 * pipeline, then the chunk's runs copied into the result): when the result lives in shared memory
 * (a `SharedArrayBuffer`), a filter worker thread decodes the chunk and copies its runs there
 * itself, so the calling thread handles none of the chunk's bytes — its part of a read is one
 * message per chunk. Pure module: no Node-only import (the browser read path reaches it; without
 * `SharedArrayBuffer` nothing is shared and nothing here runs on another thread).
 * @module
 */
import { FormatError } from '../errors.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import type { LocalFile } from '../io/byte-store.js';
import { pipelineOffload } from './offload.js';
import { decodeChunk, type ChunkWhere, type FilterResolver, type PipelineContext } from './pipeline.js';

/** Where a decoded chunk goes: runs of it copied into `out`. */
export interface DecodeTarget {
  /** The destination bytes (for another thread: a view of a `SharedArrayBuffer`). */
  out: Uint8Array;
  /**
   * Flat triples `[chunkElementOffset, outElementOffset, length]` (a chunk request's runs): the
   * element offset in the decoded chunk, the element offset in `out`, and the run length.
   */
  runs: Float64Array;
  /** Bytes per element. */
  elementSize: number;
  /** Bytes the decoded chunk must have. */
  chunkBytes: number;
}

/**
 * A stored chunk's bytes where another thread reads them itself: a range of a local file
 * (`ByteSource.localFile`), so the calling thread neither reads nor hands over the chunk's bytes.
 */
export interface StoredBytes {
  /** The file (absolute path and identity of the file open on the calling thread). */
  file: LocalFile;
  /** Byte offset in the file. */
  offset: number;
  /** Stored size in bytes. */
  length: number;
}

/** Byte offsets up to this fit V8's small integers (`| 0` is exact). */
const SMALL_INT = 0x3fffffff;

/** True when `bytes` is a view of shared memory that other threads can write. */
export function isShared(bytes: Uint8Array): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer;
}

/** Copies the runs `[chunkElementOffset, outElementOffset, length]` of `chunk` into `out` (whole subarray copies). */
export function copyChunkRuns(chunk: Uint8Array, runs: Float64Array, out: Uint8Array, es: number): void {
  if (out.length <= SMALL_INT && chunk.length <= SMALL_INT) {
    // Small-integer offsets keep V8 on its fast subarray/set paths.
    for (let i = 0; i < runs.length; i += 3) {
      const c = (runs[i]! * es) | 0;
      out.set(chunk.subarray(c, (c + runs[i + 2]! * es) | 0), (runs[i + 1]! * es) | 0);
    }
    return;
  }
  for (let i = 0; i < runs.length; i += 3) {
    const c = runs[i]! * es;
    out.set(chunk.subarray(c, c + runs[i + 2]! * es), runs[i + 1]! * es);
  }
}

/**
 * Decodes `bytes` on this thread and copies the target's runs of the chunk into `target.out`
 * (what a filter worker runs for {@link decodeChunkShared}); a chunk read whole into one run of
 * `out` is decoded there by its last filter when that filter can (`Filter.decodeInto`).
 * @throws the errors of {@link decodeChunk}; FormatError when the chunk decodes to a size other than `target.chunkBytes`.
 */
export async function decodeChunkInto(
  bytes: Uint8Array,
  pipeline: FilterPipeline,
  filterMask: number,
  resolve: FilterResolver,
  ctx: PipelineContext,
  where: ChunkWhere,
  target: DecodeTarget,
): Promise<void> {
  const { out, runs, elementSize: es, chunkBytes } = target;
  // the whole chunk in one run: its last filter may decode straight into its place
  const at = runs[1]! * es;
  const place = runs.length === 3 && runs[0] === 0 && runs[2]! * es === chunkBytes && at + chunkBytes <= out.length ? out.subarray(at, at + chunkBytes) : undefined;
  const chunk = await decodeChunk(bytes, pipeline, filterMask, resolve, ctx, where, place);
  if (chunk === place) return;
  if (chunk.length !== target.chunkBytes) {
    throw new FormatError(`decoded chunk has ${chunk.length} bytes, ${target.chunkBytes} expected`, {
      path: `${where.path} (chunk [${where.chunk.join(', ')}])`,
      structure: 'chunk',
      ...(where.address !== undefined ? { address: where.address } : {}),
    });
  }
  copyChunkRuns(chunk, runs, out, es);
}

/**
 * A buffer of `size` bytes for a chunk's stored bytes on their way to {@link decodeChunkShared}: one
 * the installed offload hands over to its thread without a copy when it offers that, else a new one.
 */
export function sharedInput(size: number): Uint8Array {
  return pipelineOffload()?.inputBuffer?.(size) ?? new Uint8Array(size);
}

/**
 * Decodes a stored chunk on another thread straight into `target.out`, a view of shared memory
 * ({@link isShared}), through the installed pipeline offload. Resolves true once the runs are in
 * place; false when no other thread takes the chunk (no offload, or one that declines it: too small,
 * a filter it does not know, `out` not shared) or the work failed there — the caller then decodes
 * the chunk itself (`decodeChunk`), which throws the error with the chunk named. `bytes` from
 * {@link sharedInput} go to the other thread without a copy: after false they may be gone (length 0).
 * {@link StoredBytes} instead of bytes: the other thread reads the chunk from the file itself
 * (`PipelineOffload.decodeStoredInto`; false when the offload has no such method or declines).
 */
export async function decodeChunkShared(
  bytes: Uint8Array | StoredBytes,
  pipeline: FilterPipeline,
  filterMask: number,
  resolve: FilterResolver,
  ctx: PipelineContext,
  target: DecodeTarget,
): Promise<boolean> {
  const offload = pipelineOffload();
  if (!offload?.decodeInto || pipeline.filters.length === 0 || pipeline.filters.length > 32 || !isShared(target.out)) return false;
  const impls = pipeline.filters.map((f) => resolve(f.id));
  const done = bytes instanceof Uint8Array ? offload.decodeInto(bytes, pipeline, filterMask, impls, ctx, target) : (offload.decodeStoredInto?.(bytes, pipeline, filterMask, impls, ctx, target) ?? null);
  return done !== null && (await done);
}
