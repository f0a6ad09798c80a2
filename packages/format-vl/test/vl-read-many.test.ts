/**
 * Whole reads of many unfiltered VL chunks at once (vl-read-many.ts): chunks stored next to each
 * other (a few alignment bytes apart) are read with one I/O per group, decoded from views of one buffer, and give the same values as
 * chunk by chunk; a corrupt chunk in the middle of a group is a `ChecksumError` naming that chunk;
 * chunks read in part still go through the cache; filtered layouts keep decoding chunk by chunk.
 */
import { describe, expect, it } from 'vitest';
import { ChecksumError, MemoryStore, createFile, openFile, selectHyperslab, type ChunkRecord, type ChunkRequest, type Dataset, type RawIO } from '@chunkform/core';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { readMany, type ChunkReading } from '../src/vl-read-many.js';
import { emptyVlChunk } from '../src/vl-chunk.js';
import './support.js';

const SAMPLES = ['', 'a', 'ascii only', 'é', 'naïve café', '𝄞', 'log line 42', 'emoji 😀 pair'];
const values = (n: number) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `event ${i}` : SAMPLES[(i * 5) % SAMPLES.length]!));

/** A memory store that counts the reads of `minBytes` or more (MemoryStore's `readInto` reads through `read`). */
class CountingStore extends MemoryStore {
  reads = 0;
  minBytes = Infinity;
  override async read(offset: number, length: number): Promise<Uint8Array> {
    this.count(length);
    return super.read(offset, length);
  }
  private count(n: number): void {
    if (n >= this.minBytes) this.reads++;
  }
}

async function fileBytes(opts: VlDatasetOptions, data: unknown): Promise<Uint8Array> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  await createVlDataset(f, 's', { ...opts, data });
  await f.close();
  return store.toBytes();
}

async function open(bytes: Uint8Array, store = new CountingStore(bytes.slice())): Promise<Dataset> {
  const f = await openFile(store);
  return (await f.get('s')) as Dataset;
}

describe('whole reads of many unfiltered chunks', () => {
  const v = values(1000);
  const opts: VlDatasetOptions = { dtype: 'string', shape: [v.length], chunks: [64] };

  it('read with one I/O, the same values as written (columnar and string[])', async () => {
    const bytes = await fileBytes(opts, VLStrings.from(v));
    const store = new CountingStore(bytes.slice());
    store.minBytes = 64 * 16; // at least a chunk's entries section
    const d = await open(bytes, store);
    store.reads = 0; // (metadata read at open)
    expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
    expect(store.reads).toBe(1);
    expect(await d.read()).toEqual(v);
    expect(store.reads).toBe(2);
  });

  it('a selection over many chunks, partial at both ends', async () => {
    const d = await open(await fileBytes(opts, v));
    const sel = selectHyperslab({ start: [30], count: [900] });
    expect((await d.readColumnar<VLStrings>(sel)).toArray()).toEqual(v.slice(30, 930));
    expect(await d.read(sel)).toEqual(v.slice(30, 930));
  });

  it('sparse chunks, some never written', async () => {
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await createVlDataset(f, 's', { ...opts, sparse: true } as VlDatasetOptions);
    await d.write(v.slice(0, 200), selectHyperslab({ start: [100], count: [200] }));
    await d.write(v.slice(0, 100), selectHyperslab({ start: [700], count: [100] }));
    await f.close();
    const back = (await open(store.toBytes())).read() as Promise<string[]>;
    const want = v.map(() => '');
    for (let i = 0; i < 200; i++) want[100 + i] = v[i]!;
    for (let i = 0; i < 100; i++) want[700 + i] = v[i]!;
    expect(await back).toEqual(want);
  });

  it('a corrupt chunk in the middle of a group: ChecksumError naming that chunk', async () => {
    const bytes = await fileBytes(opts, VLStrings.from(v));
    const at = Buffer.from(bytes).indexOf(Buffer.from(`event ${7 * 64 + 2}`)); // a value of chunk 7 (of 16)
    expect(at).toBeGreaterThan(0);
    bytes[at + 2]! ^= 0x01;
    for (const read of [(d: Dataset) => d.readColumnar(), (d: Dataset) => d.read()]) {
      const e = await read(await open(bytes)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ChecksumError);
      expect((e as Error).message).toContain('[7]');
    }
    // the chunks before and after still read
    const d = await open(bytes);
    expect(await d.read(selectHyperslab({ start: [0], count: [7 * 64] }))).toEqual(v.slice(0, 7 * 64));
    expect(await d.read(selectHyperslab({ start: [8 * 64], count: [1000 - 8 * 64] }))).toEqual(v.slice(8 * 64));
  });

  it('chunks read in part are cached: reading one chunk element by element reads it once', async () => {
    const bytes = await fileBytes(opts, v);
    const store = new CountingStore(bytes.slice());
    store.minBytes = 64 * 16;
    const d = await open(bytes, store);
    store.reads = 0;
    for (let i = 128; i < 192; i++) expect(await d.read(selectHyperslab({ start: [i], count: [1] }))).toEqual([v[i]]);
    expect(store.reads).toBe(1);
  });

  it('filtered layouts read chunk by chunk (no batched read)', async () => {
    const o: VlDatasetOptions = { ...opts, filters: { heap: [{ id: 1, clientData: [1] }] } };
    const store = new CountingStore((await fileBytes(o, v)).slice());
    store.minBytes = 1;
    const d = await open(store.toBytes(), store);
    expect(await d.read()).toEqual(v);
    expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
  });
});

