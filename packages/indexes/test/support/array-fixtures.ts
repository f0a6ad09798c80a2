/**
 * Test support for the fixed/extensible array indexes: generates the h5py fixture file once per
 * test file, reads corrupted copies of it, rebuilds its indexes at HDF5's own addresses and checks
 * indexes against a Map (contexts and storage: index-context.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { MemoryStore } from '@chunkform/core';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  type IndexStorage,
  DEFAULT_SIZES,
  SourceMetadataReader,
} from '@chunkform/core/plugin';
import { collect, datasetContext, memoryContext, MemoryIndexStorage, sortRecords } from './index-context.js';

export { collect, datasetContext, memoryContext, MemoryIndexStorage, sortRecords };

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

/** Where HDF5 put one structure of an index: its address and the file space it takes. */
export interface Hdf5Place {
  address: number;
  extent: number;
}

/**
 * Rebuilds dataset `name`'s chunk index at HDF5's own addresses: zeroes `places` in a copy of the
 * fixture file, then `create`s the index over storage that hands out those places in order (each
 * request must be the place's size), inserts HDF5's records and flushes. Gives the file as written,
 * the flushed address and the places never asked for.
 */
export async function rebuildAtHdf5Places(
  name: string,
  places: Hdf5Place[],
  create: (ctx: ChunkIndexContext) => ChunkIndex,
): Promise<{ out: Uint8Array; address: number; unused: Hdf5Place[] }> {
  const { bytes, meta } = arrayFixtures();
  const { ctx } = await datasetContext(bytes, name);
  const queue = places.slice();
  const copy = bytes.slice();
  for (const p of places) copy.fill(0, p.address, p.address + p.extent);
  const store = new MemoryStore(copy);
  const storage: IndexStorage = {
    alloc: (size: number): number => {
      const next = queue.shift()!;
      expect(size).toBe(next.extent);
      return next.address;
    },
    release: () => {},
    write: (a: number, b: Uint8Array) => store.write(a, b),
    // Only new structures are written (one flush of a created index): all of them fresh.
    isFresh: () => true,
  };
  const index = create({ ...ctx, storage });
  for (const r of fixtureRecords(meta[name]!)) await index.insert(r);
  const { address } = await index.flush();
  return { out: store.toBytes(), address, unused: queue };
}

/** The first offset at which `a` and `b` differ (over `b`'s length), -1 where they agree. */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** One step of a model-based index test. */
export type IndexStep =
  | { k: 'ins'; rec: ChunkRecord }
  | { k: 'del' | 'get'; coords: number[] }
  | { k: 'resize'; dims: number[] }
  | { k: 'flush' };

/**
 * Runs `steps` on a new index of `provider` (created in `ctx`, over `storage`) and on a Map: every
 * remove and lookup must give what the Map holds, each flush reopens the index from what it wrote, and
 * at the end the index must list exactly the Map's records. Gives the index and its last context.
 */
export async function checkAgainstMap(
  provider: ChunkIndexProvider,
  storage: MemoryIndexStorage,
  ctx: ChunkIndexContext,
  steps: readonly IndexStep[],
): Promise<{ index: ChunkIndex; ctx: ChunkIndexContext; records: ChunkRecord[] }> {
  let index = await provider.create(ctx);
  const model = new Map<string, ChunkRecord>();
  for (const x of steps) {
    if (x.k === 'flush') {
      const { address } = await index.flush();
      ctx = { ...ctx, reader: storage.reader() };
      index = await provider.open(ctx, address);
    } else if (x.k === 'resize') await index.resize(x.dims);
    else if (x.k === 'ins') {
      await index.insert(x.rec);
      model.set(x.rec.coords.join(','), x.rec);
    } else if (x.k === 'del') {
      expect(await index.remove(x.coords)).toEqual(model.get(x.coords.join(',')) ?? null);
      model.delete(x.coords.join(','));
    } else expect(await index.lookup(x.coords)).toEqual(model.get(x.coords.join(',')) ?? null);
  }
  const records = sortRecords([...model.values()]);
  expect(sortRecords(await collect(index.iterate()))).toEqual(records);
  return { index, ctx, records };
}
