/**
 * What the chunked write interop suite writes with chunkform: every chunk index type × filters, edge
 * chunks, never-written chunks, resizes, 1-D…4-D, several dtypes, selection writes, direct chunk
 * writes, and r+ modifications of h5py-written files. Each case is a list of operations that
 * test/oracle/chunked_check.py replays with numpy to get the values every reader must see.
 * @module
 */
import { deflateSync } from 'node:zlib';
import type { Dataset, FilterSpec } from '../../packages/core/src/index.js';
import { selectBlocks, selectHyperslab, selectionCount, selectPoints, slice, union, type Selection } from '../../packages/core/src/selection/index.js';

/** A selection in JSON (chunked_check.py's SEL). */
export type SelSpec =
  | { kind: 'all' }
  | { kind: 'hyperslab'; start: number[]; stride: number[]; count: number[]; block: number[] }
  | { kind: 'blocks'; boxes: [number[], number[]][] }
  | { kind: 'points'; coords: number[][] }
  | { kind: 'slice'; slices: [number | null, number | null, number | null][] };

/** One operation of a case. */
export type WriteOp =
  | { kind: 'write'; sel: SelSpec; seed: number }
  | { kind: 'resize'; shape: number[] }
  /** Direct chunk write: 'deflate' = zlib-compressed values (gzip datasets), 'raw' = the bytes as stored
   * unfiltered (mask 0 on unfiltered datasets; on a gzip dataset mask 1 = deflate skipped). */
  | { kind: 'chunk'; offset: number[]; encoding: 'deflate' | 'raw'; seed: number };

/** Filter presets (h5py-style). */
export type FilterName = 'none' | 'gzip' | 'shuffle_gzip' | 'fletcher32' | 'scaleoffset' | 'nbit' | 'gzip_fletcher32';

/** One dataset written by chunkform and checked by every oracle. */
export interface WriteCase {
  path: string;
  /** numpy dtype string ('<i4', '>f8', 'u1', 'S6'), or 'str' for variable-length UTF-8. */
  dtype: string;
  shape: number[];
  maxShape?: (number | null)[];
  chunks: number[];
  filter: FilterName;
  fill?: number | string;
  allocTime?: 'early' | 'late' | 'incremental';
  dontFilterPartialChunks?: boolean;
  chunkCache?: { bytes?: number; w0?: number };
  ops: WriteOp[];
  /** Index type HDF5 must see (chunkform names). */
  index: string;
  /** Lossy filter: values may differ from the replay by this much (float scale-offset). */
  tolerance?: number;
  /** h5wasm cannot read it (default true). */
  h5wasm?: boolean;
}

/** Creation options for chunkform's createDataset (filters part). */
export function filterOptions(c: WriteCase): { compression?: 'gzip'; compressionOpts?: number; shuffle?: boolean; fletcher32?: boolean; filters?: FilterSpec[] } {
  const float = c.dtype.includes('f');
  switch (c.filter) {
    case 'none':
      return {};
    case 'gzip':
      return { compression: 'gzip', compressionOpts: 4 };
    case 'shuffle_gzip':
      return { shuffle: true, compression: 'gzip', compressionOpts: 1 };
    case 'fletcher32':
      return { fletcher32: true };
    case 'gzip_fletcher32':
      return { compression: 'gzip', fletcher32: true };
    case 'scaleoffset':
      // H5Pset_scaleoffset: integers SO_INT (2) with minbits 0 (automatic, lossless); floats D-scale (0) with 3 digits
      return { filters: [{ id: 6, clientData: float ? [0, 3] : [2, 0], optional: true }] };
    case 'nbit':
      return { filters: [{ id: 5, optional: true }] };
  }
}

/** What h5py must report for the filters of a case (h5py names only gzip/lzf/szip as `compression`). */
export function h5pyFilters(c: WriteCase): { compression: string | null; compression_opts: unknown; shuffle: boolean; fletcher32: boolean; scaleoffset: number | null } {
  const float = c.dtype.includes('f');
  const base = { compression: null as string | null, compression_opts: null as unknown, shuffle: false, fletcher32: false, scaleoffset: null as number | null };
  switch (c.filter) {
    case 'gzip':
      return { ...base, compression: 'gzip', compression_opts: 4 };
    case 'shuffle_gzip':
      return { ...base, compression: 'gzip', compression_opts: 1, shuffle: true };
    case 'fletcher32':
      return { ...base, fletcher32: true };
    case 'gzip_fletcher32':
      return { ...base, compression: 'gzip', compression_opts: 4, fletcher32: true };
    case 'scaleoffset':
      return { ...base, scaleoffset: float ? 3 : 0 };
    default:
      return base;
  }
}

