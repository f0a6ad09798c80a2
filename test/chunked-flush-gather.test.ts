/**
 * The chunk engine's flush writes small dirty chunks placed next to each other in the file with one
 * I/O per run of adjacent addresses (issue #4 point-hit writes): the result must be what chunk-by-
 * chunk stores give — values read back by chunkform and h5py, index records pointing at each
 * chunk's own bytes — for new chunks, chunks rewritten in place and chunks that changed size.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, selectHyperslab, selectPoints, type Dataset } from '../packages/core/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkform-flush-gather-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function h5pyRead(path: string, name: string): { values: number[]; defined?: number } {
  requireH5py();
  const r = spawnSync(PYTHON, ['-c', `import h5py, json, sys\nf = h5py.File(sys.argv[1], 'r')\nprint(json.dumps(f[sys.argv[2]][()].ravel().tolist()))`, path, name], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return { values: JSON.parse(r.stdout) as number[] };
}

describe('flush gathers small dirty chunks', () => {
  it('dense chunks written partially (cached), flushed together, then rewritten with other sizes', async () => {
    const path = join(dir, 'dense.h5');
    const f = await createFile(path);
    const ds = await f.createDataset('d', { dtype: 'int32', shape: [12, 40], chunks: [3, 8], compression: 'gzip', compressionOpts: 1 });
    const expected = new Int32Array(12 * 40);
    // partial writes: every chunk is cached dirty and stored at flush (gzip: sizes differ by content)
    for (let y = 0; y < 12; y += 2) {
      const row = Int32Array.from({ length: 40 }, (_, x) => y * 1000 + x);
      await ds.write(row, selectHyperslab({ start: [y, 0], block: [1, 40] }));
      expected.set(row, y * 40);
    }
    await f.flush();
    const first: { address: number; size: number }[] = [];
    await ds.iterateChunks((c) => void first.push(c));
    expect(first.length).toBe(4 * 5);
    // every record's bytes are its own: no two chunks overlap
    const spans = first.map((c) => [c.address, c.address + c.size]).sort((a, b) => a[0]! - b[0]!);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]!);
    // rewrite: other content (other compressed sizes: new space and releases), some in place
    for (let y = 1; y < 12; y += 2) {
      const row = Int32Array.from({ length: 40 }, (_, x) => (x * 7919 + y * 104729) % 100003);
      await ds.write(row, selectHyperslab({ start: [y, 0], block: [1, 40] }));
      expected.set(row, y * 40);
    }
    await f.close();
    const g = await openFile(path);
    expect(Array.from((await (g.get('d') as Promise<Dataset>).then((d) => d.read())) as Int32Array)).toEqual(Array.from(expected));
    await g.close();
    expect(h5pyRead(path, 'd').values).toEqual(Array.from(expected));
  });

  it('sparse point-hit frames flushed at close read back in chunkform and h5py', async () => {
    const path = join(dir, 'sparse.h5');
    const H = 64;
    const W = 48;
    const frames = 30;
    const f = await createFile(path);
    const ds = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [0, H, W], maxShape: [null, H, W], chunks: [1, H, W] });
    const expected = new Uint16Array(frames * H * W);
    let seed = 12345;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    for (let i = 0; i < frames; i++) {
      await ds.resize([i + 1, H, W]);
      const n = 5 + (rnd() % 40);
      const coords = new Float64Array(3 * n);
      const values = new Uint16Array(n);
      for (let k = 0; k < n; k++) {
        coords[3 * k] = i;
        coords[3 * k + 1] = rnd() % H;
        coords[3 * k + 2] = rnd() % W;
        values[k] = 1 + (rnd() % 60000);
        // a later write of the same element wins
        expected[i * H * W + coords[3 * k + 1]! * W + coords[3 * k + 2]!] = values[k]!;
      }
      await ds.write(values, selectPoints(coords, 3));
    }
    await f.close();
    const g = await openFile(path);
    const d = (await g.get('frames')) as Dataset;
    expect(Array.from((await d.read()) as Uint16Array)).toEqual(Array.from(expected));
    expect(await d.numChunks()).toBe(frames);
    await g.close();
    // h5py (HDF5 1.10.8) cannot decode sparse chunks; the file itself must still open there
    requireH5py();
    const r = spawnSync(PYTHON, ['-c', 'import h5py, sys\nf = h5py.File(sys.argv[1], "r")\nprint(list(f.keys()))', path], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe("['frames']");
  });
});
