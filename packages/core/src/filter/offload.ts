/**
 * Running a chunk's whole filter pipeline off the calling thread (e.g. on the worker pool of
 * `@chunkform/filters`): a process-wide hook that {@link encodeChunk} and {@link decodeChunk} of
 * ./pipeline.ts ask first. The hook may decline a chunk (too small, a filter it does not know); it
 * must produce the same bytes as running the filters here, and it reports a failure by returning
 * null — the pipeline then runs on the calling thread, which throws the error with the chunk named.
 * Pure module: no Node-only import (the browser read path reaches it).
 * @module
 */
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import type { Filter, FilterContext } from './filter.js';
import type { DecodeTarget, StoredBytes } from './decode-into.js';

/** What every filter of a pipeline shares (as in ./pipeline.ts). */
export type OffloadContext = Omit<FilterContext, 'clientData' | 'flags'>;

/** One section of a structured chunk for {@link PipelineOffload.encodeSections}. */
export interface OffloadSection {
  /** The section's bytes (kept by the caller, as for {@link PipelineOffload.encode}). */
  bytes: Uint8Array;
  /** The section's pipeline (empty: stored as it is). */
  pipeline: FilterPipeline;
  /** `impls[i]`: the implementation of filter i (undefined: not registered). */
  impls: readonly (Filter | undefined)[];
  ctx: OffloadContext;
}

/** What {@link PipelineOffload.encodeSections} resolves to. */
export interface EncodedSections {
  /** The stored sections one after another (one chunk image). */
  bytes: Uint8Array;
  /** Stored bytes of each section. */
  sizes: number[];
  /** Filter mask of each section. */
  filterMasks: number[];
}

/**
 * A function of a chunk format's own, run on another thread by {@link PipelineOffload.runTask}: the
 * export `fn` of the ES module at `module` (a URL the other thread can import, e.g.
 * `new URL('./task.js', import.meta.url).href`) is called with `args` (structured-cloned; views of a
 * `SharedArrayBuffer` are shared, not copied) and returns `{ value, transfer }`: the value sent back,
 * with the buffers in `transfer` moved, not copied. It must be a pure function of `args`, giving the
 * same value as calling it on the calling thread.
 */
export interface OffloadTask {
  module: string;
  fn: string;
  args: unknown;
  /** Bytes of work (what the offload's size threshold is compared with). */
  bytes: number;
}

/** What an {@link OffloadTask}'s function returns. */
export interface OffloadTaskResult<T = unknown> {
  value: T;
  /** Buffers of `value` moved to the calling thread instead of copied. */
  transfer: ArrayBuffer[];
}

/** Runs filter pipelines somewhere else (another thread). */
export interface PipelineOffload {
  /** Chunks it works on at once (its threads): how many chunks a streaming write keeps in flight. */
  readonly threads?: number;
  /** Smallest work (bytes) it takes: a chunk format stages smaller chunks for nothing. */
  readonly minBytes?: number;
  /**
   * Optional: runs a chunk format's own function on another thread (see {@link OffloadTask}).
   * Null to decline (no thread, or less than {@link minBytes} of work); the promise resolves to
   * the function's value, or null when the work failed there (the caller then runs the function
   * itself, which throws its error with the chunk named).
   */
  runTask?(task: OffloadTask): Promise<unknown> | null;
  /**
   * Forward pipeline of `bytes` (the caller keeps `bytes`: the offload copies what it sends — except
   * bytes in a `SharedArrayBuffer`, which it may send as they are: the caller then leaves them
   * unchanged until the returned promise settles).
   * `impls[i]` is the implementation resolved for filter i (undefined: not registered). Returns
   * null to decline (or when the work failed there), else the encoded bytes and the filter mask —
   * and optionally `written`, which the caller calls once nothing uses the bytes any more (the
   * offload may then reuse their memory; a caller that never calls it only forgoes that reuse).
   */
  encode(
    bytes: Uint8Array,
    pipeline: FilterPipeline,
    impls: readonly (Filter | undefined)[],
    ctx: OffloadContext,
  ): Promise<{ bytes: Uint8Array; filterMask: number; written?: () => void } | null> | null;
  /**
   * Optional: every section of a structured chunk through its own pipeline in one job (the bytes of
   * each as {@link encode} would give them), joined into one image there, so the calling thread
   * neither runs the small sections' filters nor copies the sections together. Null to decline (or
   * when the work failed there: the caller then encodes the sections itself, which names the error).
   */
  encodeSections?(sections: readonly OffloadSection[]): Promise<EncodedSections | null> | null;
  /** Reverse pipeline (filters with bit i of `filterMask` set are skipped), or null as for {@link encode}. */
  decode(bytes: Uint8Array, pipeline: FilterPipeline, filterMask: number, impls: readonly (Filter | undefined)[], ctx: OffloadContext): Promise<Uint8Array | null> | null;
  /**
   * Optional: {@link decode}, then the decoded chunk's runs copied into `target.out` — a view of
   * shared memory that the other thread writes itself (./decode-into.ts), so no chunk bytes come
   * back. The chunk must decode to `target.chunkBytes` bytes. Resolves true once the runs are in
   * place, false when the work failed there; null to decline (as for {@link encode}).
   */
  decodeInto?(
    bytes: Uint8Array,
    pipeline: FilterPipeline,
    filterMask: number,
    impls: readonly (Filter | undefined)[],
    ctx: OffloadContext,
    target: DecodeTarget,
  ): Promise<boolean> | null;
  /**
   * Optional: {@link decodeInto} of a chunk whose stored bytes the other thread reads itself from
   * a local file (`stored`), so the calling thread neither reads them nor sends them. Resolves
   * false when the work failed there (the file could not be read as it is open here, or the chunk
   * did not decode): the caller then reads the chunk and tries again; null to decline.
   */
  decodeStoredInto?(
    stored: StoredBytes,
    pipeline: FilterPipeline,
    filterMask: number,
    impls: readonly (Filter | undefined)[],
    ctx: OffloadContext,
    target: DecodeTarget,
  ): Promise<boolean> | null;
  /**
   * Optional: a buffer of `size` bytes for the stored bytes of a chunk about to go to
   * {@link decodeInto}. The caller fills it and passes it (whole) as `bytes`: it then goes to the
   * other thread as it is, without a copy, and is the offload's again — when `decodeInto` resolves
   * false the buffer may be gone (a view of length 0), and the caller reads the chunk again.
   */
  inputBuffer?(size: number): Uint8Array;
}

let current: PipelineOffload | null = null;

/** Installs (or, with null, removes) the process-wide pipeline offload. */
export function setPipelineOffload(offload: PipelineOffload | null): void {
  current = offload;
}

/** The installed pipeline offload, if any. */
export function pipelineOffload(): PipelineOffload | null {
  return current;
}
