/**
 * Dense chunk formats (docs/architecture.md §3 "dense chunks"): the memory form of a chunk is its bytes,
 * `chunkDims` elements in C order. Unfiltered chunks are stored as they are and support partial I/O
 * straight to the file; filtered chunks go through the dataset's filter pipeline as a whole.
 *
 * Each format is a reading class (`DenseUnfilteredReader`, `DenseFilteredReader`: what
 * `registerDenseReadOnly` makes, so a bundle that only reads leaves the write methods and the
 * filter pipeline's encoder out) and a subclass that adds the writing methods.
 * @module
 */
import {
  FormatError,
  UnsupportedError,
  decodeChunk,
  encodeChunk,
  type ChunkFormat,
  type ChunkFormatContext,
  type ChunkImage,
  type ChunkRecord,
  type ChunkRequest,
  type RawIO,
} from '@chunkform/core';
import { decodeChunkShared, isPartialEdgeChunk, type StoredBytes } from '@chunkform/core/plugin';
import { copyRunsIn, copyRunsOut, filledBuffer, runsByteRange } from './runs.js';
import { fullImages, isWholeRun } from './full-images.js';
import { CoalescingReader, type ReadItem } from './coalesce.js';

/** Scratch buffers kept for reuse (the engine has at most this many chunk reads in flight). */
const MAX_SCRATCH = 8;

/** Partial writes with more runs than this read-modify-write the touched range in one I/O. */
const MAX_DIRECT_WRITE_RUNS = 8;

/** Why the reading classes refuse writes. */
const READ_ONLY = 'the dense chunk format is registered read-only (registerDenseReadOnly); registerDenseFormats() writes';

/** Shared parts of both dense formats (reading; the writing subclasses override {@link memWrite} and {@link memToFile}). */
abstract class DenseFormat implements ChunkFormat<Uint8Array> {
  abstract readonly name: string;
  abstract readonly variableSize: boolean;
  /** Set while the format only reads: the chunked storage then refuses writes before anything changes. */
  readonly readOnlyReason?: string = READ_ONLY;
  protected readonly es: number;
  protected readonly chunkElements: number;
  protected readonly chunkBytes: number;

  constructor(protected readonly ctx: ChunkFormatContext) {
    this.es = ctx.elementSize;
    this.chunkElements = ctx.chunkDims.reduce((a, b) => a * b, 1);
    this.chunkBytes = this.chunkElements * this.es;
  }

  fill(): Uint8Array {
    return filledBuffer(this.chunkElements, this.ctx.fillValue ?? new Uint8Array(this.es));
  }

  abstract fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<Uint8Array>;

  memRead(mem: Uint8Array, req: ChunkRequest, out: Uint8Array): void {
    copyRunsOut(mem, req, out, this.es);
  }

  /** Refused while read-only ({@link UnsupportedError}); the writing subclasses copy `src` in. */
  memWrite(_mem: Uint8Array, _req: ChunkRequest, _src: Uint8Array): void {
    this.refuse();
  }

  /** Refused while read-only ({@link UnsupportedError}); the writing subclasses encode the chunk. */
  async memToFile(_mem: Uint8Array, _coords: readonly number[]): Promise<ChunkImage> {
    this.refuse();
  }

  private refuse(): never {
    throw new UnsupportedError(`cannot write chunks: ${READ_ONLY}`, { path: this.ctx.datasetPath });
  }

  memSize(): number {
    return this.chunkBytes;
  }

  /** Checks a decoded chunk's length. */
  protected checkLength(bytes: Uint8Array, rec: ChunkRecord, what: string): Uint8Array {
    if (bytes.length !== this.chunkBytes) {
      throw new FormatError(`${what} chunk has ${bytes.length} bytes, ${this.chunkBytes} expected`, {
        path: `${this.ctx.datasetPath} (chunk [${rec.coords.join(', ')}])`,
        structure: 'chunk',
        address: rec.address,
      });
    }
    return bytes;
  }
}

