/**
 * `Dataset.readInto(out, selection?)` (h5py's `read_direct`): the same values as `read()` for
 * contiguous, chunked (whole, edge and unwritten chunks) and sparse datasets, big-endian and
 * float16 types (converted), a caller buffer inside a larger ArrayBuffer, and typed errors for a
 * wrong length or a non-numeric dataset.
 */
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, MemoryStore, openFile, ValueError, type Dataset } from '../packages/core/src/index.js';
import { selectHyperslab } from '../packages/core/src/selection/index.js';

async function roundTrip(opts: Record<string, unknown>, data?: ArrayLike<number>) {
  const store = new MemoryStore();
  const f = await createFile(store);
  const d = await f.createDataset('x', { shape: [7, 9], fillValue: 5, ...opts } as never);
  if (data) await d.write(data, selectHyperslab({ start: [0, 0], count: [5, 9] }));
  await f.close();
  const g = await openFile(store.toBytes());
  return { g, d: (await g.get('x')) as Dataset };
}

const data = Array.from({ length: 5 * 9 }, (_, i) => i * 3 - 40);

describe('Dataset.readInto', () => {
  const cases: [string, Record<string, unknown>, new (n: number) => ArrayLike<number> & { fill(v: number): unknown }][] = [
    ['contiguous int16', { dtype: 'int16' }, Int16Array],
    ['chunked int16 (edge + unwritten chunks)', { dtype: 'int16', chunks: [2, 4] }, Int16Array],
    ['chunked deflate float64', { dtype: 'float64', chunks: [3, 3], compression: 'gzip' }, Float64Array],
    ['big-endian int32', { dtype: '>i4', chunks: [4, 4] }, Int32Array],
    ['float16 into Float32Array', { dtype: 'float16' }, Float32Array],
    ['sparse uint16', { dtype: 'uint16', layout: 'sparse', chunks: [4, 4] }, Uint16Array],
  ];
  for (const [name, opts, Ctor] of cases) {
    it(name, async () => {
      const src = name.startsWith('sparse') ? data.map((v) => v + 100) : data;
      const { g, d } = await roundTrip(opts, src);
      for (const sel of [undefined, selectHyperslab({ start: [1, 2], stride: [2, 3], count: [3, 2], block: [1, 2] })]) {
        const expected = Array.from((await d.read(sel)) as ArrayLike<number>);
        const out = new Ctor(expected.length);
        out.fill(99);
        const got = await d.readInto(out as never, sel);
        expect(got).toBe(out);
        expect(Array.from(out)).toEqual(expected);
      }
      await g.close();
    });
  }

  it('fills a view inside a larger buffer and leaves the rest alone', async () => {
    const { g, d } = await roundTrip({ dtype: 'int16', chunks: [7, 9] }, data);
    const backing = new Int16Array(100).fill(-1);
    const out = backing.subarray(10, 10 + 63);
    await d.readInto(out);
    expect(Array.from(out)).toEqual(Array.from((await d.read()) as Int16Array));
    expect(backing[9]).toBe(-1);
    expect(backing[73]).toBe(-1);
    await g.close();
  });

  it('refuses a wrong length and non-numeric datasets with a ValueError naming the dataset', async () => {
    const { g, d } = await roundTrip({ dtype: 'int16' }, data);
    await expect(d.readInto(new Int16Array(62))).rejects.toThrow(ValueError);
    await expect(d.readInto(new Int16Array(62))).rejects.toThrow(/\/x/);
    await g.close();
    const store = new MemoryStore();
    const f = await createFile(store);
    const s = await f.createDataset('s', { dtype: 'string', shape: [2], data: ['a', 'b'] } as never);
    await expect(s.readInto(new Uint8Array(2))).rejects.toThrow(/integer or float/);
    await f.close();
  });
});

