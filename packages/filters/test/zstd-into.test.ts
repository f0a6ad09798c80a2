/**
 * zstd decoded straight into a chunk's place from the WebAssembly heap (src/zstd/into-wasm.ts, what a
 * filter worker runs for a chunk read whole into a shared result): the bytes equal `zstdDecode`'s
 * wherever the place starts, the bytes around it stay as they were, and a frame that is not what the
 * place needs is a FilterError — through the worker pool the chunk then falls back to the calling
 * thread, whose error names the chunk.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeChunk, FilterError, pipelineOffload, type Datatype, type FilterPipeline, type FilterResolver } from '@chunkform/core/plugin';
import { ALL_FILTERS, loadZstdWasm, workerStats, zstdDecode, zstdEncode } from '../src/index.js';
import { zstdDecodeInto } from '../src/zstd/into-wasm.js';
import { detectorBytes } from './support/detector-bytes.js';
import { usePool } from './support/use-pool.js';

const U16: Datatype = { class: 'integer', size: 2, order: 'LE', signed: false };
const byId = new Map(ALL_FILTERS.map((f) => [f.id, f]));
const resolve: FilterResolver = (id) => byId.get(id);
const zstd: FilterPipeline = { filters: [{ id: 32015, name: '', flags: 0, clientData: [3] }] };

const frame = detectorBytes;

/** A view of `n` bytes `at` bytes into a larger buffer (shared or not) filled with 0xee. */
function place(n: number, at: number, shared: boolean): Uint8Array {
  const buf = shared ? new SharedArrayBuffer(n + at + 8) : new ArrayBuffer(n + at + 8);
  return new Uint8Array(buf).fill(0xee).subarray(at, at + n);
}

const encode = async (v: Uint8Array) => (await zstdEncode(v, 3)) as Uint8Array;

describe('zstd decoded into a given place from the WebAssembly heap', () => {
  beforeAll(() => loadZstdWasm());

  it('equals zstdDecode for any length and alignment, and leaves the bytes around alone', async () => {
    for (const n of [2, 1001, 65536, 1 << 21])
      for (const at of [0, 1, 6])
        for (const shared of [true, false]) {
          const v = frame(n, n + at);
          const z = await encode(v);
          const out = place(n, at, shared);
          await zstdDecodeInto(z, { chunkDims: [n / 2], elementSize: 2 }, out);
          expect(Buffer.compare(Buffer.from(out), Buffer.from((await zstdDecode(z)) as Uint8Array)), `${n} bytes at ${at}`).toBe(0);
          expect(Buffer.compare(Buffer.from(out), Buffer.from(v))).toBe(0);
          const whole = new Uint8Array(out.buffer);
          expect(whole[at - 1] ?? 0xee).toBe(0xee);
          expect(whole[at + n]).toBe(0xee);
        }
  });

  it('a place of another size, a truncated frame, a claim over the chunk limit: FilterError, the place untouched by the first', async () => {
    const v = frame(4096, 3);
    const z = await encode(v);
    const small = place(4094, 0, true);
    await expect(zstdDecodeInto(z, { chunkDims: [2048], elementSize: 2 }, small)).rejects.toThrow(/zstd: the frame claims 4096 bytes, 4094 expected/);
    expect(small.every((b) => b === 0xee)).toBe(true);
    await expect(zstdDecodeInto(z.subarray(0, z.length - 5), { chunkDims: [2048], elementSize: 2 }, place(4096, 0, true))).rejects.toThrow(FilterError);
    await expect(zstdDecodeInto(z.subarray(0, z.length - 5), { chunkDims: [2048], elementSize: 2 }, place(4096, 0, true))).rejects.toThrow(/corrupt zstd data/);
    // (the limit is twice the chunk plus 64 KiB: a 4096-byte frame in a chunk of 2 elements of 2 bytes)
    const big = await encode(frame(200_000, 4));
    await expect(zstdDecodeInto(big, { chunkDims: [2], elementSize: 2 }, place(200_000, 0, true))).rejects.toThrow(/more than the chunk's limit/);
  });

  describe('on the worker pool', () => {
    usePool(2);

    it('a chunk read whole lands in its place in shared memory; a truncated one fails there and the calling thread names it', async () => {
      const ctx = { datatype: U16, elementSize: 2, chunkDims: [512, 512] };
      const impls = zstd.filters.map((f) => resolve(f.id));
      const out = new Uint8Array(new SharedArrayBuffer(3 * 512 * 512 * 2)).fill(0xee);
      const chunks = [frame(512 * 512 * 2, 10), frame(512 * 512 * 2, 11)];
      const before = workerStats();
      for (let i = 0; i < chunks.length; i++) {
        const z = await encode(chunks[i]!);
        const target = { out, runs: Float64Array.of(0, (i + 1) * 512 * 512, 512 * 512), elementSize: 2, chunkBytes: 512 * 512 * 2 };
        expect(await pipelineOffload()!.decodeInto!(z, zstd, 0, impls, ctx, target)).toBe(true);
      }
      expect(workerStats().done - before.done).toBe(2);
      expect(out.subarray(0, 512 * 512 * 2).every((b) => b === 0xee)).toBe(true);
      expect(Buffer.compare(out.subarray(512 * 512 * 2), Buffer.concat(chunks))).toBe(0);
      // truncated: the worker fails, the offload says so, the calling thread's decode names the chunk
      const z = await encode(chunks[0]!);
      const cut = z.subarray(0, z.length - 7);
      const target = { out, runs: Float64Array.of(0, 0, 512 * 512), elementSize: 2, chunkBytes: 512 * 512 * 2 };
      expect(await pipelineOffload()!.decodeInto!(cut.slice(), zstd, 0, impls, ctx, target)).toBe(false);
      expect(workerStats().failed - before.failed).toBe(1);
      await expect(decodeChunk(cut, zstd, 0, resolve, ctx, { path: '/frames', chunk: [0, 0] })).rejects.toThrow(/\/frames.*0, 0|chunk \[0, 0\]/);
    });
  });
});
