/**
 * `chunkform dump` in h5dump's DDL: the file's groups, datasets, named datatypes, links and
 * attributes in h5dump 1.10's layout, with dataset values read and printed slab by slab (bounded
 * memory, output from the first slab on). Sparse datasets add the blocks of docs/cli.md.
 * @module
 */
import { CommittedDatatype, Dataset, Group, UnknownFilterError, type Datatype, type H5File, type LinkInfo } from '@chunkform/core';
import type { LineWriter } from '../../cli/sink.js';
import { UsageError } from '../../cli/io.js';
import { BinaryWriter } from './binary.js';
import { errorMessage } from '../../error-message.js';
import { objectAddress } from '../../inspect.js';
import { DataPrinter } from './data-printer.js';
import { dataspaceText, datatypeLines, writeDatatype } from './ddl-types.js';
import { elementFormatter, valueFormatter } from './ddl-values.js';
import type { DumpPlan, DumpTarget } from './options.js';
import { propertyLines } from './properties.js';
import { fullSubset, maxSlabElements, slabReader, slabs, type Subset } from './slabs.js';
import { writeSparseSections } from './sparse.js';

/** Bytes of values read per slab. */
export const SLAB_BYTES = 1 << 20;

/** Byte-wise name order, as h5dump sorts links and attributes by default. */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Writes h5dump DDL for a file. */
export class DdlDumper {
  errors = 0;
  /** One line per error met (also printed in place as `ERROR …` lines). */
  readonly messages: string[] = [];
  private readonly seen = new Map<number, string>();

  constructor(
    private readonly w: LineWriter,
    private readonly plan: DumpPlan,
    /** Called with the number of elements printed (progress bar). */
    private readonly tick: (n: number) => void = () => {},
    /** Where dataset values go instead of the DDL (`-o FILE`: text lines, or raw bytes with `-b`). */
    private readonly dataOut?: LineWriter | BinaryWriter,
  ) {}

  private line(l: string): void {
    this.w.line(l);
  }

  private fail(pad: string, what: string, e: unknown): void {
    this.errors++;
    this.line(`${pad}ERROR ${what}: ${errorMessage(e)}`);
    const hint = e instanceof UnknownFilterError ? ' (load its plug-in with --plugin or CHUNKFORM_PLUGINS)' : '';
    this.messages.push(`${errorMessage(e)}${hint}`);
  }

  /** `HDF5 "name" { … }` with the plan's targets (default: the root group). */
  async file(name: string, root: H5File): Promise<void> {
    this.line(`HDF5 "${name}" {`);
    await this.objects(root);
    this.line('}');
    await this.w.flush();
  }

  /** The plan's targets (default: the root group), without the file wrapper. */
  async objects(root: Group): Promise<void> {
    const rootAddr = objectAddress(root);
    if (rootAddr !== undefined) this.seen.set(rootAddr, '/');
    for (const t of this.plan.targets) await this.target(root, t);
  }

  private async target(root: Group, t: DumpTarget): Promise<void> {
    if (t.kind === 'attribute') {
      const at = t.path.lastIndexOf('/');
      const objPath = at <= 0 ? '/' : t.path.slice(0, at);
      const attr = t.path.slice(at + 1);
      const obj = objPath === '/' ? root : await root.get(objPath);
      await this.attribute(obj as Group, attr, '');
      return;
    }
    if (t.kind === 'softlink') {
      const at = t.path.lastIndexOf('/');
      const parent = at <= 0 ? root : await root.get(t.path.slice(0, at));
      if (!(parent instanceof Group)) throw new UsageError(`${t.path} is not a link`);
      const link = await parent.getLink(t.path.slice(at + 1));
      if (link.kind === 'hard') throw new UsageError(`${t.path} is not a soft or external link`);
      this.linkBlock(link, t.path, '');
      return;
    }
    const obj = t.path === '/' ? root : await root.get(t.path);
    if (t.kind === 'datatype') {
      if (!(obj instanceof CommittedDatatype)) throw new UsageError(`${t.path} is not a named datatype`);
      await this.namedType(obj, t.path, '');
      return;
    }
    if (t.kind === 'auto') t = { kind: obj instanceof Dataset ? 'dataset' : 'group', path: t.path };
    const addr = objectAddress(obj);
    if (addr !== undefined && !this.seen.has(addr)) this.seen.set(addr, t.path);
    if (t.kind === 'dataset') {
      if (!(obj instanceof Dataset)) throw new UsageError(`${t.path} is not a dataset`);
      const subset = this.plan.subset && obj.dataspace.kind === 'simple' ? completeSubset(this.plan.subset, obj.shape, t.path) : undefined;
      await this.dataset(obj, t.path, '', subset);
    } else {
      if (!(obj instanceof Group)) throw new UsageError(`${t.path} is not a group`);
      await this.group(obj, t.path, t.path, '');
    }
  }