/** The filter ids of the stored pipeline, in order. */
export function filterIds(c: WriteCase): number[] {
  return { none: [], gzip: [1], shuffle_gzip: [2, 1], fletcher32: [3], gzip_fletcher32: [1, 3], scaleoffset: [6], nbit: [5] }[c.filter];
}

/** Extensible array over a dimension other than the first: HDF5 1.10.8's H5Dget_chunk_info reports wrong offsets. */
export function swizzledEa(maxShape: readonly (number | null)[] | undefined | null): boolean {
  if (!maxShape) return false;
  const unlimited = maxShape.filter((m) => m === null).length;
  return unlimited === 1 && maxShape[0] !== null;
}

// ---- values ------------------------------------------------------------------------------------

type Typed = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** Parses a numpy dtype string into kind/size ('S', 'str' give kind 'S'/'O'). */
export function dtypeInfo(dtype: string): { kind: 'i' | 'u' | 'f' | 'S' | 'O'; size: number } {
  if (dtype === 'str') return { kind: 'O', size: 0 };
  const m = /^[<>|=]?([iufS])(\d+)$/.exec(dtype);
  if (!m) throw new Error(`test spec: unsupported dtype ${dtype}`);
  return { kind: m[1] as 'i' | 'u' | 'f' | 'S', size: Number(m[2]) };
}

/**
 * `n` deterministic values of `dtype` (seeded): the data to pass to chunkform and its JSON form for
 * chunked_check.py (64-bit integers as decimal strings).
 */
export function makeValues(dtype: string, n: number, seed: number): { data: Typed | string[]; json: (number | string)[] } {
  const { kind, size } = dtypeInfo(dtype);
  if (kind === 'S' || kind === 'O') {
    const words = ['', 'a', 'ünï', 'xyz', '✓ ok', 'longer text', 'q'];
    const data = Array.from({ length: n }, (_, i) => {
      const w = words[(i + seed) % words.length]!;
      return kind === 'S' ? `${w.normalize('NFD').replace(/[^\x20-\x7e]/g, '')}${i % 10}`.slice(0, size) : `${w}${i}`;
    });
    return { data, json: data };
  }
  if (kind === 'f') {
    const data = size === 4 ? new Float32Array(n) : new Float64Array(n);
    for (let i = 0; i < n; i++) data[i] = Math.sin((i + seed * 1009) * 0.37) * 1000 + i * 0.25;
    return { data, json: Array.from(data) };
  }
  const bits = size * 8;
  if (bits === 64) {
    const data = kind === 'i' ? new BigInt64Array(n) : new BigUint64Array(n);
    for (let i = 0; i < n; i++) {
      const v = BigInt(((i + seed * 1009) * 7919 + 13) % 100003) * (2n ** 31n + 11n);
      data[i] = kind === 'i' ? v - 50000n * (2n ** 31n) : v;
    }
    return { data, json: Array.from(data, (x) => x.toString()) };
  }
  const C = ({ i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array } as Record<string, new (n: number) => Typed>)[`${kind}${size}`]!;
  const data = new C(n) as Int32Array;
  for (let i = 0; i < n; i++) {
    const k = (i + seed * 1009) * 7919 + 13;
    if (bits <= 16) {
      const span = kind === 'i' ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      const v = k % (span + 1);
      data[i] = kind === 'i' ? v - Math.floor(span / 2) : v;
    } else {
      data[i] = (k % 100003) - (kind === 'i' ? 50000 : 0);
    }
  }
  return { data, json: Array.from(data) };
}

