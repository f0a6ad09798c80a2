/**
 * Cost of the atomic flush (issue #10: one commit write per flush): a stream that flushes after every
 * frame, before and after changed object headers moved copy-on-write.
 *
 * Workload: a NeXus-like file made by chunkform — /entry/data/frames (uint16 256×256 frames, chunks of
 * one frame, deflate 1, growing), /entry/data/timestamps (float64, growing, chunks of 64),
 * /entry/instrument/detector/count (int32 [1] contiguous, rewritten) and a group attribute on
 * /entry (`frames`) updated per frame — BENCH_AF_FRAMES (default 300) frames, flush after each, on a
 * local file (NodeFileStore; not durable, and BENCH_AF_DURABLE=1 for fsync'ed flushes). Per flush:
 * bytes and store writes (counted by a wrapper around the store), time, and the final file size.
 * Then an `r+` session on an h5py-written file with BENCH_AF_OBJECTS (default 2,000) datasets, 8 per
 * group under three levels of 8 groups (every group in compact link storage): the first flush surveys the whole group structure once (links,
 * object references: every object header is read), later ones walk it in memory.
 *
 * "in place" is the flush before this change (the object layer's graph is removed, so every changed
 * header is rewritten in place after the superblock); "atomic" is the new flush.
 *
 * Run alone: `node --import tsx bench/atomic-flush.ts`. Not a test: numbers describe one workload.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, openFile, selectHyperslab, type ByteStore, type Dataset, type Group, type H5File } from '../packages/core/src/index.js';
import { NodeFileStore } from '../packages/core/src/node.js';
import type { FileContext } from '../packages/core/src/file/file-context.js';
import { registerDenseFormats } from '../packages/format-dense/src/index.js';
import { registerFilters } from '../packages/filters/src/index.js';
import { registerIndexes } from '../packages/indexes/src/index.js';
import { xorshift32 } from './xorshift.js';

const FRAMES = Number(process.env.BENCH_AF_FRAMES ?? 300);
const OBJECTS = Number(process.env.BENCH_AF_OBJECTS ?? 2000);
const DURABLE = process.env.BENCH_AF_DURABLE === '1';
const S = 256;

registerIndexes();
registerDenseFormats();
registerFilters();

/** A store that counts the writes (and bytes) reaching an inner store. */
class CountingStore implements ByteStore {
  writes = 0;
  bytes = 0;
  constructor(private readonly inner: ByteStore) {}
  size(): Promise<number> {
    return this.inner.size();
  }
  read(offset: number, length: number): Promise<Uint8Array> {
    return this.inner.read(offset, length);
  }
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    this.writes++;
    this.bytes += bytes.length;
    await this.inner.write(offset, bytes);
  }
  truncate(size: number): Promise<void> {
    return this.inner.truncate(size);
  }
  flush(opts?: { durable?: boolean }): Promise<void> {
    return this.inner.flush(opts);
  }
  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

/** The flush before this change: no object graph, so changed headers are rewritten in place. */
function inPlace(f: H5File): void {
  (f as unknown as { ctx: FileContext }).ctx.writer!.graph = null;
}

interface StreamResult {
  bytesPerFlush: number;
  writesPerFlush: number;
  msPerFlush: number;
  fileBytes: number;
}

async function stream(dir: string, mode: 'in place' | 'atomic'): Promise<StreamResult> {
  const path = join(dir, `stream-${mode.replace(' ', '-')}.h5`);
  rmSync(path, { force: true });
  const store = new CountingStore(await NodeFileStore.open(path, 'w'));
  const f = await createFile(store);
  if (mode === 'in place') inPlace(f);
  const frames = await f.createDataset('entry/data/frames', { dtype: 'uint16', shape: [0, S, S], maxShape: [null, S, S], chunks: [1, S, S], compression: 'gzip', compressionOpts: 1 });
  const times = await f.createDataset('entry/data/timestamps', { dtype: 'float64', shape: [0], maxShape: [null], chunks: [64] });
  const count = await f.createDataset('entry/instrument/detector/count', { dtype: 'int32', shape: [1] });
  const entry = (await f.get('entry')) as Group;
  await f.flush();
  const rnd = xorshift32(12345);
  const frame = new Uint16Array(S * S);
  let flushMs = 0;
  let flushWrites = 0;
  let flushBytes = 0;
  for (let i = 0; i < FRAMES; i++) {
    for (let k = 0; k < frame.length; k++) frame[k] = 4 + (rnd() & 7);
    await frames.resize([i + 1, S, S]);
    await frames.write(frame, selectHyperslab({ start: [i, 0, 0], block: [1, S, S] }));
    await times.resize([i + 1]);
    await times.write(Float64Array.of(i * 0.01), selectHyperslab({ start: [i], block: [1] }));
    await count.write(Int32Array.of(i + 1));
    await entry.attrs.set('frames', i + 1);
    const w = store.writes;
    const b = store.bytes;
    const t0 = performance.now();
    await f.flush({ durable: DURABLE });
    flushMs += performance.now() - t0;
    flushWrites += store.writes - w;
    flushBytes += store.bytes - b;
  }
  await f.close();
  return { bytesPerFlush: flushBytes / FRAMES, writesPerFlush: flushWrites / FRAMES, msPerFlush: flushMs / FRAMES, fileBytes: statSync(path).size };
}

