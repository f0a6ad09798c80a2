/**
 * Detector-like frames for the benches: background ≈ 10 counts with Poisson-like noise, an occasional hot
 * pixel, and ~20 bright Gaussian spots per frame. Deterministic (seeded xorshift32).
 */
import { xorshift32 } from './xorshift.js';

/** `frames` frames of `h`×`w` uint16 in C order. */
export function detectorFrames(frames: number, h: number, w: number): Uint16Array {
  const a = new Uint16Array(frames * h * w);
  const rnd = xorshift32(0x9e3779b9);
  for (let i = 0; i < a.length; i++) {
    const r = rnd();
    // sum of 3 small uniforms ≈ bell-shaped noise around 10; an occasional hot pixel
    a[i] = 4 + (r & 7) + ((r >>> 3) & 3) + ((r >>> 5) & 3) + ((r >>> 16) % 1021 === 0 ? 200 : 0);
  }
  for (let f = 0; f < frames; f++) {
    for (let k = 0; k < 20; k++) {
      const cy = rnd() % h;
      const cx = rnd() % w;
      const amp = 1000 + (rnd() % 50000);
      const r = 2 + (rnd() % 6);
      for (let y = Math.max(0, cy - 3 * r); y < Math.min(h, cy + 3 * r); y++) {
        for (let x = Math.max(0, cx - 3 * r); x < Math.min(w, cx + 3 * r); x++) {
          const d2 = (y - cy) ** 2 + (x - cx) ** 2;
          const i = f * h * w + y * w + x;
          a[i] = Math.min(65535, a[i]! + Math.round(amp * Math.exp(-d2 / (2 * r * r))));
        }
      }
    }
  }
  return a;
}
