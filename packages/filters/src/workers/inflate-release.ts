/**
 * Inflated chunks let go of as soon as they are copied, on a filter worker. Node's `inflateSync` gives each
 * chunk a new output buffer (2 MiB for a 1024² uint16 chunk; Node has no inflate into a given buffer); the
 * worker copies it into the read's result (or unshuffles it there) and it is garbage. Freed only when the
 * worker collects, several at once, such buffers went back to the kernel in between, and every next one
 * came as new memory whose pages the worker touched for the first time: 2,000–3,600 page faults per 32 MiB
 * read, each 13–30 µs in a virtual machine that returns freed memory to its host (rdlz4 in BENCHMARKS.md).
 * Here the deflate filter's output is marked as the worker's own, and once a chunk's last filter has
 * copied it into its place (`decodeInto`: deflate itself, or the shuffle that follows it) its memory is
 * freed at once with `ArrayBuffer.prototype.transfer(0)` — the allocator then hands the same memory to
 * the next chunk. Node 20 has `transfer` behind a flag: it is taken from a new context with the flag set
 * for that moment only (./flagged-builtin.ts); without it nothing is freed early. Node only:
 * ./worker.ts is its sole importer.
 * @module
 */
import { flaggedBuiltin } from './flagged-builtin.js';
import { FilterError, type Filter } from '@chunkform/core/plugin';

type Transfer = (this: ArrayBuffer, length: number) => ArrayBuffer;

/** `ArrayBuffer.prototype.transfer` (ES2024), or null when the engine has none. */
function transferFn(): Transfer | null {
  const own = (ArrayBuffer.prototype as { transfer?: Transfer }).transfer;
  return typeof own === 'function' ? own : flaggedBuiltin<Transfer>('harmony-rab-gsab-transfer', 'ArrayBuffer.prototype.transfer');
}

let transfer: Transfer | null | undefined;

/** Buffers the deflate filter produced on this thread (nothing else holds them): freed once copied. */
const own = new WeakSet<ArrayBuffer>();
/** Smaller outputs may live in Node's shared 8 KiB allocation pool: never freed here. */
const MIN_BYTES = 64 << 10;

function mark(b: Uint8Array): Uint8Array {
  if (b.buffer instanceof ArrayBuffer && b.buffer.byteLength >= MIN_BYTES) own.add(b.buffer);
  return b;
}

/** Frees `b`'s memory when it is an inflated chunk (the view is empty afterwards). */
function release(b: Uint8Array): void {
  const ab = b.buffer as ArrayBuffer;
  if (!own.delete(ab)) return;
  transfer ??= transferFn();
  transfer?.call(ab, 0);
}

/**
 * The deflate and shuffle filters as a worker runs them: deflate's output marked as its own; deflate
 * decoding into a chunk's place (copy, then free), and shuffle's `decodeInto` freeing the inflated input
 * it has unshuffled.
 */
export function releasingFilters(deflate: Filter, shuffle: Filter): { deflate: Filter; shuffle: Filter } {
  const decode = (data: Uint8Array, ctx: Parameters<Filter['decode']>[1]) => {
    const r = deflate.decode(data, ctx);
    return r instanceof Uint8Array ? mark(r) : r.then(mark);
  };
  const unshuffleInto = shuffle.decodeInto;
  return {
    deflate: {
      ...deflate,
      decode,
      async decodeInto(data, ctx, out) {
        const r = await decode(data, ctx);
        if (r.length !== out.length) throw new FilterError(`deflate: the stream inflates to ${r.length} bytes, ${out.length} expected`, { filterId: deflate.id, filterName: deflate.name });
        out.set(r);
        release(r);
      },
    },
    shuffle: unshuffleInto
      ? {
          ...shuffle,
          async decodeInto(data, ctx, out) {
            await unshuffleInto(data, ctx, out);
            release(data);
          },
        }
      : shuffle,
  };
}
