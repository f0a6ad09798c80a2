// A strict TypeScript consumer of the published packages' types (type-checked by .ci/pack-check).
import { createFile, openFile, selectHyperslab, type Dataset, type H5File } from '@chunkform/core';
import { NodeFileStore } from '@chunkform/core/node';
import { openFile as openReadOnly, ReadDataset, type ReadFile } from '@chunkform/core/read';
import { ByteReader, UNDEFINED_ADDRESS, formatKey, type ChunkFormatProvider } from '@chunkform/core/plugin';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerSparseFormat } from '@chunkform/format-sparse';
import { registerIndexes } from '@chunkform/indexes';
import { registerFilters, deflateFilter } from '@chunkform/filters';
import { bitshuffle } from '@chunkform/bitshuffle-wasm';
import { run } from '@chunkform/cli';

registerDenseFormats();
registerSparseFormat();
registerIndexes();
registerFilters();

export async function roundTrip(path: string): Promise<number> {
  const f: H5File = await createFile(path);
  const d: Dataset = await f.createDataset('x', { dtype: 'float32', shape: [4], data: [1, 2, 3, 4] });
  await d.write(new Float32Array([9]), selectHyperslab({ start: [0], count: [1] }));
  await f.close();
  const r = await openFile(path);
  const x = (await r.get('/x')) as Dataset;
  const values = await x.read();
  const ro: ReadFile = await openReadOnly(path);
  const rx = await ro.get('/x');
  const roCount = rx instanceof ReadDataset ? (await rx.read()).length : 0;
  await ro.close();
  const shuffled: Uint8Array = bitshuffle(new Uint8Array(16), 2);
  const code: number = await run(['ls', path], { stdout: { write: () => true }, stderr: { write: () => true } });
  const key: ChunkFormatProvider['layoutClass'] = formatKey('chunked') === 'chunked' ? 'chunked' : 'structured';
  const plugin = new ByteReader(new Uint8Array([1])).u8() + (UNDEFINED_ADDRESS < 0 ? 1 : 0) + key.length;
  return values.length + roCount + shuffled.length + code + deflateFilter.id + plugin + (NodeFileStore.name.length > 0 ? 1 : 0);
}