  /** `GROUP "name" { attributes, members }`. */
  async group(g: Group, name: string, path: string, pad: string): Promise<void> {
    const inner = `${pad}   `;
    this.line(`${pad}GROUP "${name}" {`);
    await this.attributes(g, inner);
    let names: string[] = [];
    try {
      names = (await g.keys()).sort(byName);
    } catch (e) {
      this.fail(inner, 'members', e);
    }
    for (const n of names) await this.member(g, n, path === '/' ? `/${n}` : `${path}/${n}`, inner);
    this.line(`${pad}}`);
  }

  private async member(g: Group, name: string, path: string, pad: string): Promise<void> {
    const inner = `${pad}   `;
    try {
      const link = await g.getLink(name);
      if (link.kind !== 'hard') {
        this.linkBlock(link, name, pad);
        return;
      }
      const obj = await g.get(name);
      const word = obj instanceof Group ? 'GROUP' : obj instanceof Dataset ? 'DATASET' : 'DATATYPE';
      const first = link.address !== undefined ? this.seen.get(link.address) : undefined;
      if (first !== undefined) {
        this.line(`${pad}${word} "${name}" {`);
        this.line(`${inner}HARDLINK "${first}"`);
        this.line(`${pad}}`);
        return;
      }
      if (link.address !== undefined) this.seen.set(link.address, path);
      if (obj instanceof Group) await this.group(obj, name, path, pad);
      else if (obj instanceof Dataset) await this.dataset(obj, name, pad, undefined);
      else if (obj instanceof CommittedDatatype) await this.namedType(obj, name, pad);
    } catch (e) {
      this.fail(pad, `"${name}"`, e);
    }
  }

  /** `SOFTLINK`, `EXTERNAL_LINK` or `USERDEFINED_LINK "name" { … }` of a link that is not hard. */
  private linkBlock(link: LinkInfo, name: string, pad: string): void {
    const inner = `${pad}   `;
    if (link.kind === 'soft') {
      this.line(`${pad}SOFTLINK "${name}" {`);
      this.line(`${inner}LINKTARGET "${link.target ?? ''}"`);
    } else if (link.kind === 'external') {
      this.line(`${pad}EXTERNAL_LINK "${name}" {`);
      this.line(`${inner}TARGETFILE "${link.file ?? ''}"`);
      this.line(`${inner}TARGETPATH "${link.path ?? ''}"`);
    } else this.line(`${pad}USERDEFINED_LINK "${name}" {`);
    this.line(`${pad}}`);
  }

  /** `DATATYPE "name" H5T_…;` (atomic) or `DATATYPE "name" H5T_COMPOUND { … }`, then its attributes. */
  private async namedType(t: CommittedDatatype, name: string, pad: string): Promise<void> {
    const lines = datatypeLines(t.dtype, pad);
    if (lines.length === 1) lines[0] += ';';
    this.line(`${pad}DATATYPE "${name}" ${lines[0]}`);
    for (const l of lines.slice(1)) this.line(l);
    await this.attributes(t, `${pad}   `);
  }

  private async attributes(obj: Group | Dataset | CommittedDatatype, pad: string): Promise<void> {
    let names: string[];
    try {
      names = (await obj.attrs.keys()).sort(byName);
    } catch (e) {
      this.fail(pad, 'attributes', e);
      return;
    }
    for (const n of names) await this.attribute(obj, n, pad);
  }

  /** `ATTRIBUTE "name" { DATATYPE, DATASPACE, DATA }`. */
  async attribute(obj: Group | Dataset | CommittedDatatype, name: string, pad: string): Promise<void> {
    const inner = `${pad}   `;
    this.line(`${pad}ATTRIBUTE "${name}" {`);
    try {
      const { dtype, dataspace } = await obj.attrs.describe(name);
      writeDatatype(dtype, inner, (l) => this.line(l));
      this.line(`${inner}DATASPACE  ${dataspaceText(dataspace, dataspace.dims, dataspace.maxDims ?? null)}`);
      if (!this.plan.header) {
        const v = await obj.attrs.get(name);
        this.line(`${inner}DATA {`);
        if (dataspace.kind !== 'null') {
          const values = dataspace.kind === 'scalar' ? [v] : (v as ArrayLike<unknown>);
          const subset = dataspace.kind === 'scalar' ? null : fullSubset(dataspace.dims);
          const p = this.printer(inner, subset);
          await this.values(values, values.length, dtype, p);
          p.finish();
        }
        this.line(`${inner}}`);
      }
    } catch (e) {
      this.fail(inner, `attribute "${name}"`, e);
    }
    this.line(`${pad}}`);
  }

  private printer(pad: string, subset: Subset | null, to: LineWriter = this.w, planeBreaks = false): DataPrinter {
    return new DataPrinter(to, pad, this.plan.width, this.plan.noindex, subset, planeBreaks);
  }

  /** Prints a block of values of type `t`. */
  async values(values: unknown, n: number, t: Datatype, p: DataPrinter): Promise<void> {
    if (t.class === 'compound') {
      const members = t.members.map((m) => ({ name: m.name, f: valueFormatter(m.type, this.plan.float, this.plan.escape) }));
      await p.records(values, n, members);
    } else {
      await p.block(values, n, elementFormatter(t, this.plan.float, this.plan.escape), t.class === 'integer');
    }
  }

