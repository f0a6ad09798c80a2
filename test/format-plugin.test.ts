/**
 * The third-party chunk format example (examples/format-plugin, issue #13): run-length chunks in a
 * package outside core, created with `createDataset(path, { format: 'rle' })` and read back through
 * the public API; the codec round-trips and refuses corrupt chunks with FormatError; a reader
 * without the registration gets a typed error; h5py still reads the other datasets of the file;
 * the example app exits 0; the package imports only `@chunkform/core`'s public entry.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  Dataset,
  FormatError,
  UnsupportedError,
  ValueError,
  createContainer,
  createFile,
  openFile,
  selectHyperslab,
  type Container,
  type CreateDatasetOptions,
} from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { RLE_CHUNK_TYPE, registerRleFormat, rleDecode, rleEncode } from '../examples/format-plugin/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PLUGIN = join(ROOT, 'examples/format-plugin');
const dir = mkdtempSync(join(tmpdir(), 'chunkform-format-plugin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A container with the indexes, the dense formats and (unless `rle` is false) the run-length format. */
function container(rle = true): Container {
  const c = createContainer();
  registerIndexes(c);
  registerDenseFormats(c);
  if (rle) registerRleFormat(c);
  return c;
}

describe('run-length codec', () => {
  it('rleDecode(rleEncode(x)) = x for element sizes 1/2/4/8, runs of any length', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 8),
        fc.array(fc.record({ len: fc.integer({ min: 1, max: 40 }), v: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 30 }),
        (es, runs) => {
          const n = runs.reduce((a, r) => a + r.len, 0);
          const chunk = new Uint8Array(n * es);
          let at = 0;
          for (const r of runs) for (let k = 0; k < r.len; k++, at++) chunk[at * es] = r.v;
          const stored = rleEncode(chunk, es);
          expect(rleDecode(stored, n, es, '/x')).toEqual(chunk);
          // Equal neighbours merge: never more runs than given.
          expect(new DataView(stored.buffer).getUint32(0, true)).toBeLessThanOrEqual(runs.length);
        },
      ),
    );
  });

  it('refuses corrupt chunks with FormatError, before allocating by the stored run count', () => {
    const good = rleEncode(Uint8Array.from([1, 1, 1, 2, 2, 3]), 1);
    expect(() => rleDecode(good.subarray(0, 2), 6, 1, '/x')).toThrow(FormatError);
    expect(() => rleDecode(good.subarray(0, good.length - 1), 6, 1, '/x')).toThrow(/do not fill/);
    const huge = good.slice();
    new DataView(huge.buffer).setUint32(0, 0xffffffff, true);
    expect(() => rleDecode(huge, 6, 1, '/x')).toThrow(/do not fill/);
    expect(() => rleDecode(good, 5, 1, '/x')).toThrow(/overruns the chunk/);
    expect(() => rleDecode(good, 7, 1, '/x')).toThrow(/cover 6 of the chunk's 7 elements/);
    const zero = good.slice();
    new DataView(zero.buffer).setUint32(4, 0, true);
    expect(() => rleDecode(zero, 6, 1, '/x')).toThrow(/run 0 of 0 elements/);
  });
});

