/**
 * Where a sparse dataset's defined elements are (docs/cli.md, sparse RFC §4.1): `--sparse-locations`
 * prints one `REGION_TYPE BLOCK (a,b)-(c,d)` line per block of defined elements (blocks are merged
 * where every element is defined), `--sparse` prints each block with its values and the single
 * defined elements as one `REGION_TYPE POINT` section, instead of the full DATA.
 * @module
 */
import { selectHyperslab, toBlocks, type Dataset } from '@chunkform/core';
import type { DdlDumper } from './ddl.js';
import type { DumpPlan } from './options.js';
import { SLAB_BYTES } from './ddl.js';
import { slabs, type Subset } from './slabs.js';

/** The defined elements of `ds` as boxes `[start, end)` per dimension, in C order of their first element. */
export async function definedBoxes(ds: Dataset, within?: Subset): Promise<{ start: number[]; end: number[] }[]> {
  const region = within ? selectHyperslab({ start: within.start, stride: within.stride, count: within.count, block: within.block }) : undefined;
  const sel = toBlocks(await ds.getDefined(region), ds.shape);
  if (sel.kind === 'none') return [];
  const rank = ds.shape.length;
  const out: { start: number[]; end: number[] }[] = [];
  const b = sel.boxes;
  for (let i = 0; i < b.length; i += 2 * rank) {
    const start: number[] = [];
    const end: number[] = [];
    for (let d = 0; d < rank; d++) {
      start.push(b[i + 2 * d]!);
      end.push(b[i + 2 * d + 1]!);
    }
    out.push({ start, end });
  }
  return out;
}

/** `(a,b)-(c,d)`: first and last element of a box (inclusive, as h5dump prints regions). */
export function boxText(box: { start: number[]; end: number[] }): string {
  return `(${box.start.join(',')})-(${box.end.map((e) => e - 1).join(',')})`;
}

function boxSubset(box: { start: number[]; end: number[] }): Subset {
  return { start: box.start, stride: box.start.map(() => 1), count: box.end.map((e, d) => e - box.start[d]!), block: box.start.map(() => 1) };
}

/**
 * Writes where the defined elements of `ds` are (within `subset`, when given) at `pad`: location
 * lines only, or with `--sparse` each block and the points with their values.
 */
export async function writeSparseSections(d: DdlDumper, ds: Dataset, pad: string, plan: DumpPlan, subset?: Subset): Promise<void> {
  const boxes = await definedBoxes(ds, subset);
  if (!plan.sparse) {
    for (const b of boxes) d.emit(`${pad}REGION_TYPE BLOCK ${boxText(b)}`);
    return;
  }
  const points: { start: number[]; end: number[] }[] = [];
  for (const b of boxes) {
    if (b.end.every((e, i) => e - b.start[i]! === 1)) {
      points.push(b);
      continue;
    }
    d.emit(`${pad}REGION_TYPE BLOCK ${boxText(b)}`);
    d.emit(`${pad}DATA {`);
    const sub = boxSubset(b);
    const p = d.newPrinter(pad, sub);
    for (const slab of slabs(sub, Math.max(ds.elementSize, 1), SLAB_BYTES, ds.chunks)) {
      await d.values(await ds.read(slab.selection), slab.elements, ds.dtype, p);
    }
    p.finish();
    d.emit(`${pad}}`);
  }
  if (points.length > 0) {
    d.emit(`${pad}REGION_TYPE POINT ${points.map((b) => `(${b.start.join(',')})`).join(', ')}`);
    d.emit(`${pad}DATA {`);
    for (const b of points) {
      const sub = boxSubset(b);
      const p = d.newPrinter(pad, sub);
      for (const slab of slabs(sub, Math.max(ds.elementSize, 1), SLAB_BYTES, null)) {
        await d.values(await ds.read(slab.selection), slab.elements, ds.dtype, p);
      }
      p.finish();
    }
    d.emit(`${pad}}`);
  }
}
