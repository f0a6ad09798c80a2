/**
 * The plug-in seam's registries (issue #13): keyed, order-independent lookups; RegistrationError for a
 * second provider under a taken key; chunkform's own container surviving a host app's reset of
 * tsyringe's global container; errors for a missing format naming the right package; layout index
 * type codes that no provider claims (typed error naming the code) and a third-party index type that
 * a registered provider claims.
 */
import { describe, expect, it } from 'vitest';
import {
  MissingPluginError,
  RegistrationError,
  UnknownIndexTypeError,
  createContainer,
  defaultContainer,
  lookup3,
  openFile,
  registerChunkFormat,
  registerChunkIndex,
  registerFilter,
  resolveChunkFormat,
  resolveFilter,
  selectPoints,
  type ChunkFormatProvider,
  type ChunkIndexProvider,
  type Container,
  type Filter,
} from '../packages/core/src/index.js';
import { STRUCTURED_CHUNK_VL } from '../packages/core/src/plugin.js';
import { DenseUnfilteredFormat, denseFormatProvider, registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerSparseFormat, sparseFormatProvider } from '../packages/format-sparse/src/index.js';
import { deflateFilter, registerDeflate, registerFilters } from '../packages/filters/src/index.js';
import { fixedArrayIndexProvider, registerFixedArrayIndex, registerIndexes } from '../packages/indexes/src/index.js';
import { writtenFile } from './support/sample-file.js';
// The host app's tsyringe, imported after chunkform (whose Reflect polyfill tsyringe needs to load).
import { container as tsyringeGlobal } from 'tsyringe';

/** A chunked format that reads every element as 0x7f bytes: what a wrong provider would return. */
const wrongChunked: ChunkFormatProvider = {
  name: 'wrong',
  layoutClass: 'chunked',
  create: (ctx) => {
    const f = new DenseUnfilteredFormat(ctx);
    const fileToMem = f.fileToMem.bind(f);
    f.fileToMem = async (image, rec) => (await fileToMem(image, rec)).fill(0x7f);
    return f;
  },
};

const VALUES = Int32Array.from({ length: 100 }, (_, i) => i * 7 - 300);

/** A file with a deflated chunked dataset `/x` ([100] int32, chunks [10], fixed array index) and a sparse dataset `/s`. */
function sampleFile(): Promise<Uint8Array> {
  return writtenFile(async (f) => {
    await f.createDataset('x', { dtype: 'int32', shape: [100], chunks: [10], filters: [{ id: 1 }], data: VALUES });
    const s = await f.createDataset('s', { dtype: 'int32', shape: [8], chunks: [4], layout: 'sparse' });
    await s.write([5], selectPoints([[2]]));
  });
}

async function readX(bytes: Uint8Array, container: Container): Promise<Int32Array> {
  const f = await openFile(bytes, { container });
  try {
    const ds = await f.get('x');
    return (await (ds as import('../packages/core/src/index.js').Dataset).read()) as Int32Array;
  } finally {
    await f.close();
  }
}

