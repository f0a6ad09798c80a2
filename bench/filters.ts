/**
 * Filter benchmark (issue #5): encode/decode throughput of LZ4 (32004), bitshuffle (32008; sub-modes none,
 * LZ4, zstd) and zstd (32015) on one 2048×2048 uint16 detector-like frame (8.4 MB), in one run:
 *
 * 1. codec only (ours): the filter functions of `@chunkform/filters` on the frame's bytes, and the bit
 *    transposition alone (`@chunkform/bitshuffle-wasm`, every available backend);
 * 2. whole dataset, same method for both sides: create a file, write the frame as one chunked dataset
 *    (one 2048×2048 chunk) through the filter and close; open, read the dataset whole and close. Ours:
 *    chunkform + `@chunkform/filters`; theirs: h5wasm + h5wasm-plugins (the HDF Group / bitshuffle C
 *    filters compiled to WebAssembly). Each side reads back its own file and the values are checked.
 *
 * 3. LZ4 block codecs side by side (issue #5: "measure lz4js against a WASM LZ4"): our TypeScript codec,
 *    lz4js (the design card's choice), our WebAssembly codec (`@chunkform/bitshuffle-wasm/lz4`, SIMD and
 *    scalar builds) on the raw frame as one block (the LZ4 filter's default) and on the bitshuffled frame
 *    in 8 KiB blocks (bitshuffle's LZ4 sub-mode), as ratios to the TypeScript codec; h5wasm-plugins' LZ4
 *    is only reachable through HDF5, so it appears in the whole-dataset rows (2.), where the TypeScript
 *    codec and the opt-in worker-thread split of bitshuffle+LZ4 are also measured as extra rows.
 *
 * MB/s are of uncompressed bytes. Best of BENCH_FILTER_REPEAT (default 3) runs; the whole-dataset rows
 * take the best of BENCH_FILTER_DATASET_REPEAT (default 7) runs of each side, alternating ours and h5wasm
 * so that load from other processes hits both alike. Run alone with
 * `BENCH_ONLY=filters pnpm bench` or `node --import tsx bench/filters.ts`.
 * @module
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import h5wasm from 'h5wasm/node';
import { bestSeconds } from './timing.js';
import { createFile, openFile, type Dataset } from '../packages/core/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { bitshuffleDecode, bitshuffleEncode, bitshuffleSetLocal, lz4Decode, lz4Encode, registerFilters, zstdDecode, zstdEncode } from '../packages/filters/src/index.js';
import { availableBackends, bitshuffle, bitunshuffle } from '../packages/bitshuffle-wasm/src/index.js';
import { setLz4Parallel, wasmLz4Codec } from '../packages/bitshuffle-wasm/src/lz4.js';
import { registerFilter } from '../packages/core/src/di/container.js';
import {
  bitshuffleFilter,
  createBitshuffleFilter,
  createLz4Filter,
  DEFAULT_BITSHUFFLE_CODECS,
  jsLz4Codec,
  lz4CompressBound,
  lz4Filter,
  type Lz4BlockCodec,
} from '../packages/filters/src/index.js';
import { xorshift32 } from './xorshift.js';

const H = 2048;
const W = 2048;
const REPEAT = Number(process.env.BENCH_FILTER_REPEAT ?? 3);
/** Whole-dataset rows are short (≈ 10–50 ms) and noisy on a shared machine: more, interleaved repeats. */
const DATASET_REPEAT = Math.max(REPEAT, Number(process.env.BENCH_FILTER_DATASET_REPEAT ?? 7));

