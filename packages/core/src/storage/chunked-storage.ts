/**
 * Chunked datasets' storage ({@link ChunkedStorage}): {@link ReadChunkedStorage} plus writing
 * through the {@link ChunkEngine}, flushing cached chunks and the index (and the layout message
 * that records it), early allocation, resizing and direct chunk writes.
 * @module
 */
import { UnsupportedError } from '../errors.js';
import { encodeLayout, type ChunkedLayout } from '../format/messages/layout.js';
import type { StructuredChunkLayout } from '../format/messages/layout-structured.js';
import { LAYOUT } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { ChunkImage } from '../chunk/chunk-format.js';
import { ChunkEngine } from '../chunk/engine.js';
import type { Selection } from '../selection/selection.js';
import { selectAll, selectBlocks } from '../selection/selection.js';
import { intersect, selectionCount, subtract } from '../selection/algebra.js';
import { filledBytes } from './flat-runs.js';
import { openChunkedParts, ReadChunkedStorage, type ChunkedDatasetInfo } from './read-chunked-storage.js';

export { ReadChunkedStorage, type ChunkInfo, type ChunkedDatasetInfo } from './read-chunked-storage.js';

/** A chunked dataset's storage. */
export class ChunkedStorage extends ReadChunkedStorage {
  declare protected readonly engine: ChunkEngine<unknown>;

  /** False once the cache was seen without dirty chunks and nothing changed since. */
  private maybeDirty = false;
  /** Why the dataset's chunk format only reads, when it does (writes are then refused). */
  private formatReadOnly: string | undefined;

  /** Resolves index, format and filters for a dataset and opens its index (`create`: a new, empty one). */
  static override async open(ctx: FileContext, model: HeaderModel, info: ChunkedDatasetInfo, create = false): Promise<ChunkedStorage> {
    const p = await openChunkedParts(ctx, info, create, (o) => new ChunkEngine<unknown>(o));
    const storage = new ChunkedStorage(ctx, model, info, p.index, p.engine, p.cache, p.objectValues);
    storage.formatReadOnly = p.formatReadOnly;
    ctx.writer?.flushHooks.add(storage.flushHook);
    return storage;
  }

  /** @internal */
  protected override async flushCached(): Promise<void> {
    await this.engine.flush();
  }

  /** The writer's flush hook of this dataset. */
  private readonly flushHook = (): Promise<void> => this.flush();

  /**
   * Forgets a dataset whose creation failed before anything links to it: flushes stop writing it,
   * and the space of chunks already stored for it is released (best effort: its index is new).
   */
  async discard(): Promise<void> {
    const writer = this.ctx.writer;
    if (!writer) return;
    writer.flushHooks.delete(this.flushHook);
    try {
      for await (const rec of this.index.iterate()) writer.allocator.release(rec.address, rec.size);
    } catch {
      // nothing more to release
    }
  }

  async write(sel: Selection, bytes: Uint8Array): Promise<void> {
    // A read-only index still allows overwriting stored fixed-size chunks in their fresh space
    // (never the case for chunks of the last flushed state: those need a new record).
    if (!this.index.readOnly || this.formatReadOnly !== undefined || !(await this.engine.rewritesInPlace(sel))) this.writable('write');
    else this.ctx.requireWriter(`write dataset "${this.info.path}"`);
    this.maybeDirty = true;
    await this.engine.write(sel, bytes);
  }

  /** Throws, before anything is changed, when the file is read-only or the index cannot be written. */
  private writable(what: string): void {
    this.ctx.requireWriter(`${what} dataset "${this.info.path}"`);
    if (this.formatReadOnly !== undefined) throw new UnsupportedError(`cannot ${what}: ${this.formatReadOnly}`, { path: this.info.path });
    if (this.index.readOnly) {
      throw new UnsupportedError(
        `cannot ${what}: datasets indexed by a "${this.index.type}" chunk index are read-only here ` +
          `(${this.index.readOnlyReason ?? 'files written with libver="earliest"; h5repack --latest converts them'})`,
        { path: this.info.path },
      );
    }
  }

