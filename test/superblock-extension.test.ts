/**
 * Files whose superblock has an extension, opened 'r+': a flush rewrites the superblock without the
 * extension, which is safe for a persistent free-space manager (h5py `fs_persist=True`) but would
 * lose shared-message tables, B-tree K values or driver information — such files are refused for
 * writing before anything is touched, and still open read-only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { openFile, UnsupportedError, type Dataset } from '../packages/core/src/index.js';
import { lookup3 } from '../packages/core/src/plugin.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-sbext-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** An h5py file (latest format) with a persistent free-space manager: its superblock has an extension. */
function fsmFile(path: string): void {
  requireH5py();
  execFileSync(PYTHON, [
    '-c',
    [
      'import h5py, numpy as np, sys',
      'with h5py.File(sys.argv[1], "w", libver="latest", fs_strategy="fsm", fs_persist=True) as f:',
      '    f.create_dataset("d", data=np.arange(10, dtype="i4"))',
    ].join('\n'),
    path,
  ]);
}

/** Offset of the first message of type `from` in the v2 object header at `address`; the type byte is changed to `to` and the checksum redone. */
function retypeMessage(bytes: Uint8Array, address: number, from: number, to: number): void {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(String.fromCharCode(...bytes.subarray(address, address + 4))).toBe('OHDR');
  const flags = bytes[address + 5]!;
  let p = address + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
  const sizeBytes = 1 << (flags & 0x03);
  const chunkSize = sizeBytes === 1 ? bytes[p]! : sizeBytes === 2 ? dv.getUint16(p, true) : dv.getUint32(p, true);
  p += sizeBytes;
  const end = p + chunkSize;
  const prefix = flags & 0x04 ? 6 : 4;
  let found = false;
  while (p + prefix <= end) {
    const type = bytes[p]!;
    const size = dv.getUint16(p + 1, true);
    if (type === from) {
      bytes[p] = to;
      found = true;
      break;
    }
    p += prefix + size;
  }
  expect(found).toBe(true);
  dv.setUint32(end, lookup3(bytes.subarray(address, end)), true);
}

describe('superblock extension and r+', () => {
  it('a persistent free-space manager: r+ works, h5py reads the result', async () => {
    const path = join(TMP, 'fsm.h5');
    fsmFile(path);
    const f = await openFile(path, { mode: 'r+' });
    await f.createDataset('e', { dtype: 'int32', shape: [3], data: [7, 8, 9] });
    await f.close();
    const out = execFileSync(PYTHON, ['-c', 'import h5py,sys; f=h5py.File(sys.argv[1],"r"); print(f["d"][()].tolist(), f["e"][()].tolist())', path], { encoding: 'utf8' });
    expect(out.trim()).toBe('[0, 1, 2, 3, 4, 5, 6, 7, 8, 9] [7, 8, 9]');
  });

  it('an extension holding other messages (B-tree K values): r+ is refused and the file is untouched', async () => {
    const path = join(TMP, 'btk.h5');
    fsmFile(path);
    const bytes = new Uint8Array(readFileSync(path));
    const dv = new DataView(bytes.buffer);
    // superblock v2/v3: signature 8, version, offset size, length size, flags, base address, extension address
    const ext = Number(dv.getBigUint64(20, true));
    retypeMessage(bytes, ext, 0x17 /* file space info */, 0x13 /* B-tree 'K' values */);
    // the superblock's own checksum does not cover the extension header: the file stays valid
    writeFileSync(path, bytes);
    const err = await openFile(path, { mode: 'r+' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedError);
    expect(String((err as Error).message)).toMatch(/superblock extension holds .*K/);
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes);
    const r = await openFile(path);
    expect(Array.from((await ((await r.get('d')) as Dataset).read()) as Int32Array)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await r.close();
  });
});
