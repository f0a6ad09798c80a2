import { createFile, openFile, selectHyperslab, type Dataset } from '../packages/core/src/index.js';
import { registerEverything } from '../packages/cli/src/registrations.js';
import { xorshift32 } from './xorshift.js';
registerEverything();
const F = 50, H = 1024, W = 1024;
const data = new Uint16Array(F * H * W); const rnd = xorshift32(1); for (let i = 0; i < data.length; i++) data[i] = rnd() & 0x3f;
const mode = process.env.MODE ?? 'read';
const chunks = mode === 'fwrite' ? [1, H, W] : [1, 256, 256];
const path = '/tmp/pts/t.h5';
async function write() { const f = await createFile(path); await f.createDataset('frames', { dtype: 'uint16', shape: [F, H, W], chunks, data, ...(mode === 'win' ? { compression: 'gzip' as const, compressionOpts: 1 } : {}) }); await f.close(); }
const into = new Uint16Array(data.length);
async function read() { const f = await openFile(path); await ((await f.get('frames')) as Dataset).readInto(into); await f.close(); }
const wr = xorshift32(7); const wins: number[] = []; for (let i = 0; i < 1000; i++) wins.push(wr() % Number(process.env.WF ?? 4), wr() % (H - 63), wr() % (W - 63));
async function win() { const f = await openFile(path); const ds = (await f.get('frames')) as Dataset; for (let i = 0; i < wins.length; i += 3) await ds.read(selectHyperslab({ start: [wins[i]!, wins[i + 1]!, wins[i + 2]!], block: [1, 64, 64] })); await f.close(); }
await write();
const fn = mode === 'read' ? read : mode === 'win' ? win : write;
const reps = Number(process.env.REPS ?? 10);
const per: string[] = [];
for (let i = 0; i < reps; i++) { const t = performance.now(); const c = process.cpuUsage(); await fn(); const cu = process.cpuUsage(c); per.push((performance.now() - t).toFixed(0) + "/" + ((cu.user + cu.system) / 1000).toFixed(0)); }
console.log(mode, per.join(' '));