/** A detector-like frame: low counts (≈ 0–3 photons, most pixels 0–1) + read noise, a few bright spots. */
export function detectorFrame(h = H, w = W, seed = 0x2545f491): Uint16Array {
  const a = new Uint16Array(h * w);
  const rnd = xorshift32(seed);
  for (let i = 0; i < a.length; i++) {
    const r = rnd();
    // pedestal-subtracted counts: mostly 0/1, some 2–3, read noise in the low bits, rare hot pixels
    const photons = (r & 15) < 9 ? 0 : (r & 15) < 14 ? 1 : 2 + ((r >>> 4) & 1);
    a[i] = photons * 8 + ((r >>> 8) & 3) + ((r >>> 20) % 4093 === 0 ? 3000 : 0);
  }
  for (let k = 0; k < 30; k++) {
    const cy = rnd() % h;
    const cx = rnd() % w;
    const amp = 2000 + (rnd() % 60000);
    const r = 2 + (rnd() % 8);
    for (let y = Math.max(0, cy - 3 * r); y < Math.min(h, cy + 3 * r); y++) {
      for (let x = Math.max(0, cx - 3 * r); x < Math.min(w, cx + 3 * r); x++) {
        const i = y * w + x;
        a[i] = Math.min(65535, a[i]! + Math.round(amp * Math.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))));
      }
    }
  }
  return a;
}

/** Best time in seconds of `repeat` runs of `fn`. */
const best = (fn: () => unknown, repeat = REPEAT): Promise<number> => bestSeconds(repeat, fn);

/** Best times (s) of `a` and `b` run alternately DATASET_REPEAT times each (b optional: Infinity). */
async function bestPair(a: () => unknown, b?: () => unknown): Promise<[number, number]> {
  let ta = Infinity;
  let tb = Infinity;
  for (let r = 0; r < DATASET_REPEAT; r++) {
    let t0 = performance.now();
    await a();
    ta = Math.min(ta, performance.now() - t0);
    if (!b) continue;
    t0 = performance.now();
    await b();
    tb = Math.min(tb, performance.now() - t0);
  }
  return [ta / 1000, tb / 1000];
}

const fmt = (x: number | undefined, d = 0): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));

function same(a: Uint8Array, b: Uint8Array, who: string): void {
  if (a.length !== b.length || !Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))) {
    throw new Error(`bench/filters: ${who} did not round-trip`);
  }
}

interface Case {
  label: string;
  id: number;
  /** cd_values given at creation (both sides). */
  opts: number[];
  /** Only in the whole-dataset part: a variant of our filter, set up before and undone after the row. */
  variant?: { setup(): void; teardown(): void };
}

const jsLz4 = {
  setup: () => {
    registerFilter(createLz4Filter(jsLz4Codec), { replace: true });
    registerFilter(createBitshuffleFilter({ ...DEFAULT_BITSHUFFLE_CODECS, lz4: jsLz4Codec }), { replace: true });
  },
  teardown: () => {
    registerFilter(lz4Filter, { replace: true });
    registerFilter(bitshuffleFilter, { replace: true });
  },
};
const twoThreads = { setup: () => setLz4Parallel(true), teardown: () => setLz4Parallel(false) };

const CASES: Case[] = [
  { label: 'LZ4 (32004)', id: 32004, opts: [] },
  { label: '  same, TypeScript LZ4 codec', id: 32004, opts: [], variant: jsLz4 },
  { label: 'bitshuffle (32008), none', id: 32008, opts: [0, 0] },
  { label: 'bitshuffle (32008) + LZ4', id: 32008, opts: [0, 2] },
  { label: '  same, + 1 worker thread (opt-in)', id: 32008, opts: [0, 2], variant: twoThreads },
  { label: '  same, TypeScript LZ4 codec', id: 32008, opts: [0, 2], variant: jsLz4 },
  { label: 'bitshuffle (32008) + zstd 3', id: 32008, opts: [0, 3, 3] },
  { label: 'zstd (32015) level 3', id: 32015, opts: [3] },
];

/** lz4js (node_modules/lz4js, the design card's choice) as an Lz4BlockCodec, for this comparison only. */
interface Lz4js {
  compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
  decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number;
}
function lz4jsCodec(lz4js: Lz4js): Lz4BlockCodec {
  const table = new Uint32Array(1 << 16);
  let scratch = new Uint8Array(0);
  return {
    name: 'lz4js',
    compress(src, start, end, dst, dPos) {
      const need = lz4CompressBound(end - start);
      if (scratch.length < need) scratch = new Uint8Array(need);
      table.fill(0);
      const n = lz4js.compressBlock(src.subarray(start, end), scratch, 0, end - start, table);
      dst.set(scratch.subarray(0, n), dPos);
      return dPos + n;
    },
    decompress(src, sPos, sEnd, dst, dPos, dEnd) {
      const d = lz4js.decompressBlock(src, dst, sPos, sEnd - sPos, dPos);
      if (d !== dEnd) throw new Error(`lz4js: decoded ${d - dPos} bytes, expected ${dEnd - dPos}`);
    },
  };
}

