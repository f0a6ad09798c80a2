/**
 * Model-based tests of VL chunked datasets: random sequences of write (hyperslab, points), erase,
 * read (whole, hyperslab, points), getDefined / readDefined (sparse VL), resize and close-and-reopen,
 * compared after every step with a plain in-memory model (one JS value per element, `undefined` for
 * an element that was never written or was erased; those read as the empty value).
 *
 * Every index type a structured layout uses is covered: single chunk (shape = chunks = maximum
 * shape), fixed array (fixed maximum shape), extensible array (one unlimited dimension), v2 B-tree
 * (two unlimited) — dense and sparse VL, strings (UTF-8, ASCII) and sequences (int32, float64,
 * uint8), with and without filters on each section. Seeds are fixed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectHyperslab, selectPoints, selectionRuns, type Dataset, type H5File, type Selection } from '@chunkform/core';
import { createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { memoryFile, reopen } from './support.js';

type Kind = 'single' | 'fixed-array' | 'extensible-array' | 'btree2';
type Dt = 'string' | 'str(ascii)' | 'vlen<i4>' | 'vlen<f8>' | 'vlen<u1>';

const FILTERS: Record<string, Pick<VlDatasetOptions, 'filters' | 'compression'>> = {
  none: {},
  'deflate on heap': { compression: 'gzip' },
  'shuffle+deflate on entries': { filters: { entries: [{ id: 2 }, { id: 1, clientData: [6] }] } },
  'fletcher32 on every section': { filters: { entries: [{ id: 3 }], heap: [{ id: 3 }] } },
  'deflate on selection, deflate+fletcher32 on heap': { filters: { selection: [{ id: 1, clientData: [9] }], heap: [{ id: 1, clientData: [1] }, { id: 3 }] } },
};

interface Cfg {
  kind: Kind;
  sparse: boolean;
  dtype: Dt;
  shape: number[];
  maxShape: (number | null)[];
  cap: number[];
  chunks: number[];
  filters: string;
  pipelineMessage: 'v3' | 'stc';
}

function volume(d: readonly number[]): number {
  return d.reduce((a, b) => a * b, 1);
}

function unravel(i: number, dims: readonly number[]): number[] {
  const c = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    c[d] = i % dims[d]!;
    i = Math.floor(i / dims[d]!);
  }
  return c;
}

function linear(c: readonly number[], dims: readonly number[]): number {
  let i = 0;
  for (let d = 0; d < dims.length; d++) i = i * dims[d]! + c[d]!;
  return i;
}

const cfgArb: fc.Arbitrary<Cfg> = fc
  .record({
    kind: fc.constantFrom<Kind>('single', 'fixed-array', 'extensible-array', 'btree2'),
    sparse: fc.boolean(),
    dtype: fc.constantFrom<Dt>('string', 'str(ascii)', 'vlen<i4>', 'vlen<f8>', 'vlen<u1>'),
    rank: fc.integer({ min: 1, max: 3 }),
    dims: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 3, maxLength: 3 }),
    chunks: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 3, maxLength: 3 }),
    filters: fc.constantFrom(...Object.keys(FILTERS)),
    pipelineMessage: fc.constantFrom<'v3' | 'stc'>('v3', 'stc'),
  })
  .map(({ kind, sparse, dtype, rank, dims, chunks, filters, pipelineMessage }) => {
    const r = kind === 'btree2' ? Math.max(2, rank) : rank;
    const shape = dims.slice(0, r);
    let ch = chunks.slice(0, r).map((c, i) => Math.min(c, shape[i]!));
    let maxShape: (number | null)[] = shape.slice();
    let cap = shape.slice();
    if (kind === 'single') ch = shape.slice();
    if (kind === 'fixed-array') {
      // more than one chunk, fixed maximum (room to grow in dimension 0)
      maxShape = shape.map((s, i) => (i === 0 ? s + 3 : s));
      cap = maxShape as number[];
      if (volume(shape.map((s, i) => Math.ceil(s / ch[i]!))) === 1 && shape[0]! > 1) ch[0] = Math.ceil(shape[0]! / 2);
    }
    if (kind === 'extensible-array') {
      maxShape = shape.map((s, i) => (i === 0 ? null : s));
      cap = shape.map((s, i) => (i === 0 ? s + 6 : s));
    }
    if (kind === 'btree2') {
      maxShape = shape.map((s, i) => (i < 2 ? null : s));
      cap = shape.map((s, i) => (i < 2 ? s + 4 : s));
    }
    if (!sparse && filters.includes('selection')) filters = 'deflate on heap';
    return { kind, sparse, dtype, shape, maxShape, cap, chunks: ch, filters, pipelineMessage };
  });

/** A random value of the dtype. */
function valueArb(dt: Dt): fc.Arbitrary<unknown> {
  switch (dt) {
    case 'string':
      return fc.oneof(fc.string({ maxLength: 24 }), fc.constantFrom('', 'ü', 'åäö — 日本', 'x'.repeat(70)));
    case 'str(ascii)':
      return fc.string({ maxLength: 30, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });
    case 'vlen<i4>':
      return fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 9 }).map((a) => Int32Array.from(a));
    case 'vlen<f8>':
      return fc.array(fc.double({ noNaN: true }), { maxLength: 6 });
    case 'vlen<u1>':
      return fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 40 }).map((a) => Uint8Array.from(a));
  }
}

