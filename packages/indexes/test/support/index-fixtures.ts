/**
 * Test support for the chunk index suites: h5py fixtures (generated once by
 * fixtures/make_index_fixtures.py into fixtures/generated/, keyed by the script's hash), index
 * contexts built from a dataset opened with the object layer, and a MemoryStore-backed
 * IndexStorage with a bump allocator.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, openFile, type Dataset } from '@chunkform/core';
import {
  type ChunkIndexContext,
  type ChunkRecord,
  type IndexStorage,
  SourceMetadataReader,
  DEFAULT_SIZES,
  type ChunkedLayout,
} from '@chunkform/core/plugin';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, '../fixtures/make_index_fixtures.py');
const DIR = join(HERE, '../fixtures/generated');

/** One dataset of a fixture JSON. */
export interface FixtureDataset {
  name: string;
  shape: number[];
  maxshape: number[];
  chunks: number[];
  itemsize: number;
  filtered: boolean;
  chunk_list: { offset: number[]; mask: number; address: number; size: number }[];
  ops: ({ op: 'put'; coords: number[]; size: number; mask: number } | { op: 'resize'; from: number[]; to: number[] })[];
}

/** Generates the fixtures once per version of the script (atomically, safe across workers); returns their directory. */
export function fixtureDir(): string {
  const hash = createHash('sha256').update(readFileSync(SCRIPT)).digest('hex').slice(0, 16);
  const dir = join(DIR, hash);
  if (existsSync(join(dir, 'stamp'))) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  try {
    execFileSync('/usr/bin/python3', [SCRIPT, tmp], { stdio: 'pipe' });
    writeFileSync(join(tmp, 'stamp'), hash);
    renameSync(tmp, dir);
  } catch (e) {
    if (!existsSync(join(dir, 'stamp'))) throw e; // another worker won the race otherwise
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** A fixture file's bytes and dataset descriptions. */
export function loadFixture(file: string): { bytes: Uint8Array; datasets: Map<string, FixtureDataset> } {
  const dir = fixtureDir();
  const bytes = new Uint8Array(readFileSync(join(dir, file)));
  const json = JSON.parse(readFileSync(join(dir, file + '.json'), 'utf8')) as { datasets: FixtureDataset[] };
  return { bytes, datasets: new Map(json.datasets.map((d) => [d.name, d])) };
}

/** The chunk records HDF5 reports for a fixture dataset, keyed like ours. */
export function expectedRecords(d: FixtureDataset): ChunkRecord[] {
  return d.chunk_list.map((c) => ({
    coords: c.offset.map((o, i) => o / d.chunks[i]!),
    address: c.address,
    size: c.size,
    filterMask: c.mask,
  }));
}

/** A MemoryStore-backed IndexStorage: bump allocation from `start`, releases recorded. */
export class TestStorage implements IndexStorage {
  next: number;
  released: [number, number][] = [];
  allocated: [number, number][] = [];
  constructor(readonly store: MemoryStore, start: number) {
    this.next = start;
  }
  alloc(size: number): number {
    const a = this.next;
    this.next += size;
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
  /** A fresh reader over the store (no stale cache). */
  reader(): SourceMetadataReader {
    return new SourceMetadataReader(this.store, DEFAULT_SIZES, Math.max(this.next, this.store.toBytes().length));
  }
}

/** Opens `path` in `bytes` with the object layer and builds an index context for it. */
export async function contextFor(
  bytes: Uint8Array,
  path: string,
): Promise<{ ctx: ChunkIndexContext; layout: ChunkedLayout; dataset: Dataset }> {
  const f = await openFile(bytes);
  const dataset = (await f.get(path)) as Dataset;
  const layout = dataset.layout;
  if (layout.class !== 'chunked') throw new Error(`${path} is not chunked`);
  const reader = new SourceMetadataReader(new MemoryStore(bytes), DEFAULT_SIZES, bytes.length);
  const ctx: ChunkIndexContext = {
    reader,
    sizes: DEFAULT_SIZES,
    dims: dataset.shape.slice(),
    maxDims: (dataset.maxShape ?? dataset.shape).map((m) => (m === null ? -1 : m)),
    chunkDims: layout.chunkDims.slice(),
    elementSize: layout.elementSize,
    filtered: dataset.filters.length > 0,
    info: layout.index,
    datasetPath: path,
  };
  return { ctx, layout, dataset };
}

/** A context for a new index over an empty MemoryStore (for write tests). */
export function newContext(
  base: Omit<ChunkIndexContext, 'reader' | 'sizes' | 'storage'>,
  start = 4096,
): { ctx: ChunkIndexContext; storage: TestStorage } {
  const store = new MemoryStore();
  const storage = new TestStorage(store, start);
  const ctx: ChunkIndexContext = { ...base, reader: storage.reader(), sizes: DEFAULT_SIZES, storage };
  return { ctx, storage };
}

/** Collects an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Sorts records by coordinates (row-major). */
export function byCoords(recs: ChunkRecord[]): ChunkRecord[] {
  return recs.slice().sort((a, b) => {
    for (let i = 0; i < a.coords.length; i++) if (a.coords[i] !== b.coords[i]) return a.coords[i]! - b.coords[i]!;
    return 0;
  });
}