/** Unfiltered dense chunks, read: fixed size, partial reads straight from the file. */
export class DenseUnfilteredReader extends DenseFormat {
  readonly name = 'dense';
  readonly variableSize = false;
  /** Chunk-sized buffers reused by partial reads (one per read in flight). */
  private readonly scratch: Uint8Array[] = [];
  private readonly batch: CoalescingReader;

  constructor(ctx: ChunkFormatContext) {
    super(ctx);
    this.batch = new CoalescingReader(this.es, this.chunkBytes, (rec) => this.checkLength(new Uint8Array(rec.size), rec, 'stored'));
  }

  /** Reads many chunks at once, coalescing I/O of chunks adjacent in the file (`CoalescingReader` in coalesce.ts). */
  fileReadMany(items: readonly ReadItem[], out: Uint8Array, io: RawIO, hints?: { freshOutput?: boolean }): Promise<void> {
    return this.batch.read(items, out, io, hints?.freshOutput === true);
  }

  async fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<Uint8Array> {
    return this.checkLength(image, rec, 'stored');
  }

  async fileRead(rec: ChunkRecord, req: ChunkRequest, out: Uint8Array, io: RawIO): Promise<void> {
    const r = req.runs;
    if (r.length === 3) {
      // One run: read straight into the caller's buffer, no intermediate copy.
      const n = r[2]! * this.es;
      const c = r[0]! * this.es;
      if (c + n > rec.size) this.checkLength(new Uint8Array(rec.size), rec, 'stored');
      const b = r[1]! * this.es;
      await io.readInto(rec.address + c, out.subarray(b, b + n));
      return;
    }
    const [lo, hi] = runsByteRange(req, this.es);
    if (hi > rec.size) this.checkLength(new Uint8Array(rec.size), rec, 'stored');
    // Many runs: read the touched range once into a pooled scratch buffer, then copy the runs out.
    const scratch = this.scratch.pop() ?? new Uint8Array(this.chunkBytes);
    try {
      const bytes = scratch.subarray(0, hi - lo);
      await io.readInto(rec.address + lo, bytes);
      for (let i = 0; i < r.length; i += 3) {
        const c = r[i]! * this.es - lo;
        out.set(bytes.subarray(c, c + r[i + 2]! * this.es), r[i + 1]! * this.es);
      }
    } finally {
      if (this.scratch.length < MAX_SCRATCH) this.scratch.push(scratch);
    }
  }
}

/** Unfiltered dense chunks: fixed size, partial I/O straight to the file. */
export class DenseUnfilteredFormat extends DenseUnfilteredReader {
  override readonly readOnlyReason?: string = undefined;
  /** Stored bytes of every chunk (the engine gathers full chunks and writes neighbours together). */
  readonly imageSize: number = this.chunkBytes;

  override memWrite(mem: Uint8Array, req: ChunkRequest, src: Uint8Array): void {
    copyRunsIn(mem, req, src, this.es);
  }

  fromRequest(req: ChunkRequest, src: Uint8Array): Uint8Array {
    return chunkFromRequest(req, src, this.es, this.chunkElements, () => this.fill());
  }

  /** The stored images of chunks written in full (./full-images.ts). */
  fullImages(reqs: readonly ChunkRequest[], src: Uint8Array, scratch: (extra: number) => Uint8Array): Uint8Array[] {
    return fullImages({ es: this.es, chunkElements: this.chunkElements, fill: this.ctx.fillValue ?? new Uint8Array(this.es) }, reqs, src, scratch);
  }

  override async memToFile(mem: Uint8Array): Promise<ChunkImage> {
    return { bytes: mem, filterMask: 0 };
  }

