/**
 * Reading chunked datasets written by real HDF5 (h5py, libver 'latest' and 'earliest'; see
 * test/oracle/make_chunked_fixtures.py): every chunk index type × filters, never-written chunks, edge
 * chunks, resized datasets, 1-D…4-D, several dtypes. For each dataset: metadata and values equal h5py's
 * (h5py_dump.py), the index type is the one HDF5 chose (h5debug), chunk dims and filter pipeline match,
 * and the chunk list / direct chunk reads equal `H5Dget_chunk_info`. Selection reads (strided
 * hyperslabs, unions of blocks, points, numpy slices) equal what HDF5 read with the same selection.
 * Also: the chunked datasets of the main fixtures, and datasets whose filter is not registered.
 */
import { createHash } from 'node:crypto';
import { openSync, readSync, closeSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createContainer,
  openFile,
  registerFilter,
  resolveFilter,
  UnknownFilterError,
  type Dataset,
  type H5File,
} from '../packages/core/src/index.js';
import { selectBlocks, selectHyperslab, selectPoints, slice, union, type Selection } from '../packages/core/src/selection/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { checkObject } from './oracle/check-object.js';
import { deepDiff, norm } from './oracle/compare.js';
import {
  chunkedFixturePath,
  ensureChunkedFixtures,
  ensureFixtures,
  fixturePath,
  loadChunkedExpected,
  loadExpected,
  type DumpObject,
  type ExtraDataset,
  type ExtraSelection,
} from './oracle/fixtures.js';

const chunkedManifest = ensureChunkedFixtures();

function errText(e: unknown): string {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
}

/** Bytes [address, address+size) of a file. */
function fileBytes(path: string, address: number, size: number): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const b = new Uint8Array(size);
    readSync(fd, b, 0, size, address);
    return b;
  } finally {
    closeSync(fd);
  }
}

type ChunkRow = { offset: number[]; filterMask: number; address: number; size: number };
const rowOf = (r: number[], rank: number): ChunkRow => ({
  offset: r.slice(0, rank),
  filterMask: r[rank]!,
  address: r[rank + 1]!,
  size: r[rank + 2]!,
});
const key = (o: readonly number[]): string => o.join(',');

/** Compares layout, index, chunk dims, filters and the chunk list of `d` with HDF5's. */
export async function checkChunks(path: string, d: Dataset, e: ExtraDataset, out: string[]): Promise<void> {
  const layout = d.layout as { class: string; index?: { type: string } };
  if (layout.class !== 'chunked') {
    out.push(`layout class: expected chunked, got ${layout.class}`);
    return;
  }
  if (layout.index?.type !== e.index) out.push(`index type: expected ${e.index}, got ${String(layout.index?.type)}`);
  deepDiff(d.chunks, e.chunks, 'chunks', out);
  deepDiff(
    d.filters.map((f) => ({ id: f.id, flags: f.flags, cd: f.clientData })),
    e.filters,
    'filter pipeline (id, flags, client data)',
    out,
  );
  const rank = e.chunks.length;
  let n: number;
  let listed: ChunkRow[] = [];
  try {
    n = await d.numChunks();
    if (n !== e.num_chunks) out.push(`numChunks(): expected ${e.num_chunks}, got ${n}`);
    await d.iterateChunks((c) => {
      listed.push({ offset: [...c.offset], filterMask: c.filterMask, address: c.address, size: c.size });
    });
  } catch (e2) {
    out.push(`listing chunks threw ${errText(e2)}`);
    return;
  }
  if (listed.length !== e.num_chunks) out.push(`iterateChunks: expected ${e.num_chunks} chunks, got ${listed.length}`);
  const byOffset = new Map(listed.map((c) => [key(c.offset), c]));
  const want = e.chunk_info.map((r) => rowOf(r, rank));
  const sorted = (a: ChunkRow[]): ChunkRow[] => [...a].sort((x, y) => (key(x.offset) < key(y.offset) ? -1 : 1));
  if (e.chunk_offsets_unreliable) {
    // HDF5 1.10.8 reports wrong offsets here: compare where the chunks are, not which offset they hold
    const noOffset = (a: ChunkRow[]): string[] => a.map((c) => `${c.address}:${c.size}:${c.filterMask}`).sort();
    if (e.chunk_info_complete) deepDiff(noOffset(listed), noOffset(want), 'iterateChunks (address:size:mask)', out);
  } else if (e.chunk_info_complete) {
    deepDiff(sorted(listed), sorted(want), 'iterateChunks (as a set)', out);
  } else {
    for (const w of want) deepDiff(byOffset.get(key(w.offset)) ?? null, w, `chunk at [${key(w.offset)}]`, out);
  }
  if (!e.chunk_offsets_unreliable) {
    // chunkInfo(i) follows the index order of H5Dget_chunk_info (sampled: the first chunks)
    const first = want.slice(0, 3);
    for (let i = 0; i < first.length; i++) {
      try {
        const c = await d.chunkInfo(i);
        deepDiff({ offset: [...c.offset], filterMask: c.filterMask, address: c.address, size: c.size }, first[i], `chunkInfo(${i})`, out);
      } catch (e2) {
        out.push(`chunkInfo(${i}) threw ${errText(e2)}`);
      }
    }
    // by coordinate, and the raw bytes at the stored address: the first, a middle and the last chunk
    const probes = [want[0], want[want.length >> 1], want[want.length - 1]].filter((x): x is ChunkRow => !!x);
    for (const w of probes) {
      try {
        const c = await d.chunkInfoByCoord(w.offset);
        deepDiff(c && { offset: [...c.offset], filterMask: c.filterMask, address: c.address, size: c.size }, w, `chunkInfoByCoord([${key(w.offset)}])`, out);
        const raw = await d.readChunk(w.offset);
        const stored = fileBytes(path, w.address, w.size);
        if (raw.bytes.length !== w.size || Buffer.compare(Buffer.from(raw.bytes), Buffer.from(stored)) !== 0) {
          out.push(`readChunk([${key(w.offset)}]): the ${raw.bytes.length} bytes differ from the ${w.size} stored at ${w.address}`);
        }
      } catch (e2) {
        out.push(`chunk [${key(w.offset)}]: threw ${errText(e2)}`);
      }
    }
  }
  // direct chunk reads (H5Dread_chunk) at sampled grid positions, stored or not
  for (const [offset, mask, sha] of e.direct) {
    const where = `chunk [${key(offset)}]`;
    try {
      const info = await d.chunkInfoByCoord(offset);
      if (mask === null) {
        if (info !== null) out.push(`${where}: HDF5 stores no chunk there, chunkInfoByCoord gave ${JSON.stringify(info)}`);
        continue;
      }
      if (info === null) {
        out.push(`${where}: HDF5 stores a chunk there, chunkInfoByCoord gave null`);
        continue;
      }
      const raw = await d.readChunk(offset);
      if (raw.filterMask !== mask) out.push(`${where}: readChunk filterMask ${raw.filterMask}, HDF5 ${mask}`);
      const got = createHash('sha256').update(raw.bytes).digest('hex');
      if (got !== sha) out.push(`${where}: readChunk bytes (${raw.bytes.length}) differ from H5Dread_chunk's`);
    } catch (e2) {
      out.push(`${where}: threw ${errText(e2)}`);
    }
  }
}

