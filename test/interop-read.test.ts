/**
 * Reading files written by real HDF5: every fixture h5py writes (libver earliest and latest) is opened
 * with chunkform and compared object by object with h5py's own view (test/oracle/h5py_dump.py);
 * files written by h5wasm are compared with what h5wasm and h5py read back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFile, type H5File } from '../packages/core/src/index.js';
import { checkObject } from './oracle/check-object.js';
import { deepDiff, norm } from './oracle/compare.js';
import { ensureFixtures, fixturePath, h5pyDump, loadExpected, type DumpObject } from './oracle/fixtures.js';
import { loadH5wasm } from './oracle/h5wasm.js';

const manifest = ensureFixtures();

/** Groups with more than this many child objects get one test for all their children. */
const BATCH_CHILDREN = 100;

for (const entry of manifest.files) {
  const doc = loadExpected(entry);
  describe(`h5py ${entry.file}`, () => {
    let file: H5File;
    beforeAll(async () => {
      file = await openFile(fixturePath(entry.file));
    });
    afterAll(async () => {
      await file?.close();
    });
    const byPath = new Map<string, DumpObject>(doc.objects.map((o) => [o.path, o]));
    // Children of very large groups (e.g. 2100 links) are checked in one test per group.
    const big = new Set(
      doc.objects.filter((o) => o.kind === 'group' && (o.links?.length ?? 0) > BATCH_CHILDREN).map((o) => o.path),
    );
    const parentOf = (p: string): string => (p.lastIndexOf('/') === 0 ? '/' : p.slice(0, p.lastIndexOf('/')));
    const batched = new Map<string, DumpObject[]>();
    for (const obj of doc.objects) {
      const parent = parentOf(obj.path);
      if (obj.path !== '/' && big.has(parent) && !(obj.links && obj.links.length > 0)) {
        if (!batched.has(parent)) batched.set(parent, []);
        batched.get(parent)!.push(obj);
        continue;
      }
      it(`${obj.path} (${obj.alias_of ? `alias of ${obj.alias_of}` : obj.kind})`, async () => {
        const problems = await checkObject(file, obj, byPath);
        expect(problems, `${entry.file} ${obj.path}`).toEqual([]);
      });
    }
    for (const [parent, objs] of batched) {
      it(`${objs.length} children of ${parent}`, async () => {
        const problems: string[] = [];
        for (const obj of objs) {
          for (const p of await checkObject(file, obj, byPath)) problems.push(`${obj.path}: ${p}`);
          if (problems.length > 40) break;
        }
        expect(problems, `${entry.file} children of ${parent}`).toEqual([]);
      });
    }
  });
}

/** h5wasm's own default (v108..v200), and the 1.10 bounds h5py reads. */
const H5WASM_LIBVERS: { label: string; libver?: ['earliest' | 'v108' | 'v110', 'v110' | 'v200'] }[] = [
  { label: 'default' },
  { label: 'earliest-v110', libver: ['earliest', 'v110'] },
  { label: 'v110', libver: ['v110', 'v110'] },
];

