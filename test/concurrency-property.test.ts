/**
 * Property (issue #10 "Done when"): random batches of un-awaited writes, erases (sparse), resizes,
 * reads, defined-element queries and flushes on one dataset — dense chunked with gzip, and sparse —
 * give the result of the same calls made one after the other in call order. Every call's outcome
 * (its value, or the class of its error: a selection may be out of range for the shape an earlier
 * resize left) and the final contents, before and after close-and-reopen, must equal the
 * sequential run's. The concurrent run goes through a store whose reads and writes take a random
 * number of event-loop turns (test/oracle/delay-store.ts), so the calls interleave differently in
 * every run. Seeds are fixed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  MemoryStore,
  openFile,
  selectBlocks,
  selectPoints,
  type ByteStore,
  type CreateDatasetOptions,
  type Dataset,
  type H5File,
  type Selection,
} from '../packages/core/src/index.js';
import { DelayStore } from './oracle/delay-store.js';
import { enumerate, linear } from './oracle/sparse-model.js';

const MAX_ROWS = 9;
const COLS = 5;
const BOUND = [MAX_ROWS, COLS];

type SelRecipe = { kind: 'block'; r0: number; r1: number; c0: number; c1: number } | { kind: 'points'; pts: [number, number][] };

type Op =
  | { op: 'write'; sel: SelRecipe | null }
  | { op: 'erase'; sel: SelRecipe }
  | { op: 'resize'; rows: number }
  | { op: 'read'; sel: SelRecipe | null }
  | { op: 'getDefined'; sel: SelRecipe | null }
  | { op: 'readDefined'; sel: SelRecipe | null }
  | { op: 'flush' };

interface Cfg {
  sparse: boolean;
  rows: number;
  unlimited: boolean;
  cacheBytes: number | undefined;
}

const selArb: fc.Arbitrary<SelRecipe> = fc.oneof(
  // rows up to MAX_ROWS + 1: sometimes past the largest shape (an error in both runs)
  fc
    .tuple(fc.nat(MAX_ROWS), fc.integer({ min: 1, max: 4 }), fc.nat(COLS - 1), fc.integer({ min: 1, max: COLS }))
    .map(([r0, h, c0, w]) => ({ kind: 'block' as const, r0, r1: Math.min(r0 + h, MAX_ROWS + 1), c0, c1: Math.min(c0 + w, COLS) })),
  fc
    .uniqueArray(fc.tuple(fc.nat(MAX_ROWS - 1), fc.nat(COLS - 1)), { minLength: 1, maxLength: 6, selector: ([r, c]) => r * COLS + c })
    .map((pts) => ({ kind: 'points' as const, pts })),
);

function opArb(sparse: boolean): fc.Arbitrary<Op> {
  const common: fc.Arbitrary<Op>[] = [
    selArb.map((sel) => ({ op: 'write' as const, sel })),
    selArb.map((sel) => ({ op: 'write' as const, sel })),
    fc.constant({ op: 'write' as const, sel: null }),
    fc.integer({ min: 0, max: MAX_ROWS }).map((rows) => ({ op: 'resize' as const, rows })),
    fc.option(selArb, { nil: null }).map((sel) => ({ op: 'read' as const, sel })),
    fc.constant({ op: 'flush' as const }),
  ];
  if (!sparse) return fc.oneof(...common);
  return fc.oneof(
    ...common,
    selArb.map((sel) => ({ op: 'erase' as const, sel })),
    fc.option(selArb, { nil: null }).map((sel) => ({ op: 'getDefined' as const, sel })),
    fc.option(selArb, { nil: null }).map((sel) => ({ op: 'readDefined' as const, sel })),
  );
}

const cfgArb = (sparse: boolean): fc.Arbitrary<Cfg> =>
  fc.record({
    sparse: fc.constant(sparse),
    rows: fc.integer({ min: 0, max: MAX_ROWS }),
    unlimited: fc.boolean(),
    cacheBytes: fc.constantFrom(undefined, 0, 64),
  });

/** Ops split into batches: the calls of a batch are made together, batches one after the other. */
const runArb = (sparse: boolean) =>
  fc.record({
    cfg: cfgArb(sparse),
    batches: fc.array(fc.array(opArb(sparse), { minLength: 1, maxLength: 14 }), { minLength: 1, maxLength: 3 }),
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  });

function selectionOf(r: SelRecipe | null): Selection | undefined {
  if (!r) return undefined;
  if (r.kind === 'block') return selectBlocks([{ start: [r.r0, r.c0], end: [r.r1, r.c1] }]);
  return selectPoints(r.pts);
}

function countOf(r: SelRecipe | null, rows: number): number {
  if (!r) return rows * COLS;
  return r.kind === 'block' ? (r.r1 - r.r0) * (r.c1 - r.c0) : r.pts.length;
}

/** Linear indices (within the largest shape) of a selection's elements, sorted. */
function elementsOf(sel: Selection): number[] {
  return enumerate(sel, BOUND)
    .map((c) => linear(c, BOUND))
    .sort((a, b) => a - b);
}

