/**
 * What a tool command writes to: the program's streams ({@link CliIO}), under the names the tool
 * commands use. Tests pass string collectors; `chunkform` passes the process streams.
 * @module
 */
export type { TextWriter as TextSink, CliIO as CommandIO } from '../../cli/io.js';
