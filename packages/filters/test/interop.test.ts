/**
 * Interop with HDF5 1.10.8 (Debian h5py): chunks h5py wrote with each filter decode here to the
 * bytes HDF5 stores without filters, and chunks encoded here — written with write_direct_chunk —
 * read back in h5py as the original values. Without deflate, our output must match HDF5's byte for
 * byte (for lossy scale-offset too: same rounding, same single-precision arithmetic).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeChunk, encodeChunk, type PipelineContext, type FilterPipeline, type Filter } from '@chunkform/core/plugin';
import { ALL_FILTERS, decodeLimit, deflateBackend } from '../src/index.js';
import { zlibCompress, zlibDecompress } from '../src/deflate/zlib-fflate.js';
import { chunkBytes } from '../src/util/chunk.js';

const PY = '/usr/bin/python3';
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'support/h5filters.py');

interface CaseChunk {
  offset: number[];
  coords: number[];
  mask: number;
  raw: string;
  twin: string;
  orig: string;
}
interface Case {
  name: string;
  shape: number[];
  chunkDims: number[];
  elementSize: number;
  dtype: string;
  filters: { id: number; flags: number; clientData: number[]; name: string }[];
  chunks: CaseChunk[];
}

const dir = mkdtempSync(join(tmpdir(), 'cf-filters-'));
execFileSync(PY, [SCRIPT, 'make', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { hdf5: string; cases: Case[] };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nodeResolve = (id: number) => ALL_FILTERS.find((f) => f.id === id);
/** The deflate filter on the browser backend (fflate), to check it against HDF5 too. */
const fflateDeflate: Filter = {
  id: 1,
  name: 'deflate',
  encode: (d, ctx) => zlibCompress(d, ctx.clientData[0] ?? 6),
  decode: (d, ctx) => zlibDecompress(d, chunkBytes(ctx), decodeLimit(ctx)),
};
const fflateResolve = (id: number) => (id === 1 ? fflateDeflate : nodeResolve(id));
const read = (f: string) => new Uint8Array(readFileSync(join(dir, f)));

function setup(c: Case): { pipeline: FilterPipeline; ctx: PipelineContext } {
  return {
    pipeline: { filters: c.filters.map((f) => ({ id: f.id, flags: f.flags, clientData: f.clientData })) },
    ctx: { datatype: { class: 'opaque', size: c.elementSize, tag: '' }, elementSize: c.elementSize, chunkDims: c.chunkDims },
  };
}

const LOSSY: Record<string, number> = { so_f32_d2: 1e-2, so_f64_d3: 1e-3, so_f64be_fill: 1e-3, so_f32_gzip: 1e-1 };

it('uses node:zlib under Node', () => expect(deflateBackend).toBe('node'));

describe(`filters against HDF5 ${manifest.hdf5}`, () => {
  const runs = manifest.cases.flatMap((c) =>
    c.filters.some((f) => f.id === 1) ? [{ c, zlib: 'node', resolve: nodeResolve }, { c, zlib: 'fflate', resolve: fflateResolve }] : [{ c, zlib: '', resolve: nodeResolve }],
  );
  for (const { c, zlib, resolve } of runs) {
    describe(zlib ? `${c.name} (${zlib})` : c.name, () => {
      const { pipeline, ctx } = setup(c);
      const hasDeflate = zlib !== '';

      it('decodes the chunks h5py wrote to the unfiltered bytes', async () => {
        for (const ch of c.chunks) {
          const got = await decodeChunk(read(ch.raw), pipeline, ch.mask, resolve, ctx, { path: '/d', chunk: ch.coords });
          expect(Buffer.from(got).equals(Buffer.from(read(ch.twin))), `chunk [${ch.coords}]`).toBe(true);
        }
      });

      it.skipIf(hasDeflate)('encodes the data h5py wrote to the same bytes as HDF5', async () => {
        // no zlib in the pipeline: the output is fully determined, so it must be HDF5's
        for (const ch of c.chunks) {
          const enc = await encodeChunk(read(ch.orig), pipeline, resolve, ctx, { path: '/d', chunk: ch.coords });
          expect(enc.filterMask).toBe(0);
          expect(Buffer.from(enc.bytes).equals(Buffer.from(read(ch.raw))), `chunk [${ch.coords}]`).toBe(true);
        }
      });

      it('encodes chunks h5py reads back as the same values', async () => {
        const out: { offset: number[]; mask: number; file: string }[] = [];
        for (const [k, ch] of c.chunks.entries()) {
          const enc = await encodeChunk(read(ch.twin), pipeline, resolve, ctx, { path: '/d', chunk: ch.coords });
          expect(enc.filterMask).toBe(0);
          const file = `${c.name}.ours${k}.bin`;
          writeFileSync(join(dir, file), enc.bytes);
          out.push({ offset: ch.offset, mask: enc.filterMask, file });
        }
        writeFileSync(join(dir, `${c.name}.ours.json`), JSON.stringify({ chunks: out }));
        const r = JSON.parse(execFileSync(PY, [SCRIPT, 'write', dir, c.name], { encoding: 'utf8' })) as { equal: boolean; maxdiff: number };
        if (c.name in LOSSY) expect(r.maxdiff).toBeLessThanOrEqual(LOSSY[c.name]!);
        else expect(r.equal).toBe(true);
      });
    });
  }
});
