/**
 * Deflate level 1 throughput on one 1024×1024 uint16 detector-like frame (Poisson background of
 * a few counts plus Bragg-like peaks), node:zlib vs fflate, with and without shuffle.
 * Run: node --import tsx packages/filters/test/support/measure-deflate.ts
 * Not a test: prints MB/s (of uncompressed data).
 *
 * Observed (Node 20, 2 vCPUs shared with other jobs, load ≈ 4.5, so ±40 %):
 *   level 1, plain:     encode node 36–66 MB/s, fflate 16–29 MB/s; decode node 290–610, fflate 58–148
 *   level 1, shuffled:  encode node 67–182 MB/s, fflate 24–56 MB/s; decode node 270–910, fflate 52–203
 *   ratio 3.5 (plain) / 4.4 (shuffled); shuffle/unshuffle (2-byte) 0.8–2 GB/s
 *   16 frames: thread-pool inflate awaited together ≈ 1.5× inflateSync when the CPUs are free
 */
import { inflateSync } from 'node:zlib';
import * as fflateZlib from '../../src/deflate/zlib-fflate.js';
import * as nodeZlib from '../../src/deflate/zlib-node.js';
import { shuffle, unshuffle } from '../../src/shuffle/index.js';

const N = 1024 * 1024;
function frame(seed: number): Uint8Array {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const a = new Uint16Array(N);
  for (let i = 0; i < N; i++) {
    // Poisson(λ=3) by inversion
    let k = 0;
    let p = Math.exp(-3);
    let c = p;
    const u = rnd();
    while (u > c && k < 30) {
      k++;
      p *= 3 / k;
      c += p;
    }
    a[i] = k;
  }
  for (let j = 0; j < 300; j++) {
    const x = Math.floor(rnd() * 1020);
    const y = Math.floor(rnd() * 1020);
    const h = 100 + Math.floor(rnd() * 30000);
    for (let dy = 0; dy < 4; dy++) for (let dx = 0; dx < 4; dx++) a[(y + dy) * 1024 + x + dx] = Math.min(65535, a[(y + dy) * 1024 + x + dx]! + (h >> (dx + dy)));
  }
  return new Uint8Array(a.buffer);
}

async function time(fn: () => unknown, reps: number): Promise<number> {
  await fn();
  const t = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - t) / reps;
}

const MB = (2 * N) / 1e6;
const data = frame(42);
const shuffled = shuffle(data, 2);
for (const [label, input] of [
  ['plain', data],
  ['shuffled', shuffled],
] as const) {
  const zn = await nodeZlib.zlibCompress(input, 1);
  const zf = fflateZlib.zlibCompress(input, 1);
  const r = (ms: number) => `${(MB / (ms / 1000)).toFixed(0).padStart(5)} MB/s`;
  console.log(`${label}: ratio node ${(input.length / zn.length).toFixed(2)}, fflate ${(input.length / zf.length).toFixed(2)}`);
  console.log(`  encode  node ${r(await time(() => nodeZlib.zlibCompress(input, 1), 10))}   fflate ${r(await time(() => fflateZlib.zlibCompress(input, 1), 5))}`);
  console.log(`  decode  node ${r(await time(() => nodeZlib.zlibDecompress(zn, input.length, 3 * input.length), 20))}   fflate ${r(await time(() => fflateZlib.zlibDecompress(zn, input.length, 3 * input.length), 10))}`);
}
console.log(`shuffle   ${(MB / ((await time(() => shuffle(data, 2), 20)) / 1000)).toFixed(0)} MB/s, unshuffle ${(MB / ((await time(() => unshuffle(shuffled, 2), 20)) / 1000)).toFixed(0)} MB/s`);

// 16 frames: node:zlib's synchronous inflate, our backend awaited one by one, and all at once
const zs = await Promise.all(Array.from({ length: 16 }, (_, i) => nodeZlib.zlibCompress(frame(i), 1)));
let t = performance.now();
for (const z of zs) inflateSync(z);
const syncMs = performance.now() - t;
t = performance.now();
for (const z of zs) await nodeZlib.zlibDecompress(z, 2 * N, 6 * N);
const seqMs = performance.now() - t;
t = performance.now();
await Promise.all(zs.map((z) => nodeZlib.zlibDecompress(z, 2 * N, 6 * N)));
const concMs = performance.now() - t;
const rate = (ms: number) => ((16 * MB) / (ms / 1000)).toFixed(0);
console.log(`16 frames decode: inflateSync ${rate(syncMs)} MB/s, backend sequential ${rate(seqMs)} MB/s, backend concurrent ${rate(concMs)} MB/s`);