/** A comparable form of a call's outcome. */
function plain(v: unknown): unknown {
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
  if (v && typeof v === 'object' && 'kind' in v) return { elements: elementsOf(v as Selection) };
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

interface Outcome {
  ok?: unknown;
  error?: string;
}

/** Makes the call for `op` on `d`/`f` (with values derived from the op's position `i`). */
function call(f: H5File, d: Dataset, op: Op, i: number, shapeRows: () => number): Promise<unknown> {
  switch (op.op) {
    case 'write': {
      // For "all", the size the shape will have when the call runs (tracked in call order).
      const n = countOf(op.sel, shapeRows());
      return d.write(Int32Array.from({ length: n }, (_, k) => (i + 1) * 100 + k + 1), selectionOf(op.sel));
    }
    case 'erase':
      return d.erase(selectionOf(op.sel)!);
    case 'resize':
      return d.resize([op.rows, COLS]);
    case 'read':
      return d.read(selectionOf(op.sel));
    case 'getDefined':
      return d.getDefined(selectionOf(op.sel));
    case 'readDefined':
      return d.readDefined(selectionOf(op.sel));
    case 'flush':
      return f.flush();
  }
}

async function create(store: ByteStore, cfg: Cfg): Promise<{ f: H5File; d: Dataset }> {
  const f = await createFile(store, { superblockVersion: 3 });
  const opts: CreateDatasetOptions = {
    dtype: 'int32',
    shape: [cfg.rows, COLS],
    maxShape: [cfg.unlimited ? null : MAX_ROWS, COLS],
    chunks: [3, 2],
    ...(cfg.sparse ? { layout: 'sparse' as const, filters: { values: [{ id: 2 }, { id: 1, clientData: [4] }] } } : { compression: 'gzip' as const, compressionOpts: 1 }),
    ...(cfg.cacheBytes !== undefined ? { chunkCache: { bytes: cfg.cacheBytes } } : {}),
  };
  return { f, d: await f.createDataset('d', opts) };
}

/** The dataset's whole state: shape, values, defined elements. */
async function contents(d: Dataset, sparse: boolean): Promise<unknown> {
  return { shape: d.shape, values: plain(await d.read()), ...(sparse ? { defined: plain(await d.getDefined()) } : {}) };
}

async function settle(p: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: plain(await p) };
  } catch (e) {
    return { error: e instanceof Error ? e.constructor.name : String(e) };
  }
}

/** Rows of the shape after the ops before each op, in call order (what "all" selects at run time). */
function rowsBefore(cfg: Cfg, ops: Op[]): number[] {
  let rows = cfg.rows;
  return ops.map((op) => {
    const r = rows;
    if (op.op === 'resize' && (cfg.unlimited || op.rows <= MAX_ROWS)) rows = op.rows;
    return r;
  });
}

async function sequential(cfg: Cfg, ops: Op[]): Promise<{ outcomes: Outcome[]; final: unknown; reopened: unknown }> {
  const store = new MemoryStore();
  const { f, d } = await create(store, cfg);
  const rows = rowsBefore(cfg, ops);
  const outcomes: Outcome[] = [];
  for (const [i, op] of ops.entries()) outcomes.push(await settle(call(f, d, op, i, () => rows[i]!)));
  const final = await contents(d, cfg.sparse);
  await f.close();
  const g = await openFile(store.toBytes());
  return { outcomes, final, reopened: await contents((await g.get('d')) as Dataset, cfg.sparse) };
}

async function concurrent(cfg: Cfg, batches: Op[][], seed: number): Promise<{ outcomes: Outcome[]; final: unknown; reopened: unknown }> {
  const store = new DelayStore(seed);
  const { f, d } = await create(store, cfg);
  const rows = rowsBefore(cfg, batches.flat());
  const outcomes: Outcome[] = [];
  let i = 0;
  for (const batch of batches) {
    const calls = batch.map((op) => {
      const k = i++;
      return settle(call(f, d, op, k, () => rows[k]!));
    });
    outcomes.push(...(await Promise.all(calls)));
  }
  const final = await contents(d, cfg.sparse);
  await f.close();
  const g = await openFile(store.toBytes());
  return { outcomes, final, reopened: await contents((await g.get('d')) as Dataset, cfg.sparse) };
}

async function check({ cfg, batches, seed }: { cfg: Cfg; batches: Op[][]; seed: number }): Promise<void> {
  const want = await sequential(cfg, batches.flat());
  const got = await concurrent(cfg, batches, seed);
  expect(got.outcomes).toEqual(want.outcomes);
  expect(got.final).toEqual(want.final);
  expect(got.reopened).toEqual(want.reopened);
  expect(got.reopened).toEqual(got.final);
}

describe('un-awaited calls on one dataset equal the same calls made one after the other', () => {
  it('dense chunked dataset with gzip', async () => {
    await fc.assert(fc.asyncProperty(runArb(false), check), { numRuns: 60, seed: 0x5eed01 });
  });

  it('sparse dataset', async () => {
    await fc.assert(fc.asyncProperty(runArb(true), check), { numRuns: 60, seed: 0x5eed02 });
  });
});