/** Compresses `src` in blocks of `block` bytes with `codec` into one buffer; returns [bytes, block ends]. */
function compressBlocks(codec: Lz4BlockCodec, src: Uint8Array, block: number): { out: Uint8Array; ends: number[] } {
  const out = new Uint8Array(lz4CompressBound(src.length) + 16 * Math.ceil(src.length / block));
  const ends: number[] = [];
  let d = 0;
  for (let s = 0; s < src.length; s += block) {
    d = codec.compress(src, s, Math.min(src.length, s + block), out, d, 1);
    ends.push(d);
  }
  return { out: out.subarray(0, d), ends };
}

function decompressBlocks(codec: Lz4BlockCodec, enc: { out: Uint8Array; ends: number[] }, dst: Uint8Array, block: number): void {
  let s = 0;
  enc.ends.forEach((e, i) => {
    codec.decompress(enc.out, s, e, dst, i * block, Math.min(dst.length, (i + 1) * block));
    s = e;
  });
}

/** Results of one run, for BENCHMARKS.md. */
export interface FilterBenchResult {
  transposeMBs: Record<string, { shuffle: number; unshuffle: number }>;
  lz4Codecs: { input: string; codec: string; encode: number; decode: number; ratio: number; sameAsLiblz4: boolean }[];
  codec: { label: string; encode: number; decode: number; ratio: number }[];
  dataset: { label: string; oursWrite: number; oursRead: number; theirsWrite?: number; theirsRead?: number; oursSize: number; theirsSize?: number }[];
}

