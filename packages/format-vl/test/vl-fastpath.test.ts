/**
 * The one-pass paths of dense VL chunks (docs/format-vl.md §5.2): whole chunks written from a
 * `VLStrings` or from ASCII `string[]` values are built as their stored image at once (`fromRequest` →
 * `columnChunk` / `textChunk`), and decoded
 * chunks keep their stored entries, which reads use as they are. They store the same bytes as the
 * value-by-value path (multi-byte UTF-8, empty strings, empty chunks, chunk boundaries of 1-D and
 * 2-D datasets, partial edge chunks, offsets of either type, a column starting inside its buffer),
 * a chunk built so is copied before it changes (its image stays as it was handed out), and a
 * corrupt checksum of either section is still a `ChecksumError`, an entry outside the heap a `FormatError`;
 * the ASCII and UTF-8 scans give the same answers in JavaScript and through the runtime.
 */
import { describe, expect, it } from 'vitest';
import { ChecksumError, FormatError, MemoryStore, ValueError, createFile, lookup3, openFile, selectHyperslab, type Dataset } from '@chunkform/core';
import { VLStrings, createVlDataset, type VlDatasetOptions } from '../src/index.js';
import { firstNonAscii } from '../src/vl-strings.js';
import { writeColumn } from '../src/vl-column.js';
import { columnChunk, textChunk } from '../src/vl-image.js';
import { emptyVlChunk, readValues, writeValues } from '../src/vl-chunk.js';
import { vlCodec } from '../src/vl-values.js';
import { ENTRY_SIZE, encodeVlChunk } from '../src/vl-sections.js';
import { parseDtype } from '@chunkform/core';
import { fileBytes, stringChunkContext } from './support.js';

const SAMPLES = ['', 'a', 'ascii only', 'é', 'naïve café', '𝄞', '日本語テキスト', '', 'emoji 😀 pair', 'abcd', '\u007f', '\u0080'];
const mixed = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (i % 5 === 0 ? `line ${i + seed}` : SAMPLES[(i * 7 + seed) % SAMPLES.length]!));


async function open(bytes: Uint8Array): Promise<Dataset> {
  const f = await openFile(new MemoryStore(bytes.slice()));
  return (await f.get('s')) as Dataset;
}

