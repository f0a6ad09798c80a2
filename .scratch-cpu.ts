import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createFile, openFile, type Dataset } from './packages/core/src/index.js';
import { registerIndexes } from './packages/indexes/src/index.js';
import { registerDenseFormats } from './packages/format-dense/src/index.js';
import { registerSparseFormat } from './packages/format-sparse/src/index.js';
import { configureWorkers, registerFilters, startWorkers } from './packages/filters/src/index.js';
registerIndexes(); registerDenseFormats(); registerSparseFormat(); registerFilters();
const FR = 16, H = 1024, W = 1024;
const data = new Uint16Array(FR * H * W);
for (let i = 0, x = 7; i < data.length; i++) { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; data[i] = 90 + ((i >> 14) & 15) + (x & 7) + (x % 997 === 0 ? x & 0xfff : 0); }
const P: Record<string, object> = {
  'gzip 1': { compression: 'gzip', compressionOpts: 1 },
  'shuffle + gzip 1': { shuffle: true, compression: 'gzip', compressionOpts: 1 },
  LZ4: { filters: [{ id: 32004 }] },
  'bitshuffle + LZ4': { filters: [{ id: 32008, clientData: [0, 2] }] },
  'zstd 3': { filters: [{ id: 32015, clientData: [3] }] },
};
const main = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const all = () => readdirSync('/proc/self/task').reduce((a, t) => { try { return a + Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6; } catch { return a; } }, 0);
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]!; };
const threads = Number(process.env.T ?? 2);
configureWorkers({ threads }); await startWorkers();
const dir = mkdtempSync(join(tmpdir(), 'rdscale-'));
const REP = Number(process.env.REP ?? 7);
for (const [name, o] of Object.entries(P)) {
  const path = join(dir, name.replace(/\W+/g, '_') + '.h5');
  const f = await createFile(path);
  await ((await f.createDataset('d', { dtype: 'uint16', shape: [FR, H, W], chunks: [1, H, W], ...o } as never)) as Dataset).write(data);
  await f.close();
  const shared = new Uint16Array(new SharedArrayBuffer(data.byteLength));
  const modes: Record<string, (ds: Dataset) => Promise<unknown>> = {
    'read()': (ds) => ds.read(),
    'read() ordinary': (ds) => ds.read(undefined, { allowShared: false }),
    'readInto shared': (ds) => ds.readInto(shared),
  };
  const res: Record<string, { m: number[]; o: number[]; w: number[] }> = {};
  for (let r = 0; r < REP; r++) for (const [mode, fn] of Object.entries(modes)) {
    const m0 = main(), a0 = all(), t0 = performance.now();
    const g = await openFile(path); await fn((await g.get('d')) as Dataset); await g.close();
    const w = performance.now() - t0, m = main() - m0, a = all() - a0;
    (res[mode] ??= { m: [], o: [], w: [] }); res[mode].m.push(m); res[mode].o.push(a - m); res[mode].w.push(w);
  }
  for (const [mode, x] of Object.entries(res)) {
    const M = med(x.m), O = med(x.o);
    console.log(`${name} | ${mode} | main ${M.toFixed(0)} ms | other ${O.toFixed(0)} ms | wall ${med(x.w).toFixed(0)} ms | bound ${(2 * Math.max(M, O / threads * 1) / (M + O) * 1).toFixed(2)}`);
  }
}
process.exit(0);
