/**
 * Child process of test/sparse-interop.test.ts (run with `node --import tsx FILE.h5`): opens a file
 * with h5wasm (HDF5 2.0 in WebAssembly), walks every link from the root, and prints one JSON report on
 * stdout — per path: the object kind, and for datasets shape, dtype and values, or the error thrown.
 * HDF5's own diagnostics (HDF5-DIAG) go to this process's stderr, where the parent reads them.
 * @module
 */
import h5wasm from 'h5wasm/node';

interface Entry {
  path: string;
  kind?: string;
  shape?: number[] | null;
  dtype?: unknown;
  values?: unknown[];
  error?: string;
}

async function main(file: string): Promise<void> {
  await h5wasm.ready;
  const f = new h5wasm.File(file, 'r');
  const out: Entry[] = [];
  const walk = (group: InstanceType<typeof h5wasm.Group>, prefix: string): void => {
    for (const name of group.keys()) {
      const path = `${prefix}/${name}`;
      const e: Entry = { path };
      out.push(e);
      try {
        const node = group.get(name);
        if (node instanceof h5wasm.Group) {
          e.kind = 'group';
          walk(node, path);
        } else if (node instanceof h5wasm.Dataset) {
          e.kind = 'dataset';
          e.shape = node.shape;
          e.dtype = node.dtype;
          const v = node.value as unknown;
          e.values = ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : Array.isArray(v) ? v : [v];
        } else {
          e.kind = node === null ? 'null' : (node?.constructor?.name ?? typeof node);
        }
      } catch (err) {
        e.error = err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
      }
    }
  };
  walk(f, '');
  f.close();
  process.stdout.write(JSON.stringify(out));
}

main(process.argv[2]!).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`probe failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(2);
  },
);
