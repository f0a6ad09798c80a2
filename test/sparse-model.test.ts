/**
 * Model-based tests of sparse datasets (issue #4 "Done when"): random sequences of write (hyperslab,
 * blocks, points, all) / erase / read / getDefined / readDefined / resize / close-and-reopen on 1-D…4-D
 * sparse datasets with random chunking, compared after every step with a dense reference model
 * (test/oracle/sparse-model.ts: values + defined mask; undefined elements read as the fill value).
 *
 * Every index type the sparse layout uses is covered (docs/structured-chunk-format.md §3.3): fixed array (fixed
 * maximum shape), extensible array (one unlimited dimension), v2 B-tree (≥ 2 unlimited), single chunk
 * (shape == chunks == maximum shape) — each with and without filters on each section (deflate on the
 * selection, shuffle+deflate on the values, Fletcher-32, all of them on both sections), both selection
 * encodings and both filter-message dialects. Files live in a MemoryStore or (some runs) a temp file.
 *
 * Resizing is a separate property so a resize bug does not hide the rest. Seeds are fixed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  MemoryStore,
  openFile,
  selectPoints,
  type CreateDatasetOptions,
  type Dataset,
  type H5File,
  type Selection,
} from '../packages/core/src/index.js';
import {
  describeSelection,
  enumerate,
  linear,
  MODEL_DTYPES,
  modelValue,
  RECIPE_FRACTIONS,
  selectionOf,
  SparseModel,
  volume,
  type ModelDtype,
  type SelRecipe,
} from './oracle/sparse-model.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-sparse-model-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
let fileCounter = 0;

type IndexKind = 'fixed-array' | 'extensible-array' | 'btree2' | 'single';

/** Section filters of a run (createDataset options). */
const FILTER_CASES: Record<string, Partial<CreateDatasetOptions>> = {
  none: {},
  'deflate on selection': { filters: { selection: [{ id: 1, clientData: [6] }] } },
  'shuffle+deflate on values': { filters: { values: [{ id: 2 }, { id: 1, clientData: [4] }] } },
  'fletcher32 (all sections)': { fletcher32: true },
  'gzip+shuffle+fletcher32 (all sections)': { compression: 'gzip', shuffle: true, fletcher32: true },
  'deflate+fletcher32 on selection, fletcher32 on values': {
    filters: { selection: [{ id: 1, clientData: [9] }, { id: 3 }], values: [{ id: 3 }] },
  },
};
const FILTER_NAMES = Object.keys(FILTER_CASES);

interface Cfg {
  kind: IndexKind;
  dtype: ModelDtype;
  shape: number[];
  maxShape: (number | null)[];
  /** Largest extent a resize may give each dimension. */
  cap: number[];
  chunks: number[];
  fill: number | undefined;
  filters: string;
  encoding: 'smallest' | 'prototype';
  pipelineMessage: 'v3' | 'stc';
  onDisk: boolean;
}

/** Largest dimension per rank, so a dataset holds at most a few hundred elements. */
const MAX_DIM = [0, 40, 14, 7, 5];

