/**
 * Input formats of `chunkform import`: raw binary and `.npy` (read block by block from the file),
 * text/CSV tables, COO triplets and the text of `chunkform dump --sparse` (parsed whole).
 * @module
 */
import { open, readFile } from 'node:fs/promises';
import { parseDtype, ValueError, type Datatype, type Values } from '@chunkform/core';

/** A bad input file or format option. */
export class ImportError extends ValueError {}

/** A dense input whose values are read one block of rows at a time. */
export interface DenseInput {
  kind: 'dense';
  dtype: Datatype;
  shape: number[];
  /** Values of `count` elements starting at flat element `first` (C order). */
  read(first: number, count: number): Promise<Values>;
  close(): Promise<void>;
}

/** A sparse input: blocks and single elements with their values. */
export interface SparseInput {
  kind: 'sparse';
  dtype: Datatype;
  shape: number[];
  /** Defined boxes (`start`, inclusive `last`) with their values in C order. */
  blocks: { start: number[]; last: number[]; values: number[] | bigint[] }[];
  /** Single defined elements: flat point-major coordinates and values. */
  points: { coords: number[][]; values: number[] | bigint[] };
  name?: string;
}

export type ImportInput = DenseInput | SparseInput;

/** The typed array of a numeric datatype read from `bytes` (byte order fixed to the platform's). */
export function typedValues(dtype: Datatype, bytes: Uint8Array): Values {
  if (dtype.class !== 'integer' && dtype.class !== 'float' && !(dtype.class === 'enum' && dtype.base.class === 'integer')) {
    throw new ImportError(`import reads integer and float data, not ${dtype.class}`);
  }
  const base = dtype.class === 'enum' ? dtype.base : dtype;
  const size = base.size;
  const copy = bytes.slice();
  if (base.order === 'BE' && size > 1) {
    for (let i = 0; i < copy.length; i += size) copy.subarray(i, i + size).reverse();
  }
  const buf = copy.buffer;
  if (base.class === 'float') {
    if (size === 4) return new Float32Array(buf);
    if (size === 8) return new Float64Array(buf);
    throw new ImportError(`${size}-byte floats cannot be imported`);
  }
  const signed = base.class === 'integer' && base.signed;
  switch (size) {
    case 1:
      return signed ? new Int8Array(buf) : new Uint8Array(buf);
    case 2:
      return signed ? new Int16Array(buf) : new Uint16Array(buf);
    case 4:
      return signed ? new Int32Array(buf) : new Uint32Array(buf);
    case 8:
      return signed ? new BigInt64Array(buf) : new BigUint64Array(buf);
    default:
      throw new ImportError(`${size}-byte integers cannot be imported`);
  }
}

function elementSize(dtype: Datatype): number {
  return dtype.class === 'enum' ? dtype.base.size : (dtype as { size: number }).size;
}

