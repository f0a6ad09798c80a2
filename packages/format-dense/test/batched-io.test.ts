/**
 * The batched fast paths of unfiltered dense chunks: coalesced reads (`fileReadMany`,
 * CoalescingReader) and gathered full-chunk writes (`fullImages` + the engine's group writes) give
 * the same values, and where chunk sizes keep the allocator's alignment the same file bytes, as the
 * chunk-by-chunk path; files written by h5py read back equal; bad input gives typed errors.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createContainer,
  createFile,
  FormatError,
  H5Error,
  MemoryStore,
  openFile,
  registerChunkFormat,
  type ChunkRecord,
  type ChunkRequest,
  type Container,
  type Dataset,
  type RawIO,
} from '@chunkform/core';
import { selectAll, selectHyperslab, selectPoints } from '@chunkform/core/plugin';
import { registerIndexes } from '@chunkform/indexes';
import { registerFilters } from '@chunkform/filters';
import { DenseFilteredFormat, DenseUnfilteredFormat, registerDenseFormats } from '../src/index.js';
import { CoalescingReader } from '../src/coalesce.js';
import { copyRowsInTurn, copyRunsIn, copyRunsMerged, copyRunsOut, copyRunsStaged, RowViews, stagePieces } from '../src/runs.js';

/** A container with the dense formats; `plain`: the unfiltered format without its batched paths. */
function container(plain = false): Container {
  const c = createContainer();
  registerIndexes(c);
  registerDenseFormats(c);
  registerFilters(c);
  if (plain) {
    registerChunkFormat(
      {
        name: 'dense-plain',
        layoutClass: 'chunked',
        create: (ctx) => {
          if (ctx.pipeline.filters.length > 0) return new DenseFilteredFormat(ctx);
          const f = new DenseUnfilteredFormat(ctx);
          for (const k of ['fileReadMany', 'fullImages', 'imageSize']) Object.defineProperty(f, k, { value: undefined });
          return f;
        },
      },
      { container: c, replace: true },
    );
  }
  return c;
}

/** Deterministic pseudo-random integers. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/** A RawIO over bytes that records every read. */
function recordingIO(bytes: Uint8Array): RawIO & { reads: { address: number; target: Uint8Array }[] } {
  const reads: { address: number; target: Uint8Array }[] = [];
  return {
    reads,
    async read(address, length) {
      return bytes.slice(address, address + length);
    },
    async readInto(address, target) {
      reads.push({ address, target });
      target.set(bytes.subarray(address, address + target.length));
    },
    async write() {
      throw new Error('read-only');
    },
  };
}

/** A recording RawIO that also does scatter reads (like a Node file), recording each list. */
function scatterIO(bytes: Uint8Array): ReturnType<typeof recordingIO> & {
  scatters: { address: number; targets: readonly Uint8Array[] }[];
  readScatter(address: number, targets: readonly Uint8Array[]): Promise<void>;
} {
  const io = recordingIO(bytes);
  const scatters: { address: number; targets: readonly Uint8Array[] }[] = [];
  return Object.assign(io, {
    scatters,
    async readScatter(address: number, targets: readonly Uint8Array[]) {
      scatters.push({ address, targets });
      let at = address;
      for (const t of targets) {
        t.set(bytes.subarray(at, at + t.length));
        at += t.length;
      }
    },
  });
}

function rec(coords: number[], address: number, size: number): ChunkRecord {
  return { coords, address, size, filterMask: 0 };
}

function req(coords: number[], runs: number[], count: number, full = true): ChunkRequest {
  return { coords, runs: Float64Array.from(runs), count, full };
}

describe('copyRunsMerged', () => {
  it('copies the runs of several chunks, in buffer order, like chunk-by-chunk copies (both directions)', () => {
    const next = rng(11);
    for (let trial = 0; trial < 20; trial++) {
      const es = 1 + (next() % 4);
      const k = 1 + (next() % 6);
      const chunkElems = 4 + (next() % 40);
      // Buffer stretches handed to random chunks in turn, so the chunks' runs interleave in the buffer.
      const total = k * chunkElems;
      const runs: number[][] = Array.from({ length: k }, () => []);
      const done = new Array<number>(k).fill(0);
      let at = 0;
      while (at < total) {
        const open = done.map((d, q) => (d < chunkElems ? q : -1)).filter((q) => q >= 0);
        const q = open[next() % open.length]!;
        const n = Math.min(chunkElems - done[q]!, 1 + (next() % 5));
        runs[q]!.push(done[q]!, at, n);
        done[q]! += n;
        at += n;
      }
      const base = Uint8Array.from({ length: total * es }, (_, i) => (i * 31 + trial) & 255);
      const r64 = runs.map((r) => Float64Array.from(r));
      const offsets = r64.map((_, q) => q * 3);
      const chunks = r64.map(() => new Uint8Array(chunkElems * es + 3 * k));
      copyRunsMerged(r64, chunks, offsets, base, es, false);
      const want = r64.map(() => new Uint8Array(chunkElems * es + 3 * k));
      r64.forEach((r, q) => copyRunsIn(want[q]!.subarray(offsets[q]!), { runs: r } as ChunkRequest, base, es));
      expect(chunks).toEqual(want);
      const back = new Uint8Array(total * es);
      copyRunsMerged(r64, chunks, offsets, back, es, true);
      const backWant = new Uint8Array(total * es);
      r64.forEach((r, q) => copyRunsOut(chunks[q]!.subarray(offsets[q]!), { runs: r } as ChunkRequest, backWant, es));
      expect(back).toEqual(backWant);
      expect(back).toEqual(base);
    }
  });
});

