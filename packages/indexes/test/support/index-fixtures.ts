/**
 * Test support for the chunk index suites: h5py fixtures (generated once by
 * fixtures/make_index_fixtures.py into fixtures/generated/, keyed by the script's hash), the records
 * HDF5 reports, and index contexts over an empty MemoryStore (shared helpers: index-context.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore } from '@chunkform/core';
import {
  type ChunkIndexContext,
  type ChunkRecord,
  SourceMetadataReader,
  DEFAULT_SIZES,
} from '@chunkform/core/plugin';
import { collect, datasetContext, MemoryIndexStorage, sortRecords } from './index-context.js';

export { collect, datasetContext as contextFor, sortRecords as byCoords };

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

/** A MemoryIndexStorage without alignment whose reader sees the whole store. */
export class TestStorage extends MemoryIndexStorage {
  constructor(store: MemoryStore, start: number) {
    super(store, start, 1);
  }
  /** A fresh reader over the store (no stale cache). */
  override reader(): SourceMetadataReader {
    return new SourceMetadataReader(this.store, DEFAULT_SIZES, Math.max(this.next, this.store.toBytes().length));
  }
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