/** Little-endian bytes of values (numeric dtypes only), for direct chunk writes. */
export function valuesToLeBytes(dtype: string, data: Typed): Uint8Array {
  if (dtype.startsWith('>')) throw new Error('test spec: direct chunk writes use little-endian dtypes');
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

// ---- selections --------------------------------------------------------------------------------

/** chunkform's selection for a spec over a dataspace of shape `dims`. */
export function toOurSelection(s: SelSpec, dims: number[]): Selection | undefined {
  switch (s.kind) {
    case 'all':
      return undefined;
    case 'hyperslab':
      return selectHyperslab({ start: s.start, stride: s.stride, count: s.count, block: s.block });
    case 'blocks': {
      let sel: Selection | undefined;
      for (const [start, end] of s.boxes) {
        const b = selectBlocks([{ start, end }]);
        sel = sel ? union(sel, b, dims) : b;
      }
      return sel;
    }
    case 'points':
      return selectPoints(s.coords);
    case 'slice':
      return slice(dims, ...s.slices.map((x) => [x[0], x[1], x[2]] as const)).selection;
  }
}

/** Number of elements `s` selects in `dims`. */
export function selCount(s: SelSpec, dims: number[]): number {
  const sel = toOurSelection(s, dims);
  return sel ? selectionCount(sel, dims) : dims.reduce((a, b) => a * b, 1);
}

/** Scale-offset with 3 decimal digits on float32 values near 1000: 0.5e-3 plus two float32 ulps (6.1e-5 each). */
export const FLOAT32_DSCALE3_TOLERANCE = 0.0005 + 2 * 6.2e-5;

const box = (start: number[], end: number[]): SelSpec => ({ kind: 'blocks', boxes: [[start, end]] });
const all: SelSpec = { kind: 'all' };

// ---- the cases ---------------------------------------------------------------------------------

interface Geometry {
  shape: number[];
  chunks: number[];
  maxShape?: (number | null)[];
  write: SelSpec;
  index: string;
}

const GEOMETRIES: Record<string, Geometry> = {
  single: { shape: [7, 5], chunks: [7, 5], write: all, index: 'single' },
  fa: { shape: [10, 11], chunks: [3, 4], write: box([0, 0], [7, 6]), index: 'fixed-array' },
  fa_paged: { shape: [40, 33], chunks: [1, 1], write: box([0, 0], [29, 33]), index: 'fixed-array' },
  ea: { shape: [23], chunks: [4], maxShape: [null], write: box([0], [13]), index: 'extensible-array' },
  ea_2d: { shape: [10, 6], chunks: [3, 4], maxShape: [null, 6], write: box([2, 0], [8, 5]), index: 'extensible-array' },
  ea_big: { shape: [3000], chunks: [1], maxShape: [null], write: box([0], [2800]), index: 'extensible-array' },
  bt2: { shape: [10, 9], chunks: [3, 4], maxShape: [null, null], write: box([0, 0], [7, 6]), index: 'btree2' },
  bt2_deep: { shape: [30, 31], chunks: [1, 1], maxShape: [null, null], write: box([0, 0], [30, 29]), index: 'btree2' },
};
const FILTERS: FilterName[] = ['none', 'gzip', 'shuffle_gzip', 'fletcher32', 'scaleoffset', 'nbit'];

/** Every dataset the write suite creates in a new file. */
export function writeCases(): WriteCase[] {
  const cases: WriteCase[] = [];
  for (const [g, geo] of Object.entries(GEOMETRIES)) {
    for (const filter of FILTERS) {
      cases.push({
        path: `/${g}/${filter}`,
        dtype: '<i4',
        shape: geo.shape,
        chunks: geo.chunks,
        ...(geo.maxShape ? { maxShape: geo.maxShape } : {}),
        filter,
        fill: -7,
        ops: [{ kind: 'write', sel: geo.write, seed: g.length + filter.length }],
        index: geo.index,
      });
    }
    cases.push({ path: `/${g}/unwritten`, dtype: '<i2', shape: geo.shape, chunks: geo.chunks, ...(geo.maxShape ? { maxShape: geo.maxShape } : {}), filter: 'none', fill: 11, ops: [], index: geo.index });
  }
  cases.push(
    { path: '/implicit/none', dtype: '<i4', shape: [9, 10], chunks: [4, 3], filter: 'none', fill: -1, allocTime: 'early', ops: [{ kind: 'write', sel: box([0, 0], [5, 4]), seed: 1 }], index: 'implicit' },
    { path: '/implicit/full', dtype: '<f8', shape: [8, 6], chunks: [4, 3], filter: 'none', allocTime: 'early', ops: [{ kind: 'write', sel: all, seed: 2 }], index: 'implicit' },
    { path: '/implicit/unwritten', dtype: '<u2', shape: [5, 5], chunks: [2, 2], filter: 'none', fill: 9, allocTime: 'early', ops: [], index: 'implicit' },
    { path: '/alloc/early_gzip', dtype: '<i4', shape: [9, 10], chunks: [4, 3], filter: 'gzip', fill: 3, allocTime: 'early', ops: [{ kind: 'write', sel: box([0, 0], [5, 4]), seed: 3 }], index: 'fixed-array' },
    { path: '/alloc/late', dtype: '<i4', shape: [9, 10], chunks: [4, 3], filter: 'none', fill: 3, allocTime: 'late', ops: [{ kind: 'write', sel: box([0, 0], [5, 4]), seed: 4 }], index: 'fixed-array' },
    { path: '/alloc/incremental_ea', dtype: '<i4', shape: [9], maxShape: [null], chunks: [4], filter: 'gzip', fill: 3, allocTime: 'incremental', ops: [{ kind: 'write', sel: box([5], [6]), seed: 5 }], index: 'extensible-array' },
    {
      path: '/ea_paged/none',
      dtype: 'u1',
      shape: [132000],
      maxShape: [null],
      chunks: [1],
      filter: 'none',
      fill: 254,
      ops: [
        { kind: 'write', sel: box([0], [50]), seed: 6 },
        { kind: 'write', sel: box([131100], [131300]), seed: 7 },
        { kind: 'write', sel: box([131500], [132000]), seed: 8 },
      ],
      index: 'extensible-array',
    },
    { path: '/many/gzip_fletcher32', dtype: '<u2', shape: [20, 20], chunks: [2, 2], filter: 'gzip_fletcher32', ops: [{ kind: 'write', sel: box([0, 0], [17, 20]), seed: 9 }], index: 'fixed-array' },
  );
  // 1-D … 4-D
  cases.push(
    { path: '/dims/d1_fa', dtype: '<f4', shape: [17], chunks: [5], filter: 'none', fill: -1.5, ops: [{ kind: 'write', sel: box([3], [12]), seed: 10 }], index: 'fixed-array' },
    { path: '/dims/d1_ea_gzip', dtype: '<i8', shape: [17], maxShape: [null], chunks: [5], filter: 'gzip', ops: [{ kind: 'write', sel: all, seed: 11 }], index: 'extensible-array' },
    { path: '/dims/d2_fa_gzip', dtype: '<u2', shape: [13, 7], chunks: [5, 3], filter: 'gzip', ops: [{ kind: 'write', sel: all, seed: 12 }], index: 'fixed-array' },
    { path: '/dims/d3_fa', dtype: '<i4', shape: [5, 6, 7], chunks: [2, 3, 4], filter: 'none', ops: [{ kind: 'write', sel: all, seed: 13 }], index: 'fixed-array' },
    { path: '/dims/d3_bt2_shuffle_gzip', dtype: '<f8', shape: [5, 6, 7], maxShape: [null, null, 7], chunks: [2, 3, 4], filter: 'shuffle_gzip', ops: [{ kind: 'write', sel: box([0, 1, 0], [4, 6, 7]), seed: 14 }], index: 'btree2' },
    { path: '/dims/d3_ea_fletcher32', dtype: '<i2', shape: [5, 6, 7], maxShape: [5, null, 7], chunks: [2, 5, 3], filter: 'fletcher32', ops: [{ kind: 'write', sel: all, seed: 15 }], index: 'extensible-array' },
    { path: '/dims/d4_fa_gzip', dtype: '<i4', shape: [3, 4, 5, 6], chunks: [2, 3, 2, 4], filter: 'gzip', ops: [{ kind: 'write', sel: all, seed: 16 }], index: 'fixed-array' },
    { path: '/dims/d4_ea', dtype: 'u1', shape: [3, 4, 5, 6], maxShape: [null, 4, 5, 6], chunks: [2, 3, 2, 4], filter: 'none', fill: 200, ops: [{ kind: 'write', sel: box([0, 0, 1, 0], [3, 4, 5, 5]), seed: 17 }], index: 'extensible-array' },
    { path: '/dims/d4_bt2_scaleoffset', dtype: '<i4', shape: [3, 4, 5, 6], maxShape: [null, null, null, null], chunks: [2, 3, 2, 4], filter: 'scaleoffset', ops: [{ kind: 'write', sel: all, seed: 18 }], index: 'btree2' },
    { path: '/dims/d4_single_nbit', dtype: '<i2', shape: [3, 4, 5, 6], chunks: [3, 4, 5, 6], filter: 'nbit', ops: [{ kind: 'write', sel: all, seed: 19 }], index: 'single' },
  );
  // dtypes
  for (const dt of ['i1', 'u1', '<i2', '>i2', '<u2', '<i4', '>u4', '<i8', '>u8', '<f4', '>f4', '<f8', '>f8']) {
    const tag = dt.replace('<', 'le_').replace('>', 'be_');
    cases.push({ path: `/dtypes/${tag}_shuffle_gzip`, dtype: dt, shape: [9, 7], maxShape: [null, null], chunks: [4, 3], filter: 'shuffle_gzip', ops: [{ kind: 'write', sel: box([0, 0], [8, 7]), seed: 20 }], index: 'btree2' });
  }
  for (const dt of ['<f4', '>f8']) {
    cases.push({ path: `/dtypes/${dt.replace('<', 'le_').replace('>', 'be_')}_scaleoffset`, dtype: dt, shape: [11, 6], chunks: [4, 4], filter: 'scaleoffset', fill: 0.5, ops: [{ kind: 'write', sel: box([0, 0], [9, 6]), seed: 21 }], index: 'fixed-array', tolerance: dt === '<f4' ? FLOAT32_DSCALE3_TOLERANCE : 0.0005 + 1e-9 });
  }
  for (const dt of ['i1', 'u1', '>i2', '<u4', '<i8', '>u8']) {
    cases.push({ path: `/dtypes/${dt.replace('<', 'le_').replace('>', 'be_')}_scaleoffset`, dtype: dt, shape: [40], chunks: [16], filter: 'scaleoffset', ops: [{ kind: 'write', sel: box([0], [35]), seed: 22 }], index: 'fixed-array' });
  }
  for (const dt of ['i1', '>u2', '<f4', '>f8', '<i8']) {
    cases.push({ path: `/dtypes/${dt.replace('<', 'le_').replace('>', 'be_')}_nbit`, dtype: dt, shape: [40], chunks: [16], filter: 'nbit', ops: [{ kind: 'write', sel: all, seed: 23 }], index: 'fixed-array' });
  }
  cases.push(
    { path: '/dtypes/S6_shuffle_gzip', dtype: 'S6', shape: [5, 3], chunks: [2, 2], filter: 'shuffle_gzip', ops: [{ kind: 'write', sel: all, seed: 24 }], index: 'fixed-array' },
    { path: '/dtypes/vlen_gzip', dtype: 'str', shape: [7], chunks: [3], filter: 'gzip', ops: [{ kind: 'write', sel: box([0], [6]), seed: 25 }], index: 'fixed-array', h5wasm: true },
    { path: '/dtypes/f8_fill_nan', dtype: '<f8', shape: [10], chunks: [3], filter: 'none', fill: 'NaN', ops: [{ kind: 'write', sel: box([2], [4]), seed: 26 }], index: 'fixed-array' },
  );
  // resized datasets
  cases.push(
    { path: '/resize/ea_grown', dtype: '<i4', shape: [10], maxShape: [null], chunks: [4], filter: 'none', fill: -3, ops: [{ kind: 'write', sel: all, seed: 30 }, { kind: 'resize', shape: [25] }, { kind: 'write', sel: box([18], [22]), seed: 31 }], index: 'extensible-array' },
    { path: '/resize/ea_grown_gzip', dtype: '<i4', shape: [10], maxShape: [null], chunks: [4], filter: 'gzip', fill: -3, ops: [{ kind: 'write', sel: all, seed: 30 }, { kind: 'resize', shape: [25] }, { kind: 'write', sel: box([18], [22]), seed: 31 }], index: 'extensible-array' },
    { path: '/resize/bt2_shrunk_grown', dtype: '<i4', shape: [12, 12], maxShape: [null, null], chunks: [5, 5], filter: 'none', fill: 4, ops: [{ kind: 'write', sel: all, seed: 32 }, { kind: 'resize', shape: [7, 6] }, { kind: 'resize', shape: [12, 12] }], index: 'btree2' },
    { path: '/resize/bt2_shrunk_grown_shuffle_gzip', dtype: '<f4', shape: [12, 12], maxShape: [null, null], chunks: [5, 5], filter: 'shuffle_gzip', fill: 4, ops: [{ kind: 'write', sel: all, seed: 33 }, { kind: 'resize', shape: [7, 6] }, { kind: 'resize', shape: [12, 12] }], index: 'btree2' },
    {
      path: '/resize/bt2_deep_shrunk',
      dtype: '<u2',
      shape: [30, 31],
      maxShape: [null, null],
      chunks: [1, 1],
      filter: 'none',
      fill: 1,
      ops: [{ kind: 'write', sel: all, seed: 34 }, { kind: 'resize', shape: [6, 7] }, { kind: 'resize', shape: [10, 10] }, { kind: 'write', sel: box([8, 0], [10, 10]), seed: 35 }],
      index: 'btree2',
    },
    {
      path: '/resize/bt2_deep_shrunk_gzip',
      dtype: '<u2',
      shape: [30, 31],
      maxShape: [null, null],
      chunks: [1, 1],
      filter: 'gzip',
      fill: 1,
      ops: [{ kind: 'write', sel: all, seed: 36 }, { kind: 'resize', shape: [3, 31] }, { kind: 'resize', shape: [31, 31] }, { kind: 'write', sel: box([20, 20], [31, 31]), seed: 37 }],
      index: 'btree2',
    },
    { path: '/resize/fa_grow', dtype: '<i4', shape: [6, 5], maxShape: [13, 9], chunks: [4, 4], filter: 'gzip', fill: 8, ops: [{ kind: 'write', sel: all, seed: 38 }, { kind: 'resize', shape: [13, 9] }, { kind: 'write', sel: box([10, 6], [13, 9]), seed: 39 }], index: 'fixed-array' },
    { path: '/resize/fa_shrunk', dtype: '<u2', shape: [20, 20], maxShape: [20, 20], chunks: [6, 4], filter: 'none', ops: [{ kind: 'write', sel: all, seed: 40 }, { kind: 'resize', shape: [13, 9] }], index: 'fixed-array' },
    { path: '/resize/fa_shrunk_fletcher32', dtype: '<u2', shape: [20, 20], maxShape: [20, 20], chunks: [6, 4], filter: 'fletcher32', ops: [{ kind: 'write', sel: all, seed: 41 }, { kind: 'resize', shape: [13, 9] }], index: 'fixed-array' },
    { path: '/resize/ea_2d_grown', dtype: '<i8', shape: [4, 6], maxShape: [null, 6], chunks: [3, 4], filter: 'none', fill: 2, ops: [{ kind: 'write', sel: all, seed: 42 }, { kind: 'resize', shape: [11, 6] }, { kind: 'write', sel: box([9, 0], [11, 3]), seed: 43 }], index: 'extensible-array' },
    { path: '/resize/ea_shrunk', dtype: '<f8', shape: [30], maxShape: [null], chunks: [4], filter: 'none', ops: [{ kind: 'write', sel: all, seed: 44 }, { kind: 'resize', shape: [3] }], index: 'extensible-array' },
    { path: '/resize/ea_swizzled_grown', dtype: '<i2', shape: [5, 6, 7], maxShape: [5, null, 7], chunks: [2, 5, 3], filter: 'gzip', fill: -9, ops: [{ kind: 'write', sel: all, seed: 45 }, { kind: 'resize', shape: [5, 14, 7] }, { kind: 'write', sel: box([1, 10, 2], [4, 14, 6]), seed: 46 }], index: 'extensible-array' },
  );
  // selection writes (strided hyperslab, union of blocks, points, numpy slice)
  cases.push(
    {
      path: '/sel/fa_gzip',
      dtype: '<i4',
      shape: [10, 11],
      chunks: [3, 4],
      filter: 'gzip',
      ops: [
        { kind: 'write', sel: { kind: 'hyperslab', start: [1, 0], stride: [3, 4], count: [3, 3], block: [2, 3] }, seed: 50 },
        { kind: 'write', sel: { kind: 'blocks', boxes: [[[0, 0], [4, 5]], [[2, 3], [9, 11]], [[8, 0], [10, 2]]] }, seed: 51 },
        { kind: 'write', sel: { kind: 'points', coords: [[9, 10], [0, 0], [5, 5], [3, 7], [0, 10], [6, 2]] }, seed: 52 },
        { kind: 'write', sel: { kind: 'slice', slices: [[2, 9, 3], [null, null, 2]] }, seed: 53 },
      ],
      index: 'fixed-array',
    },
    {
      path: '/sel/bt2_3d_shuffle_gzip',
      dtype: '<f8',
      shape: [5, 6, 7],
      maxShape: [null, null, null],
      chunks: [2, 3, 4],
      filter: 'shuffle_gzip',
      fill: -0.5,
      ops: [
        { kind: 'write', sel: { kind: 'hyperslab', start: [0, 1, 0], stride: [2, 2, 3], count: [3, 2, 2], block: [1, 2, 2] }, seed: 54 },
        { kind: 'write', sel: { kind: 'blocks', boxes: [[[0, 0, 0], [2, 2, 7]], [[1, 1, 1], [5, 6, 3]]] }, seed: 55 },
        { kind: 'write', sel: { kind: 'points', coords: [[4, 5, 6], [0, 0, 0], [2, 3, 1], [4, 0, 6]] }, seed: 56 },
      ],
      index: 'btree2',
    },
    {
      path: '/sel/ea_1d',
      dtype: '<u2',
      shape: [5000],
      maxShape: [null],
      chunks: [100],
      filter: 'none',
      fill: 7,
      ops: [
        { kind: 'write', sel: { kind: 'hyperslab', start: [5], stride: [997], count: [5], block: [3] }, seed: 57 },
        { kind: 'write', sel: { kind: 'blocks', boxes: [[[0], [10]], [[4690], [4720]], [[4995], [5000]]] }, seed: 58 },
        { kind: 'write', sel: { kind: 'points', coords: [[4999], [0], [1234], [4699], [4700]] }, seed: 59 },
        { kind: 'write', sel: { kind: 'slice', slices: [[100, 4000, 37]] }, seed: 60 },
      ],
      index: 'extensible-array',
    },
    {
      path: '/sel/fa_4d',
      dtype: '<i2',
      shape: [3, 4, 5, 6],
      chunks: [2, 3, 2, 4],
      filter: 'none',
      ops: [
        { kind: 'write', sel: { kind: 'hyperslab', start: [0, 1, 0, 1], stride: [2, 2, 2, 3], count: [2, 2, 3, 2], block: [1, 1, 1, 2] }, seed: 61 },
        { kind: 'write', sel: { kind: 'blocks', boxes: [[[0, 0, 0, 0], [1, 4, 5, 2]], [[1, 2, 2, 2], [3, 4, 5, 6]]] }, seed: 62 },
        { kind: 'write', sel: { kind: 'points', coords: [[2, 3, 4, 5], [0, 0, 0, 0], [1, 2, 3, 4]] }, seed: 63 },
      ],
      index: 'fixed-array',
    },
  );
  // direct chunk writes, partial edge chunks left unfiltered, no chunk cache
  cases.push(
    {
      path: '/direct/gzip',
      dtype: '<i4',
      shape: [8, 8],
      chunks: [4, 4],
      filter: 'gzip',
      fill: -1,
      ops: [
        { kind: 'chunk', offset: [0, 0], encoding: 'deflate', seed: 70 },
        { kind: 'chunk', offset: [4, 4], encoding: 'raw', seed: 71 },
        { kind: 'write', sel: box([4, 0], [8, 4]), seed: 72 },
      ],
      index: 'fixed-array',
    },
    { path: '/direct/none', dtype: '<i4', shape: [8, 8], chunks: [4, 4], filter: 'none', ops: [{ kind: 'chunk', offset: [4, 0], encoding: 'raw', seed: 73 }], index: 'fixed-array' },
    { path: '/direct/edge_gzip_ea', dtype: '<i4', shape: [6], maxShape: [null], chunks: [4], filter: 'gzip', ops: [{ kind: 'chunk', offset: [4], encoding: 'deflate', seed: 74 }], index: 'extensible-array' },
    { path: '/options/dont_filter_partial', dtype: '<i4', shape: [10, 11], chunks: [3, 4], filter: 'gzip', dontFilterPartialChunks: true, ops: [{ kind: 'write', sel: all, seed: 75 }], index: 'fixed-array' },
    {
      path: '/options/no_cache',
      dtype: '<i4',
      shape: [10, 9],
      maxShape: [null, null],
      chunks: [3, 4],
      filter: 'shuffle_gzip',
      chunkCache: { bytes: 0 },
      ops: [
        { kind: 'write', sel: box([0, 0], [10, 2]), seed: 76 },
        { kind: 'write', sel: box([0, 2], [10, 9]), seed: 77 },
        { kind: 'write', sel: { kind: 'points', coords: [[1, 1], [9, 8]] }, seed: 78 },
      ],
      index: 'btree2',
    },
  );
  return cases;
}

/** A chunk's full values (chunk dims) for a direct chunk write. */
export function chunkValues(c: WriteCase, op: Extract<WriteOp, { kind: 'chunk' }>): { bytes: Uint8Array; json: (number | string)[]; mask: number } {
  const n = c.chunks.reduce((a, b) => a * b, 1);
  const v = makeValues(c.dtype, n, op.seed);
  const raw = valuesToLeBytes(c.dtype, v.data as Typed);
  if (op.encoding === 'deflate') return { bytes: new Uint8Array(deflateSync(raw, { level: 6 })), json: v.json, mask: 0 };
  return { bytes: raw, json: v.json, mask: c.filter === 'none' ? 0 : 1 };
}

/**
 * Applies the operations of `c` to `d` with chunkform; returns the operations in chunked_check.py's
 * JSON form (also appended to `out` as each one completes, so a caller sees what was done before a throw).
 */
export async function applyOps(d: Dataset, c: WriteCase, ops: WriteOp[], out: unknown[] = []): Promise<unknown[]> {
  let dims = d.shape;
  for (const op of ops) {
    if (op.kind === 'resize') {
      await d.resize(op.shape);
      dims = op.shape.slice();
      out.push({ kind: 'resize', shape: op.shape });
    } else if (op.kind === 'chunk') {
      const { bytes, json, mask } = chunkValues(c, op);
      await d.writeChunk(op.offset, bytes, mask);
      out.push({ kind: 'chunk', offset: op.offset, chunk: c.chunks, data: json });
    } else {
      const n = selCount(op.sel, dims);
      const v = makeValues(c.dtype, n, op.seed);
      await d.write(v.data, toOurSelection(op.sel, dims));
      out.push({ kind: 'write', sel: op.sel, data: v.json });
    }
  }
  return out;
}

/** r+ modifications of h5py-written chunked fixtures: [fixture dataset path, operations]. */
export const RPLUS_LATEST: { path: string; ops: WriteOp[] }[] = [
  { path: '/fa/gzip', ops: [{ kind: 'write', sel: box([7, 6], [10, 11]), seed: 80 }, { kind: 'write', sel: box([0, 0], [2, 2]), seed: 81 }] },
  { path: '/fa/none', ops: [{ kind: 'write', sel: { kind: 'points', coords: [[9, 10], [0, 0], [8, 1]] }, seed: 82 }] },
  { path: '/fa_paged/shuffle_gzip', ops: [{ kind: 'write', sel: box([30, 0], [40, 33]), seed: 83 }] },
  { path: '/ea/shuffle_gzip', ops: [{ kind: 'resize', shape: [40] }, { kind: 'write', sel: box([30], [40]), seed: 84 }] },
  { path: '/ea_big/fletcher32', ops: [{ kind: 'write', sel: box([4700], [5000]), seed: 85 }, { kind: 'resize', shape: [6000] }, { kind: 'write', sel: box([5990], [6000]), seed: 86 }] },
  { path: '/ea_paged/gzip', ops: [{ kind: 'write', sel: box([60000], [60100]), seed: 87 }, { kind: 'write', sel: box([131250], [131260]), seed: 88 }] },
  { path: '/bt2/gzip', ops: [{ kind: 'resize', shape: [20, 20] }, { kind: 'write', sel: box([15, 15], [20, 20]), seed: 89 }] },
  { path: '/bt2_deep/none', ops: [{ kind: 'resize', shape: [10, 10] }, { kind: 'write', sel: box([0, 5], [3, 10]), seed: 90 }] },
  { path: '/bt2_deep/shuffle_gzip', ops: [{ kind: 'write', sel: box([0, 29], [30, 31]), seed: 91 }] },
  { path: '/single/gzip', ops: [{ kind: 'write', sel: all, seed: 92 }] },
  { path: '/single/unwritten', ops: [{ kind: 'write', sel: box([1, 1], [3, 3]), seed: 93 }] },
  { path: '/implicit/none', ops: [{ kind: 'write', sel: box([5, 4], [9, 10]), seed: 94 }] },
  { path: '/dims/d3_ea_fletcher32', ops: [{ kind: 'resize', shape: [5, 12, 7] }, { kind: 'write', sel: box([0, 6, 0], [5, 12, 7]), seed: 95 }] },
  { path: '/dims/d4_fa_gzip', ops: [{ kind: 'write', sel: { kind: 'hyperslab', start: [0, 0, 0, 0], stride: [2, 2, 2, 2], count: [2, 2, 3, 3], block: [1, 1, 1, 1] }, seed: 96 }] },
  { path: '/dtypes/vlen_gzip', ops: [{ kind: 'write', sel: box([5], [7]), seed: 97 }] },
  { path: '/dtypes/le_f4_scaleoffset', ops: [{ kind: 'write', sel: box([9, 0], [11, 6]), seed: 98 }] },
  { path: '/resize/bt2_shrunk_grown', ops: [{ kind: 'write', sel: box([6, 5], [9, 9]), seed: 99 }] },
];

/** r+ modifications of btree1_v108.h5 (v1 B-tree indexes) that overwrite stored chunks of unfiltered datasets (refused: copy-on-write needs a new record). */
export const RPLUS_BTREE1_INPLACE: { path: string; ops: WriteOp[] }[] = [
  { path: '/none', ops: [{ kind: 'write', sel: box([0, 0], [3, 4]), seed: 100 }, { kind: 'write', sel: box([10, 10], [17, 20]), seed: 101 }] },
];

/** r+ modifications of btree1_v108.h5 that need the v1 B-tree to change (new chunks, new sizes, resize). */
export const RPLUS_BTREE1_INDEX: { path: string; ops: WriteOp[] }[] = [
  { path: '/none', ops: [{ kind: 'write', sel: box([17, 0], [20, 20]), seed: 102 }] },
  { path: '/gzip', ops: [{ kind: 'write', sel: box([0, 0], [10, 11]), seed: 103 }] },
  { path: '/unlimited', ops: [{ kind: 'resize', shape: [30] }, { kind: 'write', sel: box([20], [30]), seed: 104 }] },
];