/** First and later flushes of an r+ session on an h5py file with many objects (one dataset changed per flush). */
async function rplusFlushes(dir: string, mode: 'in place' | 'atomic'): Promise<{ ms: number; bytes: number; laterMs: number; laterBytes: number }> {
  const base = join(dir, 'many.h5');
  const path = join(dir, `many-${mode.replace(' ', '-')}.h5`);
  spawnSync('cp', [base, path]);
  const store = new CountingStore(await NodeFileStore.open(path, 'r+'));
  const f = await openFile(store, { mode: 'r+' });
  if (mode === 'in place') inPlace(f);
  const d = (await f.get('a1/b2/c3/d4')) as Dataset;
  await d.write(Int32Array.of(-1), selectHyperslab({ start: [0], block: [1] }));
  let b = store.bytes;
  let t0 = performance.now();
  await f.flush();
  const ms = performance.now() - t0;
  const bytes = store.bytes - b;
  const LATER = 50;
  let laterMs = 0;
  b = store.bytes;
  for (let i = 0; i < LATER; i++) {
    await d.write(Int32Array.of(i), selectHyperslab({ start: [1], block: [1] }));
    t0 = performance.now();
    await f.flush();
    laterMs += performance.now() - t0;
  }
  const laterBytes = (store.bytes - b) / LATER;
  await f.close();
  return { ms, bytes, laterMs: laterMs / LATER, laterBytes };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-bench-atomic-'));
  try {
    console.log(`atomic flush: ${FRAMES} frames of ${S}×${S} uint16, flush after each${DURABLE ? ' (durable)' : ''}`);
    console.log('  mode        bytes/flush  writes/flush  ms/flush  file bytes');
    // alternate the modes (and keep the best of two rounds) so machine load hits both alike
    const best: Record<string, StreamResult> = {};
    for (let round = 0; round < 2; round++) {
      for (const mode of ['in place', 'atomic'] as const) {
        const r = await stream(dir, mode);
        if (!best[mode] || r.msPerFlush < best[mode]!.msPerFlush) best[mode] = r;
      }
    }
    for (const mode of ['in place', 'atomic']) {
      const r = best[mode]!;
      console.log(`  ${mode.padEnd(10)} ${r.bytesPerFlush.toFixed(0).padStart(12)} ${r.writesPerFlush.toFixed(1).padStart(13)} ${r.msPerFlush.toFixed(3).padStart(9)} ${String(r.fileBytes).padStart(11)}`);
    }
    const py = spawnSync(
      '/usr/bin/python3',
      [
        '-c',
        `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    n = 0
    for a in range(8):
        for b in range(8):
            for c in range(8):
                g = f.create_group('a%d/b%d/c%d' % (a, b, c))
                for d in range(8):
                    if n < ${OBJECTS}:
                        g.create_dataset('d%d' % d, data=np.arange(4, dtype='i4'))
                        n += 1
`,
        join(dir, 'many.h5'),
      ],
      { encoding: 'utf8' },
    );
    if (py.status !== 0) throw new Error(py.stderr);
    console.log(`r+ session on an h5py file with ${OBJECTS} datasets, 8 per group, 3 levels of 8 groups (one contiguous dataset changed per flush):`);
    console.log('  mode        first flush ms  bytes   later flushes ms  bytes (mean of 50, data copy before the flush not counted)');
    for (const mode of ['in place', 'atomic'] as const) {
      let r = await rplusFlushes(dir, mode);
      const again = await rplusFlushes(dir, mode);
      if (again.ms < r.ms) r = again;
      console.log(`  ${mode.padEnd(10)} ${r.ms.toFixed(1).padStart(14)} ${String(r.bytes).padStart(6)} ${r.laterMs.toFixed(2).padStart(18)} ${r.laterBytes.toFixed(0).padStart(6)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
