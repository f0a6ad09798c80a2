import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createContainer,
  createFile,
  MemoryStore,
  openFile,
  registerChunkIndex,
  type Container,
  type Dataset,
} from '@chunkform/core';
import { selectHyperslab, selectPoints } from '@chunkform/core/plugin';
import { FixedArrayProvider } from '@chunkform/indexes';
import { registerFilters } from '@chunkform/filters';
import { registerDenseFormats } from '../src/index.js';

function container(): Container {
  const c = createContainer();
  registerChunkIndex(new FixedArrayProvider(), c);
  registerDenseFormats(c);
  registerFilters(c);
  return c;
}

function h5py(path: string, expr: string): unknown {
  const script = `import h5py, json, numpy as np\nf = h5py.File(${JSON.stringify(path)}, 'r')\nprint(json.dumps(${expr}))`;
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' }));
}

describe('chunk engine with dense formats (fixed array index)', () => {
  for (const filters of [{}, { compression: 'gzip' as const, compressionOpts: 1, shuffle: true, fletcher32: true }]) {
    it(`writes and reads edge chunks, selections and fill values ${JSON.stringify(filters)}`, async () => {
      const c = container();
      const store = new MemoryStore();
      const f = await createFile(store, { container: c });
      const data = Int32Array.from({ length: 10 * 7 }, (_, i) => i * 3 - 50);
      const d = await f.createDataset('x', { dtype: 'int32', shape: [10, 7], chunks: [4, 3], fillValue: -1, ...filters });
      expect(d.layout.class).toBe('chunked');
      // Fill value before anything is written.
      expect(Array.from((await d.read()) as Int32Array).every((v) => v === -1)).toBe(true);
      await d.write(data);
      const strided = selectHyperslab({ start: [1, 0], stride: [3, 2], count: [3, 4], block: [1, 1] });
      const expectStrided: number[] = [];
      for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) expectStrided.push(data[(1 + 3 * i) * 7 + 2 * j]!);
      expect(Array.from((await d.read(strided)) as Int32Array)).toEqual(expectStrided);
      await d.write([1000, 2000], selectPoints([[9, 6], [0, 0]]));
      await f.close();

      const bytes = store.toBytes();
      const g = await openFile(bytes, { container: c });
      const e = (await g.get('x')) as Dataset;
      const expected = Array.from(data);
      expected[9 * 7 + 6] = 1000;
      expected[0] = 2000;
      expect(Array.from((await e.read()) as Int32Array)).toEqual(expected);
      expect(await e.numChunks()).toBe(9);

      const dir = mkdtempSync(join(tmpdir(), 'cf-chunk-'));
      const path = join(dir, 'x.h5');
      writeFileSync(path, bytes);
      expect(h5py(path, "f['x'][...].ravel().tolist()")).toEqual(expected);
      expect(h5py(path, "list(f['x'].chunks)")).toEqual([4, 3]);
    });
  }
});
