/**
 * Attribute Info message (HDF5 spec IV.A.2.v, type 0x0015): creation-order tracking and the dense attribute storage
 * (fractal heap + v2 B-tree indexes) of an object. Codec shared with the other info message.
 * @module
 */
import { DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';
import { decodeDenseStorageInfo, encodeDenseStorageInfo, type DenseStorageInfo, type DenseStorageInfoKind } from './dense-storage-info.js';

/** A decoded attribute info message. */
export type AttributeInfoMessage = DenseStorageInfo;

const KIND: DenseStorageInfoKind = { structure: 'attribute info message', maxIndexBytes: 2 };

/** Decodes a attribute info message body (spec IV.A.2.v, version 0). */
export function decodeAttributeInfo(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): AttributeInfoMessage {
  return decodeDenseStorageInfo(body, sizes, address, KIND);
}

/** Encodes a attribute info message body (spec IV.A.2.v, version 0). */
export function encodeAttributeInfo(msg: AttributeInfoMessage, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  return encodeDenseStorageInfo(msg, sizes, KIND);
}
