/**
 * Dense attribute storage (HDF5 spec IV.A.2.v, Attribute Info message): the {@link DenseKind} of
 * attribute messages for {@link DenseStore} (fractal heap with 8-byte heap IDs, v2 B-tree type 8
 * name index and type 9 creation-order index).
 * @module
 */
import type { HeaderModel } from '../file/header-model.js';
import { decodeAttribute } from '../format/messages/attribute.js';
import { decodeAttributeInfo, encodeAttributeInfo } from '../format/messages/attribute-info.js';
import { ATTRIBUTE_INFO } from '../format/messages/message-types.js';
import { ATTRIBUTE_HEAP_PARAMS } from './fractal-heap-writer.js';
import { attributeNameClass, attributeOrderClass } from './index-records.js';
import type { DenseKind, DenseStore } from './dense-store.js';

/** An attribute message as stored (its bytes are kept as they are, shared datatypes and all). */
export interface StoredAttribute {
  name: string;
  body: Uint8Array;
}

/**
 * The stores open in this session, by header: a constant of its own, so that reading (which only asks
 * for a store) does not reach the encoders of the kind below.
 */
const ATTRIBUTE_STORES = new WeakMap<HeaderModel, DenseStore<StoredAttribute>>();

/** Objects' attribute messages in dense storage. */
export const DENSE_ATTRIBUTES: DenseKind<StoredAttribute> = {
  infoType: ATTRIBUTE_INFO,
  decodeInfo: decodeAttributeInfo,
  encodeInfo: encodeAttributeInfo,
  heap: ATTRIBUTE_HEAP_PARAMS,
  nameClass: attributeNameClass,
  orderClass: attributeOrderClass,
  encode: (a) => a.body,
  decode: (bytes, sizes) => ({ name: decodeAttribute(bytes, sizes).name, body: bytes }),
  nameOf: (a) => a.name,
  stores: ATTRIBUTE_STORES,
};

/** The dense attribute store of a header changed in this session, if any. */
export function denseAttributeStoreOf(model: HeaderModel): DenseStore<StoredAttribute> | undefined {
  return ATTRIBUTE_STORES.get(model);
}