const cfgArb = (kind: IndexKind): fc.Arbitrary<Cfg> =>
  fc
    .record({
      rank: fc.integer({ min: kind === 'btree2' ? 2 : 1, max: 4 }),
      dims: fc.array(fc.nat(1_000_000), { minLength: 4, maxLength: 4 }),
      extra: fc.array(fc.nat(1_000_000), { minLength: 4, maxLength: 4 }),
      chunkFr: fc.array(fc.nat(1_000_000), { minLength: 4, maxLength: 4 }),
      unlimited: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      which: fc.nat(3),
      dtype: fc.constantFrom(...(Object.keys(MODEL_DTYPES) as ModelDtype[])),
      fill: fc.option(fc.nat(1_000_000), { nil: undefined }),
      filters: fc.constantFrom(...FILTER_NAMES),
      encoding: fc.constantFrom('smallest' as const, 'prototype' as const),
      pipelineMessage: fc.constantFrom('v3' as const, 'stc' as const),
      onDisk: fc.boolean(),
    })
    .map((r) => {
      const rank = r.rank;
      const frac = (n: number): number => n / 1_000_001;
      const shape = Array.from({ length: rank }, (_, d) => 1 + Math.floor(frac(r.dims[d]!) * MAX_DIM[rank]!));
      let unl = new Array<boolean>(rank).fill(false);
      if (kind === 'extensible-array') unl[r.which % rank] = true;
      if (kind === 'btree2') {
        unl = r.unlimited.slice(0, rank);
        const a = r.which % rank;
        unl[a] = true;
        unl[(a + 1) % rank] = true;
      }
      const cap = shape.map((n, d) => (kind === 'single' ? n : n + Math.floor(frac(r.extra[d]!) * 4)));
      const maxShape = cap.map((c, d) => (unl[d] ? null : c));
      const chunks = cap.map((c, d) => (kind === 'single' ? c : 1 + Math.floor(frac(r.chunkFr[d]!) * c)));
      if (kind === 'fixed-array' && chunks.every((c, d) => c === cap[d] && shape[d] === cap[d])) {
        // one chunk covering a fixed dataset would be the single-chunk index: make the maximum shape larger
        cap[0]! += 1;
        maxShape[0] = cap[0]!;
      }
      const t = MODEL_DTYPES[r.dtype];
      const fill = r.fill === undefined ? undefined : (t.min + (r.fill % t.range)) * ('scale' in t ? t.scale : 1);
      return { kind, dtype: r.dtype, shape, maxShape, cap, chunks, fill, filters: r.filters, encoding: r.encoding, pipelineMessage: r.pipelineMessage, onDisk: r.onDisk };
    });

/** The system under test: the open file and dataset (reopened by the Reopen command). */
interface Real {
  cfg: Cfg;
  target: MemoryStore | string;
  file: H5File;
  dset: Dataset;
  log: string[];
}

async function open(real: Real, mode: 'r' | 'r+'): Promise<void> {
  real.file = await openFile(real.target, { mode });
  real.dset = (await real.file.get('/group/sparse')) as Dataset;
  real.dset.setAccess({ selectionEncoding: real.cfg.encoding });
}

async function setup(cfg: Cfg): Promise<{ model: SparseModel; real: Real }> {
  const target = cfg.onDisk ? join(TMP, `m${fileCounter++}.h5`) : new MemoryStore();
  const file = await createFile(target, { superblockVersion: 3 });
  const dset = await file.createDataset('/group/sparse', {
    layout: 'sparse',
    dtype: cfg.dtype,
    shape: cfg.shape,
    maxShape: cfg.maxShape,
    chunks: cfg.chunks,
    ...(cfg.fill !== undefined ? { fillValue: cfg.fill } : {}),
    selectionEncoding: cfg.encoding,
    pipelineMessage: cfg.pipelineMessage,
    ...FILTER_CASES[cfg.filters],
  });
  // a dense dataset next to it must stay intact
  await file.createDataset('/group/dense', { dtype: '<i4', shape: [5], data: [1, 2, 3, 4, 5] });
  expect(dset.layout.class).toBe('structured');
  if (dset.layout.class === 'structured') expect(dset.layout.index.type).toBe(cfg.kind);
  return { model: new SparseModel(cfg.cap, cfg.shape, cfg.chunks, cfg.fill ?? 0), real: { cfg, target, file, dset, log: [] } };
}

const usable = (m: SparseModel): boolean => m.shape.every((n) => n > 0);
const where = (r: Real, what: string): string => `${what}\n  after: ${r.log.join(' ; ')}\n  config: ${JSON.stringify(r.cfg)}`;

/** Compares the whole dataset, the defined selection and readDefined with the model. */
async function checkAll(m: SparseModel, r: Real, what: string): Promise<void> {
  expect(r.dset.shape, where(r, `${what}: shape`)).toEqual(m.shape);
  if (volume(m.shape) === 0) return;
  const coords = enumerate({ kind: 'all' }, m.shape);
  expect(Array.from(await r.dset.read() as ArrayLike<number>), where(r, `${what}: read()`)).toEqual(m.read(coords));
  const def = await r.dset.getDefined();
  const got = enumerate(def, m.shape).map((c) => linear(c, m.shape));
  expect(got, where(r, `${what}: getDefined()`)).toEqual(m.definedAmong(coords));
}

