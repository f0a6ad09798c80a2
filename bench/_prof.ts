import { createFile, openFile, selectAll, selectBlocks, selectHyperslab, type Box, type Dataset } from '/work/wt/points/packages/core/src/index.js';
import { registerEverything } from '/work/wt/points/packages/cli/src/registrations.js';
import { xorshift32 } from '/work/wt/points/bench/xorshift.js';
registerEverything();
const N = 2048, FRAMES = 200;
const gzip = process.env.GZ !== '0';
const mode = process.env.MODE ?? 'all';
const rnd = xorshift32(0x3b3b);
const path = '/tmp/pts/p.h5';
const boxesAll: Box[][] = []; const vals: Uint16Array[] = [];
for (let f = 0; f < FRAMES; f++) {
  const cells = new Set<number>();
  while (cells.size < 80) cells.add(rnd() % ((N / 4) * (N / 4)));
  const cs = [...cells].sort((a, b) => a - b);
  boxesAll.push(cs.map((c) => { const y = Math.floor(c / (N / 4)) * 4, x = (c % (N / 4)) * 4; return { start: [f, y, x], end: [f + 1, y + 3, x + 3] }; }));
  vals.push(Uint16Array.from({ length: 720 }, () => 1 + (rnd() % 4000)));
}
async function write() {
  const f = await createFile(path);
  const ds = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [0, N, N], maxShape: [null, N, N], chunks: [1, N, N], ...(gzip ? { compression: 'gzip' as const, compressionOpts: 1 } : {}) });
  for (let i = 0; i < FRAMES; i++) { await ds.resize([i + 1, N, N]); await ds.write(vals[i]!, selectBlocks(boxesAll[i]!)); }
  await f.close();
}
async function readAll() {
  const f = await openFile(path); const ds = (await f.get('frames')) as Dataset;
  await ds.readDefined(selectAll()); await f.close();
}
async function readFrames() {
  const f = await openFile(path); const ds = (await f.get('frames')) as Dataset;
  for (let i = 0; i < FRAMES; i++) await ds.readDefined(selectHyperslab({ start: [i, 0, 0], block: [1, N, N] }));
  await f.close();
}
await write();
const fn = mode === 'write' ? write : mode === 'frames' ? readFrames : readAll;
const reps = Number(process.env.REPS ?? 20);
const W0 = Number(process.env.W0 ?? 3); const per: string[] = []; for (let i = 0; i < W0; i++) { const t = performance.now(); await fn(); per.push((performance.now() - t).toFixed(0)); } console.log("warm", per.join(" "));
const t0 = performance.now();
for (let i = 0; i < reps; i++) await fn();
console.log(mode, gzip ? "gzip" : "raw", ((performance.now() - t0) / reps).toFixed(1), "ms");
const T = (globalThis as any).__T; if (T) console.log(Object.entries(T).map(([k, v]) => `${k} ${((v as number) / (reps + W0) / FRAMES * 1000).toFixed(1)}µs`).join('  '));
