import { describe, expect, it } from 'vitest';
import { lookup3 } from '../src/format/checksum/lookup3.js';

describe('lookup3 (HDF5 spec Appendix C)', () => {
  it('matches the reference vectors', () => {
    expect(lookup3(new Uint8Array(0))).toBe(0xdeadbeef);
    expect(lookup3(new TextEncoder().encode('Four score and seven years ago'))).toBe(0x17770551);
    expect(lookup3(Uint8Array.from({ length: 12 }, (_, i) => i))).toBe(0x5e4aa593);
    expect(lookup3(Uint8Array.from({ length: 13 }, (_, i) => i))).toBe(0xbc9d6816);
  });
});
