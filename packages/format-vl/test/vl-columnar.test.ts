/**
 * Columnar VL strings (`VLStrings`, docs/format-vl.md §5.1): the type itself (`from`, `get`,
 * iteration, `toArray`), columnar writes and `readColumnar` reads, dense and sparse, with and
 * without deflate on the heap, non-ASCII and empty strings, partial selections, mixed with
 * `string[]` writes and reads, rewrites over existing values; bad columns refused with a
 * `ValueError` naming the dataset before anything is stored; a file written so stays a valid HDF5
 * file for h5py, which reads the same strings from an ordinary VL string dataset beside it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsupportedError, ValueError, createFile, selectHyperslab, selectPoints, type Dataset } from '@chunkform/core';
import { runPython } from '../../../test/oracle/fixtures.js';
import { VLStrings, createVlDataset } from '../src/index.js';
import { memoryFile, reopen } from './support.js';

const SAMPLES = ['', 'a', 'ascii only', 'é', 'naïve café', '𝄞', '日本語テキスト', '', 'emoji 😀 pair', 'abcd', '\u007f', '\u0080'];

function mixed(n: number, seed: number): string[] {
  return Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `line ${i + seed}` : SAMPLES[(i * 7 + seed) % SAMPLES.length]!));
}

const CASES = [
  ['dense', {}],
  ['dense, deflate on the heap', { compression: 'gzip' as const }],
  ['sparse', { sparse: true }],
  ['sparse, deflate on the heap', { sparse: true, compression: 'gzip' as const }],
] as const;

describe('VLStrings', () => {
  it('from / get / iteration / toArray / byteLength, ASCII and not', () => {
    for (const v of [mixed(500, 0), Array.from({ length: 300 }, (_, i) => `ascii ${i}`), [], ['']]) {
      const c = VLStrings.from(v);
      expect(c.length).toBe(v.length);
      expect(c.offsets.length).toBe(v.length + 1);
      expect(c.toArray()).toEqual(v);
      expect([...c]).toEqual(v);
      for (let i = 0; i < v.length; i++) {
        expect(c.get(i)).toBe(v[i]);
        expect(c.byteLength(i)).toBe(new TextEncoder().encode(v[i]).length);
      }
      expect(c.bytes).toEqual(new TextEncoder().encode(v.join('')));
    }
  });

  it('a column that starts inside its byte buffer (offsets[0] > 0) reads from there', () => {
    const bytes = new TextEncoder().encode('xxhello wörld');
    const c = new VLStrings(bytes, Uint32Array.of(2, 7, 8, 14));
    expect(c.toArray()).toEqual(['hello', ' ', 'wörld']);
    expect(c.get(0)).toBe('hello');
    const a = new VLStrings(bytes.subarray(0, 7), Float64Array.of(2, 4, 7));
    expect(a.toArray()).toEqual(['he', 'llo']);
    expect(a.get(1)).toBe('llo');
  });

  it('refuses indexes outside the column and elements that are not strings', () => {
    const c = VLStrings.from(['a', 'b']);
    expect(() => c.get(2)).toThrow(ValueError);
    expect(() => c.get(-1)).toThrow(ValueError);
    expect(() => c.get(0.5)).toThrow(ValueError);
    expect(() => VLStrings.from(['a', 3 as unknown as string])).toThrow(/element 1 is number/);
  });
});

describe('columnar writes and reads of VL string datasets', () => {
  for (const [name, opts] of CASES) {
    it(`${name}: columnar write, columnar and string[] reads, before and after reopening`, async () => {
      const v = mixed(1000, 1);
      const { store, file } = await memoryFile();
      const d = await createVlDataset(file, 's', { dtype: 'string', shape: [v.length], chunks: [128], ...opts });
      await d.write(VLStrings.from(v));
      expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
      expect(await d.read()).toEqual(v);
      const g = await reopen(store, file);
      const e = (await g.get('s')) as Dataset;
      const col = await e.readColumnar<VLStrings>();
      expect(col).toBeInstanceOf(VLStrings);
      expect(col.toArray()).toEqual(v);
      expect(col.bytes).toEqual(new TextEncoder().encode(v.join('')));
      expect(await e.read()).toEqual(v);
      await g.close();
    });

    it(`${name}: string[] writes read columnar; partial selections both ways; rewrites`, async () => {
      const v = mixed(300, 2);
      const { store, file } = await memoryFile();
      const d = await createVlDataset(file, 's', { dtype: 'string', shape: [20, 15], chunks: [8, 6], ...opts });
      await d.write(v);
      expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
      // a block across chunk edges, columnar in, both forms out
      const sel = selectHyperslab({ start: [3, 4], count: [10, 9] });
      const block = mixed(90, 5);
      await d.write(VLStrings.from(block), sel);
      const model = v.slice();
      for (let r = 0; r < 10; r++) for (let c = 0; c < 9; c++) model[(3 + r) * 15 + 4 + c] = block[r * 9 + c]!;
      expect((await d.readColumnar<VLStrings>(sel)).toArray()).toEqual(block);
      expect(await d.read(sel)).toEqual(block);
      // points in reverse order, over values stored just before (value by value: rewrites)
      const pts = [[19, 14], [0, 0], [7, 7], [3, 4]];
      const pv = ['é€', '', 'a much longer value than was there before', 'z'];
      await d.write(VLStrings.from(pv), selectPoints(pts));
      pts.forEach(([r, c], k) => (model[r! * 15 + c!] = pv[k]!));
      expect((await d.readColumnar<VLStrings>(selectPoints(pts))).toArray()).toEqual(pv);
      expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(model); // values no longer back to back in their heaps
      const g = await reopen(store, file);
      const e = (await g.get('s')) as Dataset;
      expect((await e.readColumnar<VLStrings>()).toArray()).toEqual(model);
      expect(await e.read()).toEqual(model);
      expect((await e.readColumnar<VLStrings>(selectHyperslab({ start: [0, 0], count: [0, 15] }))).length).toBe(0);
      await g.close();
    });
  }

  it('a read of megabytes (the staging buffer grows), whole and by rows of a 2-D dataset', async () => {
    const v = Array.from({ length: 24000 }, (_, i) => `${i} ${'y'.repeat(i % 90)}${i % 997 === 0 ? 'ü' : ''}`);
    const { file } = await memoryFile();
    const d = await createVlDataset(file, 's', { dtype: 'string', shape: [200, 120], chunks: [64, 50] });
    await d.write(VLStrings.from(v));
    const col = await d.readColumnar<VLStrings>();
    expect(col.bytes.length).toBeGreaterThan(1 << 20);
    expect(col.toArray()).toEqual(v);
    expect((await d.readColumnar<VLStrings>(selectHyperslab({ start: [70, 0], count: [100, 120] }))).toArray()).toEqual(v.slice(70 * 120, 170 * 120));
  });

  it('sparse: undefined elements and chunks never written read as empty strings', async () => {
    const { file } = await memoryFile();
    const d = await createVlDataset(file, 's', { dtype: 'string', shape: [100], chunks: [10], sparse: true });
    await d.write(VLStrings.from(['a', 'bé', '']), selectPoints([[5], [42], [43]]));
    const col = await d.readColumnar<VLStrings>();
    const want = Array.from({ length: 100 }, () => '');
    want[5] = 'a';
    want[42] = 'bé';
    expect(col.toArray()).toEqual(want);
    expect(Array.from(col.offsets.slice(0, 8))).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
    await d.erase(selectPoints([[5]]));
    want[5] = '';
    expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(want);
  });

  it('an ASCII dataset takes ASCII columns and refuses others, naming the string', async () => {
    const { file } = await memoryFile();
    const d = await createVlDataset(file, 'a', { dtype: 'str(ascii)', shape: [3], chunks: [3] });
    await d.write(VLStrings.from(['x', 'yy', 'zzz']));
    await expect(d.write(VLStrings.from(['x', 'é', 'z']))).rejects.toThrow(/"\/a": columnar string 1 is not ASCII/);
    expect(await d.read()).toEqual(['x', 'yy', 'zzz']);
  });

  it('bad columns: a ValueError naming the dataset, nothing stored', async () => {
    const { file } = await memoryFile();
    const d = await createVlDataset(file, 'bad', { dtype: 'string', shape: [3], chunks: [2] });
    await d.write(['keep', 'these', 'values']);
    const bytes = new TextEncoder().encode('abcdef');
    const bad: [VLStrings, RegExp][] = [
      [new VLStrings(bytes, Uint32Array.of(0, 4, 2, 6)), /not monotone: offset 2 is 2, offset 1 is 4/],
      [new VLStrings(bytes, Uint32Array.of(0, 2, 4, 9)), /offset 3 \(9\) is past the end of the 6 bytes/],
      [new VLStrings(bytes, Float64Array.of(0, 1.5, 2, 3)), /not monotone: offset 1 is 1.5/],
      [new VLStrings(bytes, Float64Array.of(-1, 1, 2, 3)), /offset 0 is -1/],
      [new VLStrings(bytes, Uint32Array.of(0, 3)), /1 columnar strings given for 3 elements/],
      [new VLStrings(Uint8Array.of(0x61, 0xc3, 0xa9), Uint32Array.of(0, 1, 2, 3)), /from string 1 on are not valid UTF-8/],
      [new VLStrings(Uint8Array.of(0x61, 0xff, 0x62), Uint32Array.of(0, 1, 2, 3)), /not valid UTF-8/],
    ];
    for (const [col, msg] of bad) {
      const err = await d.write(col).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValueError);
      expect((err as ValueError).message).toMatch(msg);
      expect((err as ValueError).message).toContain('"/bad"');
    }
    expect(await d.read()).toEqual(['keep', 'these', 'values']);
  });

  it('VL sequences and ordinary datasets have no columnar form', async () => {
    const { file } = await memoryFile();
    const s = await createVlDataset(file, 'seq', { dtype: 'vlen<i4>', shape: [2], chunks: [2] });
    await expect(s.write(VLStrings.from(['a', 'b']))).rejects.toThrow(ValueError);
    await expect(s.readColumnar()).rejects.toThrow(UnsupportedError);
    const plain = await file.createDataset('plain', { dtype: '<i4', shape: [2] });
    await expect(plain.readColumnar()).rejects.toThrow(UnsupportedError);
  });
});

describe('a file with a columnar-written VL dataset, through h5py', () => {
  const TMP = mkdtempSync(join(tmpdir(), 'chunkform-vl-columnar-'));
  afterAll(() => rmSync(TMP, { recursive: true, force: true }));

  it('h5py opens it and reads the same strings from an ordinary VL string dataset; VL chunks read back here', async () => {
    const path = join(TMP, 'col.h5');
    const v = mixed(400, 3);
    const f = await createFile(path, { superblockVersion: 3 });
    await createVlDataset(f, 'vl/lines', { dtype: 'string', shape: [v.length], chunks: [64], compression: 'gzip', data: VLStrings.from(v) });
    const col = await ((await f.get('vl/lines')) as Dataset).readColumnar<VLStrings>();
    await f.createDataset('plain/lines', { dtype: 'string', shape: [v.length], data: col.toArray() });
    await f.close();
    const out = JSON.parse(
      runPython(
        `
import h5py, json, sys
with h5py.File(sys.argv[1], 'r') as f:
    print(json.dumps({'keys': sorted(f['vl'].keys()), 'lines': [x.decode() for x in f['plain/lines'][()]]}))
`,
        path,
      ),
    ) as { keys: string[]; lines: string[] };
    expect(out).toEqual({ keys: ['lines'], lines: v });
  });
});
