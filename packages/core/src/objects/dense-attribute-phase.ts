/**
 * When an object's attributes live in dense storage (fractal heap + v2 B-tree name index, spec
 * IV.A.2.v) rather than as Attribute messages in its header: past the header's maximum for compact
 * storage (HDF5's default 8) or for an attribute too large for a header message (> 64 KiB), as
 * HDF5 does. Objects stay dense when attributes are deleted (HDF5 would move fewer than its
 * minimum of 6 back into the header).
 * @module
 */
import { UnsupportedError } from '../errors.js';
import { isDefinedAddress, UNDEFINED_ADDRESS } from '../format/bytes.js';
import { decodeAttributeInfo, encodeAttributeInfo, type AttributeInfoMessage } from '../format/messages/attribute-info.js';
import { ATTRIBUTE, ATTRIBUTE_INFO } from '../format/messages/message-types.js';
import { decodeAttribute } from '../format/messages/attribute.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import { DENSE_ATTRIBUTES, denseAttributeStoreOf, type StoredAttribute } from '../dense/dense-attributes.js';
import { DenseStore } from '../dense/dense-store.js';

/** Largest header message body (the message size field is 16 bits). */
const MAX_MESSAGE = 0xffff;

/** True when the attributes of `h` are in dense storage (flushed or changed in this session). */
export function isDense(ctx: FileContext, h: HeaderModel): boolean {
  if (denseAttributeStoreOf(h)) return true;
  const info = h.find(ATTRIBUTE_INFO);
  return info !== undefined && isDefinedAddress(decodeAttributeInfo(info.body, ctx.sizes).fractalHeapAddress);
}

/** The next creation order of a tracking object (updating its Attribute Info message), else undefined. */
function nextOrder(ctx: FileContext, h: HeaderModel): number | undefined {
  const msg = h.find(ATTRIBUTE_INFO)!;
  const info = decodeAttributeInfo(msg.body, ctx.sizes);
  if (!info.trackCreationOrder) return undefined;
  const order = info.maxCreationIndex ?? 0;
  msg.body = encodeAttributeInfo({ ...info, maxCreationIndex: order + 1 }, ctx.sizes);
  h.dirty = true;
  return order;
}

/**
 * Stores `attr` (replacing an attribute of the same name) in dense storage when the object's
 * attributes are dense or must become dense now (moving the compact ones along); returns false when
 * the caller should store it as a compact Attribute message. The caller has adopted the header.
 */
export async function storeDenseAttribute(ctx: FileContext, h: HeaderModel, attr: StoredAttribute): Promise<boolean> {
  if (isDense(ctx, h)) {
    const store = await DenseStore.open(ctx, h, DENSE_ATTRIBUTES);
    const old = store.all().find((e) => e.message.name === attr.name);
    if (old) await store.remove(attr.name);
    await store.insert(attr, old?.creationOrder ?? nextOrder(ctx, h));
    return true;
  }
  const compact = h.findAll(ATTRIBUTE).filter((m) => decodeAttribute(m.body, ctx.sizes).name !== attr.name);
  const maxCompact = h.encodeOptions.attributePhaseChange?.maxCompact ?? 8;
  if (compact.length + 1 <= maxCompact && attr.body.length <= MAX_MESSAGE) return false;
  if (h.source && h.source.version !== 2) {
    throw new UnsupportedError('dense attribute storage needs a version 2 object header', { address: h.address });
  }
  const tracked = h.encodeOptions.trackAttributeCreationOrder === true || h.encodeOptions.indexAttributeCreationOrder === true;
  if (!h.find(ATTRIBUTE_INFO)) {
    const info: AttributeInfoMessage = {
      trackCreationOrder: tracked,
      indexCreationOrder: h.encodeOptions.indexAttributeCreationOrder === true,
      fractalHeapAddress: UNDEFINED_ADDRESS,
      nameIndexAddress: UNDEFINED_ADDRESS,
      ...(tracked ? { maxCreationIndex: compact.length } : {}),
    };
    h.messages.push({ type: ATTRIBUTE_INFO, flags: 0, body: encodeAttributeInfo(info, ctx.sizes) });
  }
  const moved: { message: StoredAttribute; creationOrder?: number }[] = compact.map((m) => ({
    message: { name: decodeAttribute(m.body, ctx.sizes).name, body: m.body },
  }));
  moved.push({ message: attr });
  if (tracked) {
    // Creation orders: the ones the header messages carry (when unique), new ones after the largest
    // (attributes added compactly may carry none).
    const msg = h.find(ATTRIBUTE_INFO)!;
    const info = decodeAttributeInfo(msg.body, ctx.sizes);
    const seen = new Set<number>();
    let next = info.maxCreationIndex ?? 0;
    compact.forEach((m, i) => {
      const o = m.creationOrder;
      if (o !== undefined && !seen.has(o)) {
        seen.add(o);
        moved[i]!.creationOrder = o;
        next = Math.max(next, o + 1);
      }
    });
    for (const m of moved) if (m.creationOrder === undefined) m.creationOrder = next++;
    msg.body = encodeAttributeInfo({ ...info, maxCreationIndex: next }, ctx.sizes);
  }
  h.messages = h.messages.filter((m) => m.type !== ATTRIBUTE);
  await DenseStore.create(ctx, h, DENSE_ATTRIBUTES, moved);
  h.touch();
  return true;
}
