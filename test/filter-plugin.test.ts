/**
 * The third-party filter example (examples/filter-plugin, issue #5): the delta filter (id 300) registered
 * with one call round-trips through a chunked dataset; a reader without the registration fails with
 * UnknownFilterError naming id 300; the stored chunks are the delta bytes (checked with Debian h5py's
 * read_direct_chunk); the example app exits 0.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { Dataset, FilterError, UnknownFilterError, createContainer, createFile, openFile } from '../packages/core/src/index.js';
import {
  DELTA_FILTER_ID,
  deltaDecode,
  deltaEncode,
  deltaFilter,
  registerDeltaFilter,
} from '../examples/filter-plugin/src/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PY = '/usr/bin/python3';
const dir = mkdtempSync(join(tmpdir(), 'chunkform-filter-plugin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = (es: number, clientData: number[]) => ({
  clientData,
  datatype: { class: 'opaque' as const, size: es, tag: '' },
  elementSize: es,
  chunkDims: [1],
  flags: 0,
});

describe('delta filter codec', () => {
  it('decode(encode(x)) = x for element sizes 1/2/4/8 and any length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(1, 2, 4, 8), fc.integer({ min: 0, max: 7 }), (bytes, es, off) => {
        const data = new Uint8Array(bytes.length + off).subarray(off); // unaligned views too
        data.set(bytes);
        const enc = deltaEncode(data, es);
        expect(Buffer.from(deltaDecode(enc, es)).equals(Buffer.from(bytes))).toBe(true);
        expect(Buffer.from(data).equals(Buffer.from(bytes))).toBe(true); // input untouched
      }),
      { numRuns: 400 },
    );
  });

  it('computes wrapping little-endian differences, incl. the 64-bit borrow', () => {
    const u16 = new Uint8Array(Uint16Array.of(5, 3, 65535, 0).buffer);
    expect(Array.from(new Uint16Array(deltaEncode(u16, 2).buffer))).toEqual([5, 65534, 65532, 1]);
    const u64 = new Uint8Array(BigUint64Array.of(0xffffffffn, 0x100000000n, 5n).buffer);
    expect(Array.from(new BigUint64Array(deltaEncode(u64, 8).buffer))).toEqual([0xffffffffn, 1n, 0xffffffff00000005n]);
  });

  it('rejects bad cd_values with FilterError naming the filter', () => {
    expect(() => deltaFilter.decode(new Uint8Array(8), ctx(2, [3]))).toThrow(FilterError);
    expect(() => deltaFilter.encode(new Uint8Array(8), ctx(2, []))).toThrow(/delta filter/);
    expect(deltaFilter.setLocal([], ctx(4, []))).toEqual([4]);
    expect(deltaFilter.setLocal([], ctx(3, []))).toEqual([1]);
  });
});

describe('delta filter through a chunked dataset', () => {
  const file = join(dir, 'delta.h5');
  const values = Uint32Array.from({ length: 5000 }, (_, i) => 100_000 + i * 3 + (i % 7));
  const withPlugin = createContainer();
  registerDeltaFilter(withPlugin); // the one call, here into a child container

  it('writes with the filter registered and reads back equal values', async () => {
    const f = await createFile(file, { container: withPlugin });
    await f.createDataset('d', { dtype: 'uint32', shape: [values.length], chunks: [1024], filters: [{ id: DELTA_FILTER_ID }], data: values });
    await f.close();
    const g = await openFile(file, { container: withPlugin });
    const ds = await g.get('d');
    expect(ds).toBeInstanceOf(Dataset);
    expect(Array.from((await (ds as Dataset).read()) as Uint32Array)).toEqual(Array.from(values));
    await g.close();
  });

  it('without the registration, reading fails with UnknownFilterError naming id 300', async () => {
    const g = await openFile(file); // the process-wide container: core filters only
    try {
      let err: unknown;
      try {
        const ds = await g.get('d');
        await (ds as Dataset).read();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UnknownFilterError);
      expect((err as UnknownFilterError).filterId).toBe(DELTA_FILTER_ID);
      expect((err as Error).message).toMatch(/filter 300\b/);
      expect((err as Error).message).toContain('/d');
    } finally {
      await g.close();
    }
  });

  it.runIf(existsSync(PY))('HDF5 sees filter 300 with cd_values [4] and raw chunks holding the deltas', () => {
    const out = execFileSync(
      PY,
      [
        '-c',
        `import h5py, numpy as np, json, sys
f = h5py.File(sys.argv[1], 'r'); d = f['d']
pl = d.id.get_create_plist(); fid, flags, cd, name = pl.get_filter(0)
mask, raw = d.id.read_direct_chunk((0,))
print(json.dumps({'id': fid, 'cd': list(cd), 'n': pl.get_nfilters(), 'raw': list(np.frombuffer(raw, '<u4')[:8].tolist())}))`,
        file,
      ],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out) as { id: number; cd: number[]; n: number; raw: number[] };
    expect(r).toMatchObject({ id: DELTA_FILTER_ID, cd: [4], n: 1 });
    const expected = [values[0]!, ...Array.from({ length: 7 }, (_, i) => (values[i + 1]! - values[i]!) >>> 0)];
    expect(r.raw).toEqual(expected);
  });

  it('the example app writes, reopens and verifies its file (exit code 0)', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'examples/filter-plugin/app.ts'), join(dir, 'app.h5')], {
      encoding: 'utf8',
      cwd: ROOT,
    });
    expect(out).toMatch(/timestamp_ns: 10000 values through filter 300 — ok/);
    expect(out).toMatch(/counts: 16384 values through filter 300 — ok/);
  });
});
