/**
 * A {@link ByteStore} over a local file (Node only; exported from `@chunkform/core/node`).
 * @module
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { ByteStore } from './byte-store.js';

/** A local file opened for reading or reading and writing. */
export class NodeFileStore implements ByteStore {
  /** Every read allocates its own buffer. */
  readonly freshReads = true;
  private constructor(private readonly fh: FileHandle, readonly path: string, readonly writable: boolean) {}

  /** Opens `path`: mode "r" read-only, "r+" read/write existing, "w" create/truncate, "x" create exclusively. */
  static async open(path: string, mode: 'r' | 'r+' | 'w' | 'x' = 'r'): Promise<NodeFileStore> {
    const flags = mode === 'r' ? 'r' : mode === 'r+' ? 'r+' : mode === 'w' ? 'w+' : 'wx+';
    const fh = await open(path, flags);
    return new NodeFileStore(fh, path, mode !== 'r');
  }
  async size(): Promise<number> {
    return (await this.fh.stat()).size;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await this.fh.read(out, got, length - got, offset + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return got === length ? out : out.subarray(0, got);
  }
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.fh.write(bytes, done, bytes.length - done, offset + done);
      done += bytesWritten;
    }
  }
  async truncate(size: number): Promise<void> {
    await this.fh.truncate(size);
  }
  async flush(): Promise<void> {
    await this.fh.sync();
  }
  async close(): Promise<void> {
    await this.fh.close();
  }
}
