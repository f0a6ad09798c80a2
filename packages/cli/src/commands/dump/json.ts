/**
 * `chunkform dump --json`: one JSON document (schema `chunkform-dump`, version 1, docs/cli.md),
 * written as it is produced. Object metadata is gathered first (small); dataset values are read
 * and written slab by slab, so memory stays bounded for any dataset size. In a sparse dataset the
 * elements that are not defined are written as `null` (their value would be the fill value).
 * @module
 */
import { Dataset, type Group } from '@chunkform/core';
import type { LineWriter } from '../../cli/sink.js';
import { errorMessage } from '../../error-message.js';
import { toJson } from '../../format-value.js';
import { SLAB_BYTES } from './ddl.js';
import { dumpObjects, type DumpEntry } from './objects.js';
import { sectionSizes, structuredNames } from './properties.js';
import { definedBoxes } from './sparse.js';
import { isSafeIntegerArray } from './data-printer.js';
import { fullSubset, maxSlabElements, slabReader, slabs } from './slabs.js';

/** Name and version of the JSON document format. */
export const JSON_SCHEMA = { format: 'chunkform-dump', version: 1 } as const;

/** Marks, for a slab `[start, start+count)`, which of its elements (C order) are defined. */
function definedMask(boxes: { start: number[]; end: number[] }[], start: number[], count: number[]): Uint8Array {
  const rank = start.length;
  const n = count.reduce((a, b) => a * b, 1);
  const mask = new Uint8Array(n);
  const strides = new Array<number>(rank).fill(1);
  for (let d = rank - 2; d >= 0; d--) strides[d] = strides[d + 1]! * count[d + 1]!;
  for (const b of boxes) {
    const lo: number[] = [];
    const hi: number[] = [];
    let empty = false;
    for (let d = 0; d < rank; d++) {
      lo.push(Math.max(b.start[d]!, start[d]!) - start[d]!);
      hi.push(Math.min(b.end[d]!, start[d]! + count[d]!) - start[d]!);
      if (hi[d]! <= lo[d]!) empty = true;
    }
    if (empty) continue;
    // fill row runs of the last dimension
    const idx = lo.slice(0, -1);
    for (;;) {
      let base = 0;
      for (let d = 0; d < rank - 1; d++) base += idx[d]! * strides[d]!;
      mask.fill(1, base + lo[rank - 1]!, base + hi[rank - 1]!);
      let d = rank - 2;
      while (d >= 0) {
        if (++idx[d]! < hi[d]!) break;
        idx[d] = lo[d]!;
        d--;
      }
      if (d < 0) break;
    }
  }
  return mask;
}

/** Elements per line of a JSON values array. */
const JSON_LINE = 1024;

function sliceOf(values: unknown, start: number, end: number): unknown {
  if (ArrayBuffer.isView(values)) return (values as unknown as Uint8Array).subarray(start, end);
  return (values as unknown[]).slice(start, end);
}

/** The JSON text of a slab's values (without brackets); undefined elements (mask 0) as `null`. */
export function slabJson(values: unknown, mask: Uint8Array | null): string {
  const isInt = isSafeIntegerArray(values);
  if (isInt && !mask) return Array.prototype.join.call(values, ',');
  const v = (isInt ? values : toJson(values)) as ArrayLike<unknown>;
  const parts: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) parts[i] = mask && mask[i] === 0 ? 'null' : isInt ? String(v[i]) : JSON.stringify(v[i]);
  return parts.join(',');
}

class JsonWriter {
  errors = 0;
  constructor(private readonly w: LineWriter, private readonly root: Group) {}

  async entry(e: DumpEntry, pad: string): Promise<void> {
    const { ...meta } = e as DumpEntry & { members?: Record<string, DumpEntry>; values?: unknown };
    const members = meta.members;
    delete meta.members;
    delete meta.values;
    const head = JSON.stringify(meta);
    this.w.text(head.slice(0, -1));
    if (e.kind === 'dataset' && !('hardlink' in e)) {
      await this.dataset(e.path, pad);
    }
    if (members) {
      this.w.text(`${head.length > 2 ? ',' : ''}"members":{`);
      const names = Object.keys(members);
      for (let i = 0; i < names.length; i++) {
        this.w.text(`\n${pad}  ${JSON.stringify(names[i])}:`);
        await this.entry(members[names[i]!]!, `${pad}  `);
        if (i < names.length - 1) this.w.text(',');
      }
      this.w.text(`\n${pad}}`);
    }
    this.w.text('}');
    await this.w.maybeFlush();
  }

