/**
 * What a tool command writes to: two text writers (stdout for output, stderr for diagnostics and
 * the progress bar). Tests pass string collectors; `chunkform` passes the process streams.
 * @module
 */

/** Something text can be written to. */
export interface TextSink {
  write(text: string): unknown;
  /** True for a terminal (the progress bar shows only there). */
  isTTY?: boolean;
}

/** The streams of one command run. */
export interface CommandIO {
  stdout: TextSink;
  stderr: TextSink;
}
