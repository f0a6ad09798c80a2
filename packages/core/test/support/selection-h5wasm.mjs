// Reads every region reference of dataset "refs" in the file argv[2] with h5wasm (HDF5 2.0) and
// prints, per reference, the values of the selected elements in HDF5's iteration order (the
// referenced datasets hold their own linear offsets) — or {"error": message}.
// Run as a child process: HDF5 prints diagnostics on stderr for point selections.
import * as ns from 'h5wasm/node';

const h5 = ns.default;
await h5.ready;
const M = ns.Module; // live binding, set once ready
const f = new h5.File(process.argv[2], 'r');
const out = [];
for (const ref of f.get('refs').value) {
  try {
    const n = f.dereference(ref).metadata.total_size;
    const ptr = M._malloc(Math.max(8, n * 8));
    try {
      const status = M.get_region_data(f.file_id, ref.ref_data, BigInt(ptr));
      if (status < 0) throw new Error(`get_region_data returned ${status}`);
      out.push(Array.from(new Float64Array(M.HEAPU8.slice(ptr, ptr + n * 8).buffer)));
    } finally {
      M._free(ptr);
    }
  } catch (e) {
    out.push({ error: String(e?.message ?? e) });
  }
}
f.close();
process.stdout.write(JSON.stringify(out));