for (const variant of H5WASM_LIBVERS) {
  describe(`files written by h5wasm (libver ${variant.label})`, () => {
    let dir: string;
    let path: string;
    /** What h5wasm itself reads back: path → values, and path@attr → value. */
    const h5wasmValues = new Map<string, unknown>();

    beforeAll(async () => {
      const h5wasm = await loadH5wasm();
      dir = mkdtempSync(join(tmpdir(), 'chunkform-h5wasm-'));
      path = join(dir, `written_by_h5wasm_${variant.label}.h5`);
      const f = new h5wasm.File(path, 'w', variant.libver ? { libver: variant.libver } : {});
      const entryGroup = f.create_group('entry');
      const inst = entryGroup.create_group('instrument');
      f.create_attribute('title', 'written by h5wasm ✓');
      f.create_attribute('version', 3);
      f.create_attribute('ratio', 0.125);
      entryGroup.create_attribute('counts', new Int32Array([1, -2, 3]));
      entryGroup.create_attribute('scale', new Float32Array([0.5, 1.5]));
      entryGroup.create_attribute('big', new BigInt64Array([-9007199254740993n]));
      inst.create_attribute('name', 'detector');
      inst.create_attribute('names', ['a', 'ünï', '']);
      inst.create_attribute('fixed', ['ab', 'cde'], null, 'S4');
      const arrays: [string, ArrayLike<number | bigint>][] = [
        ['i1', new Int8Array([-128, 0, 127])],
        ['u1', new Uint8Array([0, 1, 255])],
        ['i2', new Int16Array([-32768, 5, 32767])],
        ['u2', new Uint16Array([0, 65535])],
        ['i4', new Int32Array([-2147483648, 7, 2147483647])],
        ['u4', new Uint32Array([0, 4294967295])],
        ['i8', new BigInt64Array([-(2n ** 63n), 0n, 2n ** 63n - 1n])],
        ['u8', new BigUint64Array([0n, 2n ** 64n - 1n])],
        ['f4', new Float32Array([0.1, -0, Infinity, NaN])],
        ['f8', new Float64Array([Math.PI, -1e-300, -Infinity, 5e-324])],
      ];
      for (const [name, data] of arrays) entryGroup.create_dataset({ name, data: data as never });
      entryGroup.create_dataset({ name: 'matrix', data: new Float64Array([1, 2, 3, 4, 5, 6]), shape: [2, 3], dtype: '<d' });
      entryGroup.create_dataset({ name: 'strings', data: ['alpha', '', 'ünïcödé'] });
      inst.create_dataset({ name: 'fixed', data: ['abc', 'de'], dtype: 'S3' });
      inst.create_dataset({ name: 'le', data: new Float64Array([1.25, -2]), dtype: '<d' });
      inst.create_dataset({ name: 'scalar', data: 42, shape: [], dtype: '<i' });
      f.create_soft_link('/entry/instrument/le', 'soft');
      f.create_external_link('other.h5', '/x', 'external');
      f.flush();
      f.close();
      const r = new h5wasm.File(path, 'r');
      const walk = (g: InstanceType<typeof h5wasm.Group>, p: string): void => {
        for (const [k, a] of Object.entries(g.attrs)) h5wasmValues.set(`${p}@${k}`, a.value);
        for (const k of g.keys()) {
          const cp = p === '/' ? `/${k}` : `${p}/${k}`;
          if (cp === '/external') continue; // not followed
          const child = g.get(k);
          if (child instanceof h5wasm.Group) walk(child, cp);
          else if (child instanceof h5wasm.Dataset) h5wasmValues.set(cp, child.value);
        }
      };
      walk(r, '/');
      r.close();
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('agrees with h5py on every object', async () => {
      const doc = h5pyDump(path);
      const byPath = new Map<string, DumpObject>(doc.objects.map((o) => [o.path, o]));
      const f = await openFile(path);
      try {
        const problems: string[] = [];
        for (const obj of doc.objects) for (const p of await checkObject(f, obj, byPath)) problems.push(`${obj.path}: ${p}`);
        expect(problems).toEqual([]);
      } finally {
        await f.close();
      }
    });

    it('agrees with what h5wasm reads back', async () => {
      expect(h5wasmValues.size).toBeGreaterThan(20);
      const f = await openFile(path);
      try {
        const problems: string[] = [];
        for (const [key, want] of h5wasmValues) {
          const [p, attr] = key.split('@') as [string, string | undefined];
          try {
            const node = (p === '/' ? f : await f.get(p)) as unknown as {
              read(): Promise<unknown>;
              attrs: { get(n: string): Promise<unknown> };
            };
            const got = attr !== undefined ? await node.attrs.get(attr) : await node.read();
            // h5wasm returns scalar datasets as a bare value; chunkform as one-element Values.
            const g = attr === undefined && !Array.isArray(want) && !ArrayBuffer.isView(want) ? (got as ArrayLike<unknown>)[0] : got;
            deepDiff(norm(g), norm(want), key, problems);
          } catch (e) {
            problems.push(`${key}: threw ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`);
          }
        }
        expect(problems).toEqual([]);
      } finally {
        await f.close();
      }
    });
  });
}
