/**
 * What the browser test compares between a read in the browser and the same read in Node: the values'
 * bytes digested (lookup3), their count and first few values; sparse datasets also digest the defined
 * selection's runs.
 */
import { lookup3, ReadDataset, selectHyperslab, selectionRuns, type ReadGroup } from '../../packages/core/src/index.js';

export interface ReadDigest {
  count: number;
  first: string[];
  valuesHash: number;
  runsHash?: number;
}

function bytesOf(v: unknown): Uint8Array {
  if (!ArrayBuffer.isView(v)) throw new Error('expected a typed array');
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** Reads `path` (read-only or full classes alike; one frame along the first dimension when `frame` is given; sparse: `readDefined`). */
export async function readDigest(file: ReadGroup, path: string, frame?: number): Promise<ReadDigest> {
  const ds = await file.get(path);
  if (!(ds instanceof ReadDataset)) throw new Error(`${path} is not a dataset`);
  const shape = ds.shape;
  const sel = frame === undefined ? undefined : selectHyperslab({ start: [frame, ...shape.slice(1).map(() => 0)], block: [1, ...shape.slice(1)] });
  if (ds.layout.class === 'structured') {
    const { selection, values } = await ds.readDefined(sel);
    const runs = selectionRuns(selection, shape);
    const a = values as unknown as ArrayLike<number>;
    return { count: a.length, first: Array.from({ length: Math.min(8, a.length) }, (_, i) => String(a[i])), valuesHash: lookup3(bytesOf(values)), runsHash: lookup3(bytesOf(runs)) };
  }
  const values = await ds.read(sel);
  const a = values as unknown as ArrayLike<number>;
  return { count: a.length, first: Array.from({ length: Math.min(8, a.length) }, (_, i) => String(a[i])), valuesHash: lookup3(bytesOf(values)) };
}