/** Runs the filter benchmark and prints it; `dir` is a scratch folder (default: a new temp folder). */
export async function runFilters(dir?: string): Promise<FilterBenchResult> {
  const scratch = dir ?? mkdtempSync(join(tmpdir(), 'chunkform-bench-filters-'));
  registerIndexes();
  registerDenseFormats();
  registerFilters();
  const frame = detectorFrame();
  const bytes = new Uint8Array(frame.buffer);
  const mb = bytes.length / 1e6;
  const result: FilterBenchResult = { transposeMBs: {}, lz4Codecs: [], codec: [], dataset: [] };
  console.log(`\nfilters (issue #5): one ${H}×${W} uint16 detector-like frame (${mb.toFixed(1)} MB), best of ${REPEAT}`);

  // 1a. bit transposition alone
  console.log('\nbitshuffle transposition (elem 2, default block)   shuffle MB/s   unshuffle MB/s');
  for (const be of availableBackends()) {
    const out = new Uint8Array(bytes.length);
    const back = new Uint8Array(bytes.length);
    const s = await best(() => bitshuffle(bytes, 2, 0, be, out), REPEAT + 2);
    const u = await best(() => bitunshuffle(out, 2, 0, be, back), REPEAT + 2);
    same(back, bytes, `bitshuffle ${be}`);
    result.transposeMBs[be] = { shuffle: mb / s, unshuffle: mb / u };
    console.log(`  ${be.padEnd(48)} ${fmt(mb / s).padStart(12)} ${fmt(mb / u).padStart(16)}`);
  }

  // 1b. LZ4 block codecs side by side: ours (TS, WASM) vs lz4js
  const require = createRequire(import.meta.url);
  const lz4Codecs: Lz4BlockCodec[] = [jsLz4Codec];
  try {
    lz4Codecs.push(lz4jsCodec(require('lz4js') as Lz4js));
  } catch (e) {
    console.log(`  (lz4js unavailable: ${(e as Error).message})`);
  }
  for (const be of ['simd', 'wasm'] as const) {
    const c = wasmLz4Codec(be);
    if (c) lz4Codecs.push(c);
  }
  const shuffled = bitshuffle(bytes, 2);
  console.log('\nLZ4 block codecs                          encode MB/s  decode MB/s  size ratio  enc vs TS  dec vs TS  = liblz4 bytes');
  for (const [input, src, block] of [
    ['frame, one block', bytes, bytes.length],
    ['bitshuffled, 8 KiB blocks', shuffled, 8192],
  ] as const) {
    const reference = compressBlocks(jsLz4Codec, src, block).out; // block.ts = liblz4's LZ4_compress_fast (tested)
    let base: { encode: number; decode: number } | undefined;
    for (const codec of lz4Codecs) {
      let enc!: { out: Uint8Array; ends: number[] };
      const back = new Uint8Array(src.length);
      enc = compressBlocks(codec, src, block); // warm-up
      const te = await best(() => (enc = compressBlocks(codec, src, block)));
      const td = await best(() => decompressBlocks(codec, enc, back, block));
      same(back, src, `LZ4 codec ${codec.name}`);
      const row = { input, codec: codec.name, encode: mb / te, decode: mb / td, ratio: src.length / enc.out.length, sameAsLiblz4: Buffer.from(enc.out).equals(Buffer.from(reference)) };
      base ??= row;
      result.lz4Codecs.push(row);
      console.log(
        `  ${(input + ': ' + codec.name).padEnd(40)} ${fmt(row.encode).padStart(11)} ${fmt(row.decode).padStart(12)} ${fmt(row.ratio, 2).padStart(10)}× ${(row.encode / base.encode).toFixed(2).padStart(9)}× ${(row.decode / base.decode).toFixed(2).padStart(9)}×  ${row.sameAsLiblz4 ? 'yes' : 'no'}`,
      );
    }
  }

  // 1c. codecs only (ours)
  console.log('\ncodec only (chunkform)                encode MB/s   decode MB/s   size ratio');
  for (const c of CASES.filter((x) => !x.variant)) {
    let enc!: Uint8Array;
    let dec!: Uint8Array;
    const cd = c.id === 32008 ? bitshuffleSetLocal(c.opts, 2) : c.opts;
    const encode = async (): Promise<void> => {
      enc = c.id === 32004 ? lz4Encode(bytes) : c.id === 32008 ? await bitshuffleEncode(bytes, cd) : await zstdEncode(bytes, c.opts[0]);
    };
    const decode = async (): Promise<void> => {
      dec = c.id === 32004 ? lz4Decode(enc) : c.id === 32008 ? await bitshuffleDecode(enc, cd) : await zstdDecode(enc);
    };
    await encode(); // warm-up (WASM instantiation)
    const te = await best(encode);
    const td = await best(decode);
    same(dec, bytes, c.label);
    result.codec.push({ label: c.label, encode: mb / te, decode: mb / td, ratio: bytes.length / enc.length });
    console.log(`  ${c.label.padEnd(34)} ${fmt(mb / te).padStart(11)} ${fmt(mb / td).padStart(13)} ${fmt(bytes.length / enc.length, 2).padStart(11)}×`);
  }

  // 2. whole dataset write/read, chunkform vs h5wasm + h5wasm-plugins
  const Module = await h5wasm.ready;
  let pluginsOk = false;
  try {
    // h5wasm-plugins is a devDependency of packages/filters (not of the root): resolve it from there.
    const req = createRequire(new URL('../packages/filters/package.json', import.meta.url));
    const plugins = (await import(pathToFileURL(req.resolve('h5wasm-plugins')).href)) as { install_local_plugins(m: unknown): void };
    plugins.install_local_plugins(Module);
    pluginsOk = true;
  } catch (e) {
    console.log(`  (h5wasm-plugins unavailable: ${(e as Error).message}; h5wasm columns skipped)`);
  }
  const check = (v: ArrayLike<number>, who: string): void => {
    if (v.length !== frame.length) throw new Error(`bench/filters: ${who} read ${v.length} values`);
    for (let i = 0; i < frame.length; i += 997) if (v[i] !== frame[i]) throw new Error(`bench/filters: ${who} read wrong values at ${i}`);
  };
  console.log('\nwhole dataset (create+write+close / open+read+close)   write MB/s            read MB/s        file size ratio');
  console.log('                                       chunkform h5wasm ratio   chunkform h5wasm ratio   chunkform h5wasm');
  for (const c of CASES) {
    c.variant?.setup();
    const ours = join(scratch, 'ours-filter.h5');
    const theirs = join(scratch, 'h5wasm-filter.h5');
    const oursWrite = async (): Promise<void> => {
      const f = await createFile(ours);
      await f.createDataset('frame', { dtype: 'uint16', shape: [H, W], chunks: [H, W], filters: [{ id: c.id, clientData: c.opts }], data: frame });
      await f.close();
    };
    const oursRead = async (): Promise<void> => {
      const f = await openFile(ours);
      check((await ((await f.get('frame')) as Dataset).read()) as Uint16Array, 'chunkform');
      await f.close();
    };
    const theirsWrite = (): void => {
      const f = new h5wasm.File(theirs, 'w');
      f.create_dataset({ name: 'frame', data: frame, shape: [H, W], dtype: '<H', chunks: [H, W], compression: c.id, compression_opts: c.opts });
      f.close();
    };
    const theirsRead = (): void => {
      const f = new h5wasm.File(theirs, 'r');
      check((f.get('frame') as InstanceType<typeof h5wasm.Dataset>).value as Uint16Array, 'h5wasm');
      f.close();
    };
    // interleaved (ours, theirs, ours, theirs, ...) so that load from other processes hits both sides alike
    const [w1, w2] = await bestPair(oursWrite, pluginsOk ? theirsWrite : undefined);
    const [r1, r2] = await bestPair(oursRead, pluginsOk ? theirsRead : undefined);
    const row: FilterBenchResult['dataset'][number] = { label: c.label, oursWrite: mb / w1, oursRead: mb / r1, oursSize: statSync(ours).size };
    if (pluginsOk) {
      row.theirsWrite = mb / w2;
      row.theirsRead = mb / r2;
      row.theirsSize = statSync(theirs).size;
    }
    result.dataset.push(row);
    const ratio = (a: number, b?: number): string => (b === undefined ? '  n/a' : (a / b).toFixed(2) + '×');
    console.log(
      `  ${c.label.padEnd(34)} ${fmt(row.oursWrite).padStart(9)} ${fmt(row.theirsWrite).padStart(6)} ${ratio(row.oursWrite, row.theirsWrite).padStart(6)}` +
        `   ${fmt(row.oursRead).padStart(9)} ${fmt(row.theirsRead).padStart(6)} ${ratio(row.oursRead, row.theirsRead).padStart(6)}` +
        `   ${fmt(bytes.length / row.oursSize, 2).padStart(8)}× ${row.theirsSize ? fmt(bytes.length / row.theirsSize, 2) + '×' : 'n/a'}`,
    );
    rmSync(ours, { force: true });
    rmSync(theirs, { force: true });
    c.variant?.teardown();
  }

  // targets of issue #5
  const bestTranspose = Math.max(...Object.values(result.transposeMBs).map((t) => Math.min(t.shuffle, t.unshuffle)));
  const bsLz4 = result.dataset.find((d) => d.label === 'bitshuffle (32008) + LZ4');
  const lz4 = result.codec.find((d) => d.label === 'LZ4 (32004)');
  const yes = (b: boolean): string => (b ? 'met' : 'NOT met');
  console.log('\ntargets:');
  console.log(`  bitshuffle transposition ≥ 1 GB/s per core: ${fmt(bestTranspose)} MB/s (slower direction, best backend) — ${yes(bestTranspose >= 1000)}`);
  if (bsLz4?.theirsWrite) {
    const r = bsLz4.oursWrite / bsLz4.theirsWrite;
    console.log(`  bitshuffle+LZ4 encode ≥ 2× h5wasm-plugins (dataset write): ${r.toFixed(2)}× — ${yes(r >= 2)}`);
    const two = result.dataset.find((d) => d.label === '  same, + 1 worker thread (opt-in)');
    if (two?.theirsWrite) console.log(`    (with the opt-in worker thread: ${(two.oursWrite / two.theirsWrite).toFixed(2)}×)`);
  }
  if (lz4) console.log(`  LZ4 decode ≥ 1 GB/s (codec): ${fmt(lz4.decode)} MB/s — ${yes(lz4.decode >= 1000)}`);
  if (!dir) rmSync(scratch, { recursive: true, force: true });
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runFilters();