describe('staged chunk building (copyRunsStaged, stagePieces)', () => {
  /** Rows of `k` tiles of `th` rows × `tw` elements side by side in a buffer `k·tw` elements wide, tile q at rows from `y0`. */
  const tileRuns = (k: number, th: number, tw: number, y0: number): Float64Array[] =>
    Array.from({ length: k }, (_, q) => Float64Array.from(Array.from({ length: th }, (_, y) => [y * tw, (y0 + y) * k * tw + q * tw, tw]).flat()));

  it('builds the same chunks as run-by-run copies, through one staging copy per piece', () => {
    for (const es of [1, 2, 4]) {
      const runs = [...tileRuns(4, 8, 16, 0), ...tileRuns(4, 8, 16, 8)];
      const src = Uint8Array.from({ length: 4 * 16 * 16 * es }, (_, i) => (i * 29 + es) & 255);
      const size = 8 * 16 * es;
      const bases = runs.map((_, q) => q * size);
      const pieces = stagePieces(runs.map((r) => ({ runs: r })), es);
      // Small tiles: all eight fit one piece, spanning exactly the bytes they copy.
      expect(pieces).toEqual([{ from: 0, to: 8, span: { lo: 0, hi: src.length, bytes: src.length }, staged: true }]);
      const buf = new Uint8Array(8 * size + src.length).fill(0xee);
      copyRunsStaged(runs.map((r) => ({ runs: r })), bases, src, pieces[0]!.span, buf, 8 * size, es);
      for (let q = 0; q < runs.length; q++) {
        const want = new Uint8Array(size);
        copyRunsIn(want, { runs: runs[q]! } as ChunkRequest, src, es);
        expect(buf.subarray(q * size, (q + 1) * size)).toEqual(want);
      }
    }
  });

  it('builds chunks given as row patterns without reading their runs, like their runs would', () => {
    for (const es of [1, 2, 8]) {
      const tw = 16;
      const th = 8;
      const runs = [...tileRuns(4, th, tw, 0), ...tileRuns(4, th, tw, th)];
      // the same tiles as row patterns: tile q of band k at buffer element (k·th·4 + 0)·tw + q·tw, rows 4·tw apart
      const chunks = runs.map((r, q) => ({
        rows: { n: th, len: tw, c: 0, cs: tw, b: r[1]!, bs: 4 * tw },
        get runs(): Float64Array {
          throw new Error(`runs of chunk ${q} read`);
        },
      }));
      const src = Uint8Array.from({ length: 4 * 16 * 16 * es }, (_, i) => (i * 31 + es) & 255);
      const size = th * tw * es;
      const pieces = stagePieces(chunks, es);
      expect(pieces).toEqual([{ from: 0, to: 8, span: { lo: 0, hi: src.length, bytes: src.length }, staged: true }]);
      const buf = new Uint8Array(8 * size + src.length).fill(0xee);
      copyRunsStaged(chunks, runs.map((_, q) => q * size), src, pieces[0]!.span, buf, 8 * size, es);
      for (let q = 0; q < runs.length; q++) {
        const want = new Uint8Array(size);
        copyRunsIn(want, { runs: runs[q]! } as ChunkRequest, src, es);
        expect(buf.subarray(q * size, (q + 1) * size)).toEqual(want);
      }
    }
  });

  it('splits pieces at 512 KiB of the buffer and stages only short rows over a stretch at most twice what they copy', () => {
    // 256×256 tiles of 2-byte elements, four across (a 512 KiB band each): one piece per band.
    const bands = [...tileRuns(4, 256, 256, 0), ...tileRuns(4, 256, 256, 256)];
    const of = (rs: Float64Array[]) => rs.map((r) => ({ runs: r }));
    expect(stagePieces(of(bands), 2).map((p) => [p.from, p.to, p.staged])).toEqual([
      [0, 4, true],
      [4, 8, true],
    ]);
    // One tile out of a band four tiles wide: the stretch is four times what it copies.
    expect(stagePieces(of(tileRuns(4, 256, 256, 0).slice(0, 1)), 2)[0]!.staged).toBe(false);
    // Rows of 8 KiB: copied one by one.
    expect(stagePieces(of(tileRuns(2, 16, 4096, 0)), 2).every((p) => !p.staged)).toBe(true);
    // A tile whose rows span more than 512 KiB (half of a band two tiles wide) is a piece of its own, staged.
    expect(stagePieces(of(tileRuns(2, 600, 450, 0)), 1).map((p) => [p.from, p.to, p.staged])).toEqual([
      [0, 1, true],
      [1, 2, true],
    ]);
  });
});

