/**
 * A pipeline offload for tests of `ChunkImage.written`: deflates on the calling thread after a
 * timer, and `written` overwrites the result's bytes at once (as reused memory would be), checking
 * that it is called once per chunk. A file reads back as written only if the engine calls it once
 * nothing uses the bytes any more.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { expect } from 'vitest';
import type { PipelineOffload } from '../../packages/core/src/plugin.js';

/** @param delay Milliseconds the n-th encoding (from 0) waits before it deflates. */
export function poisoningOffload(delay: (n: number) => number = () => 1): PipelineOffload & { encoded: number; written: number } {
  const o = {
    encoded: 0,
    written: 0,
    threads: 2,
    async encode(bytes: Uint8Array) {
      await new Promise((r) => setTimeout(r, delay(o.encoded)));
      const out = new Uint8Array(deflateSync(bytes, { level: 1 }));
      o.encoded++;
      let done = false;
      return {
        bytes: out,
        filterMask: 0,
        written: () => {
          expect(done).toBe(false); // once per chunk
          done = true;
          o.written++;
          out.fill(0xee);
        },
      };
    },
    decode: async (bytes: Uint8Array) => new Uint8Array(inflateSync(bytes)),
  };
  return o;
}
