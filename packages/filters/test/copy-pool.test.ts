import { describe, expect, it } from 'vitest';
import { CopyPool } from '../src/util/copy-pool.js';

const pool = (buffers = 4, maxBytes = 1 << 20) => new CopyPool({ buffers: () => buffers, maxBytes, maxBufferBytes: 1 << 16, minBufferBytes: 16 });

describe('CopyPool', () => {
  it('copies into a kept buffer of n–2n bytes, else into a new one', () => {
    const p = pool();
    const kept = new ArrayBuffer(100);
    p.keep(kept);
    const a = p.copy(new Uint8Array(60).fill(7));
    expect(a.buffer).toBe(kept);
    expect([...a]).toEqual(new Array(60).fill(7));
    p.keep(kept);
    const b = p.copy(new Uint8Array(40)); // 100 > 2 × 40: not this one
    expect(b.buffer).not.toBe(kept);
    expect(p.copy(new Uint8Array(100)).buffer).toBe(kept);
  });

  it('never returns a view of the input, a Node Buffer included', () => {
    const src = Buffer.from([1, 2, 3, 4]);
    const c = pool().copy(src);
    src[0] = 9;
    expect([...c]).toEqual([1, 2, 3, 4]);
    expect(c.buffer).not.toBe(src.buffer);
  });

  it('keeps no buffer outside the size bounds, and drops the oldest beyond the count or byte limits', () => {
    const p = pool(2, 250);
    const tiny = new ArrayBuffer(8);
    const huge = new ArrayBuffer(1 << 17);
    p.keep(tiny);
    p.keep(huge);
    expect(p.copy(new Uint8Array(8)).buffer).not.toBe(tiny);
    expect(p.copy(new Uint8Array(1 << 17)).buffer).not.toBe(huge);
    const [x, y, z] = [new ArrayBuffer(100), new ArrayBuffer(100), new ArrayBuffer(100)];
    p.keep(x);
    p.keep(y);
    p.keep(z); // three buffers: x dropped
    expect(p.copy(new Uint8Array(100)).buffer).toBe(z);
    expect(p.copy(new Uint8Array(100)).buffer).toBe(y);
    expect(p.copy(new Uint8Array(100)).buffer).not.toBe(x);
    const q = pool(8, 250);
    q.keep(x);
    q.keep(y);
    q.keep(z); // 300 bytes > 250: x dropped
    q.copy(new Uint8Array(100));
    q.copy(new Uint8Array(100));
    expect(q.copy(new Uint8Array(100)).buffer).not.toBe(x);
    q.keep(x);
    q.clear();
    expect(q.copy(new Uint8Array(100)).buffer).not.toBe(x);
  });

  it('a shared pool makes SharedArrayBuffers and hands a kept one of n–2n bytes out again', () => {
    const p = new CopyPool({ buffers: () => 4, maxBytes: 1 << 20, maxBufferBytes: 1 << 16, minBufferBytes: 16, shared: true });
    const c = p.copy(new Uint8Array([1, 2, 3]).subarray(1));
    expect(c.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([...c]).toEqual([2, 3]);
    const b = p.sharedBuffer(100);
    expect(b).toBeInstanceOf(SharedArrayBuffer);
    p.keep(b);
    expect(p.sharedBuffer(60)).toBe(b);
    expect(p.sharedBuffer(60)).not.toBe(b); // handed out: no longer kept
    p.keep(b);
    expect(p.sharedBuffer(40)).not.toBe(b); // 100 > 2 × 40
  });
});
