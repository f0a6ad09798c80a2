/** Shared helpers of the format-vl tests: registrations (once per worker) and small file helpers. */
import { registerIndexes } from '@chunkform/indexes';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerFilters } from '@chunkform/filters';
import { createFile, MemoryStore, openFile, parseDtype, type ChunkFormatContext, type H5File } from '@chunkform/core';
import { createVlDataset, registerVlFormat, type VlDatasetOptions } from '../src/index.js';

const FLAG = Symbol.for('chunkform.test.vl-registrations');
const g = globalThis as { [FLAG]?: boolean };
if (!g[FLAG]) {
  g[FLAG] = true;
  // (another test module of the same worker may have registered these already: registering twice throws)
  for (const r of [registerIndexes, registerDenseFormats, registerFilters, registerVlFormat]) {
    try {
      r();
    } catch {
      // already registered
    }
  }
}

/** The chunk format context of an unfiltered dense VL string dataset `/s` of `n` elements in one chunk; `over` replaces fields. */
export function stringChunkContext(n: number, over: Partial<ChunkFormatContext> = {}): ChunkFormatContext {
  return {
    datasetPath: '/s',
    datatype: parseDtype('string'),
    elementSize: 16,
    chunkDims: [n],
    dims: () => [n],
    fillValue: null,
    pipeline: { filters: [] },
    resolveFilter: () => undefined,
    dontFilterPartialChunks: false,
    sectionPipelines: [{ filters: [] }, { filters: [] }],
    ...over,
  };
}

/** A new in-memory file (superblock v3, as structured-chunk files need the newest format). */
export async function memoryFile(): Promise<{ store: MemoryStore; file: H5File }> {
  const store = new MemoryStore();
  return { store, file: await createFile(store, { superblockVersion: 3 }) };
}

/** Closes `file` and opens the store's bytes again for writing. */
export async function reopen(store: MemoryStore, file: H5File): Promise<H5File> {
  await file.close();
  return openFile(store, { mode: 'r+' });
}

/** The bytes of a file holding one VL dataset `s` written with `data` (one write of everything). */
export async function fileBytes(opts: VlDatasetOptions, data: unknown): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await createVlDataset(f, 's', opts);
  await d.write(data);
  await f.close();
  return store.toBytes();
}
