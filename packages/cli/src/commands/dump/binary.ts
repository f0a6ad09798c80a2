/**
 * `dump -b ORDER -o FILE`: dataset values as raw bytes (h5dump's binary output) — native/little
 * endian, big endian, or the file's own order — written slab by slab with back-pressure.
 * @module
 */
import type { WriteStream } from 'node:fs';
import type { Datatype, Values } from '@chunkform/core';
import { UsageError } from '../../cli/io.js';
import type { BinaryOrder } from './options.js';

/** Raw value output of `dump -b`. */
export class BinaryWriter {
  constructor(private readonly stream: WriteStream, private readonly order: BinaryOrder) {}

  /** Writes one slab of values of type `t`. */
  async write(values: Values, t: Datatype): Promise<void> {
    const base = t.class === 'enum' ? t.base : t;
    if (base.class !== 'integer' && base.class !== 'float' && base.class !== 'bitfield') {
      throw new UsageError(`--binary writes integer and float datasets only, not ${t.class}`);
    }
    const v = values as unknown as ArrayBufferView;
    if (!ArrayBuffer.isView(v)) throw new UsageError(`--binary writes integer and float datasets only, not ${t.class}`);
    let bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    const big = this.order === 'BE' || (this.order === 'FILE' && base.order === 'BE');
    if (big && base.size > 1) {
      const s = base.size;
      const swapped = new Uint8Array(bytes.length);
      for (let i = 0; i < bytes.length; i += s) for (let j = 0; j < s; j++) swapped[i + j] = bytes[i + s - 1 - j]!;
      bytes = swapped;
    }
    if (!this.stream.write(bytes)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }

  /** Nothing is buffered here (the stream is ended by the caller). */
  async flush(): Promise<void> {}
}
