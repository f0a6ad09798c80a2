/**
 * Copy-on-write of the writable chunk indexes (COW contract in packages/core/src/chunk/chunk-index.ts):
 * random inserts, removes, resizes, appends, flushes and reopenings against a {@link CowStorage}
 * that throws on any write into the flushed state or outside `flush()`. After every flush the
 * flushed state is reopened from the file's bytes and compared with a model, and so is the state
 * of the flush before — from the same bytes, after the new flush's writes: what a crash before the
 * commit of the new state would leave.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  type ChunkIndex,
  type ChunkIndexContext,
  type ChunkIndexProvider,
  type ChunkRecord,
  type ChunkIndexInfo,
  DEFAULT_SIZES,
  UNDEFINED_ADDRESS,
} from '@chunkform/core/plugin';
import { FixedArrayProvider } from '../src/fixed-array/fixed-array-index.js';
import { ExtensibleArrayProvider, DEFAULT_EXTENSIBLE_ARRAY_INFO } from '../src/extensible-array/extensible-array-index.js';
import { btree2IndexProvider } from '../src/btree2/btree2-index.js';
import { singleChunkIndexProvider } from '../src/single-chunk/single-chunk-index.js';
import { implicitIndexProvider } from '../src/implicit/implicit-index.js';
import { CowStorage } from './support/cow-storage.js';
import { collect, sortRecords } from './support/array-fixtures.js';

type Base = Pick<ChunkIndexContext, 'dims' | 'maxDims' | 'chunkDims' | 'elementSize' | 'filtered' | 'info'>;

interface Case {
  name: string;
  base: Base;
  provider: ChunkIndexProvider;
  /** Bounds of the scaled coordinates the operations use. */
  grid: number[];
  /** False for indexes whose `sizeOnDisk` is not their own allocations (single chunk). */
  checkSize: boolean;
}

const chunkBytes = (b: Base): number => b.chunkDims.reduce((n, d) => n * d, b.elementSize);

const CASES: Case[] = [
  {
    name: 'fixed array, paged (4 elements per page)',
    base: { dims: [12, 9], maxDims: [12, 9], chunkDims: [2, 3], elementSize: 4, filtered: false, info: { type: 'fixed-array', pageBits: 2 } },
    provider: new FixedArrayProvider(),
    grid: [6, 3],
    checkSize: true,
  },
  {
    name: 'fixed array, filtered, unpaged',
    base: { dims: [12, 9], maxDims: [12, 9], chunkDims: [2, 3], elementSize: 4, filtered: true, info: { type: 'fixed-array', pageBits: 10 } },
    provider: new FixedArrayProvider(),
    grid: [6, 3],
    checkSize: true,
  },
  {
    name: 'extensible array, small blocks (super blocks, paged data blocks)',
    base: {
      dims: [0, 6],
      maxDims: [-1, 6],
      chunkDims: [1, 2],
      elementSize: 4,
      filtered: false,
      info: { type: 'extensible-array', maxBits: 32, indexElements: 4, minPointers: 4, minElements: 4, pageBits: 4 },
    },
    provider: new ExtensibleArrayProvider(),
    grid: [120, 3],
    checkSize: true,
  },
  {
    name: 'extensible array, filtered, HDF5 defaults',
    base: { dims: [0, 6], maxDims: [-1, 6], chunkDims: [1, 2], elementSize: 4, filtered: true, info: DEFAULT_EXTENSIBLE_ARRAY_INFO },
    provider: new ExtensibleArrayProvider(),
    grid: [200, 3],
    checkSize: true,
  },
  {
    name: 'v2 B-tree, 512-byte nodes',
    base: { dims: [0, 0], maxDims: [-1, -1], chunkDims: [2, 2], elementSize: 4, filtered: false, info: { type: 'btree2', nodeSize: 512, splitPercent: 100, mergePercent: 40 } },
    provider: btree2IndexProvider,
    grid: [40, 40],
    checkSize: true,
  },
  {
    name: 'v2 B-tree, filtered, 512-byte nodes',
    base: { dims: [0, 0], maxDims: [-1, -1], chunkDims: [2, 2], elementSize: 4, filtered: true, info: { type: 'btree2', nodeSize: 512, splitPercent: 100, mergePercent: 40 } },
    provider: btree2IndexProvider,
    grid: [40, 40],
    checkSize: true,
  },
  {
    name: 'single chunk, filtered',
    base: { dims: [4, 6], maxDims: [4, 6], chunkDims: [4, 6], elementSize: 4, filtered: true, info: { type: 'single' } },
    provider: singleChunkIndexProvider,
    grid: [1, 1],
    checkSize: false,
  },
];

