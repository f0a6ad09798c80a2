/**
 * h5wasm (HDF5 2.0 in WebAssembly) with the HDF Group's filter plugins from `h5wasm-plugins`
 * installed: the reference implementation the filter interop tests compare with.
 * @module
 */

/** Loads h5wasm's Node build and installs the plugins into it; returns the h5wasm module. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function loadH5wasmWithPlugins(): Promise<any> {
  const h5wasm = await import('h5wasm/node');
  const plugins = await import('h5wasm-plugins');
  const Module = await h5wasm.ready;
  plugins.install_local_plugins(Module);
  return h5wasm;
}