/** chunkform's selection for a recorded HDF5 selection, and the shape h5py returns (slices only). */
export function toSelection(s: ExtraSelection, dims: number[]): { sel: Selection; shape?: number[] } {
  switch (s.kind) {
    case 'hyperslab':
      return { sel: selectHyperslab({ start: s.start, stride: s.stride, count: s.count, block: s.block }) };
    case 'union': {
      let sel: Selection | undefined;
      for (const [start, end] of s.boxes) {
        const b = selectBlocks([{ start, end }]);
        sel = sel ? union(sel, b, dims) : b;
      }
      return { sel: sel! };
    }
    case 'points':
      return { sel: selectPoints(s.coords) };
    case 'slice': {
      const r = slice(dims, ...s.slices.map((x) => [x[0], x[1], x[2]] as const));
      return { sel: r.selection, shape: r.shape };
    }
  }
}

for (const entry of chunkedManifest.files.filter((e) => e.family === 'chunked')) {
  const { doc, extra } = loadChunkedExpected(entry);
  const path = chunkedFixturePath(entry.file);
  describe(`h5py ${entry.file}`, () => {
    let file: H5File;
    beforeAll(async () => {
      file = await openFile(path);
    });
    afterAll(async () => {
      await file?.close();
    });
    const byPath = new Map<string, DumpObject>(doc.objects.map((o) => [o.path, o]));

    it('covers every index type', () => {
      const types = new Set(Object.values(extra).map((e) => e.index));
      expect([...types].sort()).toEqual(
        entry.libver === 'earliest' ? ['btree1'] : ['btree2', 'extensible-array', 'fixed-array', 'implicit', 'single'],
      );
    });

    for (const obj of doc.objects) {
      if (obj.kind !== 'dataset') continue;
      const e = extra[obj.path];
      it(`${obj.path} (${e?.index ?? 'not chunked'}${e?.filters.length ? ` + ${e.filters.map((f) => f.id).join(',')}` : ''})`, async () => {
        const problems = await checkObject(file, obj, byPath, { readChunked: true });
        if (e) {
          try {
            await checkChunks(path, (await file.get(obj.path)) as Dataset, e, problems);
          } catch (e2) {
            problems.push(`checking chunks threw ${errText(e2)}`);
          }
        }
        expect(problems, `${entry.file} ${obj.path}`).toEqual([]);
      });
    }

    for (const [dpath, e] of Object.entries(extra)) {
      for (const s of e.selections ?? []) {
        it(`${dpath}: read a ${s.kind} selection as HDF5 does`, async () => {
          const d = (await file.get(dpath)) as Dataset;
          const { sel, shape } = toSelection(s, d.shape);
          const out: string[] = [];
          if (shape) deepDiff(shape, (s as { shape: number[] }).shape, 'slice result shape', out);
          deepDiff(norm(await d.read(sel)), s.values, `${dpath} ${JSON.stringify({ ...s, values: undefined })}`, out);
          expect(out).toEqual([]);
        });
      }
      if ((e.selections ?? []).some((s) => s.kind === 'union')) {
        it(`${dpath}: a union given as one block selection reads like the union`, async () => {
          const s = e.selections!.find((x) => x.kind === 'union') as Extract<ExtraSelection, { kind: 'union' }>;
          const d = (await file.get(dpath)) as Dataset;
          const sel = selectBlocks(s.boxes.map(([start, end]) => ({ start, end })));
          const out: string[] = [];
          deepDiff(norm(await d.read(sel)), s.values, `${dpath} selectBlocks(${JSON.stringify(s.boxes)})`, out);
          expect(out).toEqual([]);
        });
      }
    }
  });
}

