/**
 * `chunkform dump` and `repack` stream: a child process dumping a 48 MB dataset (text and JSON)
 * peaks at most 64 MB above the same program dumping one element of it, and the peak of dump (text,
 * JSON) and repack does not grow with the dataset's size (48 MB vs 192 MB). (The ≥ 1 GB run is
 * bench/cli-memory.ts, the 200 MB comparison with h5dump — time and peak RSS — bench/dump.ts;
 * timings are never asserted here.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/chunkform.js', import.meta.url));
const PY = '/usr/bin/python3';
let dir: string;
let file: string;
let file4: string;

/** Writes `mib` MiB of uint32 (0…99,999 repeating) as dataset `d`, chunks 64×1024, with h5py. */
function writeUint32(path: string, mib: number): void {
  execFileSync(PY, [
    '-c',
    `import h5py, numpy as np, sys
rows = int(sys.argv[2]) * 256
with h5py.File(sys.argv[1], 'w') as f:
    d = f.create_dataset('d', shape=(rows, 1024), dtype='<u4', chunks=(64, 1024))
    for r in range(0, rows, 4096):
        d[r:r + 4096] = ((np.arange(4096 * 1024, dtype=np.int64) + r * 1024) % 100000).astype('<u4').reshape(4096, 1024)`,
    path,
    String(mib),
  ]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-dump-mem-'));
  file = join(dir, 'big.h5');
  file4 = join(dir, 'big4.h5');
  writeUint32(file, 48);
  writeUint32(file4, 192);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Peak RSS (KiB) of `chunkform …` with stdout discarded, and its exit status. */
function peakKiB(args: string[]): { kib: number; status: number | null; bytes: number } {
  const r = spawnSync('/bin/sh', ['-c', `/usr/bin/time -f %M -o "$0.rss" "${process.execPath}" "${BIN}" "$@" | wc -c; cat "$0.rss"`, join(dir, 'run'), ...args], {
    encoding: 'utf8',
  });
  const [bytes, kib] = r.stdout.trim().split(/\s+/).map(Number);
  return { kib: kib!, status: r.status, bytes: bytes! };
}

describe('dump memory is bounded', () => {
  it('dump (text, JSON) and repack peak no higher on a 192 MB dataset than on a 48 MB one', () => {
    const runs: [string, (f: string) => string[]][] = [
      ['text', (f) => ['dump', f]],
      ['json', (f) => ['dump', '--json', f]],
      ['repack', (f) => ['repack', '-q', '-l', 'd:CHUNK=128x512', '-f', 'd:GZIP=1', f, `${f}.out.h5`]],
    ];
    for (const [what, args] of runs) {
      const small = peakKiB(args(file));
      const large = peakKiB(args(file4));
      expect([small.status, large.status], what).toEqual([0, 0]);
      // 4× the data: at most 16 MiB more for dump (garbage-collector noise) and 40 MiB for repack, which
      // reads blocks of up to 32 MiB one ahead (uncollected blocks under a loaded machine); unbounded
      // memory would add ≥ 144 MB
      const slack = what === 'repack' ? 40 : 16;
      expect(large.kib - small.kib, `${what}: ${large.kib} KiB (192 MB) vs ${small.kib} KiB (48 MB)`).toBeLessThan(slack * 1024);
    }
  });

  it('text and JSON of a 48 MB dataset stay within 64 MB of a one-element dump', () => {
    const base = peakKiB(['dump', '-d', '/d', '-c', '1,1', file]);
    expect(base.status).toBe(0);
    const text = peakKiB(['dump', file]);
    expect(text.bytes).toBeGreaterThan(12 * 1024 * 1024 * 5); // every value printed
    const json = peakKiB(['dump', '--json', file]);
    expect(json.bytes).toBeGreaterThan(12 * 1024 * 1024 * 5);
    for (const [what, r] of [['text', text], ['json', json]] as const) {
      expect(r.status, what).toBe(0);
      expect(r.kib - base.kib, `${what}: peak ${r.kib} KiB vs baseline ${base.kib} KiB`).toBeLessThan(64 * 1024);
    }
  });
});