/** A raw binary file of `dtype` elements from byte `offset` (shape: given, or 1-D over the whole file). */
export async function rawInput(path: string, dtype: Datatype, shape: number[] | undefined, offset = 0): Promise<DenseInput> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size - offset;
    const es = elementSize(dtype);
    const n = Math.floor(size / es);
    const dims = shape ?? [n];
    const want = dims.reduce((a, b) => a * b, 1);
    if (want * es > size) throw new ImportError(`${path}: shape [${dims.join(', ')}] needs ${want * es} bytes of data, the file has ${size}`);
    if (!shape && size % es !== 0) throw new ImportError(`${path}: ${size} bytes is not a whole number of ${es}-byte elements`);
    return {
      kind: 'dense',
      dtype,
      shape: dims,
      async read(first, count) {
        const bytes = new Uint8Array(count * es);
        const { bytesRead } = await fh.read(bytes, 0, bytes.length, offset + first * es);
        if (bytesRead !== bytes.length) throw new ImportError(`${path}: short read at element ${first}`);
        return typedValues(dtype, bytes);
      },
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** A NumPy `.npy` file (C order; versions 1–3). */
export async function npyInput(path: string): Promise<DenseInput> {
  const fh = await open(path, 'r');
  let header: { descr: string; shape: number[]; offset: number };
  try {
    const head = new Uint8Array(12);
    await fh.read(head, 0, 12, 0);
    if (head[0] !== 0x93 || String.fromCharCode(...head.subarray(1, 6)) !== 'NUMPY') throw new ImportError(`${path}: not a .npy file (no \\x93NUMPY magic)`);
    const major = head[6]!;
    const dv = new DataView(head.buffer);
    const len = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
    const start = major === 1 ? 10 : 12;
    if (len > 1 << 20) throw new ImportError(`${path}: .npy header of ${len} bytes is too large`);
    const text = new Uint8Array(len);
    const { bytesRead } = await fh.read(text, 0, len, start);
    if (bytesRead < len) throw new ImportError(`${path}: the .npy header claims ${len} bytes, the file ends after ${bytesRead}`);
    const dict = new TextDecoder().decode(text);
    const descr = /'descr'\s*:\s*'([^']+)'/.exec(dict)?.[1];
    const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(dict)?.[1];
    const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(dict)?.[1];
    if (!descr || !fortran || shapeText === undefined) {
      const shown = dict.trim();
      throw new ImportError(`${path}: cannot read the .npy header ${JSON.stringify(shown.length > 80 ? `${shown.slice(0, 80)}…` : shown)}`);
    }
    if (fortran === 'True') throw new ImportError(`${path}: Fortran-order .npy arrays are not supported (save with np.ascontiguousarray)`);
    const shape = shapeText.split(',').map((t) => t.trim()).filter((t) => t !== '').map(Number);
    header = { descr, shape, offset: start + len };
  } finally {
    await fh.close();
  }
  const descr = header.descr.replace(/^\|/, '');
  const dtype = descr === 'b1' ? parseDtype('bool') : /^[<>=]?[iuf]\d$/.test(descr) || /^[iuf]1$/.test(descr) ? parseDtype(descr.length === 2 ? `<${descr}` : descr.replace(/^=/, '<')) : null;
  if (!dtype) throw new ImportError(`${path}: .npy dtype '${header.descr}' is not supported (integers, floats and bools are)`);
  return rawInput(path, dtype, header.shape, header.offset);
}

function tokens(line: string): string[] {
  return line.split(/[\s,;]+/).filter((t) => t !== '');
}

function parseNumbers(texts: readonly string[], dtype: Datatype, where: (i: number) => string): number[] | bigint[] {
  const big = (dtype.class === 'integer' || dtype.class === 'enum') && elementSize(dtype) === 8;
  if (big) {
    return texts.map((t, i) => {
      if (!/^[+-]?\d+$/.test(t)) throw new ImportError(`${where(i)}: "${t}" is not an integer`);
      return BigInt(t);
    });
  }
  return texts.map((t, i) => {
    const v = Number(t);
    if (Number.isNaN(v) && !/^[+-]?nan$/i.test(t)) throw new ImportError(`${where(i)}: "${t}" is not a number`);
    return v;
  });
}