  private async dataset(path: string, pad: string): Promise<void> {
    let ds: Dataset;
    try {
      ds = (await this.root.get(path)) as Dataset;
    } catch (e) {
      this.errors++;
      this.w.text(`,"values":null,"error":${JSON.stringify(errorMessage(e))}`);
      return;
    }
    const sparse = ds.layout.class === 'structured';
    let boxes: { start: number[]; end: number[] }[] | null = null;
    if (sparse) {
      const { stored, logical, chunks } = await sectionSizes(ds);
      const layout = ds.layout as { chunkType: number; sectionCount: number };
      const sections = structuredNames(layout).sections.map((name, i) => ({
        name,
        storedBytes: stored[i] ?? 0,
        logicalBytes: logical[i] ?? 0,
        filters: (ds.sectionFilters?.[i]?.filters ?? []).map((f) => ({ id: f.id, ...(f.name ? { name: f.name } : {}), clientData: Array.from(f.clientData) })),
      }));
      boxes = await definedBoxes(ds);
      const defined = boxes.map((b) => ({ start: b.start, end: b.end.map((x) => x - 1) }));
      this.w.text(`,"sparse":${JSON.stringify({ storedChunks: chunks, sections, defined })}`);
    }
    this.w.text(`,"values":`);
    let opened = false;
    try {
      if (ds.dataspace.kind === 'null') {
        this.w.text('null');
        return;
      }
      if (ds.dataspace.kind === 'scalar') {
        this.w.text(JSON.stringify(toJson(await ds.read())));
        return;
      }
      let first = true;
      const all = fullSubset(ds.shape);
      const es = Math.max(ds.elementSize, 1);
      const read = slabReader(ds, maxSlabElements(all, es, SLAB_BYTES));
      for (const slab of slabs(all, es, SLAB_BYTES, ds.chunks)) {
        const raw = await read(slab.selection, slab.elements);
        if (!opened) this.w.text('[');
        opened = true;
        const sel = slab.selection;
        const mask = boxes ? definedMask(boxes, [...sel.start], sel.count.map((c, d) => c * sel.block[d]!)) : null;
        // one line per run of at most JSON_LINE elements: small strings, collected young
        for (let off = 0; off < slab.elements; off += JSON_LINE) {
          const end = Math.min(slab.elements, off + JSON_LINE);
          const part = sliceOf(raw, off, end);
          this.w.text(`${first ? '' : ','}\n${pad}  `);
          if (mask || !isSafeIntegerArray(part)) this.w.text(slabJson(part, mask ? mask.subarray(off, end) : null));
          else {
            // digits written as bytes: no string per element
            for (let k = 0; k < part.length; k++) {
              if (k > 0) this.w.ascii(44);
              this.w.int(part[k]!);
              if (this.w.full) await this.w.flush();
            }
          }
          first = false;
          await this.w.maybeFlush();
        }
      }
      this.w.text(opened ? `\n${pad}]` : '[]');
    } catch (e) {
      this.errors++;
      this.w.text(`${opened ? `\n${pad}]` : 'null'},"error":${JSON.stringify(errorMessage(e))}`);
    }
  }
}

/** Writes the JSON document of `path` in `root`; resolves to the number of objects with errors. */
export async function writeJsonDump(w: LineWriter, root: Group, fileName: string, path: string, header: boolean): Promise<number> {
  const { entry, errors } = await dumpObjects(root, path, { noValues: true });
  w.text(`{"format":"${JSON_SCHEMA.format}","version":${JSON_SCHEMA.version},"file":${JSON.stringify(fileName)},"root":`);
  const jw = new JsonWriter(w, root);
  if (header) {
    w.text(JSON.stringify(entry));
  } else {
    await jw.entry(entry, '');
  }
  w.text('}\n');
  await w.flush();
  return errors + jw.errors;
}