describe('whole chunks from a column: the same stored bytes as value by value', () => {
  const cases: [string, string[], Partial<VlDatasetOptions>][] = [
    ['multi-byte UTF-8 and empty strings, a partial edge chunk', mixed(1000, 3), { chunks: [128] }],
    ['every string empty (chunks without a heap section)', Array.from({ length: 300 }, () => ''), { chunks: [100] }],
    ['one element per chunk', mixed(17, 1), { chunks: [1] }],
    ['one chunk larger than the dataset (extendible)', mixed(50, 2), { chunks: [64], maxShape: [null] }],
    ['deflate on the heap, shuffle + deflate on the entries', mixed(700, 4), { chunks: [128], filters: { heap: [{ id: 1, clientData: [1] }], entries: [{ id: 2 }, { id: 1 }] } }],
    // the bench's shape: 8192 strings of 5–60 bytes per chunk (both sections' checksums computed side by side, long sections)
    ['8192 ASCII strings of 5–60 bytes per chunk, a partial edge chunk', Array.from({ length: 20_000 }, (_, i) => `ev ${i} `.padEnd(5 + ((i * 37) % 56), 'x').slice(0, 5 + ((i * 37) % 56))), { dtype: 'str(ascii)', chunks: [8192] }],
  ];
  for (const [name, v, opts] of cases) {
    it(name, async () => {
      const o: VlDatasetOptions = { dtype: 'string', shape: [v.length], ...opts };
      const slow = await fileBytes(o, v);
      const fast = await fileBytes(o, VLStrings.from(v));
      expect(Buffer.from(fast).equals(Buffer.from(slow))).toBe(true);
      const d = await open(fast);
      expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
      expect(await d.read()).toEqual(v);
    });
  }

  it('8192 strings per chunk: a file written from a column = one written value by value (half chunks, never the one-pass image)', async () => {
    const v = Array.from({ length: 3 * 8192 + 500 }, (_, i) => `ev ${i} `.padEnd(5 + ((i * 37) % 56), 'x').slice(0, 5 + ((i * 37) % 56)));
    const o: VlDatasetOptions = { dtype: 'str(ascii)', shape: [v.length], chunks: [8192] };
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const d = await createVlDataset(f, 's', o);
    // each write covers half of every chunk: no whole chunk, so every chunk is built value by value
    const halves: number[][] = [];
    for (let c = 0; c < v.length; c += 8192) halves.push([c, Math.min(4096, v.length - c)], [c + 4096, Math.max(0, Math.min(8192, v.length - c) - 4096)]);
    for (const [start, count] of halves) if (count > 0) await d.write(v.slice(start, start + count), selectHyperslab({ start: [start], count: [count] }));
    await f.close();
    const slow = store.toBytes();
    const fast = await fileBytes(o, VLStrings.from(v));
    expect(fast.length).toBe(slow.length);
    expect(Buffer.from(fast).equals(Buffer.from(slow))).toBe(true);
    expect((await (await open(fast)).readColumnar<VLStrings>()).toArray()).toEqual(v);
  });

  it('2-D: chunks of several rows (a whole chunk is several runs of the column)', async () => {
    const v = mixed(10 * 20, 5);
    const o: VlDatasetOptions = { dtype: 'string', shape: [10, 20], chunks: [4, 8] };
    const slow = await fileBytes(o, v);
    const fast = await fileBytes(o, VLStrings.from(v));
    expect(Buffer.from(fast).equals(Buffer.from(slow))).toBe(true);
    const d = await open(fast);
    expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(v);
    const rows = await d.readColumnar<VLStrings>(selectHyperslab({ start: [3, 5], count: [4, 9] }));
    const want: string[] = [];
    for (let r = 3; r < 7; r++) for (let c = 5; c < 14; c++) want.push(v[r * 20 + c]!);
    expect(rows.toArray()).toEqual(want);
  });

  it('Float64Array offsets and a column starting inside its buffer', async () => {
    const v = mixed(300, 6);
    const c = VLStrings.from(v);
    const pad = 7;
    const bytes = new Uint8Array(c.bytes.length + pad + 3);
    bytes.set(c.bytes, pad);
    const offsets = Float64Array.from(c.offsets, (x) => x + pad);
    const o: VlDatasetOptions = { dtype: 'string', shape: [v.length], chunks: [64] };
    const fast = await fileBytes(o, new VLStrings(bytes, offsets));
    expect(Buffer.from(fast).equals(Buffer.from(await fileBytes(o, v)))).toBe(true);
  });

  it('a chunk written from a column, changed later (after reopening and in the same session), reads the changes', async () => {
    const v = mixed(600, 7);
    const store = new MemoryStore();
    let f = await createFile(store, { superblockVersion: 3 });
    let d = await createVlDataset(f, 's', { dtype: 'string', shape: [v.length], chunks: [128] });
    await d.write(VLStrings.from(v));
    const model = v.slice();
    const put = async (start: number, vals: string[]) => {
      await d.write(VLStrings.from(vals), selectHyperslab({ start: [start], count: [vals.length] }));
      model.splice(start, vals.length, ...vals);
    };
    await put(10, ['longer than it was before, much longer', '', 'x']);
    await put(200, mixed(128, 9)); // a whole chunk again (built anew), over stored values
    expect(await d.read()).toEqual(model);
    await f.close();
    f = await openFile(store, { mode: 'r+' });
    d = (await f.get('s')) as Dataset;
    await put(127, ['across', 'a chunk boundary']);
    await d.write(['string[] write'], selectHyperslab({ start: [0], count: [1] }));
    model[0] = 'string[] write';
    expect(await d.read()).toEqual(model);
    expect((await d.readColumnar<VLStrings>()).toArray()).toEqual(model);
    await f.close();
  });
});

describe('reads from stored entries: values in element order or not', () => {
  it('a chunk whose heap holds its values out of element order, or with unused bytes, reads right (columnar and string[])', async () => {
    const store = new MemoryStore();
    let f = await createFile(store, { superblockVersion: 3 });
    const d = await createVlDataset(f, 's', { dtype: 'string', shape: [40], chunks: [20] });
    const v = mixed(40, 11);
    // second halves first: each chunk's heap holds elements 10…19 before 0…9
    for (const start of [10, 30, 0, 20]) await d.write(v.slice(start, start + 10), selectHyperslab({ start: [start], count: [10] }));
    await f.close();
    f = await openFile(store, { mode: 'r+' });
    let e = (await f.get('s')) as Dataset;
    expect((await e.readColumnar<VLStrings>()).toArray()).toEqual(v);
    expect((await e.readColumnar<VLStrings>(selectHyperslab({ start: [5], count: [30] }))).toArray()).toEqual(v.slice(5, 35));
    // a shorter value over a longer one leaves unused bytes (no compaction below half)
    const w = v.slice();
    w[3] = (w[3] ?? '').slice(0, 1);
    await e.write([w[3]], selectHyperslab({ start: [3], count: [1] }));
    await f.close();
    f = await openFile(store);
    e = (await f.get('s')) as Dataset;
    expect((await e.readColumnar<VLStrings>()).toArray()).toEqual(w);
    expect(await e.read()).toEqual(w);
  });
});

