/**
 * COO / CSR / CSC converters on sparse 2-D datasets (`writeCoo`, `readCoo`, `writeCompressed`,
 * `readCompressed`): round trips through the file (closed and reopened), compared with a hand-built
 * scipy-like expectation (canonical form: COO in row-major order, CSR indices sorted within each row, CSC
 * indices sorted within each column) and with the same conversion done by numpy (h5py's Python).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import './setup-registrations.js';
import {
  createFile,
  H5Error,
  MemoryStore,
  openFile,
  selectPoints,
  type CreateDatasetOptions,
  type Dataset,
} from '../packages/core/src/index.js';
import { readCompressed, readCoo, writeCompressed, writeCoo } from '../packages/format-sparse/src/index.js';
import { PYTHON } from './oracle/fixtures.js';

const SHAPE = [7, 9];
/** Entries (row, column, value) in no particular order, spread over several chunks of 3 × 4. */
const ENTRIES: [number, number, number][] = [
  [6, 8, 1.5], [0, 0, -2], [3, 4, 7.25], [0, 8, 3], [5, 0, -0.5], [3, 3, 11], [1, 5, 4], [6, 1, 9], [2, 2, 0], [3, 8, -6],
];
const FILL = -1;
const OPTS: CreateDatasetOptions = { layout: 'sparse', dtype: '<f8', shape: SHAPE, chunks: [3, 4], fillValue: FILL };

/** scipy's canonical forms, built by hand: COO row-major; CSR/CSC with sorted indices. */
function expected(entries: [number, number, number][], rows: number, cols: number) {
  const coo = [...entries].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const csc = [...entries].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const indptr = (keys: number[], n: number): number[] => {
    const p = new Array<number>(n + 1).fill(0);
    for (const k of keys) p[k + 1]!++;
    for (let i = 0; i < n; i++) p[i + 1]! += p[i]!;
    return p;
  };
  return {
    coo: { rows: coo.map((e) => e[0]), cols: coo.map((e) => e[1]), values: coo.map((e) => e[2]) },
    csr: { indptr: indptr(coo.map((e) => e[0]), rows), indices: coo.map((e) => e[1]), data: coo.map((e) => e[2]) },
    csc: { indptr: indptr(csc.map((e) => e[1]), cols), indices: csc.map((e) => e[0]), data: csc.map((e) => e[2]) },
  };
}