describe('copyRowsInTurn', () => {
  it('copies tiles given as row patterns out of one scratch buffer like their run lists copied chunk by chunk', () => {
    const next = rng(23);
    for (let trial = 0; trial < 30; trial++) {
      const es = 1 + (next() % 4);
      const k = 1 + (next() % 5);
      const n = 1 + (next() % 6);
      const len = 1 + (next() % 5);
      // k tiles of n rows side by side in a frame `width` elements wide, each stored as n·len elements in scratch
      const width = k * len + (next() % 4);
      const first = next() % 3;
      const rows = Array.from({ length: k }, (_, q) => ({ n, len, c: 0, cs: len, b: first * width + q * len, bs: width }));
      const bases = rows.map((_, q) => q * n * len * es);
      const scratch = Uint8Array.from({ length: k * n * len * es }, (_, i) => (i * 29 + trial + 1) & 255);
      const out = new Uint8Array((first + n) * width * es);
      copyRowsInTurn(rows, bases, new RowViews(scratch), out, es);
      const want = new Uint8Array(out.length);
      rows.forEach((p, q) => {
        const r: number[] = [];
        for (let t = 0; t < p.n; t++) r.push(p.c + t * p.cs, p.b + t * p.bs, p.len);
        copyRunsOut(scratch.subarray(bases[q]!), { runs: Float64Array.from(r) } as ChunkRequest, want, es);
      });
      expect(out).toEqual(want);
    }
  });
});

describe('RowViews', () => {
  it('hands out the bytes of any range, the same view again for a row at a multiple of its length', () => {
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => i & 255);
    const v = new RowViews(bytes);
    const a = v.row(512, 256);
    expect(a).toEqual(bytes.subarray(512, 768));
    expect(v.row(512, 256)).toBe(a);
    expect(v.row(100, 256)).toEqual(bytes.subarray(100, 356)); // not at a multiple
    expect(v.row(0, 300)).toEqual(bytes.subarray(0, 300)); // another length
    expect(v.row(4000, 96)).toEqual(bytes.subarray(4000, 4096));
    expect(new RowViews(bytes).row(8, 1)).toEqual(bytes.subarray(8, 9)); // too many rows to keep: a fresh view
    bytes[600] = 7;
    expect(a[88]).toBe(7); // views, not copies
  });
});