describe('one-pass images = the value-by-value encoder', () => {
  const ctx = (n: number) => stringChunkContext(n);
  const codec = vlCodec(parseDtype('string'), '/s');
  /** The stored image of a chunk of `n` whose runs get `values`, value by value. */
  const slow = async (n: number, runs: Float64Array, values: string[]) => {
    const mem = emptyVlChunk(n, false);
    writeValues(mem, runs, values, 0, codec, '/s');
    return (await encodeVlChunk(mem, ctx(n), { sparse: false, n, bs: 1 }, [0])).bytes;
  };
  const sets: [string, number, Float64Array, string[]][] = [
    ['ASCII with empty strings, one run', 150, Float64Array.of(0, 0, 150), Array.from({ length: 150 }, (_, i) => (i % 4 === 0 ? '' : `v${i}`.repeat(i % 7)))],
    ['two runs with a gap (elements left empty), out of column order', 20, Float64Array.of(12, 0, 5, 2, 5, 6), Array.from({ length: 11 }, (_, i) => `s${i}`)],
    ['every value empty', 9, Float64Array.of(0, 0, 9), Array.from({ length: 9 }, () => '')],
  ];
  for (const [name, n, runs, values] of sets) {
    it(name, async () => {
      const want = await slow(n, runs, values);
      expect(textChunk(n, runs, values, 0)!.image).toEqual(want);
      expect(columnChunk(n, runs, VLStrings.from(values), 0)!.image).toEqual(want);
    });
  }
  it('a string that is not ASCII: no one-pass text chunk (value by value instead)', () => {
    expect(textChunk(3, Float64Array.of(0, 0, 3), ['a', 'é', 'b'], 0)).toBeNull();
  });
});

describe('a chunk built from a column is copied before it changes', () => {
  it('its image stays as handed out; the changed chunk reads the new values', () => {
    const v = ['alpha', 'βeta', '', 'gamma ray'];
    const codec = vlCodec(parseDtype('string'), '/s');
    const mem = columnChunk(4, Float64Array.of(0, 0, 4), VLStrings.from(v), 0)!;
    const image = mem.image!;
    const before = image.slice();
    expect(lookup3(image.subarray(0, 4 * ENTRY_SIZE))).toBe(new DataView(image.buffer).getUint32(4 * ENTRY_SIZE, true));
    writeColumn(mem, Float64Array.of(1, 0, 1), VLStrings.from(['b']), 0);
    writeValues(mem, Float64Array.of(3, 0, 1), ['a much longer string than gamma ray'], 0, codec, '/s');
    expect(mem.image).toBeNull();
    expect(image).toEqual(before);
    const out: unknown[] = [];
    readValues(mem, Float64Array.of(0, 0, 4), out, 0, codec, 4);
    expect(out).toEqual(['alpha', 'b', '', 'a much longer string than gamma ray']);
  });
});

