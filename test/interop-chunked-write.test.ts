/**
 * Chunked datasets written by chunkform (test/oracle/chunked-write-specs.ts: every index type ×
 * filters × edge chunks × never-written chunks × resizes × 1-D…4-D × dtypes, selection writes, direct
 * chunk writes) must read back in h5py (values = numpy replaying the same operations, chunk shape,
 * filters, index type, H5Dget_chunk_info), h5dump (no errors; values) and h5wasm (HDF5 2.0; values)
 * and in chunkform itself. h5py-written chunked files modified in mode 'r+' must read in h5py as numpy
 * predicts.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, H5Error, openFile, UnsupportedError, type Dataset, type H5File } from '../packages/core/src/index.js';
import { deepDiff, norm } from './oracle/compare.js';
import {
  applyOps,
  filterIds,
  filterOptions,
  FLOAT32_DSCALE3_TOLERANCE,
  h5pyFilters,
  swizzledEa,
  writeCases,
  RPLUS_BTREE1_INDEX,
  RPLUS_BTREE1_INPLACE,
  RPLUS_LATEST,
  type WriteCase,
  type WriteOp,
} from './oracle/chunked-write-specs.js';
import {
  chunkedFixturePath,
  ensureChunkedFixtures,
  loadChunkedExpected,
  ORACLE_DIR,
  PYTHON,
  requireH5py,
} from './oracle/fixtures.js';
import { h5dumpToJson, parseDataSections, runH5dump } from './oracle/h5dump.js';
import { loadH5wasm } from './oracle/h5wasm.js';

requireH5py();

function errText(e: unknown): string {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
}

/** chunked_check.py's report for one dataset. */
interface CheckReport {
  problems: string[];
  expected?: unknown[];
  actual?: unknown[];
  shape?: number[];
  maxshape?: (number | null)[] | null;
  chunks?: number[] | null;
  compression?: string | number | null;
  compression_opts?: unknown;
  shuffle?: boolean;
  fletcher32?: boolean;
  scaleoffset?: number | null;
  index?: string;
  filters?: { id: number; flags: number; cd: number[] }[];
  num_chunks?: number;
  chunk_info?: number[][];
  chunk_info_complete?: boolean;
}

/** One dataset as chunked_check.py takes it. */
interface CheckCase {
  path: string;
  dtype: string;
  shape: number[];
  fill: number | string | null;
  tolerance?: number;
  base?: { file: string; path: string };
  /** Only compare values (no h5debug, no chunk list). */
  values_only?: boolean;
  ops: unknown[];
}

