/**
 * Link Info message (HDF5 spec IV.A.2.c, type 0x0002): creation-order tracking and the dense link storage
 * (fractal heap + v2 B-tree indexes) of a new-style group. Codec shared with the other info message.
 * @module
 */
import { DEFAULT_SIZES, UNDEFINED_ADDRESS, type SizeContext } from '../bytes.js';
import { decodeDenseStorageInfo, encodeDenseStorageInfo, type DenseStorageInfo, type DenseStorageInfoKind } from './dense-storage-info.js';

/** A decoded link info message. */
export type LinkInfoMessage = DenseStorageInfo;

const KIND: DenseStorageInfoKind = { structure: 'link info message', maxIndexBytes: 8 };

/** Decodes a link info message body (spec IV.A.2.c, version 0). */
export function decodeLinkInfo(body: Uint8Array, sizes: SizeContext = DEFAULT_SIZES, address = UNDEFINED_ADDRESS): LinkInfoMessage {
  return decodeDenseStorageInfo(body, sizes, address, KIND);
}

/** Encodes a link info message body (spec IV.A.2.c, version 0). */
export function encodeLinkInfo(msg: LinkInfoMessage, sizes: SizeContext = DEFAULT_SIZES): Uint8Array {
  return encodeDenseStorageInfo(msg, sizes, KIND);
}