describe('corrupt chunks written from a column', () => {
  /** A file of one chunk of `v` (chunks of v.length) and the position of the chunk's first value byte. */
  async function oneChunk(v: string[]): Promise<{ bytes: Uint8Array; heapValues: number }> {
    const bytes = await fileBytes({ dtype: 'string', shape: [v.length], chunks: [v.length] }, VLStrings.from(v));
    const at = Buffer.from(bytes).indexOf(Buffer.from(v.join('')));
    expect(at).toBeGreaterThan(0);
    return { bytes, heapValues: at };
  }
  const v = ['first value', 'ünïcödé', '', 'last value'];

  it('a changed heap byte: ChecksumError on columnar and string[] reads', async () => {
    const { bytes, heapValues } = await oneChunk(v);
    bytes[heapValues + 3]! ^= 0x01;
    await expect((await open(bytes)).readColumnar()).rejects.toThrow(ChecksumError);
    await expect((await open(bytes)).read()).rejects.toThrow(ChecksumError);
  });

  it('a changed entry: ChecksumError', async () => {
    const { bytes, heapValues } = await oneChunk(v);
    const entries = heapValues - 4 - (v.length * ENTRY_SIZE + 4);
    bytes[entries + ENTRY_SIZE + 8]! ^= 0x01; // length of element 1
    await expect((await open(bytes)).readColumnar()).rejects.toThrow(ChecksumError);
  });

  it('an entry outside the heap with a valid checksum: FormatError naming the element', async () => {
    const { bytes, heapValues } = await oneChunk(v);
    const entries = heapValues - 4 - (v.length * ENTRY_SIZE + 4);
    const dv = new DataView(bytes.buffer, bytes.byteOffset);
    dv.setUint32(entries + 3 * ENTRY_SIZE + 8, 1000, true); // element 3: 1000 bytes
    dv.setUint32(entries + v.length * ENTRY_SIZE, lookup3(bytes.subarray(entries, entries + v.length * ENTRY_SIZE)), true);
    const err = await (await open(bytes)).readColumnar().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormatError);
    expect(String((err as Error).message)).toMatch(/element 3/);
  });

  it('a high word set (offset or length ≥ 2^32) with a valid checksum: FormatError; an empty value\'s offset is not used', async () => {
    for (const [word, bad] of [
      [4, true], // element 1's offset high word
      [12, true], // element 1's length high word
      [2 * ENTRY_SIZE + 4, false], // element 2 (empty): its offset high word
    ] as const) {
      const { bytes, heapValues } = await oneChunk(v);
      const entries = heapValues - 4 - (v.length * ENTRY_SIZE + 4);
      const dv = new DataView(bytes.buffer, bytes.byteOffset);
      dv.setUint32(entries + (word < ENTRY_SIZE ? ENTRY_SIZE + word : word), 1, true);
      dv.setUint32(entries + v.length * ENTRY_SIZE, lookup3(bytes.subarray(entries, entries + v.length * ENTRY_SIZE)), true);
      const got = await (await open(bytes)).read().catch((e: unknown) => e);
      if (bad) {
        expect(got).toBeInstanceOf(FormatError);
        expect(String((got as Error).message)).toMatch(/element 1/);
      } else expect(got).toEqual(v);
    }
  });
});

describe('ASCII and UTF-8 scans, short (JavaScript) and long (the runtime\'s, where it has one)', () => {
  it('firstNonAscii finds the first high byte at any position and alignment', () => {
    for (const n of [0, 1, 7, 100, 1023, 1024, 5000, 70000]) {
      const b = new Uint8Array(n + 3).fill(0x61);
      for (const from of [0, 1, 3]) {
        expect(firstNonAscii(b, from, n + 3)).toBe(-1);
        for (const at of [from, Math.floor((n + 3 + from) / 2), n + 2]) {
          if (at < from || at >= n + 3) continue;
          b[at] = 0x80;
          expect(firstNonAscii(b, from, n + 3)).toBe(at);
          expect(firstNonAscii(b.subarray(1), Math.max(0, from - 1), n + 2)).toBe(at - 1 >= Math.max(0, from - 1) ? at - 1 : -1);
          b[at] = 0x61;
        }
      }
    }
  });

  it('long columns: a broken UTF-8 sequence or a non-ASCII string for an ASCII dataset is refused, naming the string', async () => {
    const store = new MemoryStore();
    const f = await createFile(store, { superblockVersion: 3 });
    const n = 3000;
    const v = Array.from({ length: n }, (_, i) => `string ${i} é`);
    const utf8 = await createVlDataset(f, 'u', { dtype: 'string', shape: [n], chunks: [512] });
    const col = VLStrings.from(v);
    const broken = new VLStrings(col.bytes.slice(), col.offsets);
    broken.bytes[broken.offsets[2000]! + 2] = 0xff;
    await expect(utf8.write(broken)).rejects.toThrow(ValueError);
    await utf8.write(col);
    expect(await utf8.read()).toEqual(v);
    const ascii = await createVlDataset(f, 'a', { dtype: 'str(ascii)', shape: [n], chunks: [512] });
    const err = await ascii.write(col).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValueError);
    expect(String((err as Error).message)).toMatch(/columnar string 0 is not ASCII/);
    await f.close();
  });
});