describe('keyed registries', () => {
  it('a second provider for a taken key is a RegistrationError; the same object again is a no-op; replace replaces', () => {
    const c = createContainer(null);
    registerDenseFormats(c);
    registerDenseFormats(c);
    expect(() => registerChunkFormat(wrongChunked, c)).toThrow(RegistrationError);
    const e = (() => {
      try {
        registerChunkFormat(wrongChunked, { container: c });
      } catch (x) {
        return x as RegistrationError;
      }
    })();
    expect(e?.key).toBe('layout key "chunked"');
    expect(e?.message).toMatch(/"dense".*replace: true/);
    expect(resolveChunkFormat('chunked', c)).toBe(denseFormatProvider);
    registerChunkFormat(wrongChunked, { container: c, replace: true });
    expect(resolveChunkFormat('chunked', c)).toBe(wrongChunked);

    registerFilter(deflateFilter, c);
    registerDeflate(c);
    const other: Filter = { ...deflateFilter };
    expect(() => registerFilter(other, c)).toThrow(RegistrationError);
    expect(resolveFilter(1, c)).toBe(deflateFilter);

    registerFixedArrayIndex(c);
    const otherIndex: ChunkIndexProvider = { ...fixedArrayIndexProvider, type: 'fixed-array', open: fixedArrayIndexProvider.open, create: fixedArrayIndexProvider.create };
    expect(() => registerChunkIndex(otherIndex, c)).toThrow(RegistrationError);
  });

  it('a child container sees its parent providers and may register its own for a key without touching the parent', () => {
    const parent = createContainer(null);
    registerDenseFormats(parent);
    const child = createContainer(parent);
    expect(resolveChunkFormat('chunked', child)).toBe(denseFormatProvider);
    registerChunkFormat(wrongChunked, child);
    expect(resolveChunkFormat('chunked', child)).toBe(wrongChunked);
    expect(resolveChunkFormat('chunked', parent)).toBe(denseFormatProvider);
  });

  it('a file written with one provider reads the same whatever was registered last; an overlapping provider is refused at registration', async () => {
    const bytes = await sampleFile();
    const orders: (readonly ((c: Container) => void)[])[] = [
      [registerIndexes, registerDenseFormats, registerSparseFormat, registerFilters],
      [registerFilters, registerSparseFormat, registerDenseFormats, registerIndexes],
      [registerSparseFormat, registerFilters, registerIndexes, registerDenseFormats],
    ];
    for (const order of orders) {
      const c = createContainer(null);
      for (const register of order) register(c);
      // The old "last registered provider whose match says yes" lookup returned 0x7f7f7f7f here.
      expect(() => registerChunkFormat(wrongChunked, c)).toThrow(RegistrationError);
      expect(await readX(bytes, c)).toEqual(VALUES);
    }
  });

  it('a host app resetting tsyringe\'s global container does not wipe chunkform\'s registrations', async () => {
    const bytes = await sampleFile();
    registerIndexes();
    registerDenseFormats();
    registerFilters();
    expect(defaultContainer).not.toBe(tsyringeGlobal);
    tsyringeGlobal.register('host-app-token', { useValue: 1 });
    tsyringeGlobal.reset();
    tsyringeGlobal.clearInstances();
    expect(resolveChunkFormat('chunked')).toBe(denseFormatProvider);
    expect(await readX(bytes, defaultContainer)).toEqual(VALUES);
  });
});

/** Finds `pattern` in `bytes` (exactly once). */
function find(bytes: Uint8Array, pattern: readonly number[]): number {
  const hits: number[] = [];
  for (let i = 0; i + pattern.length <= bytes.length; i++) if (pattern.every((b, j) => bytes[i + j] === b)) hits.push(i);
  expect(hits).toHaveLength(1);
  return hits[0]!;
}

/** Recomputes the checksum of the version 2 object header ("OHDR") whose chunk 0 holds byte `at`. */
function fixObjectHeaderChecksum(bytes: Uint8Array, at: number): void {
  let start = at;
  while (!(bytes[start] === 0x4f && bytes[start + 1] === 0x48 && bytes[start + 2] === 0x44 && bytes[start + 3] === 0x52)) start--;
  const flags = bytes[start + 5]!;
  let p = start + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
  const width = 1 << (flags & 3);
  let size = 0;
  for (let i = width - 1; i >= 0; i--) size = size * 256 + bytes[p + i]!;
  p += width;
  const end = p + size;
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(end, lookup3(bytes.subarray(start, end)), true);
}

