/**
 * Browser stand-in for `node-file.ts` (selected by the `#node-file` import condition): opening a
 * file by path needs Node; in browsers pass a {@link ByteSource} or the file's bytes instead.
 * @module
 */
import { InvalidStateError } from '../errors.js';
import type { ByteStore } from './byte-store.js';

/** Throws: paths are only supported in Node. */
export class NodeFileStore {
  static async open(path: string): Promise<ByteStore> {
    throw new InvalidStateError(
      `cannot open "${path}" by path outside Node; pass a ByteSource, a Blob reader or the file's bytes`,
    );
  }
}