describe('readMany groups', () => {
  /** Items for chunks of `sizes` bytes at `addresses`; the decoder records the bytes it saw. */
  function setup(addresses: number[], sizes: number[], file: Uint8Array) {
    const seen: number[][] = [];
    const reads: [number, number][] = [];
    const items = addresses.map((address, k) => ({
      rec: { coords: [k], address, size: sizes[k]!, filterMask: 0 } as unknown as ChunkRecord,
      req: { coords: [k], runs: Float64Array.of(0, 0, 1), count: 1, full: true } as ChunkRequest,
    }));
    const io = {
      read: async (a: number, n: number) => {
        reads.push([a, n]);
        return file.slice(a, a + n);
      },
      readInto: async (a: number, t: Uint8Array) => {
        reads.push([a, t.length]);
        t.set(file.subarray(a, a + t.length));
      },
      write: async () => {},
    } as RawIO;
    const how: ChunkReading = {
      decode: async (image) => {
        seen.push([...image]);
        return emptyVlChunk(1, false);
      },
      read: () => {},
      copies: true,
    };
    return { items, io, how, seen, reads };
  }
  const file = Uint8Array.from({ length: 100 }, (_, i) => i);

  it('adjacent chunks in one read up to the group size, in file order, others alone', async () => {
    // chunks at 10 (5 bytes), 15 (5), 20 (5), 40 (3), 43 (30: larger than the group)
    const { items, io, how, seen, reads } = setup([20, 10, 15, 43, 40], [5, 5, 5, 30, 3], file);
    await readMany(items, new Uint8Array(16), io, how, 12);
    expect(reads).toEqual([
      [10, 10],
      [20, 5],
      [40, 3],
      [43, 30],
    ]);
    expect(seen).toEqual([[10, 11, 12, 13, 14], [15, 16, 17, 18, 19], [20, 21, 22, 23, 24], [40, 41, 42], [...file.subarray(43, 73)]]);
  });

  it("the next group's I/O is under way while a group is decoded, with the two buffers in turn", async () => {
    // groups of 5 bytes: [10, 15), [20, 25), [30, 35); each decode records the reads started by then
    const { items, io, how, reads } = setup([10, 20, 30], [5, 5, 5], file);
    const started: number[] = [];
    const buffers: ArrayBufferLike[] = [];
    const decode = how.decode;
    how.decode = async (image, rec) => {
      started.push(reads.length);
      buffers.push(image.buffer);
      return decode(image, rec);
    };
    await readMany(items, new Uint8Array(16), io, how, 5);
    expect(reads).toEqual([
      [10, 5],
      [20, 5],
      [30, 5],
    ]);
    expect(started).toEqual([2, 3, 3]);
    expect(buffers[0]).toBe(buffers[2]);
    expect(buffers[1]).not.toBe(buffers[0]);
  });

  it('a decode that fails leaves no read of the call running, and a failed read is reported in its turn', async () => {
    const { items, io, how } = setup([10, 20, 30], [5, 5, 5], file);
    let inFlight = 0;
    const readInto = io.readInto.bind(io);
    io.readInto = async (a, t) => {
      inFlight++;
      await new Promise((ok) => setTimeout(ok, 5));
      await readInto(a, t);
      inFlight--;
    };
    how.decode = async () => {
      throw new ChecksumError('test chunk', 10, 1, 2);
    };
    await expect(readMany(items, new Uint8Array(16), io, how, 5)).rejects.toBeInstanceOf(ChecksumError);
    expect(inFlight).toBe(0);
    // the second group's read fails while the first is decoded: the first is decoded, then the failure
    const failing = setup([10, 20, 30], [5, 5, 5], file);
    const decoded: number[] = [];
    failing.io.readInto = async (a, t) => {
      if (a === 20) throw new Error('I/O failed');
      t.set(file.subarray(a, a + t.length));
    };
    failing.how.decode = async (image) => {
      decoded.push(image[0]!);
      return emptyVlChunk(1, false);
    };
    await expect(readMany(failing.items, new Uint8Array(16), failing.io, failing.how, 5)).rejects.toThrow('I/O failed');
    expect(decoded).toEqual([10]);
  });
});