/** A step: the selection is given as fractions, turned into one that fits the shape when run. */
type Step =
  | { op: 'write'; sel: SelSpec; seed: number }
  | { op: 'erase'; sel: SelSpec }
  | { op: 'read'; sel: SelSpec }
  | { op: 'defined'; sel: SelSpec }
  | { op: 'resize'; f: number[] }
  | { op: 'reopen' };

type SelSpec = { kind: 'slab'; a: number[]; b: number[] } | { kind: 'points'; p: number[] } | { kind: 'all' };

const fracs = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 });
const selArb: fc.Arbitrary<SelSpec> = fc.oneof(
  fc.record({ kind: fc.constant('slab' as const), a: fracs, b: fracs }),
  fc.record({ kind: fc.constant('points' as const), p: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }) }),
  fc.constant({ kind: 'all' as const }),
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('write' as const), sel: selArb, seed: fc.integer() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('erase' as const), sel: selArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('read' as const), sel: selArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('defined' as const), sel: selArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resize' as const), f: fracs }) },
  { weight: 1, arbitrary: fc.constant({ op: 'reopen' as const }) },
);

/** The selection a spec names in `dims` and its element offsets in selection order. */
function selectionOf(s: SelSpec, dims: number[]): { sel: Selection; offsets: number[] } | null {
  const n = volume(dims);
  if (n === 0) return null;
  if (s.kind === 'all') return { sel: selectHyperslab({ start: dims.map(() => 0), count: dims.slice() }), offsets: Array.from({ length: n }, (_, i) => i) };
  if (s.kind === 'points') {
    const pts = s.p.map((f) => unravel(Math.min(n - 1, Math.floor(f * n)), dims));
    // the same element twice: the later value wins in the file; keep points distinct for the model
    const seen = new Set<number>();
    const uniq = pts.filter((c) => !seen.has(linear(c, dims)) && (seen.add(linear(c, dims)), true));
    return { sel: selectPoints(uniq), offsets: uniq.map((c) => linear(c, dims)) };
  }
  const start = dims.map((d, i) => Math.min(d - 1, Math.floor(s.a[i]! * d)));
  const count = dims.map((d, i) => 1 + Math.floor(s.b[i]! * (d - start[i]!)));
  const c = dims.map((d, i) => Math.min(count[i]!, d - start[i]!));
  const sel = selectHyperslab({ start, count: c });
  const runs = selectionRuns(sel, dims);
  const offsets: number[] = [];
  for (let r = 0; r < runs.length; r += 2) for (let k = 0; k < runs[r + 1]!; k++) offsets.push(runs[r]! + k);
  return { sel, offsets };
}

/** Comparable form of a read value. */
function norm(v: unknown, dt: Dt): unknown {
  if (v === undefined) return dt === 'string' || dt === 'str(ascii)' ? '' : [];
  if (typeof v === 'string') return v;
  return Array.from(v as ArrayLike<number>);
}

class Model {
  values: (unknown | undefined)[];
  constructor(public dims: number[]) {
    this.values = new Array<unknown>(volume(dims)).fill(undefined);
  }

  resize(to: number[]): void {
    const next = new Array<unknown>(volume(to)).fill(undefined);
    for (let i = 0; i < this.values.length; i++) {
      const c = unravel(i, this.dims);
      if (c.every((x, d) => x < to[d]!)) next[linear(c, to)] = this.values[i];
    }
    this.values = next;
    this.dims = to;
  }
}