describe('CoalescingReader', () => {
  const file = Uint8Array.from({ length: 1 << 16 }, (_, i) => (i * 7 + (i >> 8)) & 255);
  const check = (r: ChunkRecord): void => {
    throw new FormatError(`stored chunk [${r.coords.join(', ')}] too small`, { address: r.address });
  };

  it('reads whole chunks adjacent in the file and in the buffer with one read straight into the buffer', async () => {
    const io = recordingIO(file);
    const reader = new CoalescingReader(2, 64, check);
    const out = new Uint8Array(4 * 64);
    // Four 32-element chunks stored back to back at 1000, in buffer order.
    const items = [0, 1, 2, 3].map((k) => ({ rec: rec([k], 1000 + 64 * k, 64), req: req([k], [0, 32 * k, 32], 32) }));
    await reader.read(items, out, io);
    expect(io.reads).toHaveLength(1);
    expect(io.reads[0]!.target.buffer).toBe(out.buffer);
    expect(Array.from(out)).toEqual(Array.from(file.subarray(1000, 1256)));
  });

  it('reads chunks far apart separately, and chunks given out of file order', async () => {
    const io = recordingIO(file);
    const reader = new CoalescingReader(1, 100, check);
    const out = new Uint8Array(300);
    const items = [
      { rec: rec([2], 40000, 100), req: req([2], [0, 200, 100], 100) },
      { rec: rec([0], 100, 100), req: req([0], [0, 0, 100], 100) },
      { rec: rec([1], 20000, 100), req: req([1], [0, 100, 100], 100) },
    ];
    await reader.read(items, out, io);
    expect(io.reads).toHaveLength(3);
    expect(Array.from(out)).toEqual([...file.subarray(100, 200), ...file.subarray(20000, 20100), ...file.subarray(40000, 40100)]);
  });

  it('scatters rows of chunks adjacent in the file from one read (2-D chunks of a wider array)', async () => {
    const io = recordingIO(file);
    // A 4×8 array of 1-byte elements in two 4×4 chunks stored back to back (chunk 1 first on disk).
    const reader = new CoalescingReader(1, 16, check);
    const out = new Uint8Array(32);
    const rows = (col: number): number[] => [0, 1, 2, 3].flatMap((r) => [r * 4, r * 8 + col, 4]);
    const items = [
      { rec: rec([0, 0], 516, 16), req: req([0, 0], rows(0), 16) },
      { rec: rec([0, 1], 500, 16), req: req([0, 1], rows(4), 16) },
    ];
    await reader.read(items, out, io);
    expect(io.reads).toHaveLength(1);
    const expected: number[] = [];
    for (let r = 0; r < 4; r++) expected.push(...file.subarray(516 + 4 * r, 520 + 4 * r), ...file.subarray(500 + 4 * r, 504 + 4 * r));
    expect(Array.from(out)).toEqual(expected);
  });

  it('reads partial chunks: only the touched range, small gaps bridged', async () => {
    const io = recordingIO(file);
    const reader = new CoalescingReader(1, 1000, check);
    const out = new Uint8Array(20);
    const items = [
      { rec: rec([0], 0, 1000), req: req([0], [900, 0, 10], 10, false) },
      { rec: rec([1], 1000, 1000), req: req([1], [5, 10, 10], 10, false) },
    ];
    await reader.read(items, out, io);
    expect(io.reads).toHaveLength(1);
    expect(io.reads[0]!.address).toBe(900);
    expect(io.reads[0]!.target.length).toBe(115);
    expect(Array.from(out)).toEqual([...file.subarray(900, 910), ...file.subarray(1005, 1015)]);
  });

  it('into a new buffer, scatter-reads long runs straight into place, bridging holes (same values as read + copy)', async () => {
    // 8 rows × 2 chunks of 300 one-byte elements each, rows interleaved in the buffer; chunk 1
    // is stored 100 bytes after chunk 0 (a gap); only elements 20–299 of each row are asked for.
    const rows = (col: number): number[] => Array.from({ length: 8 }, (_, r) => [r * 300 + 20, r * 560 + col, 280]).flat();
    const items = [
      { rec: rec([0, 0], 2000, 2400), req: req([0, 0], rows(0), 8 * 280, false) },
      { rec: rec([0, 1], 4500, 2400), req: req([0, 1], rows(280), 8 * 280, false) },
    ];
    const copy = new Uint8Array(8 * 560);
    await new CoalescingReader(1, 2400, check).read(items, copy, recordingIO(file));
    const io = scatterIO(file);
    const out = new Uint8Array(8 * 560);
    await new CoalescingReader(1, 2400, check).read(items, out, io, true);
    expect(io.reads).toHaveLength(0);
    expect(io.scatters).toHaveLength(1);
    // 16 runs and 15 holes (20 bytes inside a chunk, 120 between the chunks)
    expect(io.scatters[0]!.targets).toHaveLength(31);
    expect(io.scatters[0]!.address).toBe(2020);
    expect(out).toEqual(copy);
    for (let r = 0; r < 8; r++) {
      expect(Array.from(out.subarray(r * 560, r * 560 + 280))).toEqual(Array.from(file.subarray(2000 + r * 300 + 20, 2000 + r * 300 + 300)));
    }
  });

  it('into a new buffer, whole tiles filling a band of it are read into the band first, then rearranged', async () => {
    // A 4 × 600-byte buffer made of two 4 × 300 chunks stored back to back: the file range and the
    // buffer range are the same size, so the read lands in the buffer itself (its pages first
    // touched by the source) and the rows are rearranged through scratch.
    const rows = (col: number): number[] => [0, 1, 2, 3].flatMap((r) => [r * 300, r * 600 + col, 300]);
    const items = [
      { rec: rec([0, 0], 3000, 1200), req: req([0, 0], rows(0), 1200) },
      { rec: rec([0, 1], 4200, 1200), req: req([0, 1], rows(300), 1200) },
    ];
    const io = Object.assign(scatterIO(file), { parallel: true });
    const out = new Uint8Array(2400);
    await new CoalescingReader(1, 1200, check).read(items, out, io, true);
    expect(io.scatters).toHaveLength(1); // the single-target read into the band
    expect(io.scatters[0]!.targets[0]!.buffer).toBe(out.buffer);
    expect(io.reads).toHaveLength(0);
    const want: number[] = [];
    for (let r = 0; r < 4; r++) want.push(...file.subarray(3000 + r * 300, 3300 + r * 300), ...file.subarray(4200 + r * 300, 4500 + r * 300));
    expect(Array.from(out)).toEqual(want);
  });

  it('into a reused buffer, or with short or unordered runs, reads into scratch and copies instead', async () => {
    const long = [{ rec: rec([0], 100, 4096), req: req([0], [2048, 0, 1024, 0, 1024, 1024], 2048) }];
    const short = [{ rec: rec([0], 100, 4096), req: req([0], Array.from({ length: 64 }, (_, i) => [i * 64, i * 16, 16]).flat(), 1024, false) }];
    for (const [items, fresh] of [
      [long, true],
      [short, true],
      [[{ rec: rec([0], 100, 4096), req: req([0], [0, 0, 2048], 2048) }], false],
    ] as const) {
      const io = scatterIO(file);
      const out = new Uint8Array(2048);
      await new CoalescingReader(1, 4096, check).read(items, out, io, fresh);
      expect(io.scatters).toHaveLength(0);
      expect(io.reads.length).toBeGreaterThan(0);
      const want = new Uint8Array(2048);
      await new CoalescingReader(1, 4096, check).read(items, want, recordingIO(file));
      expect(out).toEqual(want);
    }
  });

  it('splits scatter lists at 1024 targets and at large holes', async () => {
    // 1500 runs of 256 bytes, every 300 bytes, then one run 100 KB further on.
    const big = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 13 + (i >> 10)) & 255);
    const runs: number[] = [];
    for (let k = 0; k < 1500; k++) runs.push(k * 300, k * 256, 256);
    runs.push(1500 * 300 + 100_000, 1500 * 256, 256);
    const items = [{ rec: rec([0], 0, 1 << 20), req: req([0], runs, 1501 * 256, false) }];
    const io = scatterIO(big);
    const out = new Uint8Array(1501 * 256);
    await new CoalescingReader(1, 1 << 20, check).read(items, out, io, true);
    // 1500 runs and 1499 holes; a new list starts with a run (no hole): 1023 + 1023 + 951, then the far run
    expect(io.scatters.map((x) => x.targets.length)).toEqual([1023, 1023, 951, 1]);
    for (let k = 0; k < 1500; k++) expect(out[k * 256 + 7]).toBe(big[k * 300 + 7]);
    expect(Array.from(out.subarray(1500 * 256))).toEqual(Array.from(big.subarray(1500 * 300 + 100_000, 1500 * 300 + 100_256)));
  });

  it('with a threaded source, keeps reads into a new buffer in flight, completions in any order (same values); into a reused one, one at a time', async () => {
    const next = rng(5);
    // 40 chunks of 8 rows × 300 bytes in a 2-chunk-wide buffer, stored in shuffled order, far apart.
    const big = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 11 + (i >> 9)) & 255);
    const order = Array.from({ length: 40 }, (_, k) => k).sort(() => (next() & 1) - 0.5);
    const items = order.map((k, slot) => {
      const rows = Array.from({ length: 8 }, (_, r) => [r * 300, Math.floor(k / 2) * 4800 + r * 600 + (k % 2) * 300, 300]).flat();
      return { rec: rec([k], 100 + slot * 20_000, 2400), req: req([k], rows, 2400) };
    });
    const want = new Uint8Array(40 * 2400);
    await new CoalescingReader(1, 2400, check).read(items, want, recordingIO(big));
    for (const fresh of [false, true]) {
      const io = scatterIO(big);
      let inFlight = 0;
      let most = 0;
      const plain = io.readScatter.bind(io);
      const threaded = Object.assign(io, {
        parallel: true,
        async readScatter(address: number, targets: readonly Uint8Array[]) {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, next() % 3));
          await plain(address, targets);
          inFlight--;
        },
      });
      const out = new Uint8Array(40 * 2400);
      await new CoalescingReader(1, 2400, check).read(items, out, threaded, fresh);
      expect(out).toEqual(want);
      // Into a reused buffer the reads are made one at a time on the calling thread (plain reads).
      if (fresh) expect(most).toBeGreaterThan(1);
      else expect([most, io.reads.length]).toEqual([0, 40]);
    }
  });

  it('with a threaded source, a failing read stops new reads and is thrown once the reads in flight have settled', async () => {
    const big = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 5 + (i >> 11)) & 255);
    // 20 whole chunks far apart in the file: one read each.
    const items = Array.from({ length: 20 }, (_, k) => ({ rec: rec([k], 100 + k * 20_000, 2400), req: req([k], [0, k * 2400, 2400], 2400) }));
    const io = scatterIO(big);
    let inFlight = 0;
    let started = 0;
    const plain = io.readScatter.bind(io);
    const threaded = Object.assign(io, {
      parallel: true,
      async readInto(address: number, target: Uint8Array) {
        inFlight++;
        const me = ++started;
        try {
          await new Promise((r) => setTimeout(r, me === 3 ? 1 : 5));
          if (me === 3) throw new FormatError('bad read', { address });
          await plain(address, [target]);
        } finally {
          inFlight--;
        }
      },
    });
    const err = await new CoalescingReader(1, 2400, check).read(items, new Uint8Array(20 * 2400), threaded).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormatError);
    expect(inFlight).toBe(0);
    expect(started).toBeLessThan(20);
  });

  it('reports a stored chunk too small for the request through the format check', async () => {
    const reader = new CoalescingReader(2, 64, check);
    const items = [{ rec: rec([3], 100, 10), req: req([3], [0, 0, 32], 32) }];
    await expect(reader.read(items, new Uint8Array(64), recordingIO(file))).rejects.toThrow(FormatError);
  });
});

