/**
 * Copy-on-write for `r+` edits (issue #10 item 2) and the durable flush:
 * - the reproduction: an h5py file, one gzip chunk overwritten in `r+`, the process "killed"
 *   before `flush()` (the file store closed without a flush) — the file still reads with the old
 *   values in chunkform and h5py; after a flush, with the new ones;
 * - raw writes into the flushed state are refused with a typed error naming the address;
 * - `flush({ durable: true })` syncs data before the superblock and object headers, and again after;
 * - flushed global heap collections are sealed; contiguous data is copied once per flush;
 * - v1 B-tree datasets refuse chunk rewrites with a typed error naming the dataset.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  InvalidStateError,
  MemoryStore,
  openFile,
  selectHyperslab,
  UnsupportedError,
  type Dataset,
  type H5File,
} from '../packages/core/src/index.js';
import { NodeFileStore } from '../packages/core/src/node.js';
import type { FileWriter } from '../packages/core/src/file/file-writer.js';
import { runPython as py } from './oracle/fixtures.js';
import { DyingStore } from './oracle/dying-store.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-cow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** h5py's values of `name` in `path`, flattened. */
function h5pyValues(path: string, name: string): number[] {
  return JSON.parse(py(`import h5py, json, sys\nf = h5py.File(sys.argv[1], 'r')\nprint(json.dumps(f[sys.argv[2]][()].ravel().tolist()))`, path, name)) as number[];
}

async function chunkformValues(src: string | Uint8Array, name: string): Promise<number[]> {
  const f = await openFile(src);
  try {
    return Array.from((await ((await f.get(name)) as Dataset).read()) as ArrayLike<number>);
  } finally {
    await f.close();
  }
}

const writerOf = (f: H5File): FileWriter => (f as unknown as { ctx: { writer: FileWriter } }).ctx.writer;

