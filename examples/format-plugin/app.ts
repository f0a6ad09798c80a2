/**
 * Example app for the third-party run-length chunk format: creates datasets with
 * `createDataset(path, { format: 'rle' })`, closes the file, reopens it and reads them back through
 * the public API; exits non-zero if a value differs.
 *
 *     pnpm --filter @chunkform/example-format-plugin start [out.h5]
 *     node --import tsx examples/format-plugin/app.ts [out.h5]      # from the repository root
 * @module
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Dataset, createFile, openFile } from '@chunkform/core';
import { registerIndexes } from '@chunkform/indexes';
import { registerRleFormat } from './src/index.js';

// Chunk indexes are a plug-in too ...
registerIndexes();
// ... and the third-party chunk format is installed with ONE call.
registerRleFormat();

/** A detector mask: long runs of 0 with a few dead-pixel rows of 1 (run-length encodes well). */
function mask(h: number, w: number): Uint8Array {
  const m = new Uint8Array(h * w);
  for (const row of [3, 17, 40]) m.fill(1, row * w, (row + 1) * w);
  return m;
}

/** A step signal: a value that changes every 500 samples. */
function steps(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => Math.floor(i / 500) * 0.25);
}

async function main(): Promise<number> {
  const path = resolve(process.argv[2] ?? join(mkdtempSync(join(tmpdir(), 'chunkform-format-plugin-')), 'rle.h5'));
  const m = mask(64, 64);
  const s = steps(5000);
  const f = await createFile(path);
  try {
    await f.createDataset('detector/mask', { dtype: 'uint8', shape: [64, 64], chunks: [32, 64], format: 'rle', data: m });
    const d = await f.createDataset('signal/steps', { dtype: 'float64', shape: [0], maxShape: [null], chunks: [1000], format: 'rle' });
    await d.resize([s.length]);
    await d.write(s);
  } finally {
    await f.close();
  }

  const g = await openFile(path);
  let bad = 0;
  try {
    for (const [name, expected] of [['detector/mask', m], ['signal/steps', s]] as const) {
      const ds = await g.get(name);
      if (!(ds instanceof Dataset)) throw new Error(`${name} is not a dataset`);
      const got = (await ds.read()) as ArrayLike<number>;
      let diff = got.length === expected.length ? 0 : 1;
      for (let i = 0; i < expected.length && diff === 0; i++) if (got[i] !== expected[i]) diff = 1;
      let stored = 0;
      await ds.iterateChunks((c) => void (stored += c.size));
      console.log(`${name}: ${expected.length} values in ${stored} stored bytes (format 'rle') — ${diff ? 'MISMATCH' : 'ok'}`);
      bad += diff;
    }
  } finally {
    await g.close();
  }
  console.log(`wrote and read back ${path}`);
  return bad ? 1 : 0;
}

process.exitCode = await main();