interface Case {
  name: string;
  dtype: 'uint8' | 'int32' | 'uint16';
  shape: number[];
  chunks: number[];
  maxShape?: (number | null)[];
  fillValue?: number;
}

const CASES: Case[] = [
  { name: 'frames (whole-chunk runs)', dtype: 'uint16', shape: [6, 16, 16], chunks: [1, 16, 16] },
  { name: '2-D tiles with edge chunks and a fill value', dtype: 'int32', shape: [37, 29], chunks: [8, 6], fillValue: -7 },
  { name: 'odd chunk byte size (no 8-byte alignment)', dtype: 'uint8', shape: [20, 23], chunks: [3, 5], fillValue: 9 },
  { name: '3-D tiles, extensible array', dtype: 'uint16', shape: [5, 33, 40], chunks: [2, 8, 16], maxShape: [null, 33, 40] },
  { name: '1-D, v2 B-tree', dtype: 'int32', shape: [1000], chunks: [64], maxShape: [null] },
  { name: 'small tiles in bands (staged gathering), edge chunks', dtype: 'uint16', shape: [2, 120, 250], chunks: [1, 32, 32], fillValue: 3 },
];

type Arr = Uint8Array | Int32Array | Uint16Array;
const make = (dtype: Case['dtype'], n: number): Arr => (dtype === 'uint8' ? new Uint8Array(n) : dtype === 'int32' ? new Int32Array(n) : new Uint16Array(n));

