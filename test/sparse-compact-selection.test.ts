/**
 * The selection-section filter presets of sparse datasets (`filters: { selection: 'compact' }` and
 * `'compact-zstd'`): the stored pipeline (shuffle whose element size is one block record, then
 * deflate 9 / zstd 19), round trips through close/reopen, the stored section decoding by hand with the
 * stored parameters (what any HDF5 reader does), the preset after shorthand filters, unknown presets,
 * and h5py still reading the dense dataset of the same file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { createFile, openFile, selectHyperslab, selectionRuns, selectPoints, type CreateDatasetOptions, type Dataset } from '../packages/core/src/index.js';
import { ValueError } from '../packages/core/src/errors.js';
import { decodeFilterPipelineV3 } from '../packages/core/src/format/messages/filter-pipeline-v3.js';
import { FILTER_PIPELINE } from '../packages/core/src/format/messages/message-types.js';
import { selectionRecordSize, sparseSectionPipelines as sectionPipelinesFromOptions } from '../packages/format-sparse/src/index.js';
import { decodeSelection } from '../packages/core/src/selection/serialize/index.js';
import { unshuffle } from '../packages/filters/src/index.js';
import { PYTHON, requireH5py } from './oracle/fixtures.js';

const TMP = mkdtempSync(join(tmpdir(), 'chunkform-compact-sel-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Point groups in frame `f` of a [frames, h, w] dataset: coordinates and values. */
function frame(f: number, h: number, w: number): { coords: number[][]; values: number[] } {
  let s = (f + 1) * 2654435761;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0), s >>> 8);
  const seen = new Set<number>();
  for (let g = 0; g < 30; g++) {
    let p = (1 + (rnd() % (h - 2))) * w + 1 + (rnd() % (w - 2));
    for (let k = 0; k < 7; k++) {
      seen.add(p);
      const q = p + [1, -1, w, -w][rnd() & 3]!;
      if (q >= 0 && q < h * w && Math.abs((q % w) - (p % w)) <= 1) p = q;
    }
  }
  const lin = [...seen].sort((a, b) => a - b);
  return { coords: lin.map((p) => [f, Math.floor(p / w), p % w]), values: lin.map((p) => (p * 7 + f) % 65521) };
}

const STORED_PIPELINES = (ds: Dataset) => decodeFilterPipelineV3(ds.headerModel.find(FILTER_PIPELINE)!.body).sections;