/** A text table: one row per line, values separated by spaces, commas or semicolons ('#' comments). */
export async function textInput(path: string, dtype: Datatype, shape: number[] | undefined): Promise<DenseInput> {
  const lines = (await readFile(path, 'utf8')).split(/\r?\n/);
  const rows: string[][] = [];
  lines.forEach((l, i) => {
    const t = l.replace(/#.*$/, '').trim();
    if (t === '') return;
    const row = tokens(t);
    if (rows.length > 0 && !shape && row.length !== rows[0]!.length) {
      throw new ImportError(`${path}:${i + 1}: ${row.length} values where the first row has ${rows[0]!.length}`);
    }
    rows.push(row);
  });
  const flat = rows.flat();
  const values = parseNumbers(flat, dtype, (i) => `${path}: value ${i + 1}`);
  const cols = rows[0]?.length ?? 0;
  const dims = shape ?? (cols === 1 ? [rows.length] : [rows.length, cols]);
  if (dims.reduce((a, b) => a * b, 1) !== values.length) throw new ImportError(`${path}: ${values.length} values do not fill shape [${dims.join(', ')}]`);
  return {
    kind: 'dense',
    dtype,
    shape: dims,
    read: async (first, count) => values.slice(first, first + count) as unknown as Values,
    close: async () => undefined,
  };
}

/** COO triplets: one element per line, `i j … value`. Shape: given, or one past the largest index. */
export async function cooInput(path: string, dtype: Datatype, shape: number[] | undefined): Promise<SparseInput> {
  const coords: number[][] = [];
  const texts: string[] = [];
  let rank = -1;
  (await readFile(path, 'utf8')).split(/\r?\n/).forEach((l, i) => {
    const t = l.replace(/#.*$/, '').trim();
    if (t === '') return;
    const f = tokens(t);
    if (rank < 0) rank = f.length - 1;
    if (f.length - 1 !== rank || rank < 1) throw new ImportError(`${path}:${i + 1}: expected ${rank < 1 ? 'indices and a value' : `${rank} indices and a value`}, got ${f.length} fields`);
    const c = f.slice(0, rank).map(Number);
    if (c.some((x) => !Number.isSafeInteger(x) || x < 0)) throw new ImportError(`${path}:${i + 1}: indices must be non-negative integers`);
    coords.push(c);
    texts.push(f[rank]!);
  });
  if (rank < 0) throw new ImportError(`${path}: no COO entries`);
  const dims = shape ?? Array.from({ length: rank }, (_, d) => coords.reduce((m, c) => Math.max(m, c[d]! + 1), 0));
  if (dims.length !== rank) throw new ImportError(`${path}: --shape has rank ${dims.length}, the entries ${rank}`);
  coords.forEach((c, k) => {
    if (c.some((x, d) => x >= dims[d]!)) throw new ImportError(`${path}: entry ${k + 1} (${c.join(',')}) is outside shape [${dims.join(', ')}]`);
  });
  return { kind: 'sparse', dtype, shape: dims, blocks: [], points: { coords, values: parseNumbers(texts, dtype, (i) => `${path}: entry ${i + 1}`) } };
}

const H5T_NAMES: Record<string, string> = { I: 'i', U: 'u' };

/** The dtype of an h5dump `DATATYPE` name (H5T_STD_U16LE, H5T_IEEE_F64BE, H5T_NATIVE_INT …). */
export function dtypeOfH5T(name: string): Datatype {
  let m = /^H5T_STD_([IU])(8|16|32|64)(LE|BE)$/.exec(name);
  if (m) return parseDtype(`${m[3] === 'LE' ? '<' : '>'}${H5T_NAMES[m[1]!]}${Number(m[2]) / 8}`);
  m = /^H5T_IEEE_F(32|64)(LE|BE)$/.exec(name);
  if (m) return parseDtype(`${m[2] === 'LE' ? '<' : '>'}f${Number(m[1]) / 8}`);
  const native: Record<string, string> = {
    H5T_NATIVE_SCHAR: 'int8', H5T_NATIVE_UCHAR: 'uint8', H5T_NATIVE_SHORT: 'int16', H5T_NATIVE_USHORT: 'uint16',
    H5T_NATIVE_INT: 'int32', H5T_NATIVE_UINT: 'uint32', H5T_NATIVE_LLONG: 'int64', H5T_NATIVE_ULLONG: 'uint64',
    H5T_NATIVE_FLOAT: 'float32', H5T_NATIVE_DOUBLE: 'float64',
  };
  const n = native[name];
  if (n) return parseDtype(n);
  throw new ImportError(`DATATYPE ${name} cannot be imported (integer and IEEE float types can)`);
}

/**
 * The text of `chunkform dump --sparse` for one dataset: DATATYPE, DATASPACE, then
 * `REGION_TYPE BLOCK (a,b)-(c,d)` + `DATA { … }` sections and a `REGION_TYPE POINT (…), …` +
 * `DATA { … }` section. Values are the numbers inside DATA, position prefixes `(i,j):` skipped.
 */
export async function sparseTextInput(path: string, dataset: string | undefined): Promise<SparseInput> {
  const text = await readFile(path, 'utf8');
  const lines = text.split(/\r?\n/);
  let i = 0;
  let name: string | undefined;
  if (dataset !== undefined || /DATASET\s+"/.test(text)) {
    const want = dataset?.replace(/^.*\//, '');
    for (; i < lines.length; i++) {
      const m = /^\s*DATASET\s+"([^"]*)"/.exec(lines[i]!);
      if (m && (want === undefined || m[1] === want || m[1] === dataset)) {
        name = m[1];
        break;
      }
    }
    if (name === undefined) throw new ImportError(`${path}: no DATASET${dataset ? ` "${dataset}"` : ''} in the dump`);
    i++;
  }
  let dtype: Datatype | undefined;
  let shape: number[] | undefined;
  const blocks: SparseInput['blocks'] = [];
  const pointCoords: number[][] = [];
  const pointValues: string[] = [];
  const coordList = (s: string): number[][] => [...s.matchAll(/\(([^)]*)\)/g)].map((m) => m[1]!.split(',').map((x) => Number(x.trim())));
  const dataValues = (): string[] => {
    // from the line after `DATA {` to its `}`
    const out: string[] = [];
    for (i++; i < lines.length; i++) {
      const l = lines[i]!.trim();
      if (l === '}') return out;
      out.push(...tokens(l.replace(/\([^)]*\)\s*:?/g, ' ')));
    }
    throw new ImportError(`${path}: DATA { … } is not closed`);
  };
  for (; i < lines.length; i++) {
    const l = lines[i]!.trim();
    let m: RegExpExecArray | null;
    if ((m = /^DATATYPE\s+(\S+)/.exec(l))) dtype = dtypeOfH5T(m[1]!);
    else if ((m = /^DATASPACE\s+SIMPLE\s*\{\s*\(([^)]*)\)/.exec(l))) shape = m[1]!.split(',').map((x) => Number(x.trim()));
    else if ((m = /^REGION_TYPE\s+BLOCK\s+(.*)$/.exec(l))) {
      const [start, last] = coordList(m[1]!);
      if (!start || !last || !dtype) throw new ImportError(`${path}:${i + 1}: expected REGION_TYPE BLOCK (a,b)-(c,d) after DATATYPE`);
      const next = lines[i + 1]?.trim();
      if (next !== 'DATA {') throw new ImportError(`${path}:${i + 2}: expected DATA { after the block`);
      i++;
      const texts = dataValues();
      const count = start.reduce((a, s, d) => a * (last[d]! - s + 1), 1);
      if (texts.length !== count) throw new ImportError(`${path}: block (${start.join(',')})-(${last.join(',')}) has ${count} elements but ${texts.length} values`);
      blocks.push({ start, last, values: parseNumbers(texts, dtype, (k) => `${path}: block value ${k + 1}`) });
    } else if ((m = /^REGION_TYPE\s+POINT\s+(.*)$/.exec(l))) {
      pointCoords.push(...coordList(m[1]!));
      if (lines[i + 1]?.trim() === 'DATA {') {
        i++;
        pointValues.push(...dataValues());
      }
    } else if (l.startsWith('DATASET ') && name !== undefined) break;
  }
  if (!dtype || !shape) throw new ImportError(`${path}: the dump has no DATATYPE or DATASPACE SIMPLE line`);
  if (pointValues.length !== pointCoords.length) throw new ImportError(`${path}: ${pointCoords.length} points but ${pointValues.length} point values`);
  const rank = shape.length;
  for (const c of [...pointCoords, ...blocks.flatMap((b) => [b.start, b.last])]) {
    if (c.length !== rank || c.some((x, d) => !Number.isSafeInteger(x) || x < 0 || x >= shape![d]!)) {
      throw new ImportError(`${path}: coordinate (${c.join(',')}) is outside the dataspace [${shape.join(', ')}]`);
    }
  }
  return {
    kind: 'sparse',
    dtype,
    shape,
    blocks,
    points: { coords: pointCoords, values: parseNumbers(pointValues, dtype, (k) => `${path}: point value ${k + 1}`) },
    ...(name !== undefined ? { name } : {}),
  };
}
