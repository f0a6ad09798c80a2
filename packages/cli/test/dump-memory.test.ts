/**
 * `chunkform dump` streams: a child process dumping a 48 MB dataset (text and JSON) peaks at most
 * 64 MB above the same program dumping one element of it. (The 200 MB comparison with h5dump —
 * time and peak RSS — is in bench/dump.ts; timings are never asserted here.)
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

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-dump-mem-'));
  file = join(dir, 'big.h5');
  execFileSync(PY, [
    '-c',
    `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('d', data=(np.arange(12 * 1024 * 1024, dtype='<u4') % 100000).reshape(-1, 1024), chunks=(64, 1024))`,
    file,
  ]);
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
