/**
 * Streaming text output with back-pressure: each line is encoded to UTF-8 into a 64 KiB block as
 * soon as it is queued (so the strings a command builds die young and the garbage collector's young
 * generation stays small), and full blocks are written to the stream; when the stream's buffer is
 * full the writer waits for 'drain', so a command that prints gigabytes holds only one block at a time.
 * @module
 */
import type { TextWriter } from './io.js';

/** Bytes gathered before a block is handed to the stream. */
const BLOCK_BYTES = 1 << 16;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A Node writable stream (it takes bytes as well as strings). */
function takesBytes(stream: TextWriter): boolean {
  return typeof (stream as { writableLength?: unknown }).writableLength === 'number';
}

/** Number of decimal digits of a non-negative safe integer. */
export function decimalDigits(x: number): number {
  if (x < 1e5) return x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 1e4 ? 4 : 5;
  let n = 6;
  for (let t = 1e6; x >= t; t *= 10) n++;
  return n;
}

/** Buffered line output to a {@link TextWriter}. */
export class LineWriter {
  private block = new Uint8Array(BLOCK_BYTES);
  private used = 0;
  private blocks = 0;
  private readonly bytesOut: boolean;

  /**
   * @param newlineFirst write the newline before each line instead of after it (h5dump's `-o`
   *   data files start with a newline and end without one).
   */
  constructor(private readonly stream: TextWriter, private readonly newlineFirst = false) {
    this.bytesOut = takesBytes(stream);
  }

  /** Queues one line (a newline is added). Call {@link maybeFlush} regularly in loops. */
  line(text: string): void {
    if (this.newlineFirst) {
      this.put('\n');
      this.put(text);
    } else {
      this.put(text);
      this.put('\n');
    }
  }

  /** Queues text without a newline. */
  text(text: string): void {
    this.put(text);
  }

  /**
   * Starts a line that is built piece by piece ({@link text}, {@link int}) and ended by
   * {@link endLine}; nothing else may be queued in between.
   */
  openLine(text: string): void {
    if (this.newlineFirst) this.put('\n');
    this.put(text);
  }

  /** Ends the line started by {@link openLine}. */
  endLine(): void {
    if (!this.newlineFirst) this.put('\n');
  }

  /**
   * Queues the decimal digits of a safe integer, written as bytes: no string is made (a number's
   * string would go through V8's number-string cache, which keeps it alive into the old generation).
   */
  int(x: number): void {
    if (this.used + 24 > this.block.length) this.grow(this.used + 24);
    const b = this.block;
    if (x < 0) {
      b[this.used++] = 45; // '-'
      x = -x;
    }
    const end = this.used + decimalDigits(x);
    let p = end;
    do {
      const q = Math.floor(x / 10);
      b[--p] = 48 + (x - q * 10);
      x = q;
    } while (x > 0);
    this.used = end;
  }

  /** Queues one ASCII character by its code. */
  ascii(code: number): void {
    if (this.used === this.block.length) this.grow(this.used + 1);
    this.block[this.used++] = code;
  }

  private grow(need: number): void {
    const bigger = new Uint8Array(Math.max(need, this.block.length * 2));
    bigger.set(this.block.subarray(0, this.used));
    this.block = bigger;
  }

  /** Encodes `text` into the block (a new, larger block when it does not fit). */
  private put(text: string): void {
    const n = text.length;
    if (n === 0) return;
    if (n <= 16 && this.used + n <= this.block.length) {
      // short text: a loop beats encodeInto's call overhead; falls back at the first non-ASCII unit
      const b = this.block;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c > 0x7f) break;
        b[this.used + i] = c;
      }
      if (i === n) {
        this.used += n;
        return;
      }
    }
    // a UTF-16 code unit takes at most 3 bytes of UTF-8
    const need = this.used + text.length * 3;
    if (need > this.block.length) this.grow(need);
    this.used += encoder.encodeInto(text, this.block.subarray(this.used)).written;
  }

  /** Half a block or more is queued: time to {@link flush}. */
  get full(): boolean {
    return this.used >= BLOCK_BYTES >> 1;
  }

  /** Writes the queued text when a block is {@link full}, waiting for the stream to drain if needed. */
  async maybeFlush(): Promise<void> {
    if (this.used >= BLOCK_BYTES >> 1) await this.flush();
  }

  /** Writes everything queued, waiting for the stream to drain if needed. */
  async flush(): Promise<void> {
    if (this.used === 0) return;
    const bytes = this.block.subarray(0, this.used);
    // (TextWriter.write is typed for strings; Node writable streams take bytes as well)
    const ok = this.stream.write(this.bytesOut ? (bytes as unknown as string) : decoder.decode(bytes));
    // a stream that queued the bytes keeps this block: the writer takes a new one
    if (this.bytesOut && (this.stream as { writableLength?: number }).writableLength !== 0) this.block = new Uint8Array(BLOCK_BYTES);
    else if (this.block.length > BLOCK_BYTES) this.block = new Uint8Array(BLOCK_BYTES);
    this.used = 0;
    if (ok === false && typeof this.stream.once === 'function') {
      await new Promise<void>((resolve) => this.stream.once!('drain', resolve));
    } else if (++this.blocks % 64 === 0) {
      // let the event loop run now and then (freed buffers are released, timers and signals run)
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** A {@link LineWriter} that hands each complete line to `out` (for APIs that take a line callback). */
export function lineSinkWriter(out: (line: string) => void): { writer: LineWriter; end(): void } {
  let pending = '';
  const writer = new LineWriter({
    write: (block: string) => {
      const parts = (pending + block).split('\n');
      pending = parts.pop()!;
      for (const l of parts) out(l);
      return true;
    },
  });
  return {
    writer,
    end: () => {
      if (pending !== '') out(pending);
      pending = '';
    },
  };
}
