/**
 * chunkform LCLS-II example: the data-reduction use case of the HDF Group's sparse-chunk RFC (2018).
 * A stream of detector frames is reduced before storage: each frame keeps a region of interest (ROI)
 * rectangle and the groups of pixels above a threshold elsewhere ("hits"), written to a sparse dataset
 * `[frame, y, x]`; every n-th frame is also kept in full in a dense, gzip-compressed chunked dataset.
 * The file is reopened and one frame read back (getDefined / readDefined / read) and checked against the
 * original frame; the example exits non-zero when a check fails. Run from the repository root:
 *
 *     node --import tsx examples/lcls.ts                  # 20 frames of 512×512, writes ./lcls.h5
 *     node --import tsx examples/lcls.ts /tmp/run.h5 100 2048 10   # path, frames, frame size, full-frame period
 *
 * The dense datasets open in h5py / h5dump as usual; the sparse one needs a sparse-aware reader (chunkform).
 * @module
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  Dataset,
  createFile,
  openFile,
  selectHyperslab,
  selectPoints,
  selectionCount,
  selectionRuns,
} from '@chunkform/core';
import { registerEverything } from '@chunkform/cli';

// Chunk formats (dense, sparse), chunk indexes and filters are plug-ins: install them once.
registerEverything();

const shown = process.argv[2] ?? 'lcls.h5';
const FRAMES = Number(process.argv[3] ?? 20);
const SIZE = Number(process.argv[4] ?? 512);
const FULL_EVERY = Number(process.argv[5] ?? 5);
const H = SIZE;
const W = SIZE;
const THRESHOLD = 60; // counts: pixels above it outside the ROI are kept as hits

/** The ROI: a fixed rectangle of ~10 % of the frame around the beam centre. */
const ROI = (() => {
  const h = Math.round(H * Math.sqrt(0.1));
  const w = Math.floor((0.1 * H * W) / h);
  return { y0: Math.floor((H - h) / 2), x0: Math.floor((W - w) / 3), h, w };
})();

let seed = 0x1c15;
function rnd(): number {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed;
}

/** One simulated frame: ≈ 10 counts of noise, a diffraction ring through the ROI, 50–100 photon hits of 5–10 px. */
function simulateFrame(f: number): Uint16Array {
  const a = new Uint16Array(H * W);
  for (let i = 0; i < a.length; i++) {
    const r = rnd();
    a[i] = 4 + (r & 7) + ((r >>> 3) & 3) + ((r >>> 5) & 3);
  }
  const cy = ROI.y0 + ROI.h / 2;
  const cx = ROI.x0 + ROI.w / 2;
  const ring = ROI.h * (0.25 + 0.1 * Math.sin(f / 3));
  for (let y = ROI.y0; y < ROI.y0 + ROI.h; y++) {
    for (let x = ROI.x0; x < ROI.x0 + ROI.w; x++) {
      const d = Math.hypot(y - cy, x - cx) - ring;
      a[y * W + x]! += Math.round(500 * Math.exp(-(d * d) / 18));
    }
  }
  const hits = 50 + (rnd() % 51);
  for (let g = 0; g < hits; g++) {
    let y = 1 + (rnd() % (H - 2));
    let x = 1 + (rnd() % (W - 2));
    const n = 5 + (rnd() % 6);
    const amp = 200 + (rnd() % 3000);
    for (let k = 0; k < n; k++) {
      a[y * W + x] = Math.min(65535, a[y * W + x]! + Math.round(amp / (k + 1)) + THRESHOLD);
      const d = rnd() & 3; // grow the group by one 4-connected step
      y = Math.min(H - 1, Math.max(0, y + (d === 0 ? -1 : d === 1 ? 1 : 0)));
      x = Math.min(W - 1, Math.max(0, x + (d === 2 ? -1 : d === 3 ? 1 : 0)));
    }
  }
  return a;
}

