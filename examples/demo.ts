/**
 * chunkform demo: writes a small "detector run" HDF5 file with `@chunkform/core`, reopens it with
 * chunkform's reader and prints what is inside (through the `chunkform ls` / `dump` functions of
 * `@chunkform/cli`). Run from the repository root:
 *
 *     pnpm demo                 # writes ./demo.h5
 *     pnpm demo /tmp/run42.h5   # writes the given path
 *
 * The file is ordinary HDF5: h5py, h5dump and HDFView open it.
 * @module
 */
import { resolve } from 'node:path';
import { Dataset, createFile, openFile, selectHyperslab } from '@chunkform/core';
import { dumpText, listObjects, registerEverything } from '@chunkform/cli';

// Chunk formats, chunk indexes and filters are plug-ins: install the ones the app needs.
registerEverything();

const FRAMES = 4;
const HEIGHT = 8;
const WIDTH = 8;

/** Synthetic detector frames: a Gaussian spot drifting to the right over a flat background. */
function makeFrames(): Uint16Array {
  const counts = new Uint16Array(FRAMES * HEIGHT * WIDTH);
  for (let f = 0; f < FRAMES; f++) {
    const cx = 2 + f;
    const cy = 3.5;
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const r2 = (x - cx) ** 2 + (y - cy) ** 2;
        counts[(f * HEIGHT + y) * WIDTH + x] = 10 + Math.round(1000 * Math.exp(-r2 / 2));
      }
    }
  }
  return counts;
}

async function writeDemo(path: string): Promise<void> {
  const f = await createFile(path);
  try {
    await f.attrs.set('title', 'chunkform demo: one detector run');
    await f.attrs.set('format_version', 1, { dtype: 'int32' });

    const run = await f.createGroup('run');
    await run.attrs.set('run_number', 42, { dtype: 'int32' });
    await run.attrs.set('start_time', '2024-05-01T12:00:00Z');

    const meta = await run.createGroup('meta');
    await meta.attrs.set('operator', 'alice');
    await meta.attrs.set('temperature_K', 293.15);
    await meta.createDataset('settings', {
      dtype: 'string', // variable-length UTF-8 strings, like h5py.string_dtype()
      shape: [3],
      data: ['gain=high', 'mode=burst', 'trigger=external'],
    });

    const frames = await run.createGroup('frames');
    // A growable stack of frames: one chunk per frame, shuffle + gzip, unlimited along the frame axis.
    const all = makeFrames();
    const counts = await frames.createDataset('counts', {
      dtype: 'uint16',
      shape: [FRAMES - 1, HEIGHT, WIDTH],
      maxShape: [null, HEIGHT, WIDTH],
      chunks: [1, HEIGHT, WIDTH],
      shuffle: true,
      compression: 'gzip',
      data: all.subarray(0, (FRAMES - 1) * HEIGHT * WIDTH),
    });
    // Append the last frame the way a streaming writer does: grow, then write the new slab.
    await counts.resize([FRAMES, HEIGHT, WIDTH]);
    const last = selectHyperslab({ start: [FRAMES - 1, 0, 0], count: [1, HEIGHT, WIDTH] });
    await counts.write(all.subarray((FRAMES - 1) * HEIGHT * WIDTH), last);
    await counts.attrs.set('units', 'photons');
    await frames.createDataset('exposure_s', { dtype: 'float64', shape: [FRAMES], data: [0.1, 0.1, 0.25, 0.25] });
    await frames.createDataset('timestamp_ns', {
      dtype: 'int64',
      shape: [FRAMES],
      data: BigInt64Array.from([0n, 1n, 2n, 3n], (i) => 1_714_564_800_000_000_000n + i * 250_000_000n),
    });
  } finally {
    await f.close();
  }
}

async function main(): Promise<void> {
  const shown = process.argv[2] ?? 'demo.h5';
  const path = resolve(shown);
  await writeDemo(path);
  console.log(`Wrote ${shown}\n`);

  const f = await openFile(path);
  try {
    console.log(`$ chunkform ls -r -v ${shown}`);
    await listObjects(f, '/', { recursive: true, verbose: true }, (line) => console.log(line));

    console.log(`\n$ chunkform dump ${shown} /run/meta`);
    await dumpText(f, '/run/meta', {}, (line) => console.log(line));

    const exposure = await f.get('/run/frames/exposure_s');
    if (exposure instanceof Dataset) {
      const values = (await exposure.read()) as Float64Array;
      let total = 0;
      for (let i = 0; i < values.length; i++) total += values[i]!;
      console.log(`\nTotal exposure read back: ${total.toFixed(2)} s over ${values.length} frames`);
    }
  } finally {
    await f.close();
  }

  console.log(
    `\nOpen it with other HDF5 tools:  h5dump ${shown}   or   ` +
      `python3 -c "import h5py; f = h5py.File('${shown}'); print(f['run/frames/counts'][0])"`,
  );
}

await main();