class WriteCmd implements fc.AsyncCommand<SparseModel, Real> {
  constructor(readonly recipe: SelRecipe, readonly seed: number) {}
  check = usable;
  async run(m: SparseModel, r: Real): Promise<void> {
    const { sel, coords } = selectionOf(this.recipe, m.shape);
    const values = coords.map((_, k) => modelValue(r.cfg.dtype, this.seed, k));
    r.log.push(`write ${describeSelection(sel)} (${coords.length})`);
    await r.dset.write(values, sel);
    m.write(coords, values);
    await checkAll(m, r, 'write');
  }
  toString = (): string => `write(${this.recipe.kind}, seed ${this.seed})`;
}

class EraseCmd implements fc.AsyncCommand<SparseModel, Real> {
  constructor(readonly recipe: SelRecipe) {}
  check = usable;
  async run(m: SparseModel, r: Real): Promise<void> {
    const { sel, coords } = selectionOf(this.recipe, m.shape);
    r.log.push(`erase ${describeSelection(sel)}`);
    await r.dset.erase(sel);
    m.erase(coords);
    await checkAll(m, r, 'erase');
  }
  toString = (): string => `erase(${this.recipe.kind})`;
}

class ReadCmd implements fc.AsyncCommand<SparseModel, Real> {
  constructor(readonly recipe: SelRecipe) {}
  check = usable;
  async run(m: SparseModel, r: Real): Promise<void> {
    const { sel, coords } = selectionOf(this.recipe, m.shape);
    const got = Array.from((await r.dset.read(sel)) as ArrayLike<number>);
    expect(got, where(r, `read ${describeSelection(sel)}`)).toEqual(m.read(coords));
  }
  toString = (): string => `read(${this.recipe.kind})`;
}

class DefinedCmd implements fc.AsyncCommand<SparseModel, Real> {
  constructor(readonly recipe: SelRecipe | null) {}
  check = usable;
  async run(m: SparseModel, r: Real): Promise<void> {
    const { sel, coords } = this.recipe ? selectionOf(this.recipe, m.shape) : { sel: undefined, coords: enumerate({ kind: 'all' }, m.shape) };
    const what = `getDefined/readDefined ${sel ? describeSelection(sel) : '(no selection)'}`;
    const expected = m.definedAmong(coords);
    const def: Selection = await r.dset.getDefined(sel);
    const defCoords = enumerate(def, m.shape);
    expect(defCoords.map((c) => linear(c, m.shape)).sort((a, b) => a - b), where(r, `${what}: getDefined`)).toEqual(expected);
    const rd = await r.dset.readDefined(sel);
    const rdCoords = enumerate(rd.selection, m.shape);
    expect(rdCoords.map((c) => linear(c, m.shape)).sort((a, b) => a - b), where(r, `${what}: readDefined selection`)).toEqual(expected);
    expect(Array.from(rd.values as ArrayLike<number>), where(r, `${what}: readDefined values`)).toEqual(m.read(rdCoords));
  }
  toString = (): string => `getDefined(${this.recipe?.kind ?? 'none'})`;
}

class ResizeCmd implements fc.AsyncCommand<SparseModel, Real> {
  constructor(readonly fr: number[]) {}
  check = (): boolean => true;
  async run(m: SparseModel, r: Real): Promise<void> {
    const shape = m.cap.map((c, d) => Math.min(c, Math.floor(this.fr[d]! * (c + 1))));
    r.log.push(`resize [${shape.join(', ')}]`);
    await r.dset.resize(shape);
    m.resize(shape);
    await checkAll(m, r, 'resize');
  }
  toString = (): string => `resize(${this.fr.map((f) => f.toFixed(2)).join(', ')})`;
}

/** Closes the file, checks it read-only (values, defined elements, stored chunks, the dense neighbour), reopens it 'r+'. */
class ReopenCmd implements fc.AsyncCommand<SparseModel, Real> {
  check = (): boolean => true;
  async run(m: SparseModel, r: Real): Promise<void> {
    r.log.push('reopen');
    await r.file.close();
    await open(r, 'r');
    await checkAll(m, r, 'reopened read-only');
    await checkStoredChunks(m, r, 'reopened read-only');
    const dense = (await r.file.get('/group/dense')) as Dataset;
    expect(Array.from((await dense.read()) as Int32Array)).toEqual([1, 2, 3, 4, 5]);
    await r.file.close();
    await open(r, 'r+');
  }
  toString = (): string => 'reopen';
}

/**
 * The stored chunks are exactly the chunks with defined elements (a chunk whose last element is erased
 * is removed, docs/structured-chunk-format.md §5.6), and each record's values section holds one value per defined element.
 */
