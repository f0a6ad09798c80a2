/**
 * Issue 10 items 1 and 5 (paths): `openFile` modes as h5py's — 'r', 'r+', 'w' (create/truncate),
 * 'w-'/'x' (create, fail if it exists), 'a' (open r+ or create) — validated before anything is
 * touched (the reproduction: `openFile(existing, { mode: 'w' })` used to truncate the file to 0
 * bytes, then throw TruncatedError), and a typed FileAccessError naming the path for a missing
 * path or a directory (no raw ENOENT / EISDIR). Files produced are checked with h5py.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, FileAccessError, MemoryStore, openFile, ValueError, type Dataset } from '../packages/core/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-modes-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** h5py's view of a file: the names of the root group and the values of `/d` (if any). */
function h5pyList(path: string): { keys: string[]; d: number[] | null } {
  requireH5py();
  const py = [
    'import h5py, json, sys',
    'f = h5py.File(sys.argv[1], "r")',
    'print(json.dumps({"keys": list(f.keys()), "d": f["d"][()].tolist() if "d" in f else None}))',
  ].join('\n');
  return JSON.parse(execFileSync(PYTHON, ['-c', py, path], { encoding: 'utf8' })) as { keys: string[]; d: number[] | null };
}

/** A file with one dataset `/d` = [1, 2, 3]. */
async function makeFile(path: string): Promise<Uint8Array> {
  const f = await createFile(path);
  await f.createDataset('d', { dtype: 'int32', shape: [3], data: [1, 2, 3] });
  await f.close();
  return readFileSync(path);
}

describe('openFile modes (issue 10, item 1)', () => {
  it('rejects an unknown mode with a ValueError before touching the file', async () => {
    const path = join(TMP, 'keep.h5');
    const before = await makeFile(path);
    for (const mode of ['rw', 'W', 'w+', '', 'append', 'r-'] as const) {
      const err = await openFile(path, { mode: mode as never }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValueError);
      expect((err as Error).message).toMatch(/unknown mode/);
      expect((err as Error).message).toMatch(/'w-'/);
    }
    expect(readFileSync(path)).toEqual(before);
    expect(h5pyList(path).d).toEqual([1, 2, 3]);
  });

  it("'w' on an existing file replaces it with a new empty file (no TruncatedError, readable by h5py)", async () => {
    const path = join(TMP, 'w.h5');
    await makeFile(path);
    const f = await openFile(path, { mode: 'w' });
    expect(f.mode).toBe('r+');
    expect(await f.keys()).toEqual([]);
    await f.createDataset('e', { dtype: 'uint8', shape: [2], data: [7, 8] });
    await f.close();
    expect(h5pyList(path)).toEqual({ keys: ['e'], d: null });
    // 'w' on a missing path creates it
    const fresh = join(TMP, 'w-new.h5');
    await (await openFile(fresh, { mode: 'w', superblockVersion: 3 })).close();
    expect(h5pyList(fresh).keys).toEqual([]);
  });

  for (const mode of ['w-', 'x'] as const) {
    it(`'${mode}' creates a missing file and refuses an existing one, leaving it unchanged`, async () => {
      const path = join(TMP, `excl-${mode}.h5`);
      const f = await openFile(path, { mode });
      await f.createDataset('d', { dtype: 'int16', shape: [3], data: [4, 5, 6] });
      await f.close();
      expect(h5pyList(path).d).toEqual([4, 5, 6]);
      const before = readFileSync(path);
      const err = await openFile(path, { mode }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FileAccessError);
      expect((err as FileAccessError).reason).toBe('exists');
      expect((err as Error).message).toContain(path);
      expect(readFileSync(path)).toEqual(before);
      // a ByteStore: an empty one is created in, a non-empty one refused
      const store = new MemoryStore();
      await (await openFile(store, { mode })).close();
      const size = (await store.size());
      expect(size).toBeGreaterThan(0);
      await expect(openFile(store, { mode })).rejects.toThrow(FileAccessError);
      expect(await store.size()).toBe(size);
    });
  }

  it("'a' opens an existing file read/write and creates a missing one", async () => {
    const path = join(TMP, 'a.h5');
    await makeFile(path);
    const f = await openFile(path, { mode: 'a' });
    expect(f.mode).toBe('r+');
    expect(Array.from((await (await f.get('d') as Dataset).read()) as Int32Array)).toEqual([1, 2, 3]);
    await f.createDataset('e', { dtype: 'uint8', shape: [1], data: [9] });
    await f.close();
    expect(h5pyList(path)).toEqual({ keys: ['d', 'e'], d: [1, 2, 3] });
    const fresh = join(TMP, 'a-new.h5');
    const g = await openFile(fresh, { mode: 'a' });
    await g.createDataset('d', { dtype: 'float64', shape: [2], data: [0.5, 1.5] });
    await g.close();
    expect(h5pyList(fresh).d).toEqual([0.5, 1.5]);
    // a ByteStore: empty → created, else opened
    const store = new MemoryStore();
    const m = await openFile(store, { mode: 'a' });
    await m.createDataset('d', { dtype: 'int8', shape: [1], data: [3] });
    await m.close();
    const again = await openFile(store, { mode: 'a' });
    expect(await again.keys()).toEqual(['d']);
    await again.close();
  });

  it("'r' and 'r+' keep their meaning; writing modes refuse the bytes of a file", async () => {
    const path = join(TMP, 'r.h5');
    const bytes = await makeFile(path);
    const r = await openFile(path);
    expect(r.mode).toBe('r');
    await r.close();
    const rw = await openFile(path, { mode: 'r+' });
    expect(rw.mode).toBe('r+');
    await rw.close();
    for (const mode of ['r+', 'w', 'w-', 'x', 'a'] as const) {
      await expect(openFile(bytes, { mode })).rejects.toThrow(ValueError);
    }
    await expect(openFile(path, { mode: 'w', superblockVersion: 4 as never })).rejects.toThrow(ValueError);
    expect(readFileSync(path)).toEqual(bytes);
  });
});

