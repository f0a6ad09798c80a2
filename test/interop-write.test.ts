/**
 * Files written by chunkform (superblock 2 and 3) must read back identically in h5py, h5dump and
 * h5wasm (three independent readers built on the HDF5 C library), and in chunkform itself; a file
 * reopened with mode 'r+' and rewritten must show the new values in h5py.
 */
import './setup-registrations.js';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFile, H5Error, openFile, type H5File } from '../packages/core/src/index.js';
import { containerOf, deepDiff, dtypeDiff, expectedContainer, norm } from './oracle/compare.js';
import { h5pyDump, requireH5py, type DumpDoc, type DumpObject } from './oracle/fixtures.js';
import { h5dumpToJson, parseDataSections, runH5dump } from './oracle/h5dump.js';
import { loadH5wasm } from './oracle/h5wasm.js';
import { attrSpecs, datasetSpecs, manyNames, ORDERED_NAMES, type DatasetSpec } from './oracle/write-specs.js';

requireH5py(); // fail loudly when the oracle is missing

const DATASETS = datasetSpecs();
const ATTRS = attrSpecs();
const GROUPS = ['/a/b/c/d', '/int', '/float', '/enum', '/str', '/nd', '/compact', '/fill', '/scalar'];

function errText(e: unknown): string {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
}

/** Writes the whole spec into `path`; returns problems met while writing (every step is attempted). */
async function writeAll(path: string, superblockVersion: 2 | 3): Promise<string[]> {
  const problems: string[] = [];
  const f = await createFile(path, { superblockVersion });
  const step = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      problems.push(`${what}: ${errText(e)}`);
    }
  };
  try {
    for (const g of GROUPS) await step(`createGroup ${g}`, () => f.createGroup(g));
    for (const n of manyNames()) {
      await step(`/many/${n}`, async () => {
        if (Number(n.slice(1)) % 10 === 0) await f.createDataset(`/many/${n}`, { dtype: 'uint8', shape: [1], data: Uint8Array.of(Number(n.slice(1))) });
        else await f.createGroup(`/many/${n}`);
      });
    }
    await step('createGroup /ordered', async () => {
      const o = await f.createGroup('/ordered', { trackOrder: true });
      for (const n of ORDERED_NAMES) await o.createGroup(n);
    });
    for (const s of DATASETS) {
      await step(`createDataset ${s.path}`, () =>
        f.createDataset(s.path, {
          dtype: s.dtype,
          shape: s.shape,
          ...(s.data !== undefined ? { data: s.data } : {}),
          ...(s.fillValue !== undefined ? { fillValue: s.fillValue } : {}),
          ...(s.layout ? { layout: s.layout } : {}),
          ...(s.maxShape ? { maxShape: s.maxShape } : {}),
        }),
      );
    }
    for (const a of ATTRS) {
      await step(`attr ${a.owner}@${a.name}`, async () => {
        const owner = (a.owner === '/' ? f : await f.get(a.owner)) as unknown as H5File;
        await owner.attrs.set(a.name, a.value, a.opts);
      });
    }
  } finally {
    await step('close', () => f.close());
  }
  return problems;
}