describe('selection filter presets of sparse datasets', () => {
  it('builds the pipelines: preset filters after the shorthands, order recorded', () => {
    const a = sectionPipelinesFromOptions({ filters: { selection: 'compact', values: [{ id: 1, clientData: [1] }] } }, '/d');
    expect(a.pipelines[0]!.filters.map((f) => [f.id, f.clientData])).toEqual([[2, []], [1, [9]]]);
    expect(a.pipelines[1]!.filters.map((f) => f.id)).toEqual([1]);
    expect(a.order).toEqual([0, 1]);
    expect(a.selectionRecordShuffle).toBe(0);
    const b = sectionPipelinesFromOptions({ compression: 'gzip', fletcher32: true, filters: { values: [], selection: 'compact-zstd' } }, '/d');
    expect(b.pipelines[0]!.filters.map((f) => f.id)).toEqual([1, 3, 2, 32015]);
    expect(b.pipelines[0]!.filters[3]!.clientData).toEqual([19]);
    expect(b.selectionRecordShuffle).toBe(2);
    expect(sectionPipelinesFromOptions({ filters: { selection: [{ id: 2 }] } }, '/d').selectionRecordShuffle).toBeUndefined();
    for (const bad of ['fast', 'toString', '']) {
      expect(() => sectionPipelinesFromOptions({ filters: { selection: bad as 'compact' } }, '/d')).toThrow(ValueError);
    }
    expect(() => sectionPipelinesFromOptions({ filters: { selection: 'fast' as 'compact' } }, '/d')).toThrow(/unknown selection filter preset "fast"/);
  });

  it('sizes the shuffle element as one block record of the chunk', () => {
    expect(selectionRecordSize([1, 2048, 2048])).toBe(12);
    expect(selectionRecordSize([5])).toBe(4);
    expect(selectionRecordSize([65536, 4])).toBe(8);
    expect(selectionRecordSize([65537, 4])).toBe(16);
  });

  for (const preset of ['compact', 'compact-zstd'] as const) {
    it(`${preset}: round trips point groups, stores shuffle(12) + ${preset === 'compact' ? 'deflate 9' : 'zstd 19'}, and beats deflate 9 alone`, async () => {
      const H = 128;
      const W = 160;
      const FRAMES = 6;
      const sizes: Record<string, number> = {};
      const variants: [string, Partial<CreateDatasetOptions>][] = [
        ['preset', { filters: { selection: preset, values: [{ id: 2 }, { id: 1, clientData: [1] }] } }],
        ['deflate9', { filters: { selection: [{ id: 1, clientData: [9] }], values: [{ id: 2 }, { id: 1, clientData: [1] }] } }],
      ];
      for (const [name, opts] of variants) {
        const path = join(TMP, `${preset}-${name}.h5`);
        const f = await createFile(path);
        await f.createDataset('dense', { dtype: '<i4', shape: [3], data: [4, 5, 6] });
        const ds = await f.createDataset('frames', { layout: 'sparse', dtype: '<u2', shape: [0, H, W], maxShape: [null, H, W], chunks: [1, H, W], ...opts });
        for (let i = 0; i < FRAMES; i++) {
          await ds.resize([i + 1, H, W]);
          const fr = frame(i, H, W);
          await ds.write(fr.values, selectPoints(fr.coords));
        }
        await f.close();
        const g = await openFile(path);
        const rds = (await g.get('frames')) as Dataset;
        if (name === 'preset') {
          const pl = STORED_PIPELINES(rds);
          const sel = pl[0]!;
          expect(sel.filters.map((x) => [x.id, x.clientData])).toEqual([[2, [12]], preset === 'compact' ? [1, [9]] : [32015, [19]]]);
        }
        let coord = 0;
        await rds.iterateStructChunks((info) => {
          coord += info.sectionSizes[0]!;
        });
        sizes[name] = coord;
        for (let i = 0; i < FRAMES; i++) {
          const fr = frame(i, H, W);
          const { selection, values } = await rds.readDefined(selectHyperslab({ start: [i, 0, 0], block: [1, H, W] }));
          const got = Array.from(selectionRuns(selection, [FRAMES, H, W]));
          const want = Array.from(selectionRuns(selectPoints(fr.coords), [FRAMES, H, W]));
          expect(got).toEqual(want);
          expect(Array.from(values as Uint16Array)).toEqual(fr.values);
          if (name === 'preset' && preset === 'compact') {
            // Decode section 0 by hand with the stored parameters: inflate, unshuffle by 12, checksum off.
            const { sections } = await rds.readStructChunk([i, 0, 0]);
            const raw = unshuffle(inflateSync(sections[0]!), 12);
            const dec = decodeSelection(raw.subarray(0, raw.length - 4));
            expect(dec.extent.dims).toEqual([1, H, W]);
            const rel = selectPoints(fr.coords.map(([, y, x]) => [0, y!, x!]));
            expect(Array.from(selectionRuns(dec.selection, [1, H, W]))).toEqual(Array.from(selectionRuns(rel, [1, H, W])));
          }
        }
        await g.close();
      }
      expect(sizes.preset!).toBeLessThan(sizes.deflate9!);
    });
  }

  it('h5py still reads the dense dataset of a file with a compact sparse dataset', () => {
    requireH5py();
    const out = execFileSync(PYTHON, ['-c', "import h5py, sys; print(h5py.File(sys.argv[1], 'r')['dense'][()].tolist())", join(TMP, 'compact-preset.h5')], { encoding: 'utf8' });
    expect(out.trim()).toBe('[4, 5, 6]');
  });
});