type Op =
  | { k: 'ins'; c: number[]; a: number; s: number; m: number }
  | { k: 'del'; c: number[] }
  | { k: 'append'; n: number }
  | { k: 'resize'; d0: number }
  | { k: 'flush' }
  | { k: 'reopen' };

function opArb(c: Case): fc.Arbitrary<Op> {
  const coords = fc.tuple(...c.grid.map((g) => fc.nat(g - 1)));
  return fc.oneof(
    { arbitrary: fc.record({ k: fc.constant('ins' as const), c: coords, a: fc.nat(1 << 30), s: fc.integer({ min: 1, max: 1000 }), m: fc.nat(3) }), weight: 6 },
    { arbitrary: fc.record({ k: fc.constant('del' as const), c: coords }), weight: 3 },
    { arbitrary: fc.record({ k: fc.constant('append' as const), n: fc.integer({ min: 1, max: 40 }) }), weight: 2 },
    { arbitrary: fc.record({ k: fc.constant('resize' as const), d0: fc.nat(c.grid[0]! * c.base.chunkDims[0]!) }), weight: 1 },
    { arbitrary: fc.constant({ k: 'flush' as const }), weight: 3 },
    { arbitrary: fc.constant({ k: 'reopen' as const }), weight: 1 },
  );
}

interface Flushed {
  address: number;
  info: ChunkIndexInfo;
  dims: number[];
  records: ChunkRecord[];
}

/** Opens the index of `state` from `bytes` (read-only) and compares its records with the state's. */
async function expectState(c: Case, bytes: Uint8Array, state: Flushed, what: string): Promise<void> {
  if (state.address === UNDEFINED_ADDRESS) {
    expect(state.records, what).toEqual([]);
    return;
  }
  const ctx: ChunkIndexContext = { ...c.base, dims: state.dims, info: state.info, reader: CowStorage.snapshotReader(bytes), sizes: DEFAULT_SIZES, datasetPath: '/cow' };
  const idx = await c.provider.open(ctx, state.address);
  expect(sortRecords(await collect(idx.iterate())), what).toEqual(state.records);
}

/** Runs `ops` on a new index of case `c`, checking the copy-on-write property at every flush. */
async function run(c: Case, ops: Op[]): Promise<void> {
  const storage = new CowStorage();
  storage.sealed = true;
  let dims = c.base.dims.slice();
  const live = (): ChunkIndexContext => ({ ...c.base, dims, reader: storage.reader(), sizes: DEFAULT_SIZES, datasetPath: '/cow', storage });
  let idx: ChunkIndex = await c.provider.create(live());
  const model = new Map<string, ChunkRecord>();
  let prev: Flushed | null = null;
  let appended = 0;
  const unfiltered = chunkBytes(c.base);
  const record = (coords: number[], a: number, s: number, m: number): ChunkRecord => ({
    coords,
    address: 8 + a * 8,
    size: c.base.filtered ? s : unfiltered,
    filterMask: c.base.filtered ? m : 0,
  });
  const insert = async (rec: ChunkRecord): Promise<void> => {
    await idx.insert(rec);
    model.set(rec.coords.join(','), rec);
  };
  const flush = async (): Promise<Flushed> => {
    storage.sealed = false;
    const r = await idx.flush();
    storage.sealed = true;
    const state: Flushed = { address: r.address, info: r.info, dims: dims.slice(), records: sortRecords([...model.values()]) };
    const bytes = storage.snapshot();
    await expectState(c, bytes, state, 'the state just flushed');
    if (prev) await expectState(c, bytes, prev, 'the previous flushed state, after the next flush wrote');
    storage.markFlushed();
    if (c.checkSize) expect(storage.liveBytes, 'space of the flushed state = the index size (nothing leaked)').toBe(await idx.sizeOnDisk());
    prev = state;
    return state;
  };
  for (const op of ops) {
    switch (op.k) {
      case 'ins':
        await insert(record(op.c, op.a, op.s, op.m));
        break;
      case 'del': {
        const key = op.c.join(',');
        expect(await idx.remove(op.c)).toEqual(model.get(key) ?? null);
        model.delete(key);
        break;
      }
      case 'append':
        // Streaming: the next chunks in row-major order of the coordinate grid.
        for (let i = 0; i < op.n; i++, appended++) {
          const coords: number[] = [];
          let rest = appended % c.grid.reduce((n, g) => n * g, 1);
          for (let d = c.grid.length - 1; d >= 0; d--) {
            coords.unshift(rest % c.grid[d]!);
            rest = Math.floor(rest / c.grid[d]!);
          }
          await insert(record(coords, appended, 1 + (appended % 900), appended & 1));
        }
        break;
      case 'resize':
        if (c.base.maxDims[0] === -1 || op.d0 <= c.base.maxDims[0]!) {
          dims = [op.d0, ...dims.slice(1)];
          await idx.resize(dims);
        }
        break;
      case 'flush':
        await flush();
        break;
      case 'reopen': {
        const s = await flush();
        idx = await c.provider.open({ ...live(), info: s.info }, s.address);
        break;
      }
    }
    if (op.k !== 'flush' && op.k !== 'reopen') {
      for (const r of model.values()) expect(await idx.lookup(r.coords)).toEqual(r);
    }
  }
  await flush();
  await flush();
}