/** Runs the same writes through `c` and returns the file bytes plus reads of several selections. */
async function scenario(c: Container, k: Case, seed: number): Promise<{ bytes: Uint8Array; reads: number[][] }> {
  const next = rng(seed);
  const n = k.shape.reduce((a, b) => a * b, 1);
  const store = new MemoryStore();
  const f = await createFile(store, { container: c });
  const d = await f.createDataset('x', {
    dtype: k.dtype,
    shape: k.shape,
    chunks: k.chunks,
    ...(k.maxShape ? { maxShape: k.maxShape } : {}),
    ...(k.fillValue !== undefined ? { fillValue: k.fillValue } : {}),
  });
  const full = make(k.dtype, n);
  for (let i = 0; i < n; i++) full[i] = next() % 200;
  // Blocks written in an order that leaves chunks out of order on disk, some chunks never written.
  const rank = k.shape.length;
  for (let b = 0; b < 4; b++) {
    const start = k.shape.map((s) => next() % s);
    const count = k.shape.map((s, i) => 1 + (next() % (s - start[i]!)));
    const sel = selectHyperslab({ start, count, stride: count.map(() => 1), block: count.map(() => 1) });
    const m = count.reduce((a, x) => a * x, 1);
    const v = make(k.dtype, m);
    for (let i = 0; i < m; i++) v[i] = next() % 250;
    await d.write(v, sel);
  }
  // A whole-chunk-aligned block (full chunks through the gathered path), last chunks first.
  const alignedStart = k.chunks.map((ch, i) => (k.shape[i]! >= 2 * ch ? ch : 0));
  const alignedCount = k.chunks.map((ch, i) => Math.min(k.shape[i]! - alignedStart[i]!, ch * 2));
  const sel = selectHyperslab({ start: alignedStart, count: alignedCount, stride: alignedCount.map(() => 1), block: alignedCount.map(() => 1) });
  const m = alignedCount.reduce((a, x) => a * x, 1);
  const v = make(k.dtype, m);
  for (let i = 0; i < m; i++) v[i] = next() % 250;
  await d.write(v, sel);
  await d.write([1, 2, 3], selectPoints([k.shape.map((s) => s - 1), k.shape.map(() => 0), k.shape.map((s) => s >> 1)]));
  await f.close();
  const bytes = store.toBytes();

  const g = await openFile(bytes, { container: c });
  const e = (await g.get('x')) as Dataset;
  const reads: number[][] = [];
  reads.push(Array.from((await e.read()) as Arr));
  const strided = selectHyperslab({
    start: k.shape.map(() => 1),
    stride: k.shape.map(() => 2),
    count: k.shape.map((s) => Math.max(1, (s - 2) >> 1)),
    block: k.shape.map(() => 1),
  });
  reads.push(Array.from((await e.read(strided)) as Arr));
  reads.push(Array.from((await e.read(selectPoints([k.shape.map(() => 0), k.shape.map((s) => s - 1)]))) as Arr));
  // Reading into a reused, dirty buffer overwrites every byte (fill chunks included).
  const storage = await e.storage();
  const es = k.dtype === 'uint8' ? 1 : k.dtype === 'int32' ? 4 : 2;
  const into = new Uint8Array(n * es).fill(0xab);
  const got = await storage.read(selectAll(), n, into);
  expect(got.bytes).toBe(into);
  const view = k.dtype === 'uint8' ? into : k.dtype === 'int32' ? new Int32Array(into.buffer) : new Uint16Array(into.buffer);
  expect(Array.from(view)).toEqual(reads[0]);
  expect(rank).toBe(k.chunks.length);
  await g.close();
  return { bytes, reads };
}

describe('batched dense I/O agrees with chunk-by-chunk I/O', () => {
  for (const k of CASES) {
    it(k.name, async () => {
      for (const seed of [1, 2, 3]) {
        const fast = await scenario(container(), k, seed);
        const plain = await scenario(container(true), k, seed);
        expect(fast.reads).toEqual(plain.reads);
        // The same space is used (chunk order on disk may differ: the plain path interleaves chunks).
        const chunkBytes = k.chunks.reduce((a, b) => a * b, 1) * (k.dtype === 'uint8' ? 1 : k.dtype === 'int32' ? 4 : 2);
        if (chunkBytes % 8 === 0) expect(fast.bytes.length).toBe(plain.bytes.length);
        // Each path reads the other's file the same.
        const cross = await openFile(plain.bytes, { container: container() });
        expect(Array.from((await ((await cross.get('x')) as Dataset).read()) as Arr)).toEqual(plain.reads[0]);
        await cross.close();
      }
    });
  }

  it('our files read in h5py with equal values (odd chunk sizes)', async () => {
    const k = CASES[2]!;
    const { bytes, reads } = await scenario(container(), k, 7);
    const dir = mkdtempSync(join(tmpdir(), 'cf-batched-'));
    const path = join(dir, 'x.h5');
    writeFileSync(path, bytes);
    const out = execFileSync('/usr/bin/python3', ['-c', `import h5py, json\nprint(json.dumps(h5py.File(${JSON.stringify(path)}, 'r')['x'][...].ravel().tolist()))`], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(reads[0]);
  });
});

describe('files written by h5py', () => {
  it('reads frames and tiles written out of order, with unwritten chunks and edge chunks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cf-batched-h5py-'));
    const path = join(dir, 'h.h5');
    execFileSync('/usr/bin/python3', [
      '-c',
      `import h5py, numpy as np
f = h5py.File(${JSON.stringify(path)}, 'w', libver='latest')
a = (np.arange(7*50*45, dtype=np.uint32) * 2654435761 % 65521).astype(np.uint16).reshape(7, 50, 45)
d = f.create_dataset('tiles', shape=a.shape, dtype='<u2', chunks=(1, 16, 16), fillvalue=77)
b = (np.arange(3*300*700, dtype=np.uint32) * 2654435761 % 65521).astype(np.uint16).reshape(3, 300, 700)
w = f.create_dataset('wide', shape=b.shape, dtype='<u2', chunks=(1, 64, 256), fillvalue=3)
for i in [2, 0]: w[i] = b[i]
w[1, 7:200, 100:650] = b[1, 7:200, 100:650]
t = f.create_dataset('bands', data=b[:, :128, :512], chunks=(1, 64, 256))
for i in [6, 4, 2, 0, 5]: d[i] = a[i]
d[3, 10:20, 5:40] = a[3, 10:20, 5:40]
e = f.create_dataset('frames', shape=a.shape, dtype='<u2', chunks=(1, 50, 45), maxshape=(None, 50, 45))
for i in reversed(range(7)): e[i] = a[i]
old = f.create_dataset('old', data=a, chunks=(2, 16, 45))
f.close()
g = h5py.File(${JSON.stringify(path.replace('.h5', '-v1.h5'))}, 'w')
g.create_dataset('v1', data=a, chunks=(3, 20, 20), fillvalue=5)
g.close()
`,
    ]);
    const expectOf = (file: string, name: string): number[] =>
      JSON.parse(
        execFileSync('/usr/bin/python3', ['-c', `import h5py, json\nprint(json.dumps(h5py.File(${JSON.stringify(file)}, 'r')[${JSON.stringify(name)}][...].ravel().tolist()))`], {
          encoding: 'utf8',
          maxBuffer: 64 << 20,
        }),
      ) as number[];
    const c = container();
    // From the file on disk (NodeFileStore: reads straight into the result, scatter reads for long rows).
    const f = await openFile(path, { container: c });
    // 'wide': rows of 512 bytes in chunks, read with scatter reads into new arrays (NodeFileStore.readv);
    // 'bands': whole tiles filling bands of the result (read into the result, then rearranged).
    for (const name of ['tiles', 'frames', 'old', 'wide', 'bands']) {
      const d = (await f.get(name)) as Dataset;
      expect(Array.from((await d.read()) as Uint16Array), name).toEqual(expectOf(path, name));
      const sel =
        name === 'wide' || name === 'bands'
          ? selectHyperslab({ start: [0, 3, 2], stride: [2, 5, 3], count: [2, name === 'wide' ? 50 : 25, 170], block: [1, 2, 1] })
          : selectHyperslab({ start: [1, 3, 2], stride: [2, 5, 3], count: [3, 9, 14], block: [1, 2, 1] });
      const plain = await openFile(readFileSync(path), { container: container(true) });
      const p = (await plain.get(name)) as Dataset;
      expect(Array.from((await d.read(sel)) as Uint16Array)).toEqual(Array.from((await p.read(sel)) as Uint16Array));
      // A box inside: partial chunks at every edge.
      const [n0, n1, n2] = d.shape as [number, number, number];
      const box = selectHyperslab({ start: [0, 1, 1], count: [n0, n1 - 2, n2 - 2] });
      const want = Array.from((await p.read(box)) as Uint16Array);
      const into = new Uint16Array(n0 * (n1 - 2) * (n2 - 2));
      await d.readInto(into, box);
      expect(Array.from((await d.read(box)) as Uint16Array)).toEqual(want);
      expect(Array.from(into)).toEqual(want);
      await plain.close();
    }
    await f.close();
    const v1path = path.replace('.h5', '-v1.h5');
    const g = await openFile(readFileSync(v1path), { container: c });
    expect(Array.from((await ((await g.get('v1')) as Dataset).read()) as Uint16Array)).toEqual(expectOf(v1path, 'v1'));
    await g.close();
  });
});

