/**
 * The sparse chunk format (docs/architecture.md §3 "structured chunks", docs/structured-chunk-format.md §6 and §8):
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
import { anySectionFiltered, sameNumbers, sectionPipeline, spareBlockList } from '@chunkform/core/plugin';
import { SECTION_VALUES, decodeSparseChunk, decoded, encodeSparseChunk, selectionEncodingOf } from './sections.js';
import { encodePlan } from './encode-plan.js';
import { releaseValues } from './owned-values.js';
import {
  FillWriter,
  chunkFromRequest,
  definedWithin,
  definedValuesWithin,
  emptyChunk,
  eraseChunk,
  readChunk,
  runsBytes,
  shareChunk,
  writeChunk,
  type SparseChunk,
} from './sparse-chunk.js';

/** Largest stored chunk whose decoded form is kept for the next `fileToMem` of the same bytes. */
const MEMO_MAX_BYTES = 1 << 16;

/** Sparse structured chunks (layout class 4, structured chunk type 0). */
export class SparseFormat implements ChunkFormat<SparseChunk> {
  readonly name: string;
  /** Stored chunks vary in size with the number of defined elements. */
  readonly variableSize = true;
  private readonly es: number;
  private readonly filler: FillWriter;
  /** The last decoded stored chunk of at most {@link MEMO_MAX_BYTES} (see `fileToMem`). */
  private lastDecoded: { address: number; image: Uint8Array; mem: SparseChunk } | null = null;
  /** Values go through filters: large value arrays of fresh chunks are kept in reused buffers (./owned-values.ts). */
  private readonly ownedValues: boolean;

  constructor(private readonly ctx: ChunkFormatContext) {
    if (ctx.chunkDims.length === 0) {
      throw new UnsupportedError('sparse chunks need a chunk rank of at least 1', { path: ctx.datasetPath, structure: 'structured chunk layout' });
    }
    selectionEncodingOf(ctx);
    this.es = ctx.elementSize;
    this.filler = new FillWriter(ctx.fillValue, ctx.elementSize);
    this.name = anySectionFiltered(ctx) ? 'sparse-filtered' : 'sparse';
    this.ownedValues = sectionPipeline(ctx, SECTION_VALUES).filters.length > 0;
  }

  /** A chunk with nothing defined (unwritten sparse chunks take no space). */
  fill(): SparseChunk {
    return emptyChunk();
  }

  isEmpty(mem: SparseChunk): boolean {
    return mem.selection.kind === 'none';
  }

  async fileToMem(image: Uint8Array, rec: ChunkRecord): Promise<SparseChunk> {
    // `getDefined` then `read` of the same chunk (readDefined) decode the same stored bytes twice:
    // the last small decoded chunk is kept and handed out shared (copy-on-write values).
    const last = this.lastDecoded;
    if (last && last.address === rec.address && sameNumbers(last.image, image)) return shareChunk(last.mem);
    const mem = await decodeSparseChunk(image, rec, this.ctx);
    if (image.length > MEMO_MAX_BYTES) return mem;
    this.lastDecoded = { address: rec.address, image: image.slice(), mem };
    return shareChunk(mem);
  }

  /** {@link fileToMem} of a chunk a reader reaches soon: both sections' filters may run off the calling thread at once. */
  decodeAhead(image: Uint8Array, rec: ChunkRecord): Promise<SparseChunk> {
    return decodeSparseChunk(image, rec, this.ctx, true);
  }

  async memToFile(mem: SparseChunk, coords: readonly number[], last?: boolean): Promise<ChunkImage> {
    const values = mem.values;
    try {
      return await encodeSparseChunk(mem, this.ctx, coords);
    } finally {
      if (last) releaseValues(values); // (not when the image views them: encoding kept them then)
    }
  }

  memRead(mem: SparseChunk, req: ChunkRequest, out: Uint8Array): void {
    readChunk(mem, req, out, this.es, this.filler);
  }

  memWrite(mem: SparseChunk, req: ChunkRequest, src: Uint8Array): void {
    writeChunk(mem, req, src, this.es, this.ctx.chunkDims, this.ownedValues, encodePlan(this.ctx));
  }

  fromRequest(req: ChunkRequest, src: Uint8Array): SparseChunk {
    return chunkFromRequest(req, src, this.es, this.ctx.chunkDims);
  }

  memSize(mem: SparseChunk): number {
    const sel = mem.selection;
    return mem.values.length + runsBytes(mem) + (sel.kind === 'blocks' ? sel.boxes.byteLength : 0) + 64;
  }

  /** A decoded chunk dropped unchanged by its closed file's cache: its block list's buffer goes to the next chunks decoded (whose pages are then not fresh). */
  release(mem: SparseChunk): void {
    const sel = decoded.get(mem);
    if (sel && sel === mem.selection) spareBlockList(sel.boxes);
  }

  defined(mem: SparseChunk, chunkSel: Selection): Selection {
    return definedWithin(mem, chunkSel, this.ctx.chunkDims);
  }

  definedValues(mem: SparseChunk, chunkSel: Selection): { selection: Selection; values: Uint8Array } {
    return definedValuesWithin(mem, chunkSel, this.es, this.ctx.chunkDims);
  }

  erase(mem: SparseChunk, chunkSel: Selection): void {
    eraseChunk(mem, chunkSel, this.es, this.ctx.chunkDims);
  }
}