describe('errors for what is not registered', () => {
  it('a sparse dataset without format-sparse names @chunkform/format-sparse, the key and the dataset', async () => {
    const bytes = await sampleFile();
    const c = createContainer(null);
    registerIndexes(c);
    registerDenseFormats(c);
    registerFilters(c);
    const f = await openFile(bytes, { container: c });
    try {
      const e = await f.get('s').then((d) => (d as import('../packages/core/src/index.js').Dataset).read()).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(MissingPluginError);
      expect((e as MissingPluginError).packageName).toBe('@chunkform/format-sparse');
      expect((e as MissingPluginError).key).toBe('structured:0');
      expect((e as Error).message).toMatch(/\/s.*structured:0.*install @chunkform\/format-sparse/);
      expect((e as Error).message).not.toMatch(/format-dense/);
    } finally {
      await f.close();
    }
  });

  it('a chunked dataset without format-dense names @chunkform/format-dense', async () => {
    const c = createContainer(null);
    registerIndexes(c);
    registerFilters(c);
    const e = await readX(await sampleFile(), c).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MissingPluginError);
    expect((e as MissingPluginError).packageName).toBe('@chunkform/format-dense');
    expect((e as Error).message).toMatch(/\/x.*"chunked".*install @chunkform\/format-dense/);
  });

  it('a structured layout of the variable-length chunk type without its format names @chunkform/format-vl', async () => {
    const bytes = await sampleFile();
    // Layout v5 class 4, property version 0, structured chunk type (u16) 0 → the variable-length type.
    const at = find(bytes, [5, 4, 0, 0, 0, 0, 2]);
    bytes[at + 3] = STRUCTURED_CHUNK_VL & 0xff;
    bytes[at + 4] = STRUCTURED_CHUNK_VL >> 8;
    fixObjectHeaderChecksum(bytes, at);
    const c = createContainer(null);
    registerIndexes(c);
    registerDenseFormats(c);
    registerFilters(c);
    registerSparseFormat(c);
    const f = await openFile(bytes, { container: c });
    try {
      const e = await f.get('s').then((d) => (d as import('../packages/core/src/index.js').Dataset).read()).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(MissingPluginError);
      expect((e as MissingPluginError).packageName).toBe('@chunkform/format-vl');
      expect((e as MissingPluginError).key).toBe(`structured:${STRUCTURED_CHUNK_VL}`);
      expect((e as Error).message).toMatch(/@chunkform\/format-vl/);
    } finally {
      await f.close();
    }
  });

  it('an index type code no provider claims is an UnknownIndexTypeError naming the code; a registered third-party provider decodes it', async () => {
    const bytes = await sampleFile();
    // Layout v4 class 2, flags 0, 2 dims of 1 byte: chunk 10, element 4, index type 3 (fixed array) → 200.
    const at = find(bytes, [4, 2, 0, 2, 1, 10, 4, 3]);
    bytes[at + 7] = 200;
    fixObjectHeaderChecksum(bytes, at);
    const c = createContainer(null);
    registerIndexes(c);
    registerDenseFormats(c);
    registerFilters(c);
    const e = await readX(bytes, c).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnknownIndexTypeError);
    expect((e as UnknownIndexTypeError).code).toBe(200);
    expect((e as Error).message).toMatch(/chunk index type code 200/);

    // A third-party index type with code 200 and one parameter byte (here: a fixed array under another code).
    const toy: ChunkIndexProvider = {
      type: 'toy',
      code: 200,
      paramBytes: 1,
      open: (ctx, address) => {
        if (ctx.info.type !== 'external') throw new Error('expected an external index');
        return fixedArrayIndexProvider.open({ ...ctx, info: { type: 'fixed-array', pageBits: ctx.info.params[0]! } }, address);
      },
      create: () => Promise.reject(new Error('read only')),
    };
    registerChunkIndex(toy, c);
    expect(() => registerChunkIndex({ ...toy, type: 'toy2' }, c)).toThrow(RegistrationError); // code 200 is taken
    expect(() => registerChunkIndex({ ...toy, type: 'fixed-array' }, createContainer(null))).toThrow(RegistrationError); // built-in types have no code
    expect(await readX(bytes, c)).toEqual(VALUES);
    // A container without the registration still refuses the code.
    expect(await readX(bytes, createContainer(null)).catch((x: unknown) => x)).toBeInstanceOf(UnknownIndexTypeError);
  });
});

describe('sparse format provider', () => {
  it('is keyed by structured chunk type 0 and cannot be registered twice under another object', () => {
    const c = createContainer(null);
    registerSparseFormat(c);
    expect(resolveChunkFormat('structured:0', c)).toBe(sparseFormatProvider);
    expect(() => registerChunkFormat({ ...sparseFormatProvider }, c)).toThrow(RegistrationError);
  });
});
