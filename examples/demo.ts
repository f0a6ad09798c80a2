/**
 * chunkform demo: writes a small LCLS-style detector run with `@chunkform/core` — a **sparse** dataset
 * that keeps, per frame, only a region of interest and a few groups of bright pixels, next to a **dense**
 * gzip-compressed dataset with every frame in full — then reopens it and prints what is inside
 * (`chunkform ls -r -v`), how many elements the sparse dataset defines and what each one costs on disk.
 * Run from the repository root:
 *
 *     pnpm demo                 # writes ./demo.h5
 *     pnpm demo /tmp/run42.h5   # writes the given path
 *
 * The file is ordinary HDF5: h5py, h5dump and HDFView open its dense datasets; the sparse one needs a
 * sparse-aware reader (chunkform).
 * @module
 */
import { resolve } from 'node:path';
import { Dataset, createFile, openFile, selectBlocks, type Box } from '@chunkform/core';
import { registerEverything, run } from '@chunkform/cli';

// Chunk formats, chunk indexes and filters are plug-ins: install the ones the app needs.
registerEverything();

const FRAMES = 4;
const HEIGHT = 64;
const WIDTH = 64;
/** The region of interest kept in every frame (rows 24–35, columns 16–35: 6 % of the frame). */
const ROI = { y0: 24, x0: 16, h: 12, w: 20 };
/** Groups of 3×3 bright pixels ("hits") kept outside the ROI, per frame. */
const HITS = 5;

let seed = 0x5eed;
/** xorshift32: a repeatable stream of pseudo-random numbers. */
function rnd(): number {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>>= 0);
}

/** Synthetic frames: noise around 10 counts, a bright spot drifting through the ROI, a few photon hits. */
function makeFrames(): { counts: Uint16Array; hits: Box[][] } {
  const counts = new Uint16Array(FRAMES * HEIGHT * WIDTH);
  const hits: Box[][] = [];
  for (let f = 0; f < FRAMES; f++) {
    const base = f * HEIGHT * WIDTH;
    const cx = ROI.x0 + 4 + 3 * f;
    const cy = ROI.y0 + ROI.h / 2;
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        counts[base + y * WIDTH + x] = 8 + (rnd() % 5) + Math.round(1000 * Math.exp(-((x - cx) ** 2 + (y - cy) ** 2) / 8));
      }
    }
    const frameHits: Box[] = [];
    while (frameHits.length < HITS) {
      const y = 1 + (rnd() % (HEIGHT - 4));
      const x = 1 + (rnd() % (WIDTH - 4));
      const clear = (b: Box) => y + 3 <= b.start[1]! || y >= b.end[1]! || x + 3 <= b.start[2]! || x >= b.end[2]!;
      if (!clear({ start: [f, ROI.y0, ROI.x0], end: [f + 1, ROI.y0 + ROI.h, ROI.x0 + ROI.w] }) || !frameHits.every(clear)) continue;
      for (let dy = 0; dy < 3; dy++) for (let dx = 0; dx < 3; dx++) counts[base + (y + dy) * WIDTH + x + dx] = 200 + (rnd() % 100);
      frameHits.push({ start: [f, y, x], end: [f + 1, y + 3, x + 3] });
    }
    hits.push(frameHits);
  }
  return { counts, hits };
}

/** The values of one block of the frames, in C order (what a write of that block takes). */
function blockValues(counts: Uint16Array, b: Box): Uint16Array {
  const [f, y0, x0] = b.start;
  const h = b.end[1]! - y0!;
  const w = b.end[2]! - x0!;
  const out = new Uint16Array(h * w);
  for (let y = 0; y < h; y++) out.set(counts.subarray((f! * HEIGHT + y0! + y) * WIDTH + x0!, (f! * HEIGHT + y0! + y) * WIDTH + x0! + w), y * w);
  return out;
}

