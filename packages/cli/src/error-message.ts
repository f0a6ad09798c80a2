/**
 * How the CLI words an error: chunkform's typed errors (whose messages already name the object,
 * structure and address) as they are, anything else prefixed with its class name.
 * @module
 */
import { H5Error } from '@chunkform/core';

/** An error's message for display (one line, no stack). */
export function errorMessage(e: unknown): string {
  if (e instanceof H5Error) return e.message;
  if (e instanceof Error) return e.name === 'Error' ? e.message : `${e.name}: ${e.message}`;
  return String(e);
}
