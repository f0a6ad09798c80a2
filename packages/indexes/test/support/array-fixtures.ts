/**
 * Test support for the fixed/extensible array indexes: generates the h5py fixture file once per
 * test file, builds `ChunkIndexContext`s from datasets opened with the object layer, and an
 * `IndexStorage` over a MemoryStore.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openFile, MemoryStore, type Dataset } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkRecord,
  type IndexStorage,
  DEFAULT_SIZES,
  SourceMetadataReader,
  type ChunkedLayout,
} from '@chunkform/core/plugin';

/** What the generator reports for one dataset. */
export interface FixtureDataset {
  shape: number[];
  maxshape: number[];
  chunks: number[];
  itemsize: number;
  filtered: boolean;
  /** [...scaled coords, address, size, filter mask], sorted. */
  records: number[][];
  absent: number[][];
}

export interface ArrayFixtures {
  bytes: Uint8Array;
  meta: Record<string, FixtureDataset>;
}

let cached: ArrayFixtures | null = null;

/** Runs the h5py generator (once per worker) and loads its output. */
export function arrayFixtures(): ArrayFixtures {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'cf-array-idx-'));
  const script = fileURLToPath(new URL('../fixtures/gen-array-indexes.py', import.meta.url));
  execFileSync('/usr/bin/python3', [script, dir], { stdio: 'pipe' });
  cached = {
    bytes: new Uint8Array(readFileSync(join(dir, 'arrays.h5'))),
    meta: JSON.parse(readFileSync(join(dir, 'arrays.json'), 'utf8')) as Record<string, FixtureDataset>,
  };
  return cached;
}

/** Chunk records of a fixture, as ChunkRecords sorted by coordinates. */
export function fixtureRecords(ds: FixtureDataset): ChunkRecord[] {
  const r = ds.shape.length;
  return ds.records.map((x) => ({ coords: x.slice(0, r), address: x[r]!, size: x[r + 1]!, filterMask: x[r + 2]! }));
}

/** Sorts records by coordinates (row-major). */
export function sortRecords(recs: ChunkRecord[]): ChunkRecord[] {
  return recs.slice().sort((a, b) => {
    for (let i = 0; i < a.coords.length; i++) if (a.coords[i] !== b.coords[i]) return a.coords[i]! - b.coords[i]!;
    return 0;
  });
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
    dims: dataset.shape,
    maxDims: (dataset.maxShape ?? dataset.shape).map((m) => (m === null ? -1 : m)),
    chunkDims: layout.chunkDims,
    elementSize: layout.elementSize,
    filtered: dataset.filters.length > 0,
    info: layout.index,
    datasetPath: dataset.path,
    ...(storage ? { storage } : {}),
  };
  return { ctx, layout, dataset };
}

/** A bump-allocating IndexStorage writing into a MemoryStore (space from `start`, 8-byte aligned). */
export class MemoryIndexStorage implements IndexStorage {
  next: number;
  readonly released: Array<[number, number]> = [];
  readonly allocated: Array<[number, number]> = [];
  constructor(
    readonly store: MemoryStore,
    start = 0,
  ) {
    this.next = start;
  }
  alloc(size: number): number {
    const a = this.next;
    this.next += Math.ceil(size / 8) * 8;
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

/**
 * What opening dataset `name`'s chunk index with `open` and listing its chunks throws when the index
 * is read from a copy of the array fixtures that `mutate` changed (`mutate` gets the copy, the index
 * address and the untouched bytes); null when nothing throws.
 */
export async function corruptIndexError(
  name: string,
  open: (ctx: ChunkIndexContext, address: number) => Promise<ChunkIndex>,
  mutate: (copy: Uint8Array, address: number, original: Uint8Array) => void,
): Promise<unknown> {
  const { bytes } = arrayFixtures();
  const copy = bytes.slice();
  const { ctx, layout } = await datasetContext(bytes, name);
  mutate(copy, layout.address, bytes);
  const corrupt = { ...ctx, reader: new SourceMetadataReader(new MemoryStore(copy), DEFAULT_SIZES, copy.length) };
  try {
    await collect((await open(corrupt, layout.address)).iterate());
    return null;
  } catch (e) {
    return e;
  }
}
