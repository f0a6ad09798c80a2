/**
 * The sparse chunk format (seed 004 §6 "structured chunks", notes/sparse-format.md §6 and §8):
 * `ChunkFormat<SparseChunk>` for structured chunks of fixed-size datatypes. Memory form: the defined
 * elements as a chunk-relative selection plus their values in C order; file form: section 0 (encoded
 * selection + lookup3) and section 1 (values), each through its own filter pipeline.
 * @module
 */
import {
  UnsupportedError,
  type ChunkFormat,
  type ChunkFormatContext,
  type ChunkImage,
  type ChunkRecord,
  type ChunkRequest,
  type Selection,
} from '@chunkform/core';
import { anySectionFiltered, decodeSparseChunk, encodeSparseChunk } from './sections.js';
import {
  FillWriter,
  chunkFromRequest,
  definedWithin,
  emptyChunk,
  eraseChunk,
  readChunk,
  writeChunk,
  type SparseChunk,
} from './sparse-chunk.js';

/** Sparse structured chunks (layout class 4, structured chunk type 0). */
export class SparseFormat implements ChunkFormat<SparseChunk> {
  readonly name: string;
  /** Stored chunks vary in size with the number of defined elements. */
  readonly variableSize = true;
  private readonly es: number;
  private readonly filler: FillWriter;

  constructor(private readonly ctx: ChunkFormatContext) {
    if (ctx.chunkDims.length === 0) {
      throw new UnsupportedError('sparse chunks need a chunk rank of at least 1', { path: ctx.datasetPath, structure: 'structured chunk layout' });
    }
    this.es = ctx.elementSize;
    this.filler = new FillWriter(ctx.fillValue, ctx.elementSize);
    this.name = anySectionFiltered(ctx) ? 'sparse-filtered' : 'sparse';
  }

  /** A chunk with nothing defined (unwritten sparse chunks take no space). */
  fill(): SparseChunk {
    return emptyChunk();
  }

  isEmpty(mem: SparseChunk): boolean {
    return mem.runs.length === 0;
  }

  fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<SparseChunk> {
    return decodeSparseChunk(image, rec, this.ctx);
  }

  memToFile(mem: SparseChunk, coords: readonly number[]): Promise<ChunkImage> {
    return encodeSparseChunk(mem, this.ctx, coords);
  }

  memRead(mem: SparseChunk, req: ChunkRequest, out: Uint8Array): void {
    readChunk(mem, req, out, this.es, this.filler);
  }

  memWrite(mem: SparseChunk, req: ChunkRequest, src: Uint8Array): void {
    writeChunk(mem, req, src, this.es, this.ctx.chunkDims);
  }

  fromRequest(req: ChunkRequest, src: Uint8Array): SparseChunk {
    return chunkFromRequest(req, src, this.es, this.ctx.chunkDims);
  }

  memSize(mem: SparseChunk): number {
    const sel = mem.selection;
    return mem.values.length + mem.runs.byteLength + (sel.kind === 'blocks' ? sel.boxes.byteLength : 0) + 64;
  }

  defined(mem: SparseChunk, chunkSel: Selection): Selection {
    return definedWithin(mem, chunkSel, this.ctx.chunkDims);
  }

  erase(mem: SparseChunk, chunkSel: Selection): void {
    eraseChunk(mem, chunkSel, this.es, this.ctx.chunkDims);
  }
}
