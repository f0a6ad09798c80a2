import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChecksumError, FormatError, TruncatedError, UnsupportedError, ValueError } from '../src/errors.js';
import { UNDEFINED_ADDRESS } from '../src/format/bytes.js';
import {
  decodeSuperblock,
  encodeSuperblock,
  findSuperblockOffsets,
  SUPERBLOCK_MAX_SIZE,
  SUPERBLOCK_SIGNATURE,
} from '../src/format/superblock.js';
import { PY, hasH5py } from './support/python.js';


const GEN = String.raw`
import h5py, numpy as np, ctypes, sys, os
d = sys.argv[1]
def p(n): return os.path.join(d, n)
with h5py.File(p('earliest.h5'), 'w', libver='earliest') as f:
    f.create_dataset('d', data=np.arange(10, dtype='i4'))
with h5py.File(p('v108.h5'), 'w', libver=('v108', 'v108')) as f:
    f.create_dataset('d', data=np.arange(10, dtype='i4'))
with h5py.File(p('latest.h5'), 'w', libver='latest') as f:
    f.create_dataset('d', data=np.arange(10, dtype='i4'))
with h5py.File(p('userblock.h5'), 'w', libver='latest', userblock_size=1024) as f:
    f.create_group('g')
lib = ctypes.CDLL('libhdf5_serial.so.103')
fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
assert lib.H5Pset_istore_k(ctypes.c_int64(fcpl.id), ctypes.c_uint(64)) >= 0
f = h5py.File(h5py.h5f.create(p('v1.h5').encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl))
f.create_dataset('d', data=np.arange(10, dtype='i4'))
f.close()
fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
fcpl.set_sizes(4, 4)
f = h5py.File(h5py.h5f.create(p('sizes44.h5').encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl))
f.create_dataset('d', data=np.arange(10, dtype='i4'))
f.close()
fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
fcpl.set_sizes(4, 8)
fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
fapl.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
f = h5py.File(h5py.h5f.create(p('sizes48-latest.h5').encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl))
f.create_dataset('d', data=np.arange(10, dtype='i4'))
f.close()
`;

const files: Record<string, Uint8Array> = {};

function sb(name: string, at = 0) {
  const b = files[name]!;
  return decodeSuperblock(b.subarray(at, Math.min(b.length, at + SUPERBLOCK_MAX_SIZE)), at);
}

