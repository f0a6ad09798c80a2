/**
 * Cost of copy-on-write chunk indexes (issue #10): a streaming append of BENCH_COW_CHUNKS (default
 * 2,000) chunk records with a flush every BENCH_COW_EVERY (default 10) chunks into an extensible array
 * (one unlimited dimension, HDF5's default parameters) and a v2 B-tree (two unlimited dimensions,
 * HDF5's default 2048-byte nodes), each unfiltered and filtered. Only the index is measured (chunk
 * data is the same either way): bytes the index writes per flush and the space its file region
 * needs, with core's allocator and core's rule that released flushed space is reused only after the
 * next flush.
 *
 * "in place" is the behaviour before copy-on-write (every structure counts as fresh, so it is
 * rewritten where it is); "copy-on-write" is the contract: nothing flushed is written again.
 *
 * Run alone: `node --import tsx bench/cow-index.ts`. Not a test: numbers describe one workload.
 */
import { MemoryStore } from '../packages/core/src/index.js';
import type { ChunkIndexContext, ChunkIndexProvider, IndexStorage } from '../packages/core/src/chunk/chunk-index.js';
import { Allocator } from '../packages/core/src/file/allocator.js';
import { SourceMetadataReader } from '../packages/core/src/file/metadata-reader.js';
import { DEFAULT_SIZES } from '../packages/core/src/format/bytes.js';
import { DEFAULT_BTREE2_INDEX_INFO } from '../packages/core/src/index.js';
import { ExtensibleArrayProvider, DEFAULT_EXTENSIBLE_ARRAY_INFO } from '../packages/indexes/src/extensible-array/extensible-array-index.js';
import { btree2IndexProvider } from '../packages/indexes/src/btree2/btree2-index.js';

const CHUNKS = Number(process.env.BENCH_COW_CHUNKS ?? 2000);
const EVERY = Number(process.env.BENCH_COW_EVERY ?? 10);

/** Core's allocator with its deferred reuse of flushed space, counting the bytes written. */
class MeasuredStorage implements IndexStorage {
  readonly allocator = new Allocator(0);
  readonly store = new MemoryStore();
  written = 0;
  /** Highest end of file seen. */
  peak = 0;
  private retired: [number, number][] = [];
  constructor(private readonly cow: boolean) {}
  alloc(size: number): number {
    const a = this.allocator.alloc(size);
    this.peak = Math.max(this.peak, this.allocator.eof);
    return a;
  }
  release(address: number, size: number): void {
    if (this.allocator.isFresh(address, size)) this.allocator.release(address, size);
    else this.retired.push([address, size]);
  }
  isFresh(address: number, size: number): boolean {
    return this.cow ? this.allocator.isFresh(address, size) : true;
  }
  async write(address: number, bytes: Uint8Array): Promise<void> {
    this.written += bytes.length;
    await this.store.write(address, bytes);
  }
  /** What core does after a successful flush. */
  flushed(): void {
    // released flushed space is deferred by the allocator until commit() (which also ends freshness)
    for (const [a, n] of this.retired.splice(0)) this.allocator.release(a, n);
    this.allocator.commit();
  }
}

interface Result {
  perFlush: number[];
  eof: number;
  peak: number;
}

async function stream(provider: ChunkIndexProvider, info: ChunkIndexContext['info'], maxDims: number[], filtered: boolean, cow: boolean): Promise<Result> {
  const storage = new MeasuredStorage(cow);
  const ctx: ChunkIndexContext = {
    reader: new SourceMetadataReader(storage.store, DEFAULT_SIZES, 0),
    sizes: DEFAULT_SIZES,
    dims: maxDims.map(() => 0),
    maxDims,
    chunkDims: maxDims.map(() => 64),
    elementSize: 2,
    filtered,
    info,
    datasetPath: '/stream',
    storage,
  };
  const idx = await provider.create(ctx);
  const perFlush: number[] = [];
  let chunkAddress = 1 << 30; // chunk data lives elsewhere: only the index is measured
  for (let i = 0; i < CHUNKS; i++) {
    const coords = maxDims.map((_, d) => (d === 0 ? i : 0));
    await idx.insert({ coords, address: chunkAddress, size: filtered ? 3000 + (i % 500) : 8192, filterMask: 0 });
    chunkAddress += 8192;
    if ((i + 1) % EVERY === 0 || i === CHUNKS - 1) {
      storage.written = 0;
      await idx.flush();
      perFlush.push(storage.written);
      storage.flushed();
    }
  }
  return { perFlush, eof: storage.allocator.eof, peak: storage.peak };
}

function summary(r: Result): string {
  const total = r.perFlush.reduce((a, b) => a + b, 0);
  const last = r.perFlush.slice(-10);
  const tail = Math.round(last.reduce((a, b) => a + b, 0) / last.length);
  return `${(total / r.perFlush.length).toFixed(0).padStart(7)} B/flush mean, ${String(tail).padStart(7)} B/flush over the last 10, ${String(Math.max(...r.perFlush)).padStart(7)} max; index region ${String(r.eof).padStart(7)} B at the end (peak ${r.peak})`;
}

const cases: [string, ChunkIndexProvider, ChunkIndexContext['info'], number[]][] = [
  ['extensible array', new ExtensibleArrayProvider(), DEFAULT_EXTENSIBLE_ARRAY_INFO, [-1, 64]],
  ['v2 B-tree', btree2IndexProvider, DEFAULT_BTREE2_INDEX_INFO, [-1, -1]],
];
console.log(`${CHUNKS} chunks, flush every ${EVERY}`);
for (const [name, provider, info, maxDims] of cases) {
  for (const filtered of [false, true]) {
    for (const cow of [false, true]) {
      const r = await stream(provider, info, maxDims, filtered, cow);
      console.log(`${`${name}${filtered ? ', filtered' : ''}`.padEnd(28)} ${(cow ? 'copy-on-write' : 'in place').padEnd(14)} ${summary(r)}`);
    }
  }
}
