/**
 * {@link HttpRangeSource}: reads an HDF5 file over HTTP with `Range` requests (RFC 9110 §14), from any
 * server that honours them (nginx, Apache, S3-style object stores, CDNs). Browser-safe: it needs only
 * `fetch`. Bytes are fetched in aligned blocks kept in a cache with a byte budget; adjacent missing blocks
 * are fetched with one request; a block already being fetched is awaited, not fetched again; transient
 * failures (network errors, 5xx, 429, short bodies) are retried with exponential backoff; a server that
 * ignores `Range` or a file that changes under the reader (ETag / Last-Modified) gets a typed
 * {@link RemoteSourceError}.
 * @module
 */
import { RemoteSourceError, TruncatedError } from '../errors.js';
import type { ByteSource } from './byte-store.js';

/** Options of {@link HttpRangeSource.open}. */
export interface HttpRangeOptions {
  /** Extra request headers (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Bytes per cached block; requests cover whole blocks (default 64 KiB). */
  blockSize?: number;
  /** Byte budget of the block cache (default 32 MiB; least recently used blocks go first). */
  cacheBytes?: number;
  /** Attempts per request for transient failures (default 4). */
  attempts?: number;
  /** First retry delay in ms, doubled on each retry (default 100). */
  retryDelayMs?: number;
}

/** Counters of what a source fetched (for tests and tuning). */
export interface HttpRangeStats {
  /** HTTP requests sent (retries included). */
  requests: number;
  /** Body bytes received. */
  bytes: number;
}

const DEFAULT_BLOCK = 64 << 10;
const DEFAULT_CACHE = 32 << 20;

/** `bytes a-b/total` of a Content-Range header. */
function parseContentRange(v: string | null): { start: number; end: number; total: number | null } | null {
  const m = v ? /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(v.trim()) : null;
  if (!m) return null;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) };
}

/** A transient failure: worth another attempt. */
class Retry extends Error {}

/** A file read over HTTP range requests. */
export class HttpRangeSource implements ByteSource {
  /** What was fetched so far. */
  readonly stats: HttpRangeStats = { requests: 0, bytes: 0 };
  private readonly blocks = new Map<number, Uint8Array>();
  private readonly inFlight = new Map<number, Promise<void>>();
  private cached = 0;
  private readonly fetchFn: typeof fetch;
  private readonly blockSize: number;
  private readonly cacheBytes: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private validator: { etag: string | null; lastModified: string | null } | null = null;
  private total = 0;

  private constructor(readonly url: string, private readonly opts: HttpRangeOptions) {
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new RemoteSourceError(`cannot read ${url}: no fetch() in this runtime`, { path: url });
    // called as a plain function: browsers throw "Illegal invocation" for fetch called as a method of this
    this.fetchFn = (input, init) => f(input, init);
    this.blockSize = opts.blockSize ?? DEFAULT_BLOCK;
    this.cacheBytes = Math.max(opts.cacheBytes ?? DEFAULT_CACHE, this.blockSize);
    this.attempts = Math.max(1, opts.attempts ?? 4);
    this.retryDelayMs = opts.retryDelayMs ?? 100;
    if (!(Number.isInteger(this.blockSize) && this.blockSize >= 512)) {
      throw new RemoteSourceError(`blockSize must be an integer ≥ 512, got ${this.blockSize}`, { path: url });
    }
  }

  /**
   * Opens `url`: its first block is fetched (it holds the superblock), which also gives the file size
   * and the validators (ETag, Last-Modified) later responses must match.
   */
  static async open(url: string | URL, opts: HttpRangeOptions = {}): Promise<HttpRangeSource> {
    const s = new HttpRangeSource(String(url), opts);
    await s.fetchBlocks(0, 1);
    return s;
  }

