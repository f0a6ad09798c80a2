/**
 * The frames of the thread-scaling benches (bench/threads.ts, bench/threads-cpu.ts): 1024² uint16,
 * detector-like.
 * @module
 */
import { xorshift32 } from './xorshift.js';

export const H = 1024;
export const W = 1024;
export const FRAME = H * W;

/** Detector-like frames: mostly small counts (pedestal noise), a few bright pixels, a slow gradient. */
export function makeFrames(n: number, seed = 7): Uint16Array {
  const rnd = xorshift32(seed);
  const v = new Uint16Array(n * FRAME);
  for (let i = 0; i < v.length; i++) {
    const r = rnd();
    v[i] = 90 + ((i >> 14) & 15) + (r & 7) + (r % 997 === 0 ? r & 0xfff : 0);
  }
  return v;
}
