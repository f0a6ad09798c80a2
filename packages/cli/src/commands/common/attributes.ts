/**
 * Copying an object's attributes to another object, keeping each attribute's datatype and shape.
 * @module
 */
import type { Attributes } from '@chunkform/core';

/** Copies every attribute of `from` to `to` (same names, datatypes, shapes and values). */
export async function copyAttributes(from: Attributes, to: Attributes): Promise<void> {
  for (const name of await from.keys()) {
    const shape = await from.shape(name);
    if (shape === null) continue; // an empty (null-dataspace) attribute has no value to write
    const value = await from.get(name);
    await to.set(name, value, { dtype: await from.dtype(name), shape });
  }
}