/** Pixels above the threshold outside the ROI, as 3-D point coordinates of frame `f` and their values. */
function findHits(frame: Uint16Array, f: number): { coords: Float64Array; values: Uint16Array } {
  const lin: number[] = [];
  for (let i = 0; i < frame.length; i++) {
    if (frame[i]! <= THRESHOLD) continue;
    const y = Math.floor(i / W);
    const x = i % W;
    if (y >= ROI.y0 && y < ROI.y0 + ROI.h && x >= ROI.x0 && x < ROI.x0 + ROI.w) continue;
    lin.push(i);
  }
  const coords = new Float64Array(lin.length * 3);
  const values = new Uint16Array(lin.length);
  lin.forEach((i, k) => {
    coords.set([f, Math.floor(i / W), i % W], 3 * k);
    values[k] = frame[i]!;
  });
  return { coords, values };
}

/** The ROI pixels of a frame, in C order. */
function roiValues(frame: Uint16Array): Uint16Array {
  const out = new Uint16Array(ROI.h * ROI.w);
  for (let y = 0; y < ROI.h; y++) out.set(frame.subarray((ROI.y0 + y) * W + ROI.x0, (ROI.y0 + y) * W + ROI.x0 + ROI.w), y * ROI.w);
  return out;
}

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
}