  /** True when the chunk cache holds chunks changed since they were last written to the file. */
  hasCachedChanges(): boolean {
    if (this.engine.hasPending) return true; // chunks encoding in the background are stored by the next call
    if (!this.maybeDirty) return false;
    for (const e of this.cache.all()) if (e.dirty) return true;
    this.maybeDirty = false;
    return false;
  }

  /** Makes the elements of `sel` undefined (sparse formats). */
  async erase(sel: Selection): Promise<void> {
    this.writable('erase elements of');
    this.maybeDirty = true;
    await this.engine.erase(sel);
  }

  /** Writes cached chunks and the index, and records the index address in the layout message. */
  async flush(): Promise<void> {
    if (!this.ctx.writer || this.ctx.closed) return;
    await this.engine.flush(this.ctx.closing);
    const { address, info } = await this.index.flush();
    const layout = this.info.layout;
    if (address !== layout.address || JSON.stringify(info) !== JSON.stringify(layout.index)) {
      const next = { ...layout, address, index: info } as ChunkedLayout | StructuredChunkLayout;
      this.info.layout = next;
      this.ctx.writer.adopt(this.model, this.info.path);
      this.model.find(LAYOUT)!.body = encodeLayout(next, this.ctx.sizes);
      this.model.touch();
    }
  }

  /** Allocates and fills every chunk (early allocation). */
  async allocateAll(): Promise<void> {
    const { dims } = this.info;
    if (dims.some((d) => d === 0)) return;
    this.maybeDirty = true;
    await this.engine.write(selectAll(), this.fillBytes(dims.reduce((a, b) => a * b, 1)));
  }

  /**
   * Applies a change of dimensions: chunks now wholly outside the dataset are removed (their space
   * released) and the part of straddling chunks outside the new extent is reset to the fill value,
   * so a later enlargement shows fill values there, as HDF5 does.
   */
  async resize(oldDims: readonly number[], newDims: readonly number[]): Promise<void> {
    this.writable('resize');
    this.maybeDirty = true;
    const chunk = this.info.layout.chunkDims;
    const dims = this.info.dims;
    const shrunk = newDims.some((d, i) => d < oldDims[i]!);
    if (shrunk) {
      // Chunks wholly outside the new extent go, cached ones included.
      await this.engine.flush();
      const doomed: number[][] = [];
      for await (const rec of this.index.iterate()) {
        if (rec.coords.some((c, i) => c * chunk[i]! >= newDims[i]!)) doomed.push(rec.coords);
      }
      for (const c of doomed) await this.engine.removeChunk(c);
      // Elements between the new and the old extent inside kept chunks: undefined again (sparse
      // formats) or back to the fill value (dense), only in chunks that exist.
      const gone = subtract(selectBlocks([{ start: oldDims.map(() => 0), end: [...oldDims] }]), selectBlocks([{ start: newDims.map(() => 0), end: [...newDims] }]));
      const kept = selectBlocks([
        { start: oldDims.map(() => 0), end: oldDims.map((d, i) => Math.min(d, Math.ceil(newDims[i]! / chunk[i]!) * chunk[i]!)) },
      ]);
      const reset = intersect(gone, kept);
      if (selectionCount(reset, [...oldDims]) > 0) {
        if (this.engine.tracksDefined) await this.engine.erase(reset);
        else await this.engine.fillExisting(reset, this.info.fillValue);
      }
    }
    dims.splice(0, dims.length, ...newDims);
    await this.index.resize(newDims);
  }

  /** Stores already-filtered chunk bytes as they are (like `H5Dwrite_chunk`). */
  async writeChunk(offset: readonly number[], image: ChunkImage): Promise<void> {
    this.writable('write a chunk of');
    await this.engine.storeImage(this.scaled(offset), image);
  }

  private fillBytes(count: number): Uint8Array {
    return filledBytes(count, this.info.elementSize, this.info.fillValue);
  }
}