describe('chunked datasets of the main h5py fixtures', () => {
  const manifest = ensureFixtures();
  for (const entry of manifest.files) {
    const doc = loadExpected(entry);
    const byPath = new Map<string, DumpObject>(doc.objects.map((o) => [o.path, o]));
    for (const obj of doc.objects.filter((o) => o.chunked && !o.alias_of)) {
      it(`${entry.file} ${obj.path}: values equal h5py's`, async () => {
        const f = await openFile(fixturePath(entry.file));
        try {
          expect(await checkObject(f, obj, byPath, { readChunked: true })).toEqual([]);
        } finally {
          await f.close();
        }
      });
    }
  }
});

describe('a filter nobody registered (h5py LZF, id 32000)', () => {
  const entry = chunkedManifest.files.find((e) => e.family === 'lzf')!;
  const path = chunkedFixturePath(entry.file);
  const { doc, extra } = loadChunkedExpected(entry);
  const byPath = new Map<string, DumpObject>(doc.objects.map((o) => [o.path, o]));

  it('opens: metadata, chunk list and raw chunks are readable, read() throws UnknownFilterError naming 32000', async () => {
    const f = await openFile(path);
    try {
      const d = (await f.get('/lzf')) as Dataset;
      expect(d.filters.map((x) => x.id)).toEqual([32000]);
      // (the fixture's chunks really are LZF-compressed: an optional filter that fails is skipped, mask bit 0)
      expect(extra['/lzf']!.chunk_info.map((r) => r[2])).toEqual([0, 0, 0, 0]);
      expect(d.shape).toEqual([6, 10]);
      expect(d.chunks).toEqual([3, 5]);
      const out: string[] = [];
      await checkChunks(path, d, extra['/lzf']!, out);
      expect(out).toEqual([]);
      const err = await d.read().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UnknownFilterError);
      expect((err as UnknownFilterError).filterId).toBe(32000);
      expect((err as Error).message).toMatch(/32000/);
      expect((err as Error).message).toMatch(/lzf/i);
      expect((err as Error).message).toContain('/lzf');
      // the other datasets of the file are unaffected
      for (const p of ['/gzip', '/plain']) expect(await checkObject(f, byPath.get(p)!, byPath, { readChunked: true })).toEqual([]);
    } finally {
      await f.close();
    }
  });

  it('in a container without filters: gzip datasets open, list and read raw chunks; read() names filter 1 and its package', async () => {
    // An empty container (no parent): it sees none of the default container's filters.
    const container = createContainer(null);
    registerIndexes(container);
    registerDenseFormats(container);
    registerFilter({ id: 65000, name: 'test-only', encode: (b) => b, decode: (b) => b }, container);
    expect(resolveFilter(1, container)).toBeUndefined();
    const f = await openFile(path, { container });
    try {
      expect(await checkObject(f, byPath.get('/plain')!, byPath, { readChunked: true })).toEqual([]);
      const d = (await f.get('/gzip')) as Dataset;
      expect(d.filters.map((x) => x.id)).toEqual([1]);
      const out: string[] = [];
      await checkChunks(path, d, extra['/gzip']!, out);
      expect(out).toEqual([]);
      const err = await d.read().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UnknownFilterError);
      expect((err as UnknownFilterError).filterId).toBe(1);
      expect((err as Error).message).toMatch(/deflate/);
      expect((err as Error).message).toContain('@chunkform/filters');
      expect((err as Error).message).toContain('/gzip');
    } finally {
      await f.close();
    }
  });
});
