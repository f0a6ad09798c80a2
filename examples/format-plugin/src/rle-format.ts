/**
 * `ChunkFormat` of run-length chunks: in memory a chunk is its elements in C order (like a dense
 * chunk); in the file it is one section of runs ({@link rleEncode}). Every element is defined.
 * @module
 */
import {
  UnsupportedError,
  type ChunkFormat,
  type ChunkFormatContext,
  type ChunkImage,
  type ChunkRequest,
} from '@chunkform/core';
import { rleDecode, rleEncode } from './rle.js';

/** Run-length chunks (structured chunk layout, one section, no filters). */
export class RleFormat implements ChunkFormat<Uint8Array> {
  readonly name = 'rle';
  /** Stored chunks vary in size with their number of runs. */
  readonly variableSize = true;
  private readonly es: number;
  private readonly elements: number;

  constructor(private readonly ctx: ChunkFormatContext) {
    if ((ctx.sectionPipelines ?? []).some((p) => p.filters.length > 0)) {
      throw new UnsupportedError('run-length chunks with filters are not supported', { path: ctx.datasetPath });
    }
    this.es = ctx.elementSize;
    this.elements = ctx.chunkDims.reduce((a, b) => a * b, 1);
  }

  fill(): Uint8Array {
    const mem = new Uint8Array(this.elements * this.es);
    const v = this.ctx.fillValue;
    if (v) for (let i = 0; i < this.elements; i++) mem.set(v, i * this.es);
    return mem;
  }

  async fileToMem(image: Uint8Array): Promise<Uint8Array> {
    return rleDecode(image, this.elements, this.es, this.ctx.datasetPath);
  }

  async memToFile(mem: Uint8Array): Promise<ChunkImage> {
    // One section: no section offsets; unfiltered, so no per-section sizes or masks.
    return { bytes: rleEncode(mem, this.es), filterMask: 0, sections: { offsets: [] } };
  }

  memRead(mem: Uint8Array, req: ChunkRequest, out: Uint8Array): void {
    copyRuns(req, this.es, (chunkAt, bufferAt, bytes) => out.set(mem.subarray(chunkAt, chunkAt + bytes), bufferAt));
  }

  memWrite(mem: Uint8Array, req: ChunkRequest, src: Uint8Array): void {
    copyRuns(req, this.es, (chunkAt, bufferAt, bytes) => mem.set(src.subarray(bufferAt, bufferAt + bytes), chunkAt));
  }

  memSize(mem: Uint8Array): number {
    return mem.length;
  }
}

/** Calls `copy` with the byte offsets in chunk and buffer and the byte length of each run of `req`. */
function copyRuns(req: ChunkRequest, es: number, copy: (chunkAt: number, bufferAt: number, bytes: number) => void): void {
  const r = req.runs;
  for (let i = 0; i < r.length; i += 3) copy(r[i]! * es, r[i + 1]! * es, r[i + 2]! * es);
}
