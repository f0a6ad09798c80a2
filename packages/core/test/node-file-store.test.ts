/**
 * `NodeFileStore` (the local-file ByteStore): reads, writes, truncation — including that setting
 * the size a file already has is a no-op (on ext4 a truncate to 0 makes close() flush everything
 * written since), that `createFile` on an existing path starts from an empty file, and the
 * thread-pool reads: large reads in parallel pieces and scatter reads (`readv`), both stopping at
 * the end of the file; large writes on the thread pool, which close() waits for; and `localFile()`
 * (for filter workers reading chunks themselves): the absolute path and identity of the file open,
 * null while a write on the thread pool is unfinished and after close.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, InvalidStateError, openFile, type Dataset } from '@chunkform/core';
import { NodeFileStore, PARALLEL_READ_BYTES, THREADED_WRITE_BYTES } from '../src/io/node-file.js';

describe('NodeFileStore', () => {
  it('writes, reads, and truncates (same size: unchanged; smaller; larger with zeros)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cf-nfs-')), 'a.bin');
    const s = await NodeFileStore.open(path, 'w');
    await s.truncate(0);
    expect(await s.size()).toBe(0);
    await s.write(3, Uint8Array.of(1, 2, 3, 4));
    expect(await s.size()).toBe(7);
    await s.truncate(7);
    expect(Array.from(await s.read(0, 7))).toEqual([0, 0, 0, 1, 2, 3, 4]);
    await s.truncate(5);
    expect(Array.from(await s.read(0, 10))).toEqual([0, 0, 0, 1, 2]);
    await s.truncate(8);
    const into = new Uint8Array(8).fill(9);
    expect(await s.readInto(0, into)).toBe(8);
    expect(Array.from(into)).toEqual([0, 0, 0, 1, 2, 0, 0, 0]);
    await s.close();
    expect(statSync(path).size).toBe(8);
  });

  it('createFile over an existing file replaces its contents', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cf-nfs-')), 'b.h5');
    writeFileSync(path, new Uint8Array(1 << 16).fill(0xaa));
    const f = await createFile(path);
    await f.createDataset('x', { dtype: 'uint16', shape: [4], data: Uint16Array.of(1, 2, 3, 4) });
    await f.close();
    expect(statSync(path).size).toBeLessThan(1 << 16);
    expect(readFileSync(path).subarray(0, 8).toString('latin1')).toBe('\x89HDF\r\n\x1a\n');
    const g = await openFile(path);
    expect(Array.from((await ((await g.get('x')) as Dataset).read()) as Uint16Array)).toEqual([1, 2, 3, 4]);
    await g.close();
  });

  it('reads large ranges in parallel pieces, the same bytes as a plain read, and stops at the end of the file', async () => {
    const n = 3 * PARALLEL_READ_BYTES + 12345;
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + (i >>> 13)) & 255);
    const path = join(mkdtempSync(join(tmpdir(), 'cf-nfs-')), 'big.bin');
    writeFileSync(path, bytes);
    const s = await NodeFileStore.open(path, 'r');
    const all = new Uint8Array(n - 7);
    expect(await s.readInto(7, all)).toBe(n - 7);
    expect(Buffer.compare(all, bytes.subarray(7))).toBe(0);
    // Past the end: the bytes up to the end, no more.
    const over = new Uint8Array(PARALLEL_READ_BYTES * 2).fill(0xee);
    const from = n - PARALLEL_READ_BYTES - 100;
    expect(await s.readInto(from, over)).toBe(PARALLEL_READ_BYTES + 100);
    expect(Buffer.compare(over.subarray(0, PARALLEL_READ_BYTES + 100), bytes.subarray(from))).toBe(0);
    expect(over[PARALLEL_READ_BYTES + 100]).toBe(0xee);
    await s.close();
  });

  it('scatter-reads into many targets (more than one preadv takes) and stops at the end of the file', async () => {
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7 + (i >>> 9)) & 255);
    const path = join(mkdtempSync(join(tmpdir(), 'cf-nfs-')), 'v.bin');
    writeFileSync(path, bytes);
    const s = await NodeFileStore.open(path, 'r');
    // 3000 targets of 1–40 bytes (some empty) spread over one buffer out of order.
    const out = new Uint8Array(120_000).fill(0xee);
    const targets: Uint8Array[] = [];
    let used = 0;
    for (let k = 0; k < 3000; k++) {
      const len = (k * 37) % 41;
      const at = ((k * 7919) % 3000) * 40; // a permutation of the 3000 slots
      targets.push(out.subarray(at, at + len));
      used += len;
    }
    expect(await s.readv(11, targets)).toBe(used);
    let pos = 11;
    for (const t of targets) {
      expect(t).toEqual(bytes.subarray(pos, pos + t.length));
      pos += t.length;
    }
    // The same targets from near the end: filled up to the end of the file.
    expect(await s.readv(100_000 - 500, targets)).toBe(500);
    await s.close();
  });

  it('close() during thread-pool reads waits for them; they never read a file opened afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cf-nfs-'));
    const n = 8 * PARALLEL_READ_BYTES;
    writeFileSync(join(dir, 'a.bin'), new Uint8Array(n).fill(0xaa));
    writeFileSync(join(dir, 'b.bin'), new Uint8Array(n).fill(0xbb));
    const a = await NodeFileStore.open(join(dir, 'a.bin'), 'r');
    const target = new Uint8Array(n);
    const reading = a.readInto(0, target).then(
      (got) => ({ got }),
      (error: unknown) => ({ error }),
    );
    await Promise.resolve();
    await a.close();
    const b = await NodeFileStore.open(join(dir, 'b.bin'), 'r');
    const r = await reading;
    await b.close();
    expect(target.includes(0xbb)).toBe(false);
    if ('error' in r) expect(r.error).toBeInstanceOf(InvalidStateError);
    else expect(r.got).toBe(n);
    await expect(a.readInto(0, new Uint8Array(n))).rejects.toThrow(InvalidStateError);
  });

  it('writes large buffers on the thread pool (the same bytes as small writes, several in flight); close() waits for them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cf-nfs-'));
    const n = 3 * THREADED_WRITE_BYTES + 77;
    const big = Uint8Array.from({ length: n }, (_, i) => (i * 31 + (i >> 9)) & 255);
    const s = await NodeFileStore.open(join(dir, 'w.bin'), 'w');
    // Two large writes in flight at once, a small (synchronous) one between them, then close right away.
    const a = s.write(5, big.subarray(0, THREADED_WRITE_BYTES));
    await s.write(0, Uint8Array.of(1, 2, 3, 4, 5));
    const b = s.write(5 + THREADED_WRITE_BYTES, big.subarray(THREADED_WRITE_BYTES));
    const closing = s.close();
    await Promise.all([a, b, closing]);
    const got = readFileSync(join(dir, 'w.bin'));
    expect(got.length).toBe(5 + n);
    expect(Array.from(got.subarray(0, 5))).toEqual([1, 2, 3, 4, 5]);
    expect(got.subarray(5).equals(big)).toBe(true);
  });

  it('localFile(): the absolute path and identity of the file open; null during a thread-pool write and after close', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cf-nfs-')), 'l.bin');
    writeFileSync(path, new Uint8Array(16));
    // a relative path is given absolute (another thread resolves it whatever the directory then)
    const s = await NodeFileStore.open(relative(process.cwd(), path), 'r+');
    const st = statSync(path, { bigint: true });
    expect(s.localFile()).toEqual({ path, identity: `${st.dev}:${st.ino}` });
    expect(isAbsolute(s.localFile()!.path)).toBe(true);
    // a small write is a system call done when it returns: its bytes are visible to every handle
    await s.write(0, Uint8Array.of(1, 2, 3));
    expect(s.localFile()).not.toBeNull();
    // a large write runs on the thread pool: no local file until it has finished
    const big = s.write(16, new Uint8Array(THREADED_WRITE_BYTES).fill(7));
    expect(s.localFile()).toBeNull();
    await big;
    expect(s.localFile()).not.toBeNull();
    await s.close();
    expect(s.localFile()).toBeNull();
  });
});