async function runCase(cfg: Cfg, steps: Step[]): Promise<void> {
  const { store, file } = await memoryFile();
  let f: H5File = file;
  const opts: VlDatasetOptions = {
    dtype: cfg.dtype,
    shape: cfg.shape,
    maxShape: cfg.maxShape,
    chunks: cfg.chunks,
    sparse: cfg.sparse,
    pipelineMessage: cfg.pipelineMessage,
    ...FILTERS[cfg.filters],
  };
  if (!cfg.sparse && opts.filters?.selection) delete opts.filters.selection;
  let d: Dataset = await createVlDataset(f, 'v', opts);
  const model = new Model(cfg.shape.slice());
  const gen = valueArb(cfg.dtype);
  const label = (s: Step) => `${JSON.stringify(cfg)} at ${JSON.stringify(s)}`;
  for (const step of steps) {
    const dims = model.dims;
    switch (step.op) {
      case 'write': {
        const s = selectionOf(step.sel, dims);
        if (!s) break;
        const vals = fc.sample(gen, { seed: step.seed, numRuns: s.offsets.length });
        await d.write(vals, s.sel);
        s.offsets.forEach((o, k) => (model.values[o] = vals[k]));
        break;
      }
      case 'erase': {
        const s = selectionOf(step.sel, dims);
        if (!s) break;
        if (!cfg.sparse) {
          await expect(d.erase(s.sel)).rejects.toThrow();
          break;
        }
        await d.erase(s.sel);
        for (const o of s.offsets) model.values[o] = undefined;
        break;
      }
      case 'read': {
        const s = selectionOf(step.sel, dims);
        if (!s) break;
        const got = (await d.read(s.sel)) as unknown[];
        expect(got.map((v) => norm(v, cfg.dtype)), label(step)).toEqual(s.offsets.map((o) => norm(model.values[o], cfg.dtype)));
        break;
      }
      case 'defined': {
        const s = selectionOf(step.sel, dims);
        if (!s) break;
        const expected = [...s.offsets].sort((a, b) => a - b).filter((o) => !cfg.sparse || model.values[o] !== undefined);
        const def = await d.getDefined(s.sel);
        const runs = selectionRuns(def, dims);
        const got: number[] = [];
        for (let r = 0; r < runs.length; r += 2) for (let k = 0; k < runs[r + 1]!; k++) got.push(runs[r]! + k);
        expect(got.sort((a, b) => a - b), label(step)).toEqual(expected);
        const rd = await d.readDefined(s.sel);
        const rr = selectionRuns(rd.selection, dims);
        const order: number[] = [];
        for (let r = 0; r < rr.length; r += 2) for (let k = 0; k < rr[r + 1]!; k++) order.push(rr[r]! + k);
        expect((rd.values as unknown[]).map((v) => norm(v, cfg.dtype)), label(step)).toEqual(order.map((o) => norm(model.values[o], cfg.dtype)));
        break;
      }
      case 'resize': {
        if (cfg.kind === 'single') break;
        const to = cfg.cap.map((c, i) => (cfg.maxShape[i] === cfg.shape[i] ? cfg.shape[i]! : Math.min(c, 1 + Math.floor(step.f[i]! * c))));
        await d.resize(to);
        model.resize(to);
        break;
      }
      case 'reopen': {
        f = await reopen(store, f);
        d = (await f.get('v')) as Dataset;
        break;
      }
    }
  }
  // the whole dataset after a final reopen
  f = await reopen(store, f);
  d = (await f.get('v')) as Dataset;
  const all = (await d.read()) as unknown[];
  expect(all.map((v) => norm(v, cfg.dtype)), JSON.stringify(cfg)).toEqual(model.values.map((v) => norm(v, cfg.dtype)));
  await f.close();
}

describe('VL datasets against an in-memory model', () => {
  it('random operation sequences (all index types, dense and sparse, with and without section filters)', async () => {
    await fc.assert(
      fc.asyncProperty(cfgArb, fc.array(stepArb, { minLength: 1, maxLength: 14 }), async (cfg, steps) => runCase(cfg, steps)),
      { seed: 1311, numRuns: 120 },
    );
  });

  it('every index type × dense/sparse × each filter case at least once', async () => {
    const kinds: Kind[] = ['single', 'fixed-array', 'extensible-array', 'btree2'];
    const steps = fc.sample(fc.array(stepArb, { minLength: 6, maxLength: 10 }), { seed: 7, numRuns: 40 });
    let k = 0;
    for (const kind of kinds) {
      for (const sparse of [false, true]) {
        for (const filters of Object.keys(FILTERS)) {
          if (!sparse && filters.includes('selection')) continue;
          const base = fc.sample(cfgArb.filter((c) => c.kind === kind), { seed: 100 + k, numRuns: 1 })[0]!;
          await runCase({ ...base, sparse, filters }, steps[k++ % steps.length]!);
        }
      }
    }
  });
});
