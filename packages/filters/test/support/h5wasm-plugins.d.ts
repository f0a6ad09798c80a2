/** Types for the untyped `h5wasm-plugins` package (HDF5 filter plugins compiled for h5wasm). */
declare module 'h5wasm-plugins' {
  export const plugin_names: string[];
  export function install_plugins(module: unknown, names?: string[], newPluginPath?: string | null): Promise<void>;
  export function install_local_plugins(module: unknown): void;
  export function list_plugins(module: unknown): string[];
}