async function writeDemo(path: string): Promise<void> {
  const { counts, hits } = makeFrames();
  const f = await createFile(path, { superblockVersion: 3 }); // v3: HDF5 ≥ 1.10, as sparse datasets need
  try {
    await f.attrs.set('title', 'chunkform demo: one LCLS-style detector run');
    const run = await f.createGroup('run');
    await run.attrs.set('run_number', 42, { dtype: 'int32' });

    // Every frame in full: dense, one chunk per frame, shuffle + gzip, growable along the frame axis.
    await run.createDataset('frames', {
      dtype: 'uint16',
      shape: [FRAMES, HEIGHT, WIDTH],
      maxShape: [null, HEIGHT, WIDTH],
      chunks: [1, HEIGHT, WIDTH],
      shuffle: true,
      compression: 'gzip',
      data: counts,
    });

    // What matters of each frame: sparse, only the ROI and the hits are stored (selection + values per chunk).
    const reduced = await run.createDataset('reduced', {
      layout: 'sparse',
      dtype: 'uint16',
      shape: [FRAMES, HEIGHT, WIDTH],
      maxShape: [null, HEIGHT, WIDTH],
      chunks: [1, HEIGHT, WIDTH],
      filters: { selection: 'compact', values: [{ id: 2 }, { id: 1, clientData: [6] }] }, // shuffle + deflate on the values
    });
    for (let fr = 0; fr < FRAMES; fr++) {
      const blocks = [{ start: [fr, ROI.y0, ROI.x0], end: [fr + 1, ROI.y0 + ROI.h, ROI.x0 + ROI.w] }, ...hits[fr]!];
      for (const b of blocks) await reduced.write(blockValues(counts, b), selectBlocks([b]));
    }
    await reduced.attrs.set('units', 'photons');
  } finally {
    await f.close();
  }
}

async function main(): Promise<void> {
  const shown = process.argv[2] ?? 'demo.h5';
  const path = resolve(shown);
  await writeDemo(path);
  console.log(`Wrote ${shown}: ${FRAMES} frames of ${HEIGHT}×${WIDTH}, dense (/run/frames) and sparse (/run/reduced)\n`);

  console.log(`$ chunkform ls -r -v ${shown}`);
  const io = { stdout: { write: (s: string) => process.stdout.write(s) }, stderr: { write: (s: string) => process.stderr.write(s) } };
  const code = await run(['ls', '-r', '-v', path], io);
  if (code !== 0) throw new Error(`chunkform ls exited with ${code}`);

  const f = await openFile(path);
  try {
    const reduced = await f.get('/run/reduced');
    const frames = await f.get('/run/frames');
    if (!(reduced instanceof Dataset) || !(frames instanceof Dataset)) throw new Error('the demo datasets are missing');
    const { values } = await reduced.readDefined();
    let sparseBytes = 0;
    await reduced.iterateChunks((c) => void (sparseBytes += c.size));
    let denseBytes = 0;
    await frames.iterateChunks((c) => void (denseBytes += c.size));
    const total = FRAMES * HEIGHT * WIDTH;
    console.log(
      `\n/run/reduced defines ${values.length} of ${total} elements (${((100 * values.length) / total).toFixed(1)} %): ` +
        `${sparseBytes} bytes of chunks, ${(sparseBytes / values.length).toFixed(2)} bytes per defined element; ` +
        `the dense copy of every frame takes ${denseBytes} bytes (${(denseBytes / sparseBytes).toFixed(1)}× more).`,
    );
    const frame0 = (await reduced.read()) as Uint16Array;
    const undefinedRead = frame0[0]; // (0, 0, 0) lies outside the ROI and every hit
    console.log(`Reading /run/reduced gives the fill value (${undefinedRead}) where nothing is defined.`);
  } finally {
    await f.close();
  }

  console.log(
    `\nLook at it:  pnpm exec chunkform dump -d /run/reduced --sparse ${shown}     ` +
      `(where the defined elements are: --sparse-locations)\n` +
      `Dense datasets open in other HDF5 tools too:  h5dump -d /run/frames ${shown}`,
  );
}

await main();
