// What an npm user runs with plain node (no TypeScript, no bundler): write and read a dense and a
// sparse dataset through the published packages. Used by .ci/pack-check (copied into a project outside the workspace).
import { createFile, openFile, selectBlocks } from '@chunkform/core';
import { openFile as openReadOnly, ReadDataset } from '@chunkform/core/read';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerSparseFormat } from '@chunkform/format-sparse';
import { registerIndexes } from '@chunkform/indexes';
import { registerFilters } from '@chunkform/filters';

registerDenseFormats();
registerSparseFormat();
registerIndexes();
registerFilters();

const path = process.argv[2];
const f = await createFile(path, { superblockVersion: 3 });
const frames = new Uint16Array(2 * 64 * 64).map((_, i) => i % 1000);
await f.createDataset('frames', { dtype: 'uint16', shape: [2, 64, 64], chunks: [1, 64, 64], compression: 'gzip', data: frames });
const roi = await f.createDataset('roi', { layout: 'sparse', dtype: 'uint16', shape: [2, 64, 64], chunks: [1, 64, 64] });
await roi.write(new Uint16Array(10 * 10).fill(7), selectBlocks([{ start: [1, 20, 20], end: [2, 30, 30] }]));
await f.close();

const r = await openFile(path);
const dense = await (await r.get('/frames')).read();
if (dense.length !== frames.length || dense.some((v, i) => v !== frames[i])) throw new Error('dense values differ');
const { values } = await (await r.get('/roi')).readDefined();
if (values.length !== 100 || values.some((v) => v !== 7)) throw new Error('sparse values differ');
await r.close();
// the read-only entry opens the same file, with read-only classes
const ro = await openReadOnly(path);
const roFrames = await ro.get('/frames');
if (!(roFrames instanceof ReadDataset) || 'write' in roFrames) throw new Error('@chunkform/core/read gave a writable dataset');
const roValues = await roFrames.read();
if (roValues.length !== frames.length || roValues.some((v, i) => v !== frames[i])) throw new Error('read-only entry: dense values differ');
await ro.close();
console.log('pack-check: plain-node ESM app wrote and read dense and sparse datasets (and read them through @chunkform/core/read)');