describe('Dataset.readInto conversions (issue 10, item 5): refused when a value would change, unless casting is unsafe', () => {
  type Ctor = new (n: number) => ArrayLike<number | bigint> & { fill(v: never): unknown };
  const B = (v: number | bigint): bigint => BigInt(v);
  // [stored dtype, stored values, out type, refused?]
  const cases: [string, (number | bigint)[], Ctor, boolean][] = [
    ['float32', [1, 2 ** 31, 3], Int16Array, true], // the reproduction: 2^31 used to become 0
    ['float32', [1, 1.5], Int32Array, true],
    ['float32', [0, NaN], Uint8Array, true],
    ['float64', [Infinity], Int32Array, true],
    ['float64', [-3, 4, 255], Int16Array, false],
    ['int32', [-5, 70000], Int16Array, true],
    ['int32', [-5, 7], Int16Array, false],
    ['int16', [3, -1], Uint16Array, true],
    ['uint16', [65535], Int16Array, true],
    ['uint16', [5, 32767], Int16Array, false],
    ['int64', [B(2) ** 40n], Int32Array, true],
    ['int64', [B(3), -4n], Float64Array, false],
    ['uint64', [2n ** 63n], BigInt64Array, true],
    ['int64', [-1n], BigUint64Array, true],
    ['int64', [5n], BigUint64Array, false],
    ['float64', [1e300], Float32Array, true], // beyond float32's range: not a rounding
    ['float64', [0.5, -2, NaN], Float32Array, false],
    ['float64', [3, -2], BigInt64Array, false],
    ['float64', [0.5], BigInt64Array, true],
    ['int8', [-128, 127], Float32Array, false],
    ['uint32', [4294967295], Int32Array, true],
  ];

  async function stored(dtype: string, values: (number | bigint)[], opts: Record<string, unknown> = {}) {
    const store = new MemoryStore();
    const f = await createFile(store);
    const big = dtype.endsWith('64') && dtype.includes('int');
    const data = big ? (dtype.startsWith('u') ? BigUint64Array : BigInt64Array).from(values.map(BigInt)) : values.map(Number);
    await f.createDataset('v', { dtype, shape: [values.length], data, ...opts } as never);
    await f.close();
    const g = await openFile(store.toBytes());
    return { g, d: (await g.get('v')) as Dataset };
  }

  for (const [dtype, values, Out, refused] of cases) {
    it(`${dtype} [${values.map(String).join(', ')}] into ${Out.name}: ${refused ? 'refused' : 'converted'}`, async () => {
      const { g, d } = await stored(dtype, values);
      const out = new Out(values.length);
      const before = Array.from(out);
      if (refused) {
        const err = await d.readInto(out as never).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ValueError);
        expect((err as Error).message).toMatch(/\/v/);
        expect((err as Error).message).toMatch(/element \d+/);
        expect((err as Error).message).toMatch(/casting: 'unsafe'/);
        expect(Array.from(out)).toEqual(before); // nothing written
        await d.readInto(out as never, undefined, { casting: 'unsafe' });
      } else {
        await d.readInto(out as never);
        expect(Array.from(out).map(String)).toEqual(values.map((v) => String(typeof out[0] === 'bigint' ? BigInt(v) : Number(v))));
      }
      await g.close();
    });
  }
  it("rounds floats by default ('same_kind', as h5py's read_direct) and refuses rounding with 'same_value'", async () => {
    for (const [dtype, values, Out] of [
      ['float64', [0.1, 1 / 3], Float32Array],
      ['int32', [16777217], Float32Array],
      ['int64', [2n ** 53n + 1n], Float64Array],
    ] as [string, (number | bigint)[], typeof Float32Array | typeof Float64Array][]) {
      const { g, d } = await stored(dtype, values);
      const out = new Out(values.length);
      await d.readInto(out);
      expect(Array.from(out)).toEqual(Array.from(new Out(values.map(Number))));
      const strict = new Out(values.length);
      const err = await d.readInto(strict, undefined, { casting: 'same_value' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValueError);
      expect((err as Error).message).toMatch(/cannot hold it exactly/);
      expect(Array.from(strict)).toEqual(new Array(values.length).fill(0));
      await g.close();
    }
  });


  it("'unsafe' converts as TypedArrays store numbers (2^31 → 0 in an Int16Array, NaN → 0)", async () => {
    const { g, d } = await stored('float32', [1, 2 ** 31, NaN, -1.75, 70000]);
    const out = new Int16Array(5);
    await d.readInto(out, undefined, { casting: 'unsafe' });
    expect(Array.from(out)).toEqual(Array.from(Int16Array.from([1, 2 ** 31, NaN, -1.75, 70000])));
    await expect(d.readInto(out, undefined, { casting: 'safe' as never })).rejects.toThrow(/unknown casting/);
    await g.close();
  });

  it('checks chunked and sparse datasets and selections the same way', async () => {
    for (const opts of [{ chunks: [3] }, { chunks: [2], compression: 'gzip' }, { layout: 'sparse', chunks: [4] }]) {
      const { g, d } = await stored('int32', [1, 2, 3, 40000, 5, 6], opts);
      const sel = selectHyperslab({ start: [0], count: [3] });
      const ok = new Int16Array(3);
      await d.readInto(ok, sel);
      expect(Array.from(ok)).toEqual([1, 2, 3]);
      await expect(d.readInto(new Int16Array(6))).rejects.toThrow(/element 3 \(40000\)/);
      await g.close();
    }
  });
});