/** Compares the oracle's JSON dump (h5py's view) of a chunkform-written file with the spec. */
function compareDump(doc: DumpDoc): string[] {
  const out: string[] = [];
  const byPath = new Map<string, DumpObject>(doc.objects.map((o) => [o.path, o]));
  for (const s of DATASETS) {
    const o = byPath.get(s.path);
    if (!o) {
      out.push(`${s.path}: missing`);
      continue;
    }
    if (o.kind !== 'dataset') {
      out.push(`${s.path}: is a ${o.kind}`);
      continue;
    }
    dtypeDiff(o.dtype, s.want.dtype, `${s.path} dtype`, out);
    deepDiff(o.shape, s.shape, `${s.path} shape`, out);
    deepDiff(o.maxshape, s.want.maxshape ?? s.shape, `${s.path} maxshape`, out);
    if (o.layout !== s.want.layout) out.push(`${s.path} layout: expected ${s.want.layout}, got ${o.layout}`);
    if (s.want.fill !== undefined) {
      if (o.fill?.defined !== 'user') out.push(`${s.path} fill: expected a user-defined fill value, got ${o.fill?.defined}`);
      deepDiff(o.fill?.value, s.want.fill, `${s.path} fill value`, out);
    }
    deepDiff(o.values, s.want.values, `${s.path} values`, out);
  }
  for (const a of ATTRS) {
    const o = byPath.get(a.owner);
    const got = o?.attrs?.[a.name];
    if (!got) {
      out.push(`${a.owner}@${a.name}: missing`);
      continue;
    }
    dtypeDiff(got.dtype, a.want.dtype, `${a.owner}@${a.name} dtype`, out);
    deepDiff(got.shape, a.want.shape, `${a.owner}@${a.name} shape`, out);
    deepDiff(got.value, a.want.value, `${a.owner}@${a.name} value`, out);
  }
  const links = (p: string): string[] => byPath.get(p)?.links?.map((l) => l.name) ?? [];
  deepDiff(links('/many'), [...manyNames()].sort(), '/many links (h5py order)', out);
  deepDiff(links('/ordered'), ORDERED_NAMES, '/ordered links (creation order)', out);
  deepDiff(links('/a/b/c'), ['d'], '/a/b/c links', out);
  for (const n of manyNames()) {
    const o = byPath.get(`/many/${n}`);
    const isDs = Number(n.slice(1)) % 10 === 0;
    if (!o || o.kind !== (isDs ? 'dataset' : 'group')) out.push(`/many/${n}: expected a ${isDs ? 'dataset' : 'group'}, got ${o?.kind}`);
    else if (isDs) deepDiff(o.values, [Number(n.slice(1))], `/many/${n} values`, out);
  }
  return out;
}

function h5dumpValues(s: DatasetSpec, printed: ReturnType<typeof parseDataSections>, out: string[]): void {
  const vals = printed.get(s.path);
  if (!vals) {
    out.push(`${s.path}: h5dump printed no DATASET block`);
    return;
  }
  let got: unknown[];
  try {
    if (s.h5dump === 'enum') {
      const byName = new Map((s.want.dtype.members ?? []).map((m) => [m.name, m.value]));
      got = vals.map((v) => (v.kind === 'name' && byName.has(v.text) ? byName.get(v.text) : `unknown enum name ${JSON.stringify(v)}`));
    } else {
      got = vals.map((v) => h5dumpToJson(v, { int64: s.h5dump === 'int64', fixedString: s.h5dump === 'fixed' }));
    }
  } catch (e) {
    out.push(`${s.path}: could not decode h5dump output: ${errText(e)}`);
    return;
  }
  deepDiff(got, s.want.values, `${s.path} (h5dump)`, out);
}

