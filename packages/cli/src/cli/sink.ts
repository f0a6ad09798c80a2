/**
 * Streaming text output with back-pressure: lines are gathered into blocks of about 64 KiB and
 * written to the stream; when the stream's buffer is full the writer waits for 'drain', so a
 * command that prints gigabytes holds only one block at a time.
 * @module
 */
import type { TextWriter } from './io.js';

/** Characters gathered before a block is handed to the stream. */
const BLOCK_CHARS = 1 << 16;

/** Buffered line output to a {@link TextWriter}. */
export class LineWriter {
  private parts: string[] = [];
  private chars = 0;
  private blocks = 0;

  /**
   * @param newlineFirst write the newline before each line instead of after it (h5dump's `-o`
   *   data files start with a newline and end without one).
   */
  constructor(private readonly stream: TextWriter, private readonly newlineFirst = false) {}

  /** Queues one line (a newline is added). Call {@link maybeFlush} regularly in loops. */
  line(text: string): void {
    if (this.newlineFirst) this.parts.push('\n', text);
    else this.parts.push(text, '\n');
    this.chars += text.length + 1;
  }

  /** Queues text without a newline. */
  text(text: string): void {
    this.parts.push(text);
    this.chars += text.length;
  }

  /** Writes the queued text when a block is full, waiting for the stream to drain if needed. */
  async maybeFlush(): Promise<void> {
    if (this.chars >= BLOCK_CHARS) await this.flush();
  }

  /** Writes everything queued, waiting for the stream to drain if needed. */
  async flush(): Promise<void> {
    if (this.chars === 0 && this.parts.length === 0) return;
    const block = this.parts.join('');
    this.parts = [];
    this.chars = 0;
    const ok = this.stream.write(block);
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