async function checkStoredChunks(m: SparseModel, r: Real, what: string): Promise<void> {
  const expected = m.chunksWithDefined();
  const got = new Map<string, { sizes: number[]; unfiltered: number[]; masks: number[] }>();
  await r.dset.iterateStructChunks((c) => {
    got.set(c.offset.join(','), { sizes: c.sectionSizes, unfiltered: c.unfilteredSizes, masks: c.filterMasks });
  });
  expect([...got.keys()].sort(), where(r, `${what}: stored chunks`)).toEqual([...expected.keys()].sort());
  const es = MODEL_DTYPES[r.cfg.dtype].size;
  const filtered = FILTER_NAMES.indexOf(r.cfg.filters) > 0;
  for (const [key, n] of expected) {
    const c = got.get(key);
    if (!c) continue;
    expect(c.unfiltered[1], where(r, `${what}: unfiltered values section of chunk [${key}]`)).toBe(n * es);
    expect(c.masks, where(r, `${what}: filter masks of chunk [${key}]`)).toEqual([0, 0]);
    if (!filtered) expect(c.sizes, where(r, `${what}: section sizes of unfiltered chunk [${key}]`)).toEqual(c.unfiltered);
  }
}

const fractions = fc.array(fc.nat(999_999).map((n) => n / 1_000_000), { minLength: RECIPE_FRACTIONS, maxLength: RECIPE_FRACTIONS });
const recipeArb: fc.Arbitrary<SelRecipe> = fc.record({ kind: fc.constantFrom('hyperslab' as const, 'blocks' as const, 'points' as const, 'all' as const), fr: fractions });
const partialRecipeArb: fc.Arbitrary<SelRecipe> = fc.record({ kind: fc.constantFrom('hyperslab' as const, 'blocks' as const, 'points' as const), fr: fractions });

const baseCommands = [
  fc.tuple(recipeArb, fc.nat()).map(([r, s]) => new WriteCmd(r, s)),
  fc.tuple(partialRecipeArb, fc.nat()).map(([r, s]) => new WriteCmd(r, s)),
  partialRecipeArb.map((r) => new EraseCmd(r)),
  recipeArb.map((r) => new EraseCmd(r)),
  recipeArb.map((r) => new ReadCmd(r)),
  fc.option(recipeArb, { nil: null }).map((r) => new DefinedCmd(r)),
  fc.constant(new ReopenCmd()),
];
const resizeCommand = fc.array(fc.nat(999_999).map((n) => n / 1_000_000), { minLength: 4, maxLength: 4 }).map((fr) => new ResizeCmd(fr));

async function runModel(cfg: Cfg, cmds: Iterable<fc.AsyncCommand<SparseModel, Real>>): Promise<void> {
  const holder: { real?: Real; model?: SparseModel } = {};
  try {
    await fc.asyncModelRun(async () => {
      const s = await setup(cfg);
      Object.assign(holder, s);
      return s;
    }, cmds);
    // the final state, after close and reopen
    const r = holder.real!;
    r.log.push('close (end)');
    await r.file.close();
    await open(r, 'r');
    await checkAll(holder.model!, r, 'end of run, reopened');
    await checkStoredChunks(holder.model!, r, 'end of run, reopened');
  } finally {
    await holder.real?.file.close().catch(() => undefined);
  }
}

const INDEX_KINDS: IndexKind[] = ['fixed-array', 'extensible-array', 'btree2', 'single'];
const RUNS = { values: 200, resize: 60 };

describe('sparse datasets against a dense model (write / erase / read / getDefined / readDefined / reopen)', () => {
  INDEX_KINDS.forEach((kind, k) => {
    it(`${kind} index`, async () => {
      await fc.assert(
        fc.asyncProperty(cfgArb(kind), fc.commands(baseCommands, { maxCommands: 20 }), async (cfg, cmds) => {
          await runModel(cfg, cmds);
        }),
        { seed: 4_000 + k, numRuns: RUNS.values },
      );
    }, 120_000);
  });
});

describe('sparse datasets against a dense model, with resize (a shrink erases what falls outside)', () => {
  INDEX_KINDS.forEach((kind, k) => {
    it(`${kind} index`, async () => {
      await fc.assert(
        fc.asyncProperty(cfgArb(kind), fc.commands([...baseCommands, resizeCommand, resizeCommand], { maxCommands: 20 }), async (cfg, cmds) => {
          await runModel(cfg, cmds);
        }),
        { seed: 4_100 + k, numRuns: RUNS.resize },
      );
    }, 120_000);
  });
});