describe('copy-on-write chunk indexes', () => {
  for (const c of CASES) {
    it(`${c.name}: nothing flushed is rewritten; every flushed state and the one before reopen from the bytes`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb(c), { minLength: 1, maxLength: 80 }), (ops) => run(c, ops)),
        { numRuns: 40 },
      );
    });
  }

  for (const c of [CASES[0]!, CASES[2]!, CASES[4]!]) {
    it(`${c.name}: inserts not awaited while a flush moves the structures all reach the next flush`, async () => {
      const storage = new CowStorage();
      const ctx: ChunkIndexContext = { ...c.base, reader: storage.reader(), sizes: DEFAULT_SIZES, datasetPath: '/cow', storage };
      const idx = await c.provider.create(ctx);
      const rec = (i: number, gen: number): ChunkRecord => ({ coords: [Math.floor(i / c.grid[1]!), i % c.grid[1]!], address: 8 * (1 + i + 1000 * gen), size: chunkBytes(c.base), filterMask: 0 });
      const n = Math.min(60, c.grid[0]! * c.grid[1]!);
      for (let i = 0; i < n; i++) await idx.insert(rec(i, 0));
      await idx.flush();
      storage.markFlushed();
      storage.slowWrites = true;
      // One flush moves everything while every record is replaced: none may be lost.
      await idx.insert(rec(0, 1));
      const pending: Promise<unknown>[] = [idx.flush()];
      const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
      for (let i = 1; i < n; i++) {
        pending.push(
          (async () => {
            for (let k = 0; k < i % 8; k++) await tick();
            await idx.insert(rec(i, 1));
          })(),
        );
      }
      await Promise.all(pending);
      const { address, info } = await idx.flush();
      const want = sortRecords(Array.from({ length: n }, (_, i) => rec(i, 1)));
      await expectState(c, storage.snapshot(), { address, info, dims: c.base.dims, records: want }, 'after the concurrent flush');
    });
  }

  it('extensible array: a long stream with frequent flushes and reopenings', async () => {
    const c = CASES[2]!;
    const ops: Op[] = [];
    for (let i = 0; i < 40; i++) ops.push({ k: 'append', n: 9 }, i % 7 === 6 ? { k: 'reopen' } : { k: 'flush' });
    await run(c, ops);
  });

  it('v2 B-tree: a long stream with frequent flushes and reopenings', async () => {
    const c = CASES[4]!;
    const ops: Op[] = [];
    for (let i = 0; i < 40; i++) ops.push({ k: 'append', n: 17 }, i % 5 === 4 ? { k: 'reopen' } : { k: 'flush' });
    for (let i = 0; i < 200; i += 3) ops.push({ k: 'del', c: [Math.floor(i / 40), i % 40] }, ...(i % 30 === 0 ? [{ k: 'flush' as const }] : []));
    await run(c, ops);
  });
});