describe('gathered full-chunk writes in flight', () => {
  /**
   * A MemoryStore whose writes of 64 KiB or more take a few milliseconds (as on the thread pool), noting how many
   * are in flight at once, whether a buffer changed while its write was in flight, and whether a write was
   * still under way after `settled` was set; the `failAt`-th such write fails.
   */
  class SlowStore extends MemoryStore {
    big = 0;
    inFlight = 0;
    most = 0;
    failAt = -1;
    changed = false;
    settled = false;
    late = false;
    override async write(offset: number, bytes: Uint8Array): Promise<void> {
      if (bytes.length < 1 << 16) return super.write(offset, bytes);
      const k = this.big++;
      const before = bytes.slice();
      this.most = Math.max(this.most, ++this.inFlight);
      await new Promise((r) => setTimeout(r, 3));
      this.inFlight--;
      if (this.settled) this.late = true;
      if (k === this.failAt) throw new Error('disk full');
      if (!before.every((b, i) => b === bytes[i])) this.changed = true;
      return super.write(offset, bytes);
    }
  }

  // 48 frames of 256×512 uint16 in 64×64 tiles: three groups of 512 tiles (4 MiB each, the engine's group
  // size), built through the shared gather buffers.
  const shape = [48, 256, 512];
  const data = new Uint16Array(48 * 256 * 512);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 20;
  /** The index of the first element where `got` differs from `data` (-1: none). */
  const firstDifference = (got: Uint16Array): number => (got.length !== data.length ? 0 : data.findIndex((v, i) => got[i] !== v));

  it('gathers each group while the previous group\'s write runs, one write at a time, never changing a buffer in flight', async () => {
    const store = new SlowStore();
    // The dense format, noting the large writes in flight whenever it builds a group's images.
    const seen: number[] = [];
    const c = container();
    registerChunkFormat(
      {
        name: 'dense-watched',
        layoutClass: 'chunked',
        create: (ctx) => {
          const fmt = new DenseUnfilteredFormat(ctx);
          const build = fmt.fullImages.bind(fmt);
          fmt.fullImages = (reqs, src, scratch) => (seen.push(store.inFlight), build(reqs, src, scratch));
          return fmt;
        },
      },
      { container: c, replace: true },
    );
    const f = await createFile(store, { container: c });
    await f.createDataset('x', { dtype: 'uint16', shape, chunks: [1, 64, 64], data });
    expect(store.inFlight).toBe(0);
    await f.close();
    expect(store.big).toBe(3);
    expect(seen).toEqual([0, 1, 1]);
    expect(store.most).toBe(1);
    expect(store.changed).toBe(false);
    const g = await openFile(store.toBytes(), { container: container() });
    expect(firstDifference((await ((await g.get('x')) as Dataset).read()) as Uint16Array)).toBe(-1);
    await g.close();
  });

  for (const failAt of [0, 1, 2]) {
    it(`a failing group write (${failAt}) is thrown once the writes in flight have settled; nothing is written afterwards`, async () => {
      const store = new SlowStore();
      const f = await createFile(store, { container: container() });
      const d = await f.createDataset('x', { dtype: 'uint16', shape, chunks: [1, 64, 64] });
      store.failAt = failAt;
      await expect(d.write(data)).rejects.toThrow(/disk full/);
      expect(store.inFlight).toBe(0);
      store.settled = true;
      await new Promise((r) => setTimeout(r, 20));
      expect(store.late).toBe(false);
      expect(store.changed).toBe(false);
    });
  }
});

