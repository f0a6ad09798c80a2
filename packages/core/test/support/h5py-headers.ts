/**
 * Test support: runs a small h5py (HDF5 1.10.8) script that writes datasets and prints their
 * object-header addresses, then hands out the raw message bodies HDF5 wrote (object headers read
 * with chunkform's own reader).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SourceMetadataReader } from '../../src/file/metadata-reader.js';
import { DEFAULT_SIZES } from '../../src/format/bytes.js';
import { readObjectHeader, type RawMessage } from '../../src/format/object-header.js';
import { MemoryStore } from '../../src/io/byte-store.js';

/**
 * Runs `body` (Python; `f` is an open `h5py.File(path, 'w', libver='latest')`, `np` and `h5py`
 * are imported) and returns a function giving the messages of type `type` of dataset `name`.
 */
export async function h5pyMessages(body: string): Promise<(name: string, type: number) => RawMessage[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cf-h5py-msg-'));
  const path = join(dir, 'f.h5');
  const script = [
    'import h5py, numpy as np, sys, json',
    "f = h5py.File(sys.argv[1], 'w', libver='latest')",
    body,
    'names = []',
    'f.visit(lambda n: names.append(n))',
    'out = {n: h5py.h5o.get_info(f[n].id).addr for n in names}',
    'f.close()',
    'print(json.dumps(out))',
  ].join('\n');
  const addrs = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, path], { encoding: 'utf8' })) as Record<string, number>;
  const bytes = new Uint8Array(readFileSync(path));
  const reader = new SourceMetadataReader(new MemoryStore(bytes), DEFAULT_SIZES, bytes.length);
  const headers = new Map<string, RawMessage[]>();
  for (const [n, a] of Object.entries(addrs)) headers.set(n, (await readObjectHeader(reader, a)).messages);
  return (name, type) => (headers.get(name) ?? []).filter((m) => m.type === type);
}
