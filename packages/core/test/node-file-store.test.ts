/**
 * `NodeFileStore` (the local-file ByteStore): reads, writes, truncation — including that setting
 * the size a file already has is a no-op (on ext4 a truncate to 0 makes close() flush everything
 * written since), and that `createFile` on an existing path starts from an empty file.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFile, openFile, type Dataset } from '@chunkform/core';
import { NodeFileStore } from '../src/io/node-file.js';

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
});