describe("r+ edits are copy-on-write", () => {
  let base: string;
  const original = Array.from({ length: 256 }, (_, i) => i);
  beforeAll(() => {
    base = join(dir, 'gzip-base.h5');
    py(
      `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    f.create_dataset('gz', data=np.arange(256, dtype='i4').reshape(16, 16), chunks=(4, 4), compression='gzip')
    f.create_dataset('contig', data=np.arange(32, dtype='i4'))
    f.create_dataset('v1', data=np.arange(16, dtype='i4'), chunks=(4,))`,
      base,
    );
  });

  it('the issue: a gzip chunk overwritten in r+, killed before flush → old values in chunkform and h5py', async () => {
    const path = join(dir, 'killed.h5');
    copyFileSync(base, path);
    const store = await NodeFileStore.open(path, 'r+');
    const f = await openFile(store, { mode: 'r+' });
    const d = (await f.get('gz')) as Dataset;
    const chunk = Int32Array.from({ length: 16 }, (_, i) => 9000 + i);
    await d.write(chunk, selectHyperslab({ start: [4, 4], block: [4, 4] }));
    // the new chunk is already in the file (new space), the old one untouched
    expect(Array.from((await d.read(selectHyperslab({ start: [4, 4], block: [1, 4] }))) as Int32Array)).toEqual([9000, 9001, 9002, 9003]);
    // "kill": the process ends without flush() (nothing more reaches the file)
    await store.close();
    expect(await chunkformValues(path, 'gz')).toEqual(original);
    expect(h5pyValues(path, 'gz')).toEqual(original);

    // the same edit, flushed: the new values
    const g = await openFile(path, { mode: 'r+' });
    await ((await g.get('gz')) as Dataset).write(chunk, selectHyperslab({ start: [4, 4], block: [4, 4] }));
    await g.close();
    const want = original.slice();
    for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) want[(4 + r) * 16 + 4 + c] = 9000 + r * 4 + c;
    expect(await chunkformValues(path, 'gz')).toEqual(want);
    expect(h5pyValues(path, 'gz')).toEqual(want);
  });

  it('a kill during the flush (every write index) leaves old or new values, never a broken chunk', async () => {
    const bytes = new Uint8Array(readFileSync(base));
    const run = async (store: DyingStore, limit: number): Promise<void> => {
      await store.inner.write(0, bytes);
      const f = await openFile(store, { mode: 'r+' });
      store.arm(limit);
      const d = (await f.get('gz')) as Dataset;
      // partial writes: the chunks are changed in memory and written at flush
      await d.write(Int32Array.from([-1, -2, -3]), selectHyperslab({ start: [0, 3], block: [1, 3] }));
      await f.flush();
    };
    const counting = new DyingStore();
    await run(counting, Infinity);
    const after = await chunkformValues(counting.bytes(), 'gz');
    for (let k = 0; k < counting.writes; k++) {
      const s = new DyingStore();
      await expect(run(s, k)).rejects.toThrow(/died/);
      const got = await chunkformValues(s.bytes(), 'gz');
      expect([original, after].some((v) => JSON.stringify(v) === JSON.stringify(got))).toBe(true);
    }
  });

  it('raw writes into the flushed state are refused with InvalidStateError naming the address', async () => {
    const f = await openFile(new MemoryStore(new Uint8Array(readFileSync(base))), { mode: 'r+' });
    const w = writerOf(f);
    const d = (await f.get('gz')) as Dataset;
    const [first] = await (async () => {
      const out: { address: number; size: number }[] = [];
      await d.iterateChunks((c) => void out.push(c));
      return out;
    })();
    const err = await w.writeRaw(first!.address, new Uint8Array(4)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidStateError);
    expect((err as InvalidStateError).address).toBe(first!.address);
    expect(String(err)).toContain(`address ${first!.address}`);
    // fresh space may be written (and rewritten) before the next flush, not after
    const fresh = w.allocator.alloc(16);
    await w.writeRaw(fresh, new Uint8Array(16).fill(1));
    await w.writeRaw(fresh, new Uint8Array(16).fill(2));
    await f.flush();
    await expect(w.writeRaw(fresh, new Uint8Array(16))).rejects.toBeInstanceOf(InvalidStateError);
    await f.close();
  });

  it('contiguous data: copied to new space on the first write after a flush, written in place until the next', async () => {
    const store = new DyingStore(new MemoryStore(new Uint8Array(readFileSync(base))));
    const f = await openFile(store, { mode: 'r+' });
    const d = (await f.get('contig')) as Dataset;
    store.arm(Infinity);
    // the first write copies the block to new space (then writes the element there) ...
    await d.write(Int32Array.from([-1]), selectHyperslab({ start: [3], block: [1] }));
    expect(store.writes).toBe(2);
    // ... the next one goes straight into the copy
    const first = store.writes;
    await d.write(Int32Array.from([-2]), selectHyperslab({ start: [4], block: [1] }));
    expect(store.writes - first).toBe(1);
    const before = await chunkformValues(store.bytes(), 'contig');
    expect(before).toEqual(Array.from({ length: 32 }, (_, i) => i));
    await f.flush();
    const want = Array.from({ length: 32 }, (_, i) => (i === 3 ? -1 : i === 4 ? -2 : i));
    expect(await chunkformValues(store.bytes(), 'contig')).toEqual(want);
    await f.close();
  });

  it('v1 B-tree datasets refuse rewriting a stored chunk with UnsupportedError naming the dataset', async () => {
    const path = join(dir, 'v1.h5');
    py(
      `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w', libver=('v108', 'v108')) as f:
    f.create_dataset('v1', data=np.arange(16, dtype='i4'), chunks=(4,))`,
      path,
    );
    const f = await openFile(path, { mode: 'r+' });
    const d = (await f.get('v1')) as Dataset;
    const err = await d.write(Int32Array.from([-1]), selectHyperslab({ start: [1], block: [1] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedError);
    expect((err as UnsupportedError).path).toContain('/v1');
    expect(String(err)).toMatch(/h5repack/);
    await f.close();
    expect(h5pyValues(path, 'v1')).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });
});

describe('flush', () => {
  /** A memory store that logs writes (by address) and flushes. */
  class LoggingStore extends MemoryStore {
    log: string[] = [];
    override async write(offset: number, bytes: Uint8Array): Promise<void> {
      this.log.push(`w${offset}`);
      await super.write(offset, bytes);
    }
    override async flush(opts?: { durable?: boolean }): Promise<void> {
      this.log.push(opts?.durable ? 'sync' : 'flush');
    }
  }

  it('durable: data and moved headers to new space, sync, the superblock alone in place, sync', async () => {
    const store = new LoggingStore();
    const f = await createFile(store);
    const d = await f.createDataset('d', { dtype: 'int32', shape: [0], maxShape: [null], chunks: [4], compression: 'gzip' });
    await f.flush();
    const addressOf = (o: unknown): number => (o as { headerModel: { address: number } }).headerModel.address;
    const before = [f, d].map(addressOf);
    store.log = [];
    await d.resize([8]);
    await d.write(Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    await f.createGroup('g');
    await f.flush({ durable: true });
    const log = store.log;
    const sb = log.indexOf('w0');
    expect(sb).toBeGreaterThan(0);
    expect(log[sb - 1]).toBe('sync');
    // the superblock is the one write of the commit, then the final sync
    expect(log.slice(sb)).toEqual(['w0', 'sync']);
    // every write before it goes to new space (not over the flushed headers)
    expect(log.slice(0, sb - 1).every((e) => e.startsWith('w') && e !== 'w0' && !before.includes(Number(e.slice(1))))).toBe(true);
    // the changed headers (root group, dataset) moved; handles follow
    const after = [f, d].map(addressOf);
    expect(after.every((a, i) => a !== before[i])).toBe(true);
    expect((await f.getLink('d')).address).toBe(after[1]);
    expect(Array.from((await d.read()) as Int32Array)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // without durable: no sync
    store.log = [];
    await d.write(Int32Array.from([9]), selectHyperslab({ start: [0], block: [1] }));
    await f.flush();
    expect(store.log.includes('sync')).toBe(false);
    await f.close({ durable: true });
    expect(store.log[store.log.length - 1]).toBe('sync');
  });

  it('durable flush on a file path (NodeFileStore fsync)', async () => {
    const path = join(dir, 'durable.h5');
    const f = await createFile(path);
    await f.createDataset('x', { dtype: 'float64', shape: [3], data: Float64Array.from([1, 2, 3]) });
    await f.flush({ durable: true });
    await f.close({ durable: true });
    expect(await chunkformValues(path, 'x')).toEqual([1, 2, 3]);
    expect(h5pyValues(path, 'x')).toEqual([1, 2, 3]);
  });

  it('flushed global heap collections are sealed: later variable-length data goes to a new collection', async () => {
    const store = new MemoryStore();
    const f = await createFile(store);
    await f.createDataset('a', { dtype: 'str', shape: [2], data: ['first', 'second'] });
    await f.flush();
    await f.createDataset('b', { dtype: 'str', shape: [1], data: ['third'] });
    await f.attrs.set('note', 'an attribute');
    await f.close();
    const g = await openFile(store.toBytes());
    expect(Array.from((await ((await g.get('a')) as Dataset).read()) as string[])).toEqual(['first', 'second']);
    expect(Array.from((await ((await g.get('b')) as Dataset).read()) as string[])).toEqual(['third']);
    await g.close();
  });
});

describe('flushes called together', () => {
  it('run one after the other: each commits before the next starts', async () => {
    /** Writes take a while, so flushes in flight would interleave; logs superblock writes and flushes. */
    class SlowStore extends MemoryStore {
      events = '';
      override async write(offset: number, bytes: Uint8Array): Promise<void> {
        await new Promise((r) => setTimeout(r, 1));
        if (offset === 0) this.events += 'S';
        await super.write(offset, bytes);
      }
      override async flush(): Promise<void> {
        this.events += 'f';
      }
    }
    const store = new SlowStore();
    const f = await createFile(store);
    const d = await f.createDataset('d', { dtype: 'int32', shape: [32], chunks: [4], compression: 'gzip' });
    const want = Array.from({ length: 32 }, (_, i) => i * 3);
    // partial writes: dirty cached chunks, written by the first flush
    for (let i = 0; i < 32; i += 2) await d.write(Int32Array.from([want[i]!, want[i + 1]!]), selectHyperslab({ start: [i], block: [2] }));
    store.events = '';
    await Promise.all([f.flush(), f.flush(), f.flush()]);
    // per flush: superblock, then the store flushed — never two flushes' phases mixed
    expect(store.events).toBe('Sf'.repeat(3));
    await f.close();
    expect(await chunkformValues(store.toBytes(), 'd')).toEqual(want);
  });
});
