/**
 * The variable-length chunk format (docs/format-vl.md): `ChunkFormat<VlChunk>` for structured
 * chunks of type 1, dense (two sections) or sparse (three sections). Values reach the user through
 * the object lane of the request buffer (core's chunk/object-lane.ts), never as element bytes.
 * @module
 */
import {
  UnsupportedError,
  ValueError,
  laneOf,
  selectNone,
  intersect,
  selectionRuns,
  toBlocks,
  type ChunkFormat,
  type ChunkFormatContext,
  type ChunkImage,
  type ChunkRecord,
  type ChunkRequest,
  type RawIO,
  type Selection,
} from '@chunkform/core';
import { emptyVlChunk, eraseValue, readValues, writeEmpty, writeValues, type VlChunk } from './vl-chunk.js';
import { anySectionFiltered } from '@chunkform/core/plugin';
import { DENSE_SECTIONS, ENTRY_SIZE, SPARSE_SECTIONS, decodeVlChunk, definedSelection, encodeVlChunk, heapValueBytes, type VlShape } from './vl-sections.js';
import { vlCodec, type VlCodec } from './vl-values.js';
import { ColumnRead, readColumn, stringColumns, writeColumn } from './vl-column.js';
import { columnChunk, textChunk } from './vl-image.js';
import { encodeOwned, ownImage, slabChunk } from './vl-image-offload.js';
import { VLStrings } from './vl-strings.js';
import { readMany, type ChunkReading, type ReadItem } from './vl-read-many.js';
import { built, deferredChunk, pendingBytes } from './vl-deferred.js';

/** Variable-length structured chunks (layout class 4, structured chunk type 1). */
export class VlFormat implements ChunkFormat<VlChunk> {
  readonly name: string;
  /** Stored chunks vary in size with their values. */
  readonly variableSize = true;
  readonly objectValues: VlCodec;
  private readonly shape: VlShape;

  /** `sparse`: three sections (selection, entries, heap) instead of two (entries, heap). */
  constructor(
    private readonly ctx: ChunkFormatContext,
    sparse: boolean,
  ) {
    if (ctx.chunkDims.length === 0) throw new UnsupportedError('VL chunks need a chunk rank of at least 1', { path: ctx.datasetPath });
    const sections = ctx.sectionPipelines?.length;
    if (sections !== undefined && sections !== DENSE_SECTIONS && sections !== SPARSE_SECTIONS) {
      throw new UnsupportedError(`VL chunks have ${DENSE_SECTIONS} (dense) or ${SPARSE_SECTIONS} (sparse) sections, this layout ${sections}`, { path: ctx.datasetPath });
    }
    try {
      const codec = vlCodec(ctx.datatype, ctx.datasetPath);
      this.objectValues = codec.text ? { ...codec, columnar: stringColumns(codec.ascii, ctx.datasetPath) } : codec;
    } catch (e) {
      if (e instanceof ValueError) throw new UnsupportedError(`a VL chunk layout with a datatype VL chunks cannot hold: ${e.detail}`, { path: ctx.datasetPath });
      throw e;
    }
    const n = ctx.chunkDims.reduce((a, b) => a * b, 1);
    this.shape = { sparse, n, bs: this.objectValues.baseSize };
    this.name = `${sparse ? 'sparse-vl' : 'vl'}${anySectionFiltered(ctx) ? '-filtered' : ''}`;
  }

  fill(): VlChunk {
    return emptyVlChunk(this.shape.n, this.shape.sparse);
  }

  fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<VlChunk> {
    return decodeVlChunk(image, rec, this.ctx, this.shape);
  }

  async memToFile(mem: VlChunk, coords: readonly number[], last?: boolean): Promise<ChunkImage> {
    built(mem);
    // (a chunk built in shared memory: its checksums written on a worker first, ./vl-image-offload.ts;
    // its buffer is the slab's, else one kept for reuse once written when `last`: ./vl-image-pool.ts)
    return encodeOwned(mem, last === true, (inSlab) => encodeVlChunk(mem, this.ctx, this.shape, coords, last === true && !inSlab));
  }

  /**
   * Layouts without filters: chunks read in full are read many at once, chunks adjacent in the file
   * with one I/O into one buffer (vl-read-many.ts). Filtered layouts decode chunk by chunk (in
   * parallel on the filter workers), so they have none.
   */
  get fileReadMany(): ((items: readonly ReadItem[], out: Uint8Array, io: RawIO) => Promise<void>) | undefined {
    if (anySectionFiltered(this.ctx)) return undefined;
    const how: ChunkReading = {
      decode: (image, rec) => this.fileToMem(image, rec),
      read: (mem, req, out) => this.memRead(mem, req, out),
      copies: this.objectValues.text,
    };
    return (items, out, io) => {
      // a column read of whole chunks reads them into its own staging buffer as far as they fit (vl-column.ts)
      const col = laneOf(out)?.columnar;
      if (!(col instanceof ColumnRead) || !items.every((it) => it.req.full)) return readMany(items, out, io, how);
      const stage = (most: number): Uint8Array | null => {
        const bytes = items.reduce((n, it) => n + heapValueBytes(it.rec), 0);
        return bytes <= most ? col.stageInPlace(bytes) : null;
      };
      return readMany(items, out, io, { ...how, stage });
    };
  }