describe('bad input', () => {
  it('a chunk cut off by the end of the file fails with a typed error naming the chunk', async () => {
    const c = container();
    const store = new MemoryStore();
    const f = await createFile(store, { container: c });
    const data = Uint16Array.from({ length: 4 * 32 * 32 }, (_, i) => i);
    await f.createDataset('x', { dtype: 'uint16', shape: [4, 32, 32], chunks: [1, 16, 16], data });
    await f.close();
    const bytes = store.toBytes();
    const g = await openFile(bytes, { container: c });
    const d = (await g.get('x')) as Dataset;
    const infos: { offset: number[]; address: number; size: number }[] = [];
    await d.iterateChunks((i) => void infos.push(i));
    const last = infos.reduce((a, b) => (b.address > a.address ? b : a));
    // A source that cannot deliver the bytes past the middle of the last chunk (a short read).
    const cut = last.address + 100;
    class ShortStore extends MemoryStore {
      override async readInto(offset: number, target: Uint8Array): Promise<number> {
        if (offset < cut && offset + target.length > cut) return super.readInto(offset, target.subarray(0, cut - offset));
        return super.readInto(offset, target);
      }
    }
    const h = await openFile(new ShortStore(bytes.slice()), { container: c });
    const ds = (await h.get('x')) as Dataset;
    const err = await ds.read().catch((e: unknown) => e);
    await g.close();
    expect(err).toBeInstanceOf(H5Error);
    expect(String((err as H5Error).message)).toContain(`chunk [${last.offset.map((o, i) => o / [1, 16, 16][i]!).join(', ')}]`);
  });

  it('scatter reads: a short scatter read is retried chunk by chunk; a chunk that cannot be read is named', async () => {
    const c = container();
    const store = new MemoryStore();
    const f = await createFile(store, { container: c });
    // rows of 256 uint16 = 512 bytes in each chunk: read() into a new array uses scatter reads
    const data = Uint16Array.from({ length: 2 * 64 * 512 }, (_, i) => (i * 7) & 0xffff);
    await f.createDataset('x', { dtype: 'uint16', shape: [2, 64, 512], chunks: [1, 32, 256], data });
    await f.close();
    const bytes = store.toBytes();
    const g = await openFile(bytes, { container: c });
    const infos: { offset: number[]; address: number; size: number }[] = [];
    await ((await g.get('x')) as Dataset).iterateChunks((i) => void infos.push(i));
    await g.close();
    const last = infos.reduce((a, b) => (b.address > a.address ? b : a));
    const cut = last.address + 1000;
    let scatters = 0;
    /** A source with scatter reads that stop at `cut`; `shortReads`: plain reads stop there too. */
    class ScatterStore extends MemoryStore {
      constructor(
        b: Uint8Array,
        private readonly shortReads: boolean,
      ) {
        super(b);
      }
      async readv(offset: number, targets: readonly Uint8Array[]): Promise<number> {
        scatters++;
        let at = offset;
        for (const t of targets) {
          const n = Math.max(0, Math.min(t.length, cut - at));
          if (n > 0) t.set(bytes.subarray(at, at + n));
          at += t.length;
          if (n < t.length) return at - t.length + n - offset;
        }
        return at - offset;
      }
      override async readInto(offset: number, target: Uint8Array): Promise<number> {
        if (this.shortReads && offset < cut && offset + target.length > cut) return super.readInto(offset, target.subarray(0, cut - offset));
        return super.readInto(offset, target);
      }
    }
    // A box inside (rows of 510 bytes with holes between them: scatter reads, not whole bands).
    const box = selectHyperslab({ start: [0, 1, 1], count: [2, 62, 510] });
    const want: number[] = [];
    for (let f = 0; f < 2; f++) for (let y = 1; y < 63; y++) want.push(...data.subarray(f * 64 * 512 + y * 512 + 1, f * 64 * 512 + y * 512 + 511));
    // Only the scatter read is short: the chunk-by-chunk retry reads everything.
    const h = await openFile(new ScatterStore(bytes.slice(), false), { container: c });
    expect(Array.from((await ((await h.get('x')) as Dataset).read(box)) as Uint16Array)).toEqual(want);
    expect(scatters).toBeGreaterThan(0);
    await h.close();
    // Both short: a typed error naming the chunk.
    const k = await openFile(new ScatterStore(bytes.slice(), true), { container: c });
    const err = await ((await k.get('x')) as Dataset).read(box).catch((e: unknown) => e);
    await k.close();
    expect(err).toBeInstanceOf(H5Error);
    expect(String((err as H5Error).message)).toContain(`chunk [${last.offset.map((o, i) => o / [1, 32, 256][i]!).join(', ')}]`);
  });
});
