/**
 * Index test support shared by every index suite: chunk index contexts for a dataset opened with the
 * object layer or living only in memory, an IndexStorage over a MemoryStore, and chunk record lists.
 */
import { MemoryStore, openFile, type Dataset } from '@chunkform/core';
import {
  type ChunkIndexContext,
  type ChunkRecord,
  type ChunkedLayout,
  type IndexStorage,
  DEFAULT_SIZES,
  SourceMetadataReader,
} from '@chunkform/core/plugin';

/** A bump-allocating IndexStorage writing into a MemoryStore (space from `start`, `align`-byte aligned: 8 unless told). */
export class MemoryIndexStorage implements IndexStorage {
  next: number;
  readonly released: Array<[number, number]> = [];
  readonly allocated: Array<[number, number]> = [];
  constructor(
    readonly store: MemoryStore,
    start = 0,
    private readonly align = 8,
  ) {
    this.next = start;
  }
  alloc(size: number): number {
    const a = this.next;
    this.next += Math.ceil(size / this.align) * this.align;
    this.allocated.push([a, size]);
    return a;
  }
  release(address: number, size: number): void {
    this.released.push([address, size]);
  }
  /** Space allocated here is fresh (these tests never mark a flush); the file's own structures are not. */
  isFresh(address: number, size: number): boolean {
    return this.allocated.some(([a, n]) => address >= a && address + size <= a + n);
  }
  async write(address: number, bytes: Uint8Array): Promise<void> {
    await this.store.write(address, bytes);
  }
  /** A metadata reader over what was written so far. */
  reader(): SourceMetadataReader {
    return new SourceMetadataReader(this.store, DEFAULT_SIZES, Math.max(this.next, 1));
  }
}

/** Opens `name` in `bytes` and builds the chunk index context from its layout. */
export async function datasetContext(
  bytes: Uint8Array,
  name: string,
  storage?: IndexStorage,
): Promise<{ ctx: ChunkIndexContext; layout: ChunkedLayout; dataset: Dataset }> {
  const f = await openFile(bytes);
  const dataset = (await f.get(name)) as Dataset;
  const layout = dataset.layout as ChunkedLayout;
  if (layout.class !== 'chunked') throw new Error(`${name} is not chunked`);
  const ctx: ChunkIndexContext = {
    reader: new SourceMetadataReader(new MemoryStore(bytes), DEFAULT_SIZES, bytes.length),
    sizes: DEFAULT_SIZES,
    dims: dataset.shape.slice(),
    maxDims: (dataset.maxShape ?? dataset.shape).map((m) => (m === null ? -1 : m)),
    chunkDims: layout.chunkDims.slice(),
    elementSize: layout.elementSize,
    filtered: dataset.filters.length > 0,
    info: layout.index,
    datasetPath: dataset.path,
    ...(storage ? { storage } : {}),
  };
  return { ctx, layout, dataset };
}

/** A context for a dataset that lives only in memory (write-side tests). */
export function memoryContext(
  storage: MemoryIndexStorage,
  o: Pick<ChunkIndexContext, 'dims' | 'maxDims' | 'chunkDims' | 'elementSize' | 'filtered' | 'info'>,
): ChunkIndexContext {
  return { reader: storage.reader(), sizes: DEFAULT_SIZES, datasetPath: '/mem', storage, ...o };
}

/** Collects an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Sorts records by coordinates (row-major). */
export function sortRecords(recs: ChunkRecord[]): ChunkRecord[] {
  return recs.slice().sort((a, b) => {
    for (let i = 0; i < a.coords.length; i++) if (a.coords[i] !== b.coords[i]) return a.coords[i]! - b.coords[i]!;
    return 0;
  });
}
