/**
 * Example app for the third-party delta filter: writes chunked datasets through the delta filter (id 300),
 * closes the file, reopens it and reads it back; exits non-zero if a value differs.
 *
 *     pnpm --filter @chunkform/example-filter-plugin start [out.h5]
 *     node --import tsx examples/filter-plugin/app.ts [out.h5]      # from the repository root
 * @module
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Dataset, createFile, openFile, registerFilter } from '@chunkform/core';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerIndexes } from '@chunkform/indexes';
import { DELTA_FILTER_ID, deltaFilter } from './src/index.js';

// Chunked storage itself is a plug-in (chunk indexes, dense chunk formats) ...
registerIndexes();
registerDenseFormats();
// ... and the third-party filter is installed with ONE call.
registerFilter(deltaFilter);

/** A monotonically increasing nanosecond timestamp per event: delta turns it into small steps. */
function timestamps(n: number): BigUint64Array {
  const t = new BigUint64Array(n);
  let now = 1_714_564_800_000_000_000n;
  for (let i = 0; i < n; i++) {
    now += 1_000_000n + BigInt((i * 7919) % 1000);
    t[i] = now;
  }
  return t;
}

/** A slowly varying detector count per pixel. */
function counts(n: number): Uint16Array {
  return Uint16Array.from({ length: n }, (_, i) => 1000 + Math.round(200 * Math.sin(i / 50)) + (i % 3));
}

async function main(): Promise<number> {
  const path = resolve(process.argv[2] ?? join(mkdtempSync(join(tmpdir(), 'chunkform-plugin-')), 'delta.h5'));
  const t = timestamps(10_000);
  const c = counts(64 * 64 * 4);

  const f = await createFile(path);
  try {
    await f.createDataset('events/timestamp_ns', {
      dtype: 'uint64',
      shape: [t.length],
      chunks: [2048],
      filters: [{ id: DELTA_FILTER_ID }], // cd_values [8] filled in by the filter's setLocal
      data: t,
    });
    await f.createDataset('frames/counts', {
      dtype: 'uint16',
      shape: [4, 64, 64],
      chunks: [1, 64, 64],
      filters: [{ id: DELTA_FILTER_ID, clientData: [2] }], // explicit cd_values: element size 2
      data: c,
    });
  } finally {
    await f.close();
  }

  const g = await openFile(path);
  let bad = 0;
  try {
    for (const [name, expected] of [['events/timestamp_ns', t], ['frames/counts', c]] as const) {
      const ds = await g.get(name);
      if (!(ds instanceof Dataset)) throw new Error(`${name} is not a dataset`);
      const got = (await ds.read()) as ArrayLike<number | bigint>;
      let diff = got.length === expected.length ? 0 : 1;
      for (let i = 0; i < expected.length && diff === 0; i++) if (got[i] !== expected[i]) diff = 1;
      console.log(`${name}: ${expected.length} values through filter ${DELTA_FILTER_ID} — ${diff ? 'MISMATCH' : 'ok'}`);
      bad += diff;
    }
  } finally {
    await g.close();
  }
  console.log(`wrote and read back ${path}`);
  return bad ? 1 : 0;
}

process.exitCode = await main();