describe.skipIf(!hasH5py)('superblock (spec II.A) against HDF5 1.10 files', () => {
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkform-sb-'));
    writeFileSync(join(dir, 'gen.py'), GEN);
    execFileSync(PY, [join(dir, 'gen.py'), dir]);
    for (const n of ['earliest', 'v108', 'latest', 'userblock', 'v1', 'sizes44', 'sizes48-latest']) {
      files[n] = new Uint8Array(readFileSync(join(dir, `${n}.h5`)));
    }
  });

  it('decodes version 0 (libver earliest) including the root symbol table entry', () => {
    const s = sb('earliest');
    expect(s.version).toBe(0);
    expect(s.sizes).toEqual({ sizeOfOffsets: 8, sizeOfLengths: 8 });
    expect(s.baseAddress).toBe(0);
    expect(s.eofAddress).toBe(files.earliest!.length);
    expect(s.groupLeafNodeK).toBe(4);
    expect(s.groupInternalNodeK).toBe(16);
    expect(s.indexedStorageInternalNodeK).toBeUndefined();
    expect(s.freeSpaceInfoAddress).toBe(UNDEFINED_ADDRESS);
    expect(s.driverInfoAddress).toBe(UNDEFINED_ADDRESS);
    expect(s.superblockExtensionAddress).toBe(UNDEFINED_ADDRESS);
    expect(s.rootObjectHeaderAddress).toBe(96);
    expect(s.rootSymbolTableEntry?.objectHeaderAddress).toBe(96);
    expect(s.rootSymbolTableEntry?.btreeAddress).toBeGreaterThan(0);
    expect(s.rootSymbolTableEntry?.heapAddress).toBeGreaterThan(0);
  });

  it('decodes version 1 (non-default indexed storage K)', () => {
    const s = sb('v1');
    expect(s.version).toBe(1);
    expect(s.indexedStorageInternalNodeK).toBe(64);
    expect(s.rootObjectHeaderAddress).toBe(100);
    expect(s.eofAddress).toBe(files.v1!.length);
  });

  it('decodes version 2 and 3 and verifies their checksums', () => {
    const v2 = sb('v108');
    expect(v2.version).toBe(2);
    expect(v2.rootObjectHeaderAddress).toBe(48);
    expect(v2.eofAddress).toBe(files.v108!.length);
    const v3 = sb('latest');
    expect(v3.version).toBe(3);
    expect(v3.consistencyFlags).toBe(0);
    expect(v3.groupLeafNodeK).toBeUndefined();
    expect(v3.rootSymbolTableEntry).toBeUndefined();
  });

  it('decodes 4-byte offsets and lengths (v0) and 4-byte offsets with 8-byte lengths (v3)', () => {
    const a = sb('sizes44');
    expect(a.sizes).toEqual({ sizeOfOffsets: 4, sizeOfLengths: 4 });
    expect(a.eofAddress).toBe(files.sizes44!.length);
    expect(a.rootSymbolTableEntry!.objectHeaderAddress).toBe(a.rootObjectHeaderAddress);
    const b = sb('sizes48-latest');
    expect(b.version).toBe(3);
    expect(b.sizes).toEqual({ sizeOfOffsets: 4, sizeOfLengths: 8 });
    expect(b.eofAddress).toBe(files['sizes48-latest']!.length);
  });

  it('finds a superblock after a user block', () => {
    const f = files.userblock!;
    const at = findSuperblockOffsets(f.length).find((o) => SUPERBLOCK_SIGNATURE.every((x, i) => f[o + i] === x));
    expect(at).toBe(1024);
    const s = sb('userblock', 1024);
    expect(s.version).toBe(3);
    expect(s.baseAddress).toBe(1024);
    // HDF5 stores the absolute end of file, user block included.
    expect(s.eofAddress).toBe(f.length);
    expect(s.rootObjectHeaderAddress).toBe(48);
  });

  it('encodes v2/v3 byte-identically to HDF5 1.10', () => {
    for (const name of ['v108', 'latest']) {
      const f = files[name]!;
      const s = sb(name);
      const enc = encodeSuperblock({
        version: s.version as 2 | 3,
        sizes: s.sizes,
        eofAddress: s.eofAddress,
        rootObjectHeaderAddress: s.rootObjectHeaderAddress,
      });
      expect(enc.length).toBe(48);
      expect(Array.from(enc)).toEqual(Array.from(f.subarray(0, 48)));
    }
    const s = sb('sizes48-latest');
    const enc = encodeSuperblock({ version: 3, sizes: s.sizes, eofAddress: s.eofAddress, rootObjectHeaderAddress: s.rootObjectHeaderAddress });
    expect(Array.from(enc)).toEqual(Array.from(files['sizes48-latest']!.subarray(0, enc.length)));
  });

  it('rejects a corrupt checksum, truncation and a bad signature', () => {
    const bad = files.latest!.slice(0, 48);
    bad[28] ^= 1; // EOF address
    expect(() => decodeSuperblock(bad, 0)).toThrow(ChecksumError);
    try {
      decodeSuperblock(bad, 0);
    } catch (e) {
      expect((e as ChecksumError).structure).toBe('superblock');
    }
    for (const name of ['earliest', 'v1', 'v108', 'latest']) {
      const f = files[name]!;
      const need = name === 'earliest' ? 96 : name === 'v1' ? 100 : 48;
      expect(() => decodeSuperblock(f.subarray(0, need - 1), 0)).toThrow(TruncatedError);
      expect(() => decodeSuperblock(f.subarray(0, 5), 0)).toThrow(TruncatedError);
      expect(decodeSuperblock(f.subarray(0, need), 0).version).toBeGreaterThanOrEqual(0);
    }
    const nosig = files.latest!.slice(0, 48);
    nosig[1] = 0x58;
    expect(() => decodeSuperblock(nosig, 0)).toThrow(FormatError);
    const v9 = files.latest!.slice(0, 48);
    v9[8] = 9;
    expect(() => decodeSuperblock(v9, 0)).toThrow(UnsupportedError);
    const size3 = files.earliest!.slice(0, 96);
    size3[13] = 3;
    expect(() => decodeSuperblock(size3, 0)).toThrow(FormatError);
  });
});

describe('superblock encoder / helpers', () => {
  it('lists candidate superblock offsets', () => {
    expect(findSuperblockOffsets(0)).toEqual([]);
    expect(findSuperblockOffsets(100)).toEqual([0]);
    expect(findSuperblockOffsets(3000)).toEqual([0, 512, 1024, 2048]);
    expect(findSuperblockOffsets(2048)).toEqual([0, 512, 1024]);
  });

  it('round-trips encode → decode', () => {
    for (const version of [2, 3] as const) {
      for (const sizes of [{ sizeOfOffsets: 8, sizeOfLengths: 8 }, { sizeOfOffsets: 4, sizeOfLengths: 2 }]) {
        const enc = encodeSuperblock({ version, sizes, eofAddress: 4000, rootObjectHeaderAddress: 48, superblockExtensionAddress: 200, consistencyFlags: 1 });
        expect(enc.length).toBe(12 + 4 * sizes.sizeOfOffsets + 4);
        const d = decodeSuperblock(enc, 0);
        expect(d).toEqual({
          version,
          sizes,
          baseAddress: 0,
          eofAddress: 4000,
          rootObjectHeaderAddress: 48,
          superblockExtensionAddress: 200,
          consistencyFlags: 1,
        });
      }
    }
  });

  it('rejects impossible encoder input', () => {
    expect(() => encodeSuperblock({ version: 1 as 2, sizes: { sizeOfOffsets: 8, sizeOfLengths: 8 }, eofAddress: 1, rootObjectHeaderAddress: 0 })).toThrow(ValueError);
    expect(() => encodeSuperblock({ version: 3, sizes: { sizeOfOffsets: 3, sizeOfLengths: 8 }, eofAddress: 1, rootObjectHeaderAddress: 0 })).toThrow(ValueError);
  });
});