describe("createDataset(path, { format: 'rle' })", () => {
  it('creates run-length datasets with every structured index; they read back after reopening, unwritten chunks as the fill value', async () => {
    const c = container();
    const path = join(dir, 'indexes.h5');
    const f = await createFile(path, { container: c });
    const cases: [string, Partial<CreateDatasetOptions>][] = [
      ['single', { chunks: [6, 10] }],
      ['fixed-array', { chunks: [3, 4] }],
      ['extensible-array', { chunks: [3, 4], maxShape: [null, 10] }],
      ['btree2', { chunks: [3, 4], maxShape: [null, null] }],
    ];
    for (const [i, [chunkIndex, opts]] of cases.entries()) {
      const d = await f.createDataset(`r${i}`, { dtype: 'int16', shape: [6, 10], format: 'rle', fillValue: -7, chunkIndex: chunkIndex as never, ...opts });
      await d.write(Int16Array.from([1, 1, 1, 2, 2, 2, 2, 2]), selectHyperslab({ start: [1, 1], count: [1, 8] }));
    }
    await f.close();
    const expected = new Array<number>(60).fill(-7);
    for (let k = 0; k < 8; k++) expected[11 + k] = k < 3 ? 1 : 2;
    const r = await openFile(path, { container: c });
    for (const [i, [chunkIndex]] of cases.entries()) {
      const d = (await r.get(`r${i}`)) as Dataset;
      const l = d.layout;
      expect(l.class === 'structured' && [l.chunkType, l.sectionCount, l.index.type]).toEqual([RLE_CHUNK_TYPE, 1, chunkIndex]);
      expect(Array.from((await d.read()) as Int16Array), chunkIndex).toEqual(expected);
    }
    await r.close();
  });

  it('rewrites, resizes and reads selections like any chunked dataset', async () => {
    const c = container();
    const f = await createFile(join(dir, 'rw.h5'), { container: c });
    const d = await f.createDataset('s', { dtype: 'float64', shape: [10], maxShape: [null], chunks: [4], format: 'rle' });
    await d.write(Float64Array.from({ length: 10 }, (_, i) => Math.floor(i / 3)));
    await d.resize([14]);
    await d.write(Float64Array.from([9, 9]), selectHyperslab({ start: [11], count: [2] }));
    await f.flush();
    expect(Array.from((await d.read()) as Float64Array)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 0, 9, 9, 0]);
    expect(Array.from((await d.read(selectHyperslab({ start: [2], count: [3] }))) as Float64Array)).toEqual([0, 1, 1]);
    await f.close();
  });

  it('refuses filters and early allocation with ValueError; unregistered, it is a typed error naming the format', async () => {
    const f = await createFile(join(dir, 'refused.h5'), { container: container() });
    await expect(f.createDataset('a', { dtype: 'uint8', shape: [8], format: 'rle', compression: 'gzip' })).rejects.toThrow(ValueError);
    await expect(f.createDataset('a', { dtype: 'uint8', shape: [8], format: 'rle', compression: 'gzip' })).rejects.toThrow(/take no filters \(got compression\)/);
    await expect(f.createDataset('a', { dtype: 'uint8', shape: [8], format: 'rle', allocTime: 'early' })).rejects.toThrow(ValueError);
    await expect(f.createDataset('a', { dtype: 'string', shape: [8], format: 'rle' })).rejects.toThrow(/fixed-size datatype/);
    expect(await f.keys()).toEqual([]);
    await f.createDataset('ok', { dtype: 'uint8', shape: [8], format: 'rle', data: [5, 5, 5, 5, 6, 6, 6, 6] });
    await f.close();

    const without = container(false);
    const g = await createFile(join(dir, 'missing.h5'), { container: without });
    await expect(g.createDataset('a', { dtype: 'uint8', shape: [8], format: 'rle' })).rejects.toThrow(/no chunk format "rle" is registered/);
    await g.close();
    const r = await openFile(join(dir, 'refused.h5'), { container: without });
    await expect(((await r.get('ok')) as Dataset).read()).rejects.toBeInstanceOf(UnsupportedError);
    await r.close();
  });

  it('h5py reads the dense datasets of a file that also holds a run-length one', async () => {
    requireH5py();
    const path = join(dir, 'mixed.h5');
    const f = await createFile(path, { container: container() });
    await f.createDataset('rle', { dtype: 'uint16', shape: [100], chunks: [50], format: 'rle', data: new Uint16Array(100).fill(4) });
    await f.createDataset('dense', { dtype: 'uint16', shape: [3], chunks: [2], data: [7, 8, 9] });
    await f.close();
    const out = execFileSync(PYTHON, ['-c', "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); print(sorted(f), f['dense'][()].tolist())", path], { encoding: 'utf8' });
    expect(out.trim()).toBe("['dense', 'rle'] [7, 8, 9]");
  });
});

describe('the example package', () => {
  it('imports only the public entry of @chunkform/core (no core internals, no core edits needed)', () => {
    const files = ['app.ts', ...readdirSync(join(PLUGIN, 'src')).map((n) => `src/${n}`)];
    for (const name of files) {
      const text = readFileSync(join(PLUGIN, name), 'utf8');
      expect(text, name).not.toMatch(/@chunkform\/core\/internal|packages\/core\/src/);
    }
  });

  it('the app writes and reads back its datasets and exits 0', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(PLUGIN, 'app.ts'), join(dir, 'app.h5')], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/detector\/mask: 4096 values .* — ok/);
    expect(out).toMatch(/signal\/steps: 5000 values .* — ok/);
  });
});