/** Runs chunked_check.py (h5py + numpy) on `file`. */
function h5pyCheck(dir: string, file: string, cases: CheckCase[]): Record<string, CheckReport> {
  const spec = join(dir, `check-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(spec, JSON.stringify({ file, datasets: cases }));
  const r = spawnSync(PYTHON, [join(ORACLE_DIR, 'chunked_check.py'), spec], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`chunked_check.py failed on ${file}:\n${r.stderr}`);
  return (JSON.parse(r.stdout) as { datasets: Record<string, CheckReport> }).datasets;
}

/** Values equal within `tol` for floats (lossy filters), exactly otherwise. */
function valuesDiff(got: unknown, want: unknown[], where: string, out: string[], tol?: number): void {
  if (tol === undefined || !Array.isArray(got)) {
    deepDiff(got, want, where, out);
    return;
  }
  if (got.length !== want.length) out.push(`${where}: expected ${want.length} values, got ${got.length}`);
  for (let i = 0; i < Math.min(got.length, want.length) && out.length < 20; i++) {
    const a = got[i];
    const b = want[i];
    if (typeof a === 'number' && typeof b === 'number' ? !(Math.abs(a - b) <= tol) : a !== b) {
      out.push(`${where}[${i}]: expected ${String(b)} (± ${tol}), got ${String(a)}`);
    }
  }
}

type ChunkRow = [offset: number[], mask: number, address: number, size: number];

/** chunkform's chunk list of a dataset, as [offset, mask, address, size] sorted by offset. */
async function ourChunks(d: Dataset): Promise<ChunkRow[]> {
  const rows: ChunkRow[] = [];
  await d.iterateChunks((c) => {
    rows.push([[...c.offset], c.filterMask, c.address, c.size]);
  });
  return rows.sort((a, b) => (a[0].join(',') < b[0].join(',') ? -1 : 1));
}

/** Compares the chunk list h5py reports with chunkform's. */
function chunkListDiff(ours: ChunkRow[], rep: CheckReport, where: string, out: string[]): void {
  const rank = rep.chunks?.length ?? 0;
  const theirs: ChunkRow[] = (rep.chunk_info ?? []).map((r) => [r.slice(0, rank), r[rank]!, r[rank + 1]!, r[rank + 2]!]);
  if (ours.length !== rep.num_chunks) out.push(`${where}: chunkform lists ${ours.length} chunks, h5py ${rep.num_chunks}`);
  if (swizzledEa(rep.maxshape)) {
    // HDF5 1.10.8 reports wrong offsets for these: compare where the chunks are stored, not their offsets
    if (rep.chunk_info_complete) {
      const noOffset = (a: ChunkRow[]): string[] => a.map((r) => `${r[2]}:${r[3]}:${r[1]}`).sort();
      deepDiff(noOffset(ours), noOffset(theirs), `${where} chunk list (address:size:mask)`, out);
    }
    return;
  }
  if (rep.chunk_info_complete) {
    deepDiff(ours, [...theirs].sort((a, b) => (a[0].join(',') < b[0].join(',') ? -1 : 1)), `${where} chunk list`, out);
  } else {
    const byOffset = new Map(ours.map((r) => [r[0].join(','), r]));
    for (const t of theirs) deepDiff(byOffset.get(t[0].join(',')) ?? null, t, `${where} chunk [${t[0].join(',')}]`, out);
  }
}

/** The check case of a WriteCase (ops filled in after they ran). */
function checkCase(c: WriteCase, ops: unknown[]): CheckCase {
  return { path: c.path, dtype: c.dtype, shape: c.shape, fill: c.fill ?? null, ...(c.tolerance !== undefined ? { tolerance: c.tolerance } : {}), ops };
}

const CASES = writeCases();
/** Datasets whose values are also checked in h5dump's output (small numeric ones). */
const H5DUMP_VALUES = CASES.filter((c) => !c.dtype.startsWith('S') && c.dtype !== 'str' && c.tolerance === undefined && c.shape.reduce((a, b) => a * b, 1) <= 2000);

for (const superblockVersion of [3, 2] as const) {
  describe(`chunked datasets written by chunkform (superblock v${superblockVersion})`, () => {
    let dir: string;
    let path: string;
    const writeProblems = new Map<string, string[]>();
    const opsDone = new Map<string, unknown[]>();
    let reports: Record<string, CheckReport> = {};
    const h5wasmValues = new Map<string, unknown>();
    const h5wasmErrors = new Map<string, string>();
    let ours: H5File | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `chunkform-chunked-write-v${superblockVersion}-`));
      path = join(dir, `chunked_v${superblockVersion}.h5`);
      const f = await createFile(path, { superblockVersion });
      try {
        for (const c of CASES) {
          const problems: string[] = [];
          writeProblems.set(c.path, problems);
          try {
            const d = await f.createDataset(c.path, {
              dtype: c.dtype,
              shape: c.shape,
              chunks: c.chunks,
              ...(c.maxShape ? { maxShape: c.maxShape } : {}),
              ...(c.fill !== undefined ? { fillValue: c.fill === 'NaN' ? NaN : c.fill } : {}),
              ...(c.allocTime ? { allocTime: c.allocTime } : {}),
              ...(c.dontFilterPartialChunks ? { dontFilterPartialChunks: true } : {}),
              ...(c.chunkCache ? { chunkCache: c.chunkCache } : {}),
              ...filterOptions(c),
            });
            opsDone.set(c.path, await applyOps(d, c, c.ops));
          } catch (e) {
            problems.push(`writing threw ${errText(e)}${e instanceof Error && !(e instanceof H5Error) ? `\n${e.stack ?? ''}` : ''}`);
          }
        }
      } finally {
        await f.close();
      }
      const written = CASES.filter((c) => opsDone.has(c.path));
      reports = h5pyCheck(dir, path, written.map((c) => checkCase(c, opsDone.get(c.path)!)));
      const h5wasm = await loadH5wasm();
      const hf = new h5wasm.File(path, 'r');
      try {
        for (const c of written) {
          if (c.h5wasm === false) continue;
          try {
            const d = hf.get(c.path);
            if (d instanceof h5wasm.Dataset) h5wasmValues.set(c.path, d.value);
            else h5wasmErrors.set(c.path, `h5wasm sees ${String(d)}`);
          } catch (e) {
            h5wasmErrors.set(c.path, `h5wasm threw ${errText(e)}`);
          }
        }
      } finally {
        hf.close();
      }
      ours = await openFile(path);
    }, 240_000);
    afterAll(async () => {
      await ours?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('h5dump reads the whole file without errors', () => {
      const r = runH5dump(['-w', '0', '-H', path]);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      const full = runH5dump(['-w', '0', path]);
      expect({ status: full.status, stderr: full.stderr }).toEqual({ status: 0, stderr: '' });
      expect(full.stdout).not.toMatch(/h5dump error|HDF5-DIAG/);
    });

    it('h5dump prints the values numpy predicts', () => {
      const cases = H5DUMP_VALUES.filter((c) => reports[c.path]?.expected);
      const args = ['-y', '-w', '0', '-m', '%.17g'];
      for (const c of cases) args.push('-d', c.path);
      const r = runH5dump([...args, path]);
      expect(r.stderr).toBe('');
      const printed = parseDataSections(r.stdout);
      const out: string[] = [];
      for (const c of cases) {
        const vals = printed.get(c.path);
        if (!vals) {
          out.push(`${c.path}: h5dump printed no DATASET block`);
          continue;
        }
        const int64 = /[iu]8$/.test(c.dtype);
        deepDiff(vals.map((v) => h5dumpToJson(v, { int64 })), reports[c.path]!.expected!, `${c.path} (h5dump)`, out);
      }
      expect(out).toEqual([]);
    });

    for (const c of CASES) {
      it(`${c.path} (${c.index}, ${c.filter}${c.ops.some((o) => o.kind === 'resize') ? ', resized' : ''})`, async () => {
        const out: string[] = [...(writeProblems.get(c.path) ?? [])];
        const rep = reports[c.path];
        if (!rep) {
          expect(out).toEqual([]);
          return;
        }
        out.push(...rep.problems.map((p) => `h5py: ${p}`));
        const expected = rep.expected;
        // what h5py says about the layout and filters
        deepDiff(rep.chunks, c.chunks, 'h5py chunks', out);
        if (rep.index !== c.index) out.push(`index type (h5debug): expected ${c.index}, got ${String(rep.index)}`);
        const f = h5pyFilters(c);
        deepDiff(
          { compression: rep.compression, compression_opts: rep.compression_opts, shuffle: rep.shuffle, fletcher32: rep.fletcher32, scaleoffset: rep.scaleoffset },
          f,
          'h5py filters',
          out,
        );
        deepDiff(rep.filters?.map((x) => x.id), filterIds(c), 'filter ids (h5debug)', out);
        deepDiff(rep.maxshape, c.maxShape ?? rep.shape, 'h5py maxshape', out);
        // lossy filters: every reader must decode the same stored values exactly
        const decoded = rep.actual ?? expected;
        const tol = rep.actual ? undefined : c.tolerance;
        // chunkform reads back the same, and lists the chunks h5py lists
        try {
          const d = (await ours!.get(c.path)) as Dataset;
          const layout = d.layout as { index?: { type: string } };
          if (layout.index?.type !== c.index) out.push(`chunkform index type: expected ${c.index}, got ${String(layout.index?.type)}`);
          if (decoded) valuesDiff(norm(await d.read()), decoded, 'chunkform values', out, tol);
          chunkListDiff(await ourChunks(d), rep, 'chunks', out);
        } catch (e) {
          out.push(`chunkform threw ${errText(e)}`);
        }
        // h5wasm (HDF5 2.0)
        if (c.h5wasm !== false && expected) {
          if (h5wasmErrors.has(c.path)) out.push(h5wasmErrors.get(c.path)!);
          else valuesDiff(norm(h5wasmValues.get(c.path)), decoded!, 'h5wasm values', out, tol);
        }
        expect(out).toEqual([]);
      });
    }
  });
}

// ---- r+: modify chunked files written by h5py ----------------------------------------------------

describe("h5py-written chunked files modified with mode 'r+'", () => {
  const manifest = ensureChunkedFixtures();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'chunkform-chunked-rplus-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Copies a fixture, applies `mods` with chunkform in r+ mode, returns problems and the check cases. */
  async function modify(
    fixture: 'chunked_latest.h5' | 'btree1_v108.h5',
    mods: { path: string; ops: WriteOp[] }[],
  ): Promise<{ copy: string; orig: string; errors: Map<string, unknown>; cases: CheckCase[] }> {
    const entry = manifest.files.find((e) => e.file === fixture)!;
    const libver = entry.libver;
    const { doc } = loadChunkedExpected(entry);
    const orig = chunkedFixturePath(entry.file);
    const copy = join(dir, `rplus_${libver}_${mods.length}_${mods[0]!.path.replace(/\W/g, '_')}.h5`);
    copyFileSync(orig, copy);
    const errors = new Map<string, unknown>();
    const cases: CheckCase[] = [];
    const f = await openFile(copy, { mode: 'r+' });
    try {
      for (const m of mods) {
        const obj = doc.objects.find((o) => o.path === m.path)!;
        const dtype = obj.dtype_str === '|O' ? 'str' : obj.dtype_str!;
        const fill = obj.fill?.value as number | string | null;
        const lossy = m.path.includes('scaleoffset') && dtype.includes('f');
        const tolerance = dtype.endsWith('f4') ? FLOAT32_DSCALE3_TOLERANCE : 0.0005 + 1e-9;
        const c: WriteCase = { path: m.path, dtype, shape: obj.shape!, chunks: [], filter: 'none', ops: m.ops, index: '' };
        const done: unknown[] = [];
        try {
          const d = (await f.get(m.path)) as Dataset;
          c.chunks = d.chunks!;
          await applyOps(d, c, m.ops, done);
        } catch (e) {
          errors.set(m.path, e);
        }
        // what h5py must see: the original values with the operations that completed
        cases.push({ path: m.path, dtype, shape: obj.shape!, fill, base: { file: orig, path: m.path }, ops: done, ...(lossy ? { tolerance } : {}) });
      }
    } finally {
      await f.close();
    }
    return { copy, orig, errors, cases };
  }

  it('latest (every index type): h5py reads the new values as numpy predicts, untouched datasets unchanged', async () => {
    const { copy, errors, cases } = await modify('chunked_latest.h5', RPLUS_LATEST);
    const out = [...errors].map(([p, e]) => `${p}: r+ write threw ${errText(e)}`);
    const rep = h5pyCheck(dir, copy, cases);
    for (const c of cases) out.push(...(rep[c.path]?.problems ?? ['no report']).map((p) => `${c.path}: ${p}`));
    // every other dataset of the file still reads as h5py wrote it
    const entry = manifest.files.find((e) => e.family === 'chunked' && e.libver === 'latest')!;
    const { doc } = loadChunkedExpected(entry);
    const touched = new Set(RPLUS_LATEST.map((m) => m.path));
    const untouched = doc.objects.filter((o) => o.kind === 'dataset' && !touched.has(o.path));
    const rep2 = h5pyCheck(
      dir,
      copy,
      untouched.map((o) => ({ path: o.path, dtype: o.dtype_str === '|O' ? 'str' : o.dtype_str!, shape: o.shape!, fill: null, base: { file: chunkedFixturePath(entry.file), path: o.path }, values_only: true, ops: [] })),
    );
    for (const o of untouched) out.push(...(rep2[o.path]?.problems ?? ['no report']).map((p) => `${o.path} (untouched): ${p}`));
    expect(out).toEqual([]);
  });

  it('earliest (superblock 0) files are refused in r+ mode with a typed error', async () => {
    const entry = manifest.files.find((e) => e.family === 'chunked' && e.libver === 'earliest')!;
    const copy = join(dir, 'rplus_earliest.h5');
    copyFileSync(chunkedFixturePath(entry.file), copy);
    await expect(openFile(copy, { mode: 'r+' })).rejects.toBeInstanceOf(H5Error);
  });

  it('v1 B-tree indexes (libver v108): overwriting stored chunks is refused (copy-on-write needs a new index record), the file unchanged', async () => {
    const { copy, errors, cases } = await modify('btree1_v108.h5', RPLUS_BTREE1_INPLACE);
    const out: string[] = [];
    for (const m of RPLUS_BTREE1_INPLACE) {
      const e = errors.get(m.path);
      if (!(e instanceof UnsupportedError) || !/h5repack/.test(e.message) || e.path !== m.path) out.push(`${m.path}: expected UnsupportedError naming the dataset, got ${errText(e)}`);
    }
    // nothing was written: h5py sees the values it wrote
    const rep = h5pyCheck(dir, copy, cases);
    for (const c of cases) out.push(...(rep[c.path]?.problems ?? ['no report']).map((p) => `${c.path}: ${p}`));
    expect(out).toEqual([]);
  });

  it('v1 B-tree indexes (libver v108): writes that change the index either work or fail with UnsupportedError', async () => {
    const { copy, errors, cases } = await modify('btree1_v108.h5', RPLUS_BTREE1_INDEX);
    const out: string[] = [];
    for (const [p, e] of errors) if (!(e instanceof UnsupportedError)) out.push(`${p}: expected success or UnsupportedError, got ${errText(e)}`);
    // a refused operation changed nothing: h5py sees the original values plus the operations that completed
    const rep = h5pyCheck(dir, copy, cases);
    for (const c of cases) out.push(...(rep[c.path]?.problems ?? ['no report']).map((p) => `${c.path}: ${p}`));
    console.log(`v1 B-tree r+ index changes: ${cases.length - errors.size} done, ${errors.size} refused (${[...errors.keys()].join(', ')})`);
    expect(out).toEqual([]);
  });
});