  async fileWrite(rec: ChunkRecord, req: ChunkRequest, src: Uint8Array, io: RawIO): Promise<void> {
    const r = req.runs;
    if (r.length / 3 <= MAX_DIRECT_WRITE_RUNS) {
      for (let i = 0; i < r.length; i += 3) {
        const b = r[i + 1]! * this.es;
        await io.write(rec.address + r[i]! * this.es, src.subarray(b, b + r[i + 2]! * this.es));
      }
      return;
    }
    const [lo, hi] = runsByteRange(req, this.es);
    const bytes = (await io.read(rec.address + lo, hi - lo)).slice();
    for (let i = 0; i < r.length; i += 3) {
      const b = r[i + 1]! * this.es;
      bytes.set(src.subarray(b, b + r[i + 2]! * this.es), r[i]! * this.es - lo);
    }
    await io.write(rec.address + lo, bytes);
  }
}

/** Filtered dense chunks, read: the whole chunk goes through the filter pipeline. */
export class DenseFilteredReader extends DenseFormat {
  readonly name = 'dense-filtered';
  readonly variableSize = true;

  async fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<Uint8Array> {
    // Partial edge chunks of a "don't filter partial chunks" dataset are stored as they are.
    if (this.ctx.dontFilterPartialChunks && isPartialEdgeChunk(this.ctx, rec.coords)) return this.checkLength(image, rec, 'stored');
    const bytes = await decodeChunk(image, this.ctx.pipeline, rec.filterMask, this.ctx.resolveFilter, this.filterContext(), {
      path: this.ctx.datasetPath,
      chunk: rec.coords,
    });
    return this.checkLength(bytes, rec, 'decoded');
  }

  /** A chunk read in full into a shared result: decoded and copied into `out` by a filter worker (`decodeChunkShared`), from its bytes or its place in the file. */
  async decodeInto(image: Uint8Array | StoredBytes, rec: ChunkRecord, req: ChunkRequest, out: Uint8Array): Promise<boolean> {
    if (this.ctx.dontFilterPartialChunks && isPartialEdgeChunk(this.ctx, rec.coords)) return false;
    return decodeChunkShared(image, this.ctx.pipeline, rec.filterMask, this.ctx.resolveFilter, this.filterContext(), {
      out,
      runs: req.runs,
      elementSize: this.es,
      chunkBytes: this.chunkBytes,
    });
  }

  protected filterContext() {
    const fill = this.ctx.fillValue;
    return { datatype: this.ctx.datatype, elementSize: this.es, chunkDims: this.ctx.chunkDims, ...(fill ? { fillValue: fill } : {}) };
  }
}

/** Filtered dense chunks: the whole chunk goes through the filter pipeline. */
export class DenseFilteredFormat extends DenseFilteredReader {
  override readonly readOnlyReason?: string = undefined;

  override memWrite(mem: Uint8Array, req: ChunkRequest, src: Uint8Array): void {
    copyRunsIn(mem, req, src, this.es);
  }

  fromRequest(req: ChunkRequest, src: Uint8Array): Uint8Array {
    return chunkFromRequest(req, src, this.es, this.chunkElements, () => this.fill());
  }

  override async memToFile(mem: Uint8Array, coords: readonly number[]): Promise<ChunkImage> {
    const skip = this.ctx.dontFilterPartialChunks && isPartialEdgeChunk(this.ctx, coords);
    return encodeChunk(mem, this.ctx.pipeline, this.ctx.resolveFilter, this.filterContext(), { path: this.ctx.datasetPath, chunk: [...coords] }, {
      skipFilters: skip,
    });
  }
}

/** A whole chunk of `chunkElements` elements built from a write request (the writing formats' `fromRequest`). */
function chunkFromRequest(req: ChunkRequest, src: Uint8Array, es: number, chunkElements: number, fill: () => Uint8Array): Uint8Array {
  const r = req.runs;
  // One run covering the whole chunk: the request buffer already is the chunk.
  if (isWholeRun(r, chunkElements)) {
    const b = r[1]! * es;
    return src.subarray(b, b + chunkElements * es);
  }
  // An edge chunk keeps fill values outside the dataset; an interior one is fully overwritten.
  const mem = req.count === chunkElements ? new Uint8Array(chunkElements * es) : fill();
  copyRunsIn(mem, req, src, es);
  return mem;
}
