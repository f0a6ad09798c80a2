/**
 * `chunkform stat` (h5stat): file statistics in h5stat 1.10's layout, with the sparse additions of
 * docs/cli.md, sparse RFC §4.3 — a `Dataset layout counts[STRUCTURED CHUNK SPARSE]` line, filters counted once
 * per dataset however many sections carry them — and a sparse storage breakdown per dataset. The
 * differences from h5stat are listed in docs/cli.md ("stat").
 * @module
 */
import { stat as fsStat } from 'node:fs/promises';
import { openFile } from '@chunkform/core';
import type { CommandIO } from '../common/io.js';
import { collectStats, type FileStats } from './collect.js';

/** Which sections to print (none set: all), as h5stat's flags. */
export interface StatOptions {
  /** -f: file information. */
  file?: boolean;
  /** -F: file metadata sizes (the superblock and chunk indexes only). */
  filemetadata?: boolean;
  /** -g: group information. */
  group?: boolean;
  /** -d: dataset information (dimensions, storage, layout, filters). */
  dset?: boolean;
  /** -T: dataset datatype information. */
  dtype?: boolean;
  /** -A: attribute information. */
  attribute?: boolean;
  /** -S: summary of file space. */
  summary?: boolean;
  /** --sparse: sparse storage breakdown. */
  sparse?: boolean;
  /** Write one JSON document instead of text. */
  json?: boolean;
}

