/**
 * The messages between the filter worker pool (./pool.ts) and its workers (./worker.ts), and the
 * backend interface that `#workers` resolves to (./threads-node.ts in Node, ./threads-none.ts
 * elsewhere). Types and two constants.
 * @module
 */
import type { FilterPipeline } from '@chunkform/core/plugin';
import type { DecodeTarget, OffloadContext, StoredBytes } from '@chunkform/core/plugin';

/** One chunk to run through a pipeline on a worker. */
export interface FilterJob {
  /** Forward (write) or reverse (read). */
  direction: 'encode' | 'decode';
  /**
   * The chunk's bytes (the buffer is transferred: a private copy; or shared memory, sent as it is
   * and only read). Absent when the worker reads them from the file itself (`stored`).
   */
  bytes?: Uint8Array;
  /** Decode into a target: where the worker reads the chunk's stored bytes itself (./stored-read.ts) instead of `bytes`. */
  stored?: StoredBytes;
  pipeline: FilterPipeline;
  /** Decode: the chunk's filter mask (bit i set: filter i was not applied). */
  filterMask: number;
  ctx: OffloadContext;
  /**
   * Decode into shared memory: the worker copies the decoded chunk's runs into `target.out` (a view
   * of a `SharedArrayBuffer`, shared, not copied, by the message) and sends no bytes back.
   */
  target?: DecodeTarget;
  /**
   * Encode: shared memory (shared, not copied, by the message) for the result of a pipeline ending
   * in LZ4 or bitshuffle + LZ4 — the worker builds the result there and replies with its length ({@link FilterReply.outLength})
   * instead of bytes, so no buffer comes back (./worker.ts).
   */
  out?: SharedArrayBuffer;
}

/** One section of a {@link SectionsJob} (bytes in shared memory go as they are, others are copied by the message). */
export interface SectionJob {
  bytes: Uint8Array;
  pipeline: FilterPipeline;
  ctx: OffloadContext;
}

/** Every section of one structured chunk to encode, each through its own pipeline; the reply's bytes are the stored sections one after another. */
export interface SectionsJob {
  direction: 'sections';
  sections: SectionJob[];
}

/** A chunk format's own function to run there (core's `OffloadTask`): the reply's `value` is what it returned. */
export interface TaskJob {
  direction: 'task';
  module: string;
  fn: string;
  args: unknown;
}

/** What a worker sends back (id {@link READY_ID} once, when it is ready). */
export interface FilterReply {
  id: number;
  bytes?: Uint8Array;
  filterMask?: number;
  /** A job with a target: the runs are in place. */
  written?: boolean;
  /** The job's input buffer, sent back for reuse (absent when the result lives in it). */
  input?: Uint8Array;
  /** An encode job's result is the first `outLength` bytes of its {@link FilterJob.out}. */
  outLength?: number;
  /** A {@link SectionsJob}: stored bytes and filter mask of each section. */
  sizes?: number[];
  masks?: number[];
  /** A {@link TaskJob}: the function ran, and returned `value`. */
  done?: boolean;
  value?: unknown;
  /** The failure's message (the pool then runs the chunk on the calling thread, which names it). */
  error?: string;
}

/** What a worker is started with. */
export interface FilterWorkerData {
  /** Filter ids whose codecs the worker loads before it reports ready (those the pool has used). */
  warm: number[];
  /**
   * Claims of the jobs that can be taken back before they start (shared memory, {@link CLAIM_SLOTS}
   * slots): a job sent with `slot` holds its id there while it waits in the worker's port; the worker
   * runs it only if it swaps that id for {@link CLAIM_STARTED} (else the pool took it back and sent
   * it to another worker: no reply).
   */
  claims?: Int32Array;
  /** Bytes of the largest chunk the pool has run (the codecs warm on that many: ./warm.ts); 0: none yet. */
  warmBytes?: number;
}

/** Slots of {@link FilterWorkerData.claims}: jobs of one worker that can be taken back at once. */
export const CLAIM_SLOTS = 8;
/** A claim slot's value once its job has started (or while it is free). */
export const CLAIM_STARTED = -1;
/** A claim slot's value once its job was taken back. */
export const CLAIM_TAKEN = -2;

/** How the error of a worker that could not read a chunk's stored bytes (./stored-read.ts) begins. */
export const STORED_READ_FAILED = 'filters: the worker could not read the stored chunk: ';

/** The id of the message a worker sends once it has loaded the filters. */
export const READY_ID = -1;

/** A finished job: the result's bytes (none when it was written into its target), mask and the input buffer sent back for reuse. */
export interface FilterResult {
  bytes?: Uint8Array;
  filterMask: number;
  input?: Uint8Array;
  /** The result is the first `outLength` bytes of the job's {@link FilterJob.out} (no `bytes`). */
  outLength?: number;
  /** A {@link SectionsJob}'s stored size and mask of each section. */
  sizes?: number[];
  masks?: number[];
  /** A {@link TaskJob}'s value. */
  value?: unknown;
  /** The job was taken back before it started ({@link FilterWorker.takeBack}): run it elsewhere. */
  takenBack?: boolean;
}

/** One worker thread running filter pipelines. */
export interface FilterWorker {
  /** Resolves once the worker has loaded the filters and takes requests (rejects if it fails to start). */
  readonly ready: Promise<void>;
  /** Requests sent and not answered yet. */
  readonly pending: number;
  /** Runs `job` there (its bytes' buffer is transferred unless shared). Rejects when the worker fails or exits. */
  run(job: FilterJob | SectionsJob | TaskJob): Promise<FilterResult>;
  /**
   * Takes back the newest job that has not started yet and that another worker can run as well (a
   * chunk whose stored bytes the worker reads itself: nothing of it was moved there); its `run`
   * resolves with `takenBack`. False when there is none.
   */
  takeBack(): boolean;
  /** Stops the worker (pending requests are rejected). */
  terminate(): void;
}