describe('typed errors for paths that cannot be opened (issue 10, item 5)', () => {
  it('a missing path is a FileAccessError naming it, in every mode that needs the file', async () => {
    const path = join(TMP, 'missing', 'nothing.h5');
    for (const mode of ['r', 'r+'] as const) {
      const err = await openFile(join(TMP, 'nothing.h5'), { mode }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FileAccessError);
      expect((err as FileAccessError).reason).toBe('not-found');
      expect((err as Error).message).toContain('nothing.h5');
      expect((err as { code?: string }).code).toBeUndefined();
    }
    // a missing folder: also typed for the creating modes
    for (const mode of ['w', 'w-', 'x', 'a'] as const) {
      const err = await openFile(path, { mode }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FileAccessError);
      expect((err as FileAccessError).reason).toBe('not-found');
    }
    await expect(createFile(path)).rejects.toThrow(FileAccessError);
  });

  it('a directory is a FileAccessError naming it, in every mode, and is left alone', async () => {
    const dir = join(TMP, 'adir');
    mkdirSync(dir);
    writeFileSync(join(dir, 'inside.txt'), 'x');
    for (const mode of ['r', 'r+', 'w', 'w-', 'x', 'a'] as const) {
      const err = await openFile(dir, { mode }).catch((e: unknown) => e);
      expect(err, mode).toBeInstanceOf(FileAccessError);
      expect(['is-directory', 'exists']).toContain((err as FileAccessError).reason);
      expect((err as Error).message).toContain(dir);
    }
    const err = await createFile(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileAccessError);
    expect((err as FileAccessError).reason).toBe('is-directory');
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, 'inside.txt'), 'utf8')).toBe('x');
  });
});
