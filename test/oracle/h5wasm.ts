/**
 * Loads h5wasm (the HDF5 C library compiled to WebAssembly; a third, independent oracle) for Node:
 * its Node build reads and writes the real file system.
 * @module
 */
import type h5wasmType from 'h5wasm/node';

/** The h5wasm namespace (File, Group, Dataset ...). */
export type H5wasm = typeof h5wasmType;

let loaded: Promise<H5wasm> | undefined;

/** h5wasm, after its WebAssembly module is ready. */
export function loadH5wasm(): Promise<H5wasm> {
  loaded ??= (async () => {
    const mod = (await import('h5wasm/node')).default;
    await mod.ready;
    return mod;
  })();
  return loaded;
}