  async size(): Promise<number> {
    return this.total;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.total, offset + length);
    if (offset >= end) return new Uint8Array(0);
    const first = Math.floor(offset / this.blockSize);
    const last = Math.floor((end - 1) / this.blockSize);
    await this.ensure(first, last);
    if (first === last) {
      const b = this.blocks.get(first)!;
      const at = offset - first * this.blockSize;
      return b.slice(at, at + (end - offset));
    }
    const out = new Uint8Array(end - offset);
    for (let i = first; i <= last; i++) {
      const b = this.blocks.get(i)!;
      const blockStart = i * this.blockSize;
      const from = Math.max(offset, blockStart) - blockStart;
      const to = Math.min(end, blockStart + b.length) - blockStart;
      out.set(b.subarray(from, to), blockStart + from - offset);
    }
    return out;
  }

  async close(): Promise<void> {
    this.blocks.clear();
    this.cached = 0;
  }

  /** Makes blocks `first…last` present: awaits those in flight, fetches runs of missing ones with one request each. */
  private async ensure(first: number, last: number): Promise<void> {
    const waits: Promise<void>[] = [];
    let runStart = -1;
    const flush = (runEnd: number): void => {
      if (runStart < 0) return;
      waits.push(this.fetchBlocks(runStart, runEnd - runStart));
      runStart = -1;
    };
    for (let i = first; i <= last; i++) {
      const pending = this.inFlight.get(i);
      if (this.blocks.has(i)) {
        this.touch(i);
        flush(i);
      } else if (pending) {
        flush(i);
        waits.push(pending);
      } else if (runStart < 0) runStart = i;
    }
    flush(last + 1);
    await Promise.all(waits);
    // A block evicted by a concurrent read between its arrival and now is fetched again (rare: the
    // cache budget is smaller than the bytes read at once).
    for (let i = first; i <= last; i++) if (!this.blocks.has(i)) return this.ensure(first, last);
  }

  /** Fetches `count` blocks starting at block `first` with one request and caches them. */
  private fetchBlocks(first: number, count: number): Promise<void> {
    const p = this.fetchRange(first * this.blockSize, count * this.blockSize).then((bytes) => {
      for (let k = 0; k < count; k++) {
        const part = bytes.subarray(k * this.blockSize, Math.min(bytes.length, (k + 1) * this.blockSize));
        if (part.length === 0) break;
        this.store(first + k, part);
      }
    });
    const tracked = p.finally(() => {
      for (let k = 0; k < count; k++) if (this.inFlight.get(first + k) === tracked) this.inFlight.delete(first + k);
    });
    for (let k = 0; k < count; k++) this.inFlight.set(first + k, tracked);
    return tracked;
  }

  /** Keeps a block, evicting the least recently used ones over the budget. */
  private store(i: number, bytes: Uint8Array): void {
    const old = this.blocks.get(i);
    if (old) this.cached -= old.length;
    this.blocks.set(i, bytes);
    this.cached += bytes.length;
    for (const [k, b] of this.blocks) {
      if (this.cached <= this.cacheBytes) break;
      if (k === i) continue;
      this.blocks.delete(k);
      this.cached -= b.length;
    }
  }

  /** Marks a block most recently used (Map order is insertion order). */
  private touch(i: number): void {
    const b = this.blocks.get(i)!;
    this.blocks.delete(i);
    this.blocks.set(i, b);
  }

  /** GETs bytes `[start, start + length)` (clipped to the file), retrying transient failures. */
  private async fetchRange(start: number, length: number): Promise<Uint8Array> {
    let delay = this.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.fetchOnce(start, length);
      } catch (e) {
        if (!(e instanceof Retry) || attempt >= this.attempts) {
          if (e instanceof Retry) {
            throw new RemoteSourceError(`${this.url}: ${e.message} (after ${attempt} attempts)`, { path: this.url });
          }
          throw e;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }

  private async fetchOnce(start: number, length: number): Promise<Uint8Array> {
    const want = this.validator ? Math.min(length, this.total - start) : length;
    const headers: Record<string, string> = { ...this.opts.headers, Range: `bytes=${start}-${start + want - 1}` };
    this.stats.requests++;
    let res: Response;
    try {
      res = await this.fetchFn(this.url, { headers });
    } catch (e) {
      throw new Retry(`request failed (${e instanceof Error ? e.message : String(e)})`);
    }
    if (res.status >= 500 || res.status === 429 || res.status === 408) {
      await res.body?.cancel();
      throw new Retry(`HTTP ${res.status} ${res.statusText}`);
    }
    if (res.status === 416 && start === 0 && !this.validator) {
      this.validator = { etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified') };
      this.total = 0;
      return new Uint8Array(0);
    }
    if (res.status !== 206 && res.status !== 200) {
      await res.body?.cancel();
      throw new RemoteSourceError(`${this.url}: HTTP ${res.status} ${res.statusText}`, { path: this.url });
    }
    this.checkValidators(res);
    let body: Uint8Array;
    try {
      body = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      throw new Retry(`response body cut off (${e instanceof Error ? e.message : String(e)})`);
    }
    this.stats.bytes += body.length;
    if (res.status === 200) {
      // The whole file. Fine for the first request of a file no larger than it; else the server ignores Range.
      if (!this.validator && start === 0 && body.length <= length) {
        this.total = body.length;
        return body;
      }
      throw new RemoteSourceError(
        `${this.url}: the server ignores Range requests (HTTP 200 with the whole file); serve the file from a server that supports them`,
        { path: this.url },
      );
    }
    const range = parseContentRange(res.headers.get('content-range'));
    if (!range || range.start !== start) {
      throw new RemoteSourceError(`${this.url}: bad Content-Range "${res.headers.get('content-range')}" for bytes ${start}-${start + want - 1}`, {
        path: this.url,
      });
    }
    if (!this.validator) {
      if (range.total === null) throw new RemoteSourceError(`${this.url}: the server does not report the file size in Content-Range`, { path: this.url });
      this.total = range.total;
    } else if (range.total !== null && range.total !== this.total) {
      throw this.changed(`its size changed from ${this.total} to ${range.total} bytes`);
    }
    const expected = Math.min(start + want, this.total) - start;
    if (body.length < expected) {
      if (range.end + 1 - start < expected) {
        throw new TruncatedError(`${this.url}: the server sent bytes ${range.start}-${range.end} for ${start}-${start + expected - 1}`, { path: this.url });
      }
      throw new Retry(`short response: ${body.length} of ${expected} bytes`);
    }
    if (!this.validator) this.validator = { etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified') };
    return body.length > expected ? body.subarray(0, expected) : body;
  }

  /** Throws when the response's ETag or Last-Modified differs from the first response's. */
  private checkValidators(res: Response): void {
    const v = this.validator;
    if (!v) return;
    const etag = res.headers.get('etag');
    const lastModified = res.headers.get('last-modified');
    if (v.etag !== null && etag !== null && etag !== v.etag) throw this.changed(`its ETag changed from ${v.etag} to ${etag}`);
    if (v.lastModified !== null && lastModified !== null && lastModified !== v.lastModified) {
      throw this.changed(`it was modified (${v.lastModified} → ${lastModified})`);
    }
  }

  private changed(what: string): RemoteSourceError {
    return new RemoteSourceError(`${this.url}: the file changed on the server while it was read (${what}); open it again`, { path: this.url });
  }
}
