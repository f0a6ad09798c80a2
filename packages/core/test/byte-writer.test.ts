/**
 * ByteWriter's pooled scratch buffers: results are arrays of their own, a reused scratch buffer starts
 * as zeros, and `own` writers keep room after the bytes written.
 */
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, utf8Encode } from '../src/format/bytes.js';

describe('ByteWriter scratch buffers', () => {
  it('small results own exactly their bytes and survive later writers', () => {
    const a = new ByteWriter().u32(0xdeadbeef).u16(7).finish();
    const b = new ByteWriter().u8(1).finish();
    expect(a.buffer.byteLength).toBe(6);
    expect(Array.from(a)).toEqual([0xef, 0xbe, 0xad, 0xde, 7, 0]);
    expect(Array.from(b)).toEqual([1]);
  });

  it('a reused scratch buffer reads as zeros where nothing was written', () => {
    new ByteWriter().u32(0xffffffff).u32(0xffffffff).finish();
    const w = new ByteWriter();
    w.pos = 4; // skipped bytes must be zeros
    w.u8(9);
    expect(Array.from(w.finish())).toEqual([0, 0, 0, 0, 9]);
    const r = new ByteWriter();
    expect(Array.from(r.reserve(3))).toEqual([0, 0, 0]);
  });

  it('a writer still works after finish, on its own copy', () => {
    const w = new ByteWriter().u16(1);
    const first = w.finish();
    w.u16(2);
    expect(Array.from(first)).toEqual([1, 0]);
    expect(Array.from(w.finishExact())).toEqual([1, 0, 2, 0]);
  });

  it('own writers return a view with the room left after the bytes', () => {
    const out = new ByteWriter(undefined, 16, true).u32(5).finish();
    expect(out.length).toBe(4);
    expect(out.buffer.byteLength).toBe(16);
  });
});

describe('ByteReader and utf8Encode', () => {
  it('reads 16/32-bit fields from the bytes, and 64-bit ones through its view', () => {
    const r = new ByteReader(Uint8Array.of(0x34, 0x12, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0));
    expect(r.u16()).toBe(0x1234);
    expect(r.u32()).toBe(0xffffffff);
    expect(r.i32()).toBe(-2);
    expect(r.u64n()).toBe(1n);
  });

  it('encodes ASCII and other names alike', () => {
    for (const s of ['d00001', '', 'µm/ß', '数据', 'a'.repeat(300)]) expect(Array.from(utf8Encode(s))).toEqual(Array.from(new TextEncoder().encode(s)));
  });
});