/** h5stat's decade bins: `0`, `1 - 9`, `10 - 99`, … */
function bins(values: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const v of values) {
    const b = v === 0 ? -1 : Math.floor(Math.log10(v) + 1e-12);
    out.set(b, (out.get(b) ?? 0) + 1);
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

function binLabel(b: number): string {
  return `${10 ** b} - ${10 ** (b + 1) - 1}`;
}

function histogram(values: readonly number[], lo: number, hi: number): [number, number][] {
  const m = new Map<number, number>();
  for (const v of values) if (v >= lo && v <= hi) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}

const FILTER_LINES: [string, number][] = [
  ['GZIP', 1],
  ['SHUFFLE', 2],
  ['FLETCHER32', 3],
  ['SZIP', 4],
  ['NBIT', 5],
  ['SCALEOFFSET', 6],
];

/** The text report of `s`. */
export function statText(name: string, s: FileStats, o: StatOptions): string[] {
  const all = !o.file && !o.filemetadata && !o.group && !o.dset && !o.dtype && !o.attribute && !o.summary && !o.sparse;
  const L: string[] = [`Filename: ${name}`];
  if (all || o.file) {
    L.push('File information');
    L.push(`\t# of unique groups: ${s.groups}`, `\t# of unique datasets: ${s.datasets}`, `\t# of unique named datatypes: ${s.namedDatatypes}`);
    L.push(`\t# of unique links: ${s.links}`, '\t# of unique other: 0', `\t Max. # of links to object: ${s.maxLinksToObject}`.replace('\t ', '\t'));
    L.push(`\tMax. # of objects in group: ${s.maxObjectsInGroup}`);
  }
  if (all || o.filemetadata) {
    // Only the parts chunkform measures (docs/cli.md "stat"): the superblock and the chunk indexes.
    L.push('File space information for file metadata (in bytes):', `\tSuperblock: ${superblockSize(s.superblockVersion, s.offsetSize)}`);
    L.push('\tChunked datasets:', `\t\tIndex: ${s.chunkIndexBytes}`);
  }
  if (all || o.group) {
    L.push('Small groups (with 0 to 9 links):');
    const small = histogram(s.groupSizes, 0, 9);
    for (const [n, c] of small) L.push(`\t# of groups with ${n} link(s): ${c}`);
    L.push(`\tTotal # of small groups: ${small.reduce((a, [, c]) => a + c, 0)}`);
    L.push('Group bins:');
    for (const [b, c] of bins(s.groupSizes)) L.push(b < 0 ? `\t# of groups with 0 link: ${c}` : `\t# of groups with ${binLabel(b)} links: ${c}`);
    L.push(`\tTotal # of groups: ${s.groupSizes.length}`);
  }
  if (all || o.dset) {
    L.push('Dataset dimension information:', `\tMax. rank of datasets: ${s.maxRank}`, '\tDataset ranks:');
    for (const [r, c] of [...s.datasetRanks.entries()].sort((a, b) => a[0] - b[0])) L.push(`\t\t# of dataset with rank ${r}: ${c}`);
    L.push('1-D Dataset information:', `\tMax. dimension size of 1-D datasets: ${s.dims1.reduce((a, b) => Math.max(a, b), 0)}`);
    L.push('\tSmall 1-D datasets (with dimension sizes 0 to 9):');
    const small = histogram(s.dims1, 0, 9);
    for (const [n, c] of small) L.push(`\t\t# of datasets with dimension sizes ${n}: ${c}`);
    L.push(`\t\tTotal # of small datasets: ${small.reduce((a, [, c]) => a + c, 0)}`);
    if (s.dims1.some((d) => d > 9)) {
      L.push('\t1-D Dataset dimension bins:');
      for (const [b, c] of bins(s.dims1)) L.push(b < 0 ? `\t\t# of datasets with dimension size 0: ${c}` : `\t\t# of datasets with dimension size ${binLabel(b)}: ${c}`);
      L.push(`\t\tTotal # of datasets: ${s.dims1.length}`);
    }
    L.push('Dataset storage information:', `\tTotal raw data size: ${s.rawDataBytes}`, '\tTotal external raw data size: 0');
    L.push('Dataset layout information:');
    L.push(`\tDataset layout counts[COMPACT]: ${s.layouts.compact}`, `\tDataset layout counts[CONTIG]: ${s.layouts.contiguous}`, `\tDataset layout counts[CHUNKED]: ${s.layouts.chunked}`);
    L.push(`\tDataset layout counts[STRUCTURED CHUNK SPARSE]: ${s.layouts.sparse}`);
    L.push(`\tDataset layout counts[VIRTUAL]: ${s.layouts.virtual}`, '\tNumber of external files : 0');
    L.push('Dataset filters information:', '\tNumber of datasets with:', `\t\tNO filter: ${s.unfiltered}`);
    for (const [label, id] of FILTER_LINES) L.push(`\t\t${label} filter: ${s.filters.get(id) ?? 0}`);
    let user = 0;
    for (const [id, c] of s.filters) if (id > 6) user += c;
    L.push(`\t\tUSER-DEFINED filter: ${user}`);
  }
  if (all || o.dtype) {
    L.push('Dataset datatype information:', `\t# of unique datatypes used by datasets: ${s.datatypes.length}`);
    s.datatypes.forEach((t, i) => {
      L.push(`\tDataset datatype #${i}:`, `\t\tCount (total/named) = (${t.count}/${t.named})`, `\t\tSize (desc./elmt) = (${t.descSize}/${t.elementSize})`);
    });
    L.push(`\tTotal dataset datatype count: ${s.datatypes.reduce((a, t) => a + t.count, 0)}`);
  }
  if (all || o.attribute) {
    L.push('Small # of attributes (objects with 1 to 10 attributes):');
    const small = histogram(s.attributeCounts, 1, 10);
    for (const [n, c] of small) L.push(`\t# of objects with ${n} attributes: ${c}`);
    L.push(`\tTotal # of objects with small # of attributes: ${small.reduce((a, [, c]) => a + c, 0)}`);
    L.push('Attribute bins:');
    for (const [b, c] of bins(s.attributeCounts)) L.push(`\t# of objects with ${binLabel(b)} attributes: ${c}`);
    L.push(`\tTotal # of objects with attributes: ${s.attributeCounts.length}`);
    L.push(`\tMax. # of attributes to objects: ${s.attributeCounts.reduce((a, b) => Math.max(a, b), 0)}`);
  }
  if (all || o.sparse) L.push(...sparseText(s));
  if (all || o.summary) {
    L.push('Summary of file space information:');
    L.push(`  Raw data: ${s.rawDataBytes} bytes`, `  Chunk indexes: ${s.chunkIndexBytes} bytes`);
    L.push(`  Other metadata and free space: ${s.fileSize - s.rawDataBytes - s.chunkIndexBytes} bytes`);
    L.push(`Total space: ${s.fileSize} bytes`);
  }
  return L;
}

/** Bytes of a superblock of `version` with `o`-byte offsets (HDF5 spec II.A). */
function superblockSize(version: number, o: number): number {
  // v0/v1: 24 fixed bytes, four addresses, the root symbol table entry (2 offsets + 24 bytes); v1 adds 4
  if (version <= 1) return 24 + 4 * o + (2 * o + 24) + (version === 1 ? 4 : 0);
  // v2/v3: 12 fixed bytes, four addresses, checksum
  return 12 + 4 * o + 4;
}

function perElement(bytes: number, n: number): string {
  return n === 0 ? 'n/a' : (bytes / n).toFixed(3);
}

/** The sparse storage breakdown (chunkform's addition). */
function sparseText(s: FileStats): string[] {
  const L = ['Sparse dataset storage information:', `\t# of sparse datasets: ${s.sparse.length}`];
  let index = 0;
  let sections = 0;
  let defined = 0;
  for (const d of s.sparse) {
    const sec = d.sectionBytes.reduce((a, b) => a + b, 0);
    const total = d.indexBytes + sec;
    L.push(`\tDataset ${d.path}:`, `\t\tChunks stored: ${d.chunks}`, `\t\tIndex bytes: ${d.indexBytes}`);
    d.sectionBytes.forEach((n, i) => L.push(`\t\tSection ${i} (${i === 0 ? 'selection' : 'values'}) bytes: ${n}`));
    L.push(`\t\tDefined elements: ${d.definedElements}`);
    L.push(`\t\tBytes per defined element: ${perElement(total, d.definedElements)} (values alone: ${d.elementSize})`);
    index += d.indexBytes;
    sections += sec;
    defined += d.definedElements;
  }
  if (s.sparse.length > 0) {
    L.push('\tAll sparse datasets:', `\t\tIndex bytes: ${index}`, `\t\tSection bytes: ${sections}`, `\t\tDefined elements: ${defined}`);
    L.push(`\t\tBytes per defined element: ${perElement(index + sections, defined)}`);
  }
  return L;
}

/** Runs `stat` on `file`, writing the report to `io.stdout`. */
export async function stat(file: string, opts: StatOptions, io: CommandIO): Promise<FileStats> {
  const size = (await fsStat(file)).size;
  const f = await openFile(file, { mode: 'r' });
  try {
    // the superblock is file-level state the object API does not expose
    const sb = (f as unknown as { ctx: { superblock: { version: number; sizes: { sizeOfOffsets: number } } } }).ctx.superblock;
    const s = await collectStats(f, size, sb.version, sb.sizes.sizeOfOffsets);
    if (opts.json) {
      const json = { version: 1, file, ...s, datasetRanks: Object.fromEntries(s.datasetRanks), filters: Object.fromEntries(s.filters) };
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else io.stdout.write(`${statText(file, s, opts).join('\n')}\n`);
    return s;
  } finally {
    await f.close();
  }
}