for (const version of [2, 3] as const) {
  describe(`chunkform-written file, superblock v${version}`, () => {
    let dir: string;
    let path: string;
    let writeProblems: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `chunkform-write-v${version}-`));
      path = join(dir, `written_v${version}.h5`);
      writeProblems = await writeAll(path, version);
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('writes every object without error', () => {
      expect(writeProblems).toEqual([]);
    });

    it('rejects maxShape with unlimited dimensions for contiguous storage with a typed error', async () => {
      const f = await createFile(join(dir, 'maxshape.h5'), { superblockVersion: version });
      try {
        await expect(
          f.createDataset('unlim', { dtype: 'int32', shape: [2], maxShape: [null], layout: 'contiguous' }),
        ).rejects.toBeInstanceOf(H5Error);
        // Without an explicit layout, a growable dataset is chunked automatically (as in h5py).
        const d = await f.createDataset('auto', { dtype: 'int32', shape: [2], maxShape: [null] });
        expect(d.layout.class).toBe('chunked');
      } finally {
        await f.close();
      }
    });

    it('h5py reads every value as written', () => {
      const doc = h5pyDump(path);
      expect(compareDump(doc)).toEqual([]);
    });

    it('h5dump reads the whole file without errors', () => {
      const r = runH5dump(['-w', '0', path]);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect(r.stdout).not.toMatch(/h5dump error|HDF5-DIAG/);
    });

    it('h5dump prints the values as written', () => {
      const specs = DATASETS.filter((s) => s.h5dump !== 'skip');
      const args = ['-y', '-w', '0', '-m', '%.17g'];
      for (const s of specs) args.push('-d', s.path);
      const r = runH5dump([...args, path]);
      expect(r.stderr).toBe('');
      const printed = parseDataSections(r.stdout);
      const out: string[] = [];
      for (const s of specs) h5dumpValues(s, printed, out);
      expect(out).toEqual([]);
    });

    it('h5wasm reads every dataset and attribute as written', async () => {
      const h5wasm = await loadH5wasm();
      const f = new h5wasm.File(path, 'r');
      const out: string[] = [];
      try {
        for (const s of DATASETS) {
          if (s.h5wasm === false) continue;
          try {
            const d = f.get(s.path);
            if (!(d instanceof h5wasm.Dataset)) {
              out.push(`${s.path}: h5wasm sees ${String(d)}`);
              continue;
            }
            let v = d.value as unknown;
            if (s.shape.length === 0) v = [v]; // h5wasm returns scalars bare
            deepDiff(norm(v), s.want.values, `${s.path} (h5wasm)`, out);
          } catch (e) {
            out.push(`${s.path}: h5wasm threw ${errText(e)}`);
          }
        }
        for (const a of ATTRS) {
          if (a.h5wasm === false) continue;
          try {
            const owner = a.owner === '/' ? f : f.get(a.owner);
            const attr = (owner as InstanceType<typeof h5wasm.Group>).attrs[a.name];
            deepDiff(norm(attr?.value), a.want.value, `${a.owner}@${a.name} (h5wasm)`, out);
          } catch (e) {
            out.push(`${a.owner}@${a.name}: h5wasm threw ${errText(e)}`);
          }
        }
        const many = f.get('/many');
        if (many instanceof h5wasm.Group) deepDiff(many.keys(), [...manyNames()].sort(), '/many keys (h5wasm)', out);
        else out.push(`/many: h5wasm sees ${String(many)}`);
      } finally {
        f.close();
      }
      expect(out).toEqual([]);
    });

    it('chunkform reads its own file back', async () => {
      const f = await openFile(path);
      const out: string[] = [];
      try {
        for (const s of DATASETS) {
          try {
            const d = (await f.get(s.path)) as unknown as { shape: number[]; dtype: unknown; layout: { class: string }; read(): Promise<unknown> };
            deepDiff(d.shape, s.shape, `${s.path} shape`, out);
            dtypeDiff(d.dtype, s.want.dtype, `${s.path} dtype`, out);
            if (d.layout.class !== s.want.layout) out.push(`${s.path} layout: expected ${s.want.layout}, got ${d.layout.class}`);
            const v = await d.read();
            const want = expectedContainer(s.want.dtype);
            if (containerOf(v) !== want) out.push(`${s.path}: expected a ${want}, got ${containerOf(v)}`);
            deepDiff(norm(v), s.want.values, `${s.path} values`, out);
          } catch (e) {
            out.push(`${s.path}: ${errText(e)}`);
          }
        }
        for (const a of ATTRS) {
          try {
            const owner = (a.owner === '/' ? f : await f.get(a.owner)) as unknown as H5File;
            deepDiff(norm(await owner.attrs.get(a.name)), a.want.value, `${a.owner}@${a.name}`, out);
          } catch (e) {
            out.push(`${a.owner}@${a.name}: ${errText(e)}`);
          }
        }
        for (const [p, want] of [['/many', [...manyNames()].sort()], ['/ordered', ORDERED_NAMES]] as const) {
          try {
            const g = (await f.get(p)) as unknown as H5File;
            deepDiff(await g.keys(), want, `${p} keys()`, out);
          } catch (e) {
            out.push(`${p}: ${errText(e)}`);
          }
        }
      } finally {
        await f.close();
      }
      expect(out).toEqual([]);
    });

    it("rewrites datasets in mode 'r+' and h5py sees the new values", async () => {
      const copy = join(dir, `rewritten_v${version}.h5`);
      copyFileSync(path, copy);
      const updates: { path: string; data: unknown; want: unknown[] }[] = [
        { path: '/int/i4_le', data: Int32Array.from([6, 5, 4, 3, 2, 1]), want: [6, 5, 4, 3, 2, 1] },
        { path: '/int/u8_be', data: BigUint64Array.from([9n, 8n, 7n, 6n, 5n, 2n ** 64n - 3n]), want: ['9', '8', '7', '6', '5', '18446744073709551613'] },
        { path: '/float/f8_be', data: Float64Array.from({ length: 12 }, (_, i) => -i - 0.5), want: Array.from({ length: 12 }, (_, i) => -i - 0.5) },
        { path: '/compact/i4', data: Int32Array.from([10, 20, 30, 40, 50]), want: [10, 20, 30, 40, 50] },
        { path: '/fill/i4', data: Int32Array.from([1, 2, 3, 4, 5]), want: [1, 2, 3, 4, 5] },
        { path: '/str/fixed_S10', data: ['new', 'values', '', '0123456789'], want: ['new', 'values', '', '0123456789'] },
        { path: '/str/vlen', data: ['z', '', 'ünï', 'longer string than before', '', '✓', 'q'], want: ['z', '', 'ünï', 'longer string than before', '', '✓', 'q'] },
        { path: '/scalar/f8', data: 7.25, want: [7.25] },
      ];
      const out: string[] = [];
      const f = await openFile(copy, { mode: 'r+' });
      try {
        for (const u of updates) {
          try {
            const d = (await f.get(u.path)) as unknown as { write(v: unknown): Promise<void> };
            await d.write(u.data);
          } catch (e) {
            out.push(`${u.path}: write threw ${errText(e)}`);
          }
        }
      } finally {
        await f.close();
      }
      const doc = h5pyDump(copy);
      const byPath = new Map(doc.objects.map((o) => [o.path, o]));
      for (const u of updates) deepDiff(byPath.get(u.path)?.values, u.want, `${u.path} (h5py after r+ write)`, out);
      // untouched objects survive the rewrite
      for (const s of DATASETS) {
        if (updates.some((u) => u.path === s.path)) continue;
        deepDiff(byPath.get(s.path)?.values, s.want.values, `${s.path} (h5py, untouched)`, out);
      }
      expect(out).toEqual([]);
    });

    it("adds an attribute in mode 'r+' and h5py sees it", async () => {
      const copy = join(dir, `attr_added_v${version}.h5`);
      copyFileSync(path, copy);
      const f = await openFile(copy, { mode: 'r+' });
      try {
        await f.attrs.set('added_later', Int32Array.from([1, 2, 3]));
        const d = (await f.get('/nd/f8_3x4')) as unknown as H5File;
        await d.attrs.set('note', 'added ✓');
      } finally {
        await f.close();
      }
      const doc = h5pyDump(copy);
      const byPath = new Map(doc.objects.map((o) => [o.path, o]));
      expect(byPath.get('/')?.attrs?.['added_later']?.value).toEqual([1, 2, 3]);
      expect(byPath.get('/nd/f8_3x4')?.attrs?.['note']?.value).toBe('added ✓');
    });
  });
}