  /** Index of `buf`'s first element in its lane. */
  private base(buf: Uint8Array): number {
    return buf.byteOffset / this.ctx.elementSize;
  }

  memRead(mem: VlChunk, req: ChunkRequest, out: Uint8Array): void {
    built(mem);
    ownImage(mem);
    const lane = laneOf(out);
    if (!lane) throw new UnsupportedError('variable-length chunk values are read through Dataset.read (they are not element bytes)', { path: this.ctx.datasetPath });
    if (lane.columnar instanceof ColumnRead) readColumn(mem, req.runs, lane.columnar, this.base(out));
    else readValues(mem, req.runs, lane.values, this.base(out), this.objectValues, req.count);
  }

  /**
   * A whole chunk written: of a column or of ASCII strings (dense chunks), built as its stored image
   * in one pass — a column's (checked when the call began) when the chunk is first used, i.e. its
   * encoding inside the write call (./vl-deferred.ts), in shared memory with its checksums then
   * written on the filter worker pool when it has one (./vl-image-offload.ts).
   */
  fromRequest(req: ChunkRequest, src: Uint8Array): VlChunk {
    const lane = laneOf(src);
    if (lane && !this.shape.sparse) {
      const { n } = this.shape;
      const base = this.base(src);
      const runs = req.runs;
      const col = lane.columnar;
      if (col instanceof VLStrings) {
        let bytes = 0;
        for (let r = 0; r < runs.length; r += 3) bytes += col.offsets[base + runs[r + 1]! + runs[r + 2]!]! - col.offsets[base + runs[r + 1]!]!;
        return deferredChunk(n, bytes, (mem) => {
          if (slabChunk(n, runs, col, base, anySectionFiltered(this.ctx), mem) ?? columnChunk(n, runs, col, base, mem)) return;
          this.memWrite(mem, req, src);
        });
      }
      // (built at once: a string that is not ASCII makes it write value by value, which may refuse it in this call)
      const mem = this.objectValues.text && !col ? textChunk(n, runs, lane.values, base) : null;
      if (mem) return mem;
    }
    const mem = this.fill();
    this.memWrite(mem, req, src);
    return mem;
  }

  memWrite(mem: VlChunk, req: ChunkRequest, src: Uint8Array): void {
    built(mem);
    ownImage(mem);
    const lane = laneOf(src);
    if (lane?.columnar instanceof VLStrings) {
      writeColumn(mem, req.runs, lane.columnar, this.base(src));
      return;
    }
    if (lane) {
      writeValues(mem, req.runs, lane.values, this.base(src), this.objectValues, this.ctx.datasetPath);
      return;
    }
    // Element bytes only come from the storage itself: zeros, the fill of a VL element (empty value).
    for (let i = 0; i < src.length; i++) {
      if (src[i] !== 0) throw new UnsupportedError('variable-length chunk values are written through Dataset.write (they are not element bytes)', { path: this.ctx.datasetPath });
    }
    writeEmpty(mem, req.runs, this.objectValues, this.ctx.datasetPath);
  }

  memSize(mem: VlChunk): number {
    return (pendingBytes(mem) ?? mem.heap.length) + mem.n * ENTRY_SIZE + (mem.defined ? mem.defined.length : 0) + 64;
  }

  isEmpty(mem: VlChunk): boolean {
    return this.shape.sparse && mem.count === 0;
  }

  /** Sparse VL chunks only (dense chunks have every element defined). */
  get defined(): ((mem: VlChunk, chunkSel: Selection) => Selection) | undefined {
    if (!this.shape.sparse) return undefined;
    return (mem, chunkSel) => (mem.count === 0 ? selectNone() : intersect(definedSelection(mem, this.ctx.chunkDims), chunkSel, this.ctx.chunkDims));
  }

  /** Sparse VL chunks only. */
  get erase(): ((mem: VlChunk, chunkSel: Selection) => void) | undefined {
    if (!this.shape.sparse) return undefined;
    return (mem, chunkSel) => {
      const blocks = toBlocks(chunkSel, this.ctx.chunkDims);
      if (blocks.kind === 'none' || mem.count === 0) return;
      const runs = selectionRuns(blocks, this.ctx.chunkDims);
      const bs = this.shape.bs;
      for (let r = 0; r < runs.length; r += 2) {
        for (let i = runs[r]!; i < runs[r]! + runs[r + 1]!; i++) eraseValue(mem, i, bs);
      }
    };
  }
}
