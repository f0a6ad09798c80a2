/**
 * Reading `obj.attrs` ({@link ReadAttributes}): the attributes of a group, dataset or committed datatype,
 * read from compact attribute messages and from dense attribute storage (fractal heap + v2 B-tree).
 * Nothing here reaches the write path; {@link Attributes} adds the changes.
 * @module
 */
import { H5Error, NotFoundError } from '../errors.js';
import { isDefinedAddress } from '../format/bytes.js';
import { iterateV2BTree, openV2BTree } from '../format/btree/v2.js';
import { decodeAttributeNameRecord } from '../format/btree/v2-records.js';
import { openFractalHeap } from '../format/heaps/fractal-heap.js';
import { decodeAttribute, type AttributeMessage } from '../format/messages/attribute.js';
import { decodeAttributeInfo } from '../format/messages/attribute-info.js';
import type { Dataspace } from '../format/messages/dataspace.js';
import type { Datatype } from '../format/messages/datatype.js';
import { ATTRIBUTE, ATTRIBUTE_INFO } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { LockMode } from '../file/lock.js';
import { compareNames } from './link-list.js';
import { denseAttributeStoreOf } from '../dense/dense-attributes.js';
import { loadCommittedDatatype } from './shared-datatype.js';
import { bytesToValues } from './values-io.js';
import { elementCount } from './shape.js';

/** Runs a call in the call order of the object the attributes belong to. @internal */
export type InOrder = <T>(mode: LockMode, fn: () => Promise<T>) => Promise<T>;

/**
 * Attributes of one object, read-only (what `@chunkform/core/read` gives; {@link Attributes} adds
 * `set` and `delete`). Calls take their turn with the other calls on the file (see
 * {@link Dataset}): on a dataset, attribute changes are mutations of the dataset; on a group or a
 * committed datatype they are file-wide operations.
 */
export class ReadAttributes {
  /** @internal */
  constructor(
    protected readonly ctx: FileContext,
    protected readonly header: () => Promise<HeaderModel>,
    protected readonly path: string,
    protected readonly inOrder: InOrder = (mode, fn) => ctx.lock.file(mode, fn),
  ) {}

  /** Attribute names, in creation order when the object tracks it, else in name order (as h5py lists them). */
  async keys(): Promise<string[]> {
    return this.inOrder('read', async () => (await this.messages()).map((a) => a.name));
  }

  /** True when the attribute exists. */
  async has(name: string): Promise<boolean> {
    return this.inOrder('read', async () => (await this.messages()).some((a) => a.name === name));
  }

  /**
   * The attribute's value: a single value for a scalar attribute (number, bigint, string or record),
   * the flat values (TypedArray / array) for a simple one, `null` for an empty (null-dataspace) one.
   */
  async get(name: string): Promise<unknown> {
    return this.inOrder('read', async () => {
      const a = (await this.messages()).find((m) => m.name === name);
      if (!a) throw new NotFoundError(`no attribute "${name}"`, { path: this.path });
      return this.valueOf(a);
    });
  }

  /** Shape of an attribute (`[]` for scalar, `null` for an empty one). */
  async shape(name: string): Promise<number[] | null> {
    return this.inOrder('read', async () => {
      const a = (await this.messages()).find((m) => m.name === name);
      if (!a) throw new NotFoundError(`no attribute "${name}"`, { path: this.path });
      return a.dataspace.kind === 'null' ? null : a.dataspace.dims.slice();
    });
  }

  /** Datatype and dataspace of an attribute (what h5dump prints before its value). */
  async describe(name: string): Promise<{ dtype: Datatype; dataspace: Dataspace }> {
    const a = (await this.messages()).find((m) => m.name === name);
    if (!a) throw new NotFoundError(`no attribute "${name}"`, { path: this.path });
    const dtype = a.sharedDatatypeRef ? await loadCommittedDatatype(this.ctx, { kind: 'object-header', address: a.sharedDatatypeRef.address }, this.path) : a.datatype;
    return { dtype, dataspace: a.dataspace };
  }

  /** Datatype of an attribute (what `set` of `Attributes` takes as `dtype` to write an equal attribute elsewhere). */
  async dtype(name: string): Promise<Datatype> {
    return (await this.describe(name)).dtype;
  }

  /** All attributes as a name → value object. */
  async toObject(): Promise<Record<string, unknown>> {
    return this.inOrder('read', async () => {
      const out: Record<string, unknown> = {};
      for (const a of await this.messages()) out[a.name] = await this.valueOf(a);
      return out;
    });
  }

  protected decode(body: Uint8Array): AttributeMessage {
    return decodeAttribute(body, this.ctx.sizes);
  }

  private async valueOf(a: AttributeMessage): Promise<unknown> {
    try {
      if (a.dataspace.kind === 'null') return null;
      const type = a.sharedDatatypeRef ? await loadCommittedDatatype(this.ctx, { kind: 'object-header', address: a.sharedDatatypeRef.address }, this.path) : a.datatype;
      const count = elementCount(a.dataspace.dims);
      const values = await bytesToValues(this.ctx, a.data, type, count);
      return a.dataspace.kind === 'scalar' ? (values as ArrayLike<unknown>)[0] : values;
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(`${this.path}@${a.name}`) : e;
    }
  }

  /** Compact and dense attribute messages, ordered like h5py lists them. */
  /** @internal */
  protected async messages(): Promise<AttributeMessage[]> {
    try {
      return await readAttributeMessages(this.ctx, await this.header());
    } catch (e) {
      throw e instanceof H5Error ? e.withPath(this.path) : e;
    }
  }
}

/** The compact and dense attribute messages of the object whose header is `h`, ordered like h5py lists them. */
export async function readAttributeMessages(ctx: FileContext, h: HeaderModel): Promise<AttributeMessage[]> {
  const list: { a: AttributeMessage; order?: number }[] = [];
  for (const m of h.findAll(ATTRIBUTE)) {
    list.push({ a: decodeAttribute(m.body, ctx.sizes), ...(m.creationOrder !== undefined ? { order: m.creationOrder } : {}) });
  }
  const infoMsg = h.find(ATTRIBUTE_INFO);
  const info = infoMsg ? decodeAttributeInfo(infoMsg.body, ctx.sizes) : undefined;
  const pending = denseAttributeStoreOf(h);
  if (pending) {
    // dense storage changed in this session: the store holds the current attributes
    for (const e of pending.all()) list.push({ a: decodeAttribute(e.message.body, ctx.sizes), ...(e.creationOrder !== undefined ? { order: e.creationOrder } : {}) });
  } else if (info && isDefinedAddress(info.fractalHeapAddress)) {
    const heap = await openFractalHeap(ctx.reader, info.fractalHeapAddress);
    const tree = await openV2BTree(ctx.reader, info.nameIndexAddress);
    for await (const rec of iterateV2BTree(ctx.reader, tree)) {
      const r = decodeAttributeNameRecord(rec, heap.header.heapIdLength);
      list.push({ a: decodeAttribute(await heap.getObject(r.heapId), ctx.sizes), order: r.creationOrder });
    }
  }
  const tracked = info?.trackCreationOrder === true || ((h.source?.flags ?? 0) & 0x04) !== 0;
  if (tracked) list.sort((x, y) => (x.order ?? 0) - (y.order ?? 0));
  else list.sort((x, y) => compareNames(x.a.name, y.a.name));
  return list.map((x) => x.a);
}
