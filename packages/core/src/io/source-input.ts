/**
 * What {@link openFile} accepts, turned into a {@link ByteSource}: `http(s)` URLs (strings or `URL`s) read
 * with range requests, `Blob`s / `File`s, bytes, and any `ByteSource`. Paths are opened by the caller
 * (Node's file store). Browser-safe.
 * @module
 */
import { BlobSource } from './blob-source.js';
import { MemoryStore, type ByteSource } from './byte-store.js';
import { HttpRangeSource, type HttpRangeOptions } from './http-range.js';

/** Anything {@link openFile} opens besides a path: a URL, a Blob or File, the bytes, or a ByteSource. */
export type FileSourceInput = URL | Blob | Uint8Array | ArrayBuffer | ByteSource;

/** True for strings that name an `http:` or `https:` URL rather than a path. */
export function isHttpUrl(s: string): boolean {
  return /^https?:\/\//i.test(s);
}

/** True for a `URL`, `Blob` or `File` (sources {@link toByteSource} reads; never writable). */
export function isUrlOrBlob(x: unknown): x is URL | Blob {
  return (typeof URL !== 'undefined' && x instanceof URL) || (typeof Blob !== 'undefined' && x instanceof Blob);
}

/** The source and the name errors use for `src`. */
export async function toByteSource(src: string | FileSourceInput, http: HttpRangeOptions = {}): Promise<{ source: ByteSource; name: string }> {
  if (typeof src === 'string') return { source: await HttpRangeSource.open(src, http), name: src };
  if (typeof URL !== 'undefined' && src instanceof URL) return { source: await HttpRangeSource.open(src, http), name: src.href };
  if (src instanceof Uint8Array || src instanceof ArrayBuffer) {
    return { source: new MemoryStore(src instanceof Uint8Array ? src : new Uint8Array(src)), name: '(memory)' };
  }
  if (typeof Blob !== 'undefined' && src instanceof Blob) {
    return { source: new BlobSource(src), name: typeof File !== 'undefined' && src instanceof File ? src.name : '(blob)' };
  }
  return { source: src as ByteSource, name: '(source)' };
}