/** The same conversions with numpy (lexsort + bincount), as scipy.sparse would produce them. */
function numpyForms(entries: [number, number, number][], rows: number, cols: number): ReturnType<typeof expected> {
  const code = `
import sys, json, numpy as np
e = json.load(sys.stdin); R, C = int(sys.argv[1]), int(sys.argv[2])
r = np.array([x[0] for x in e], dtype=np.int64); c = np.array([x[1] for x in e], dtype=np.int64); v = np.array([x[2] for x in e], dtype=np.float64)
o = np.lexsort((c, r)); q = np.lexsort((r, c))
ptr = lambda k, n: np.concatenate([[0], np.cumsum(np.bincount(k, minlength=n))]).tolist()
print(json.dumps({'coo': {'rows': r[o].tolist(), 'cols': c[o].tolist(), 'values': v[o].tolist()},
  'csr': {'indptr': ptr(r, R), 'indices': c[o].tolist(), 'data': v[o].tolist()},
  'csc': {'indptr': ptr(c, C), 'indices': r[q].tolist(), 'data': v[q].tolist()}}))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', code, String(rows), String(cols)], { input: JSON.stringify(entries), encoding: 'utf8' }));
}

/** A sparse dataset in a fresh in-memory file; `reopen` closes the file and opens it again read-only. */
async function dataset(opts: CreateDatasetOptions = OPTS): Promise<{ d: Dataset; reopen: () => Promise<Dataset>; close: () => Promise<void> }> {
  const store = new MemoryStore();
  const f = await createFile(store, { superblockVersion: 3 });
  const d = await f.createDataset('m', opts);
  let g: Awaited<ReturnType<typeof openFile>> | undefined;
  return {
    d,
    reopen: async () => {
      await f.close();
      g = await openFile(store);
      return (await g.get('m')) as Dataset;
    },
    close: async () => {
      await f.close();
      await g?.close();
    },
  };
}

const plain = (a: ArrayLike<number>): number[] => Array.from(a);

describe('COO / CSR / CSC on a sparse 2-D dataset', () => {
  const exp = expected(ENTRIES, SHAPE[0]!, SHAPE[1]!);

  it('the hand-built expectation agrees with numpy', () => {
    expect(numpyForms(ENTRIES, SHAPE[0]!, SHAPE[1]!)).toEqual(exp);
  });

  it('writeCoo (unsorted entries) → readCoo / readCompressed (CSR, CSC) after reopening = the canonical forms', async () => {
    const { d, reopen, close } = await dataset();
    await writeCoo(d, { coords: [ENTRIES.map((e) => e[0]), ENTRIES.map((e) => e[1])], values: ENTRIES.map((e) => e[2]) });
    const r = await reopen();
    const coo = await readCoo(r);
    expect({ rows: plain(coo.coords[0]!), cols: plain(coo.coords[1]!), values: plain(coo.values as Float64Array) }).toEqual(exp.coo);
    const csr = await readCompressed(r);
    expect({ indptr: plain(csr.indptr), indices: plain(csr.indices), data: plain(csr.data as Float64Array) }).toEqual(exp.csr);
    const csc = await readCompressed(r, true);
    expect({ indptr: plain(csc.indptr), indices: plain(csc.indices), data: plain(csc.data as Float64Array) }).toEqual(exp.csc);
    // the dense view: the entries where written, the fill value elsewhere
    const dense = new Array<number>(SHAPE[0]! * SHAPE[1]!).fill(FILL);
    for (const [i, j, v] of ENTRIES) dense[i * SHAPE[1]! + j] = v;
    expect(plain((await r.read()) as Float64Array)).toEqual(dense);
    await close();
  });

  it('writeCompressed (CSR with unsorted indices within rows) round-trips to the canonical CSR and CSC', async () => {
    const { d, reopen, close } = await dataset();
    // rows as scipy may hold them before sort_indices(): reverse each row's entries
    const indptr = exp.csr.indptr;
    const indices: number[] = [];
    const data: number[] = [];
    for (let i = 0; i < SHAPE[0]!; i++) {
      for (let k = indptr[i + 1]! - 1; k >= indptr[i]!; k--) {
        indices.push(exp.csr.indices[k]!);
        data.push(exp.csr.data[k]!);
      }
    }
    await writeCompressed(d, { indptr, indices, data: Float64Array.from(data) });
    const r = await reopen();
    const csr = await readCompressed(r);
    expect({ indptr: plain(csr.indptr), indices: plain(csr.indices), data: plain(csr.data as Float64Array) }).toEqual(exp.csr);
    const csc = await readCompressed(r, true);
    expect({ indptr: plain(csc.indptr), indices: plain(csc.indices), data: plain(csc.data as Float64Array) }).toEqual(exp.csc);
    await close();
  });

  it('writeCompressed (CSC) round-trips to the canonical CSC and COO', async () => {
    const { d, reopen, close } = await dataset();
    await writeCompressed(d, { indptr: exp.csc.indptr, indices: exp.csc.indices, data: exp.csc.data }, true);
    const r = await reopen();
    const csc = await readCompressed(r, true);
    expect({ indptr: plain(csc.indptr), indices: plain(csc.indices), data: plain(csc.data as Float64Array) }).toEqual(exp.csc);
    const coo = await readCoo(r);
    expect({ rows: plain(coo.coords[0]!), cols: plain(coo.coords[1]!), values: plain(coo.values as Float64Array) }).toEqual(exp.coo);
    await close();
  });

  it('after erasing entries (and a whole chunk\'s worth), COO/CSR/CSC hold the rest', async () => {
    const { d, reopen, close } = await dataset({ ...OPTS, dtype: '<i4', fillValue: 0, compression: 'gzip' });
    const ints = ENTRIES.map(([i, j, v]) => [i, j, Math.round(v * 4)] as [number, number, number]);
    await writeCoo(d, { coords: [ints.map((e) => e[0]), ints.map((e) => e[1])], values: Int32Array.from(ints.map((e) => e[2])) });
    const gone = [[0, 0], [3, 4], [3, 3], [2, 2]]; // (0,0) and (2,2) empty chunk (0,0); (3,3)/(3,4) split chunks
    await d.erase(selectPoints(gone));
    const rest = ints.filter(([i, j]) => !gone.some(([a, b]) => a === i && b === j));
    const e = expected(rest, SHAPE[0]!, SHAPE[1]!);
    const r = await reopen();
    const coo = await readCoo(r);
    expect({ rows: plain(coo.coords[0]!), cols: plain(coo.coords[1]!), values: plain(coo.values as Int32Array) }).toEqual(e.coo);
    const csr = await readCompressed(r);
    expect({ indptr: plain(csr.indptr), indices: plain(csr.indices), data: plain(csr.data as Int32Array) }).toEqual(e.csr);
    const csc = await readCompressed(r, true);
    expect({ indptr: plain(csc.indptr), indices: plain(csc.indices), data: plain(csc.data as Int32Array) }).toEqual(e.csc);
    expect(numpyForms(rest, SHAPE[0]!, SHAPE[1]!)).toEqual(e);
    const chunks: string[] = [];
    await r.iterateStructChunks((c) => void chunks.push(c.offset.join(',')));
    expect(chunks).not.toContain('0,0');
    await close();
  });

  it('an empty matrix: empty COO, all-zero indptr', async () => {
    const { reopen, close } = await dataset();
    const r = await reopen();
    const coo = await readCoo(r);
    expect(coo.coords.map((c) => c.length)).toEqual([0, 0]);
    expect((coo.values as Float64Array).length).toBe(0);
    expect(plain((await readCompressed(r)).indptr)).toEqual(new Array<number>(SHAPE[0]! + 1).fill(0));
    expect(plain((await readCompressed(r, true)).indptr)).toEqual(new Array<number>(SHAPE[1]! + 1).fill(0));
    await close();
  });

  it('a 3-D COO round trip (CSR/CSC need 2-D and say so with a typed error)', async () => {
    const { d, reopen, close } = await dataset({ layout: 'sparse', dtype: '<u2', shape: [3, 4, 5], chunks: [2, 2, 2] });
    const pts = [[2, 3, 4], [0, 0, 1], [1, 2, 0], [0, 3, 3]];
    await writeCoo(d, { coords: [0, 1, 2].map((k) => pts.map((p) => p[k]!)), values: [40, 10, 30, 20] });
    const r = await reopen();
    const coo = await readCoo(r);
    expect(coo.coords.map(plain)).toEqual([[0, 0, 1, 2], [0, 3, 2, 3], [1, 3, 0, 4]]);
    expect(plain(coo.values as Uint16Array)).toEqual([10, 20, 30, 40]);
    await expect(readCompressed(r)).rejects.toBeInstanceOf(H5Error);
    await close();
  });

  it('malformed input gives typed errors', async () => {
    const { d, close } = await dataset();
    await expect(writeCompressed(d, { indptr: [0, 1], indices: [0], data: [1] })).rejects.toBeInstanceOf(H5Error); // indptr too short
    await expect(writeCompressed(d, { indptr: [0, 2, 1, 1, 1, 1, 1, 1], indices: [0, 1], data: [1, 2] })).rejects.toBeInstanceOf(H5Error); // decreasing
    await expect(writeCompressed(d, { indptr: [0, 1, 1, 1, 1, 1, 1, 2], indices: [0], data: [1] })).rejects.toBeInstanceOf(H5Error); // nnz mismatch
    await expect(writeCoo(d, { coords: [[0, 1], [0]], values: [1, 2] })).rejects.toBeInstanceOf(H5Error); // ragged
    await expect(writeCoo(d, { coords: [[0], [0], [0]], values: [1] })).rejects.toBeInstanceOf(H5Error); // rank
    await expect(writeCoo(d, { coords: [[7], [0]], values: [1] })).rejects.toBeInstanceOf(H5Error); // out of range
    await expect(writeCompressed(d, { indptr: [0, 1, 1, 1, 1, 1, 1, 1], indices: [9], data: [1] })).rejects.toBeInstanceOf(H5Error); // column 9 of 9
    expect(plain((await readCoo(d)).coords[0]!)).toEqual([]); // nothing was written
    await close();
  });
});