describe('resize of sparse datasets (docs/structured-chunk-format.md §8.6: a shrink erases the elements outside the new extent)', () => {
  for (const flushFirst of [true, false]) {
    it(`shrink then grow: the elements beyond the smaller extent stay undefined (${flushFirst ? 'chunks flushed' : 'chunks cached'})`, async () => {
      const f = await createFile(new MemoryStore(), { superblockVersion: 3 });
      const d = await f.createDataset('s', { layout: 'sparse', dtype: '<i2', shape: [6], maxShape: [null], chunks: [4], fillValue: -1 });
      await d.write([1, 2, 3, 4, 5, 6]);
      if (flushFirst) await f.flush();
      await d.resize([3]);
      await d.resize([6]);
      expect(enumerate(await d.getDefined(), [6])).toEqual([[0], [1], [2]]);
      expect(Array.from((await d.read()) as Int16Array)).toEqual([1, 2, 3, -1, -1, -1]);
      const chunks: number[][] = [];
      await d.iterateStructChunks((c) => void chunks.push(c.offset));
      expect(chunks).toEqual([[0]]);
      await f.close();
    });
  }

  for (const flushFirst of [true, false]) {
    it(`shrinking to zero removes every stored chunk (fixed array, 2-D; ${flushFirst ? 'chunks flushed' : 'chunks cached'})`, async () => {
      const store = new MemoryStore();
      const f = await createFile(store, { superblockVersion: 3 });
      const d = await f.createDataset('s', { layout: 'sparse', dtype: '<i4', shape: [4, 4], maxShape: [4, 4], chunks: [2, 2] });
      await d.write([7, 8], selectPoints([[0, 0], [3, 3]]));
      if (flushFirst) await f.flush();
      await d.resize([0, 4]);
      await f.close();
      const g = await openFile(store, { mode: 'r+' });
      const e = (await g.get('s')) as Dataset;
      const chunks: number[][] = [];
      await e.iterateStructChunks((c) => void chunks.push(c.offset));
      expect(chunks).toEqual([]);
      await e.resize([4, 4]);
      expect(enumerate(await e.getDefined(), [4, 4])).toEqual([]);
      await g.close();
    });
  }

  it('a shrink that leaves a chunk straddling the new edge does not define its outside elements', async () => {
    const f = await createFile(new MemoryStore(), { superblockVersion: 3 });
    const d = await f.createDataset('s', { layout: 'sparse', dtype: '<u1', shape: [5], maxShape: [5], chunks: [4] });
    await f.flush();
    await d.resize([1]); // nothing was ever written: no chunk may appear
    const chunks: number[][] = [];
    await d.iterateStructChunks((c) => void chunks.push(c.offset));
    expect(chunks).toEqual([]);
    await d.resize([5]);
    expect(enumerate(await d.getDefined(), [5])).toEqual([]);
    await f.close();
  });
});

describe('model harness sanity', () => {
  it('covers every filter case, both encodings and both dialects over the configs it generates', () => {
    const seen = { filters: new Set<string>(), enc: new Set<string>(), msg: new Set<string>(), rank: new Set<number>() };
    for (const kind of INDEX_KINDS) {
      for (const cfg of fc.sample(cfgArb(kind), { seed: 7, numRuns: 60 })) {
        seen.filters.add(cfg.filters);
        seen.enc.add(cfg.encoding);
        seen.msg.add(cfg.pipelineMessage);
        seen.rank.add(cfg.shape.length);
        expect(cfg.chunks.every((c, d) => c >= 1 && c <= cfg.cap[d]!)).toBe(true);
      }
    }
    expect(seen.filters.size).toBe(FILTER_NAMES.length);
    expect([...seen.enc].sort()).toEqual(['prototype', 'smallest']);
    expect([...seen.msg].sort()).toEqual(['stc', 'v3']);
    expect([...seen.rank].sort()).toEqual([1, 2, 3, 4]);
  });

  it('the brute-force enumerator agrees with the definition of a point selection (order kept)', () => {
    const sel = selectPoints([[2, 1], [0, 0], [1, 3]]);
    expect(enumerate(sel, [3, 4])).toEqual([[2, 1], [0, 0], [1, 3]]);
  });
});