describe('copy-on-write implicit index (relocate)', () => {
  // 3 × 2 chunks of 2 × 3 one-byte elements: a 36-byte chunk block.
  const base: Base = { dims: [6, 6], maxDims: [6, 6], chunkDims: [2, 3], elementSize: 1, filtered: false, info: { type: 'implicit' } };
  const grid = [3, 2];
  type IOp = { k: 'write'; c: number[]; v: number } | { k: 'flush' } | { k: 'reopen' };
  const iop: fc.Arbitrary<IOp> = fc.oneof(
    { arbitrary: fc.record({ k: fc.constant('write' as const), c: fc.tuple(fc.nat(2), fc.nat(1)), v: fc.integer({ min: 1, max: 255 }) }), weight: 4 },
    { arbitrary: fc.constant({ k: 'flush' as const }), weight: 2 },
    { arbitrary: fc.constant({ k: 'reopen' as const }), weight: 1 },
  );

  /** The chunk contents of the state flushed at `address`, read from `bytes` through a reopened index. */
  async function chunksAt(bytes: Uint8Array, address: number): Promise<number[]> {
    const ctx: ChunkIndexContext = { ...base, reader: CowStorage.snapshotReader(bytes), sizes: DEFAULT_SIZES, datasetPath: '/cow' };
    const idx = await implicitIndexProvider.open(ctx, address);
    const out: number[] = [];
    for (const r of await collect(idx.iterate())) {
      const chunk = bytes.subarray(r.address, r.address + r.size);
      expect(chunk.every((b) => b === chunk[0])).toBe(true);
      out.push(chunk[0]!);
    }
    return out;
  }

  it('a rewritten chunk goes to a relocated block; every flushed state and the one before read back from the bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(iop, { minLength: 1, maxLength: 40 }), async (ops) => {
        // Relocation and chunk writes happen outside flush() (to fresh space only): no seal here.
        const storage = new CowStorage();
        const live = (): ChunkIndexContext => ({ ...base, reader: storage.reader(), sizes: DEFAULT_SIZES, datasetPath: '/cow', storage });
        let idx = await implicitIndexProvider.create(live());
        const blockSize = grid[0]! * grid[1]! * 6;
        const model = new Array<number>(6).fill(0);
        let prev: { address: number; chunks: number[] } | null = null;
        const flush = async (): Promise<number> => {
          const { address } = await idx.flush();
          const bytes = storage.snapshot();
          expect(await chunksAt(bytes, address)).toEqual(model);
          if (prev) expect(await chunksAt(bytes, prev.address), 'previous flushed state').toEqual(prev.chunks);
          storage.markFlushed();
          expect(storage.liveBytes).toBe(blockSize);
          prev = { address, chunks: model.slice() };
          return address;
        };
        for (const op of ops) {
          if (op.k === 'write') {
            // What the chunk engine does: relocate a block in flushed space, then write the chunk.
            let rec = (await idx.lookup(op.c))!;
            if (!storage.isFresh(rec.address, rec.size)) {
              await idx.relocate!(op.c);
              rec = (await idx.lookup(op.c))!;
              expect(storage.isFresh(rec.address, rec.size)).toBe(true);
            }
            await storage.write(rec.address, new Uint8Array(rec.size).fill(op.v));
            model[op.c[0]! * grid[1]! + op.c[1]!] = op.v;
          } else if (op.k === 'flush') await flush();
          else idx = await implicitIndexProvider.open(live(), await flush());
        }
        await flush();
      }),
      { numRuns: 60 },
    );
  });

  it('concurrent relocations move the block once', async () => {
    const storage = new CowStorage();
    const ctx: ChunkIndexContext = { ...base, reader: storage.reader(), sizes: DEFAULT_SIZES, datasetPath: '/cow', storage };
    const idx = await implicitIndexProvider.create(ctx);
    await storage.write((await idx.lookup([2, 1]))!.address, new Uint8Array(6).fill(9));
    const { address } = await idx.flush();
    storage.markFlushed();
    await Promise.all([idx.relocate!([0, 0]), idx.relocate!([1, 1]), idx.relocate!([2, 0])]);
    const moved = (await idx.flush()).address;
    expect(moved).not.toBe(address);
    storage.markFlushed();
    expect(storage.liveBytes).toBe(36);
    expect(await chunksAt(storage.snapshot(), moved)).toEqual([0, 0, 0, 0, 0, 9]);
  });
});