  /** `DATASET "name" { … }`: header, properties, values (or sparse sections), then attributes. */
  async dataset(ds: Dataset, name: string, pad: string, subset: Subset | undefined): Promise<void> {
    const inner = `${pad}   `;
    this.line(`${pad}DATASET "${name}" {`);
    try {
      writeDatatype(ds.dtype, inner, (l) => this.line(l));
      this.line(`${inner}DATASPACE  ${dataspaceText(ds.dataspace, ds.shape, ds.maxShape)}`);
      if (this.plan.properties) for (const l of await propertyLines(ds, inner, this.plan.float, this.plan.escape)) this.line(l);
      if (ds.layout.class === 'structured' && this.plan.sparseLocations && !this.plan.sparse) await writeSparseSections(this, ds, inner, this.plan, subset);
      if (!this.plan.header && !this.plan.onlyattr) {
        if (ds.layout.class === 'structured' && this.plan.sparse) await writeSparseSections(this, ds, inner, this.plan, subset);
        else await this.data(ds, inner, subset);
      }
    } catch (e) {
      this.fail(inner, 'dataset', e);
    }
    if (!(this.dataOut instanceof BinaryWriter)) await this.attributes(ds, inner);
    this.line(`${pad}}`);
  }

  /** DATA (or SUBSET { … DATA }) of a dense read of `ds`. */
  private async data(ds: Dataset, pad: string, subset: Subset | undefined): Promise<void> {
    let dataPad = pad;
    const sel = subset ?? (ds.dataspace.kind === 'simple' ? fullSubset(ds.shape) : null);
    if (subset && sel) {
      this.line(`${pad}SUBSET {`);
      dataPad = `${pad}   `;
      this.line(`${dataPad}START ( ${sel.start.join(', ')} );`);
      this.line(`${dataPad}STRIDE ( ${sel.stride.join(', ')} );`);
      this.line(`${dataPad}COUNT ( ${sel.count.join(', ')} );`);
      this.line(`${dataPad}BLOCK ( ${sel.block.join(', ')} );`);
    }
    this.line(`${dataPad}DATA {`);
    const out = this.dataOut;
    if (out instanceof BinaryWriter) {
      if (ds.dataspace.kind !== 'null') {
        for (const slab of slabs(sel ?? fullSubset([1]), Math.max(ds.elementSize, 1), SLAB_BYTES, ds.chunks)) {
          await out.write(await ds.read(sel ? slab.selection : undefined), ds.dtype);
          this.tick(slab.elements);
        }
      }
    } else if (ds.dataspace.kind !== 'null') {
      const p = this.printer(dataPad, sel, out, subset !== undefined);
      if (!sel) {
        const v = await ds.read();
        await this.values(v, 1, ds.dtype, p);
      } else {
        const es = Math.max(ds.elementSize, 1);
        const read = slabReader(ds, maxSlabElements(sel, es, SLAB_BYTES));
        for (const slab of slabs(sel, es, SLAB_BYTES, ds.chunks)) {
          const v = await read(slab.selection, slab.elements);
          await this.values(v, slab.elements, ds.dtype, p);
          this.tick(slab.elements);
        }
      }
      p.finish();
      if (out) await out.flush();
    }
    this.line(`${dataPad}}`);
    if (subset && sel) this.line(`${pad}}`);
  }

  /** Writes a line (used by the sparse writer). */
  emit(l: string): void {
    this.line(l);
  }

  /** A data printer at `pad` for `subset` (used by the sparse writer). */
  newPrinter(pad: string, subset: Subset | null): DataPrinter {
    return this.printer(pad, subset);
  }
}

/** Fills in a subset's missing parts (h5dump's defaults) and checks it against `shape`. */
export function completeSubset(s: Partial<Subset>, shape: readonly number[], path: string): Subset {
  const rank = shape.length;
  for (const [k, v] of Object.entries(s)) {
    if (v !== undefined && v.length !== rank) throw new UsageError(`${path}: --${k} has ${v.length} values, the dataset has ${rank} dimensions`);
  }
  const start = s.start ?? shape.map(() => 0);
  const stride = s.stride ?? shape.map(() => 1);
  const block = s.block ?? shape.map(() => 1);
  const count = s.count ?? shape.map((n, d) => Math.max(0, Math.floor((n - start[d]! - block[d]!) / stride[d]!) + 1));
  for (let d = 0; d < rank; d++) {
    if (block[d]! > stride[d]! && count[d]! > 1) throw new UsageError(`${path}: block ${block[d]} is larger than stride ${stride[d]} in dimension ${d}`);
    const end = count[d] === 0 ? start[d]! : start[d]! + (count[d]! - 1) * stride[d]! + block[d]!;
    if (end > shape[d]!) throw new UsageError(`${path}: the subset ends at ${end - 1} in dimension ${d}, beyond the dataset's extent ${shape[d]}`);
  }
  return { start, stride, count, block };
}