async function main(): Promise<void> {
  const path = resolve(shown);
  const kept: Uint16Array[] = []; // frames kept for the checks (a real writer would not keep them)
  let definedPx = 0;
  const t0 = performance.now();
  const f = await createFile(path);
  try {
    const run = await f.createGroup('run');
    await run.attrs.set('roi', [ROI.y0, ROI.x0, ROI.h, ROI.w], { dtype: 'int32' });
    await run.attrs.set('threshold', THRESHOLD, { dtype: 'int32' });
    const sparse = await run.createDataset('reduced', {
      layout: 'sparse',
      dtype: 'uint16',
      shape: [0, H, W],
      maxShape: [null, H, W],
      chunks: [1, H, W],
      fillValue: 0,
      // section 0 (the encoded selection) and section 1 (the values) each get their own pipeline
      filters: { selection: [{ id: 1, clientData: [4] }], values: [{ id: 2 }, { id: 1, clientData: [1] }] },
    });
    const full = await run.createDataset('full_frames', {
      dtype: 'uint16',
      shape: [0, H, W],
      maxShape: [null, H, W],
      chunks: [1, H, W],
      compression: 'gzip',
      compressionOpts: 1,
    });
    const fullIndex: number[] = [];
    for (let i = 0; i < FRAMES; i++) {
      const frame = simulateFrame(i);
      kept.push(frame);
      await sparse.resize([i + 1, H, W]);
      // two writes into the same frame: the defined set becomes their union
      await sparse.write(roiValues(frame), selectHyperslab({ start: [i, ROI.y0, ROI.x0], block: [1, ROI.h, ROI.w] }));
      const hits = findHits(frame, i);
      if (hits.values.length > 0) await sparse.write(hits.values, selectPoints(hits.coords, 3));
      definedPx += ROI.h * ROI.w + hits.values.length;
      if (i % FULL_EVERY === 0) {
        const k = fullIndex.length;
        await full.resize([k + 1, H, W]);
        await full.write(frame, selectHyperslab({ start: [k, 0, 0], block: [1, H, W] }));
        fullIndex.push(i);
      }
    }
    await run.createDataset('full_frame_numbers', { dtype: 'int32', shape: [fullIndex.length], data: fullIndex });
  } finally {
    await f.close();
  }
  const writeS = (performance.now() - t0) / 1000;
  console.log(`Wrote ${shown}: ${FRAMES} frames of ${H}×${W} uint16 in ${writeS.toFixed(2)} s`);
  console.log(`  /run/reduced      sparse, ROI ${ROI.h}×${ROI.w} at (${ROI.y0}, ${ROI.x0}) + hits above ${THRESHOLD} counts`);
  console.log(`  /run/full_frames  dense, gzip 1, every ${FULL_EVERY}th frame`);

  // ---- read back one frame that was also stored in full -------------------------------------
  const g = await openFile(path);
  try {
    const sparse = (await g.get('/run/reduced')) as Dataset;
    const full = (await g.get('/run/full_frames')) as Dataset;
    const numbers = (await ((await g.get('/run/full_frame_numbers')) as Dataset).read()) as Int32Array;
    const k = numbers.length - 1;
    const fno = numbers[k]!;
    const original = kept[fno]!;
    const frameSel = selectHyperslab({ start: [fno, 0, 0], block: [1, H, W] });
    const dims = [FRAMES, H, W];

    const defined = await sparse.getDefined(frameSel);
    const expectedHits = findHits(original, fno).values.length;
    const count = selectionCount(defined, dims);
    check(count === ROI.h * ROI.w + expectedHits, `frame ${fno}: ${count} defined pixels, expected ${ROI.h * ROI.w + expectedHits}`);

    const { selection, values } = await sparse.readDefined(frameSel);
    const vals = values as Uint16Array;
    const runs = selectionRuns(selection, dims);
    let n = 0;
    let bad = 0;
    for (let r = 0; r < runs.length; r += 2) {
      for (let j = 0; j < runs[r + 1]!; j++, n++) if (vals[n] !== original[runs[r]! + j - fno * H * W]) bad++;
    }
    check(n === count && bad === 0, `frame ${fno}: readDefined gave ${n} values, ${bad} differ from the original frame`);

    // read(): the whole frame, fill value (0) where undefined; the dense copy has every pixel
    const reduced = (await sparse.read(frameSel)) as Uint16Array;
    const dense = (await full.read(selectHyperslab({ start: [k, 0, 0], block: [1, H, W] }))) as Uint16Array;
    let mismatch = 0;
    for (let i = 0; i < H * W; i++) if (reduced[i] !== 0 && reduced[i] !== dense[i]) mismatch++;
    check(mismatch === 0, `frame ${fno}: ${mismatch} defined pixels differ from the full frame`);
    for (let i = 0; i < H * W; i++) if (dense[i] !== original[i]) mismatch++;
    check(mismatch === 0, `frame ${fno}: the dense copy differs from the original frame`);

    let sparseBytes = 0;
    let coordBytes = 0;
    await sparse.iterateStructChunks((info) => {
      sparseBytes += info.size;
      coordBytes += info.sectionSizes[0]!;
    });
    let denseBytes = 0;
    await full.iterateChunks((info) => {
      denseBytes += info.size;
    });
    const perFull = denseBytes / numbers.length;
    console.log(`\nFrame ${fno} read back: ${count} defined pixels (ROI ${ROI.h * ROI.w} + ${count - ROI.h * ROI.w} hit pixels); ${values.length} values, first ${Array.from(vals.subarray(0, 4)).join(', ')}`);
    console.log(`Bytes on disk (chunk data):`);
    console.log(`  sparse, all ${FRAMES} frames:        ${sparseBytes.toLocaleString('en-US').padStart(12)}  (${(sparseBytes / FRAMES / 1024).toFixed(1)} KiB per frame; coordinates ${(coordBytes / definedPx).toFixed(3)} B per defined pixel)`);
    console.log(`  dense gzip, ${numbers.length} full frames:     ${denseBytes.toLocaleString('en-US').padStart(12)}  (${(perFull / 1024).toFixed(1)} KiB per frame)`);
    console.log(`  all frames dense gzip would take ≈ ${Math.round(perFull * FRAMES).toLocaleString('en-US')} (${((perFull * FRAMES) / sparseBytes).toFixed(1)}× the sparse data); raw ${(FRAMES * H * W * 2).toLocaleString('en-US')}`);
    console.log(`  file ${shown}: ${statSync(path).size.toLocaleString('en-US')} bytes`);
  } finally {
    await g.close();
  }

  if (failures.length > 0) {
    for (const m of failures) console.error(`read-back check failed: ${m}`);
    process.exitCode = 1;
  } else {
    console.log('\nAll read-back checks passed.');
  }
}

await main();
