/**
 * {@link BlobSource}: reads an HDF5 file from a `Blob` or `File` (a file the user picked or dropped in a
 * browser, or a `Blob` in Node ≥ 20) without loading it whole: each read slices the blob.
 * @module
 */
import type { ByteSource } from './byte-store.js';

/** A file read from a `Blob` / `File`. */
export class BlobSource implements ByteSource {
  readonly freshReads = true;
  /** @param blob the file's bytes (not copied). */
  constructor(private readonly blob: Blob) {}

  async size(): Promise<number> {
    return this.blob.size;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.blob.size, offset + length);
    if (offset >= end) return new Uint8Array(0);
    return new Uint8Array(await this.blob.slice(offset, end).arrayBuffer());
  }

  async readInto(offset: number, target: Uint8Array): Promise<number> {
    const bytes = await this.read(offset, target.length);
    target.set(bytes);
    return bytes.length;
  }
}
